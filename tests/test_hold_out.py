"""A run's own held-out benchmarks (`iteration.hold_out`, selfplay/hold_out.py): the tune slice of
the train split, and every training input it is kept out of — source problems (by name, as a
variant or subgoal, by statement), the supervised records, the driver."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest

from alphaprover.config import UsageError
from alphaprover.iterate_cmd import run_hold_out
from alphaprover.train_setup import load_supervised
from lean_interface.api import Theorem
from lean_interface.problems.benchmarks import (BUNDLED, dev_problem_names, load_benchmark, minif2f_test_names,
                                                tune_problem_names)
from selfplay.actor import SourceProblem
from selfplay.expert_iteration import ExpertIteration, ExpertIterationConfig
from selfplay.hold_out import HoldOut
from selfplay.sources import load_all

VALID = BUNDLED["minif2f-rocq-valid"][0]
TUNE = "minif2f-rocq-tune"
CHECKPOINT = Path(__file__).resolve().parent.parent / "checkpoints" / "alphaprover-coq-small"


def names(spec: str) -> set[str]:
    return {problem.name for problem in load_benchmark(spec)}


def test_the_tune_slice_is_every_eighth_train_problem_and_fit_is_the_rest() -> None:
    train = sorted(names("minif2f-rocq-train"))
    assert len(train) == 213 and not set(train) & dev_problem_names()
    assert tune_problem_names() == frozenset(train[4::8]) and names(TUNE) == set(train[4::8])
    assert len(names(TUNE)) == 27
    assert names("minif2f-rocq-fit") == set(train) - names(TUNE)
    assert not names(TUNE) & (dev_problem_names() | minif2f_test_names())


def test_a_tune_problem_its_variants_subgoals_and_its_statement_renamed_are_held_out() -> None:
    hold_out = HoldOut.of([TUNE])
    tune = next(p for p in load_benchmark(TUNE) if p.theorem is not None)
    for spelled in (tune.name, f"minif2f-rocq-train/{tune.name}", f"variants/{tune.name}_v3",
                    f"subgoals/{tune.name}_sg4_1", f"{tune.name}_b2"):
        assert hold_out.reason(spelled) == f"{tune.name} (hold_out: {TUNE})", spelled
        assert not hold_out.keeps_lemma(spelled)
    renamed = Theorem("innocent_v1", tune.theorem.header, tune.theorem.statement.replace(tune.name, "innocent_v1", 1))
    assert "states a hold_out problem" in (hold_out.reason("variants/innocent_v1", renamed) or "")
    fit = next(p for p in load_benchmark("minif2f-rocq-fit") if p.theorem is not None)
    assert hold_out.reason(f"minif2f-rocq-train/{fit.name}", fit.theorem) is None
    assert hold_out.keeps_lemma(fit.name) and hold_out.keeps_lemma("") and hold_out.keeps_lemma("Rplus_comm")


def test_nothing_held_out_keeps_everything_and_an_unknown_benchmark_is_a_usage_error() -> None:
    empty = HoldOut.of([])
    assert not empty and empty.reason(sorted(tune_problem_names())[0]) is None
    with pytest.raises(UsageError, match="iteration.hold_out: benchmark 'no-such-benchmark'"):
        run_hold_out(("no-such-benchmark",))


def test_the_train_split_and_its_variants_lose_exactly_the_tune_problems(tmp_path: Path) -> None:
    """The sources a run names stay as they are (`minif2f-rocq-train`, `variants:minif2f-rocq-train:N`);
    holding out the tune slice removes its problems, their variants, and a fitted problem's variant
    that states a tune problem."""
    tune = next(p for p in load_benchmark(TUNE) if p.theorem is not None)
    fit_name = sorted(names("minif2f-rocq-fit"))[0]
    directory = tmp_path / "two"
    directory.mkdir()
    for name in (tune.name, fit_name):
        (directory / f"{name}.v").write_text((VALID / f"{name}.v").read_text())

    def make_variants(target: Theorem, count: int, env: object) -> list[Theorem]:
        own = Theorem(f"{target.name}_v1", target.header, f"Theorem {target.name}_v1 : {len(target.name)} = {len(target.name)}.")
        clash = Theorem(f"{target.name}_v2", tune.theorem.header,
                        tune.theorem.statement.replace(tune.name, f"{target.name}_v2", 1))
        return [own, clash]

    problems = load_all(["minif2f-rocq-train", f"variants:{directory}:2"], None, make_variants=make_variants)
    kept, held = HoldOut.of([TUNE]).split(problems)
    assert {p.id for p in held} >= {f"minif2f-rocq-train/{tune.name}", f"variants/{tune.name}_v1"}
    assert f"variants/{fit_name}_v1" in {p.id for p in kept}
    kept_names = {p.id.rpartition("/")[2] for p in kept}
    assert not kept_names & tune_problem_names() and f"{fit_name}_v2" not in kept_names
    assert {p.id for p in kept if p.source == "minif2f-rocq-train"} == {
        f"minif2f-rocq-train/{name}" for name in names("minif2f-rocq-fit")}


def _records_of_each_kind(tmp_path: Path, goal: Callable[[int], str], tactic: str) -> Path:
    """A records file, one record each of: a tune problem, its variant, a fit problem, a stdlib
    lemma and no lemma (record i's goal is `goal(i)`)."""
    tune, fit = sorted(tune_problem_names())[0], sorted(names("minif2f-rocq-fit"))[0]
    rows = [{"goal": goal(i), "tactic": tactic, "steps": 1, "lemma": lemma}
            for i, lemma in enumerate([tune, f"{tune}_v2", fit, "Rplus_comm", ""])]
    file = tmp_path / "records.jsonl"
    file.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return file


def test_supervised_records_of_tune_problems_are_left_out(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    file = _records_of_each_kind(tmp_path, lambda i: f"⊢ {i} = {i}", "reflexivity.")
    assert len(load_supervised(f"{file}*2")) == 10
    kept = load_supervised(f"{file}*2", HoldOut.of([TUNE]))
    assert [r.goal for r in kept] == ["⊢ 2 = 2", "⊢ 3 = 3", "⊢ 4 = 4"] * 2
    assert f"2 records of 2 hold_out problems ({TUNE}) left out" in capsys.readouterr().out


def test_pretrain_leaves_the_tune_problems_records_out_and_counts_weighted_files(tmp_path: Path, capsys) -> None:
    """`alphaprover pretrain hold_out=[minif2f-rocq-tune]`: a fine-tune on the loop-proof ledger's
    records (`file*N`) never sees a tune problem's, and the run's config records the hold-out."""
    from alphaprover.cli import main
    from networks.dataset import read_example_files

    file = _records_of_each_kind(tmp_path, lambda i: f"x : R\nH : x = {i}\n⊢ x + 1 = {i + 1}", "lra.")
    assert len(read_example_files(f"{file}*3")) == 15
    held = HoldOut.of([TUNE])
    assert [e.goal[-1] for e in read_example_files(f"{file}*2", held.keeps_lemma)] == ["3", "4", "5"] * 2
    out = tmp_path / "run"
    tiny = ["model.d_model=32", "model.d_ff=64", "model.num_heads=2", "model.encoder_layers=1",
            "model.decoder_layers=1", "vocab_size=200", "batch_size=2", "warmup_steps=1", "max_steps=1",
            "eval_examples=2", "eval_beams=1"]
    assert main(["pretrain", f"train_file={file}*2", f"valid_file={file}", f"out_dir={out}",
                 f"hold_out=[{TUNE}]", *tiny]) == 0
    assert f"hold_out {TUNE}: the records of 2 problems left out" in capsys.readouterr().out
    meta = json.loads((out / "last" / "config.json").read_text())["metadata"]
    assert meta["train_examples"] == 6 and meta["valid_examples"] == 3
    assert meta["config"]["hold_out"] == [TUNE]
    assert main(["pretrain", f"train_file={file}", f"valid_file={file}", f"out_dir={tmp_path / 'bad'}",
                 "hold_out=[no-such-benchmark]", *tiny]) == 2


def test_pretrain_refuses_a_hold_out_it_is_not_given_the_filter_for(tmp_path: Path) -> None:
    from networks.train import PretrainConfig, pretrain

    config = PretrainConfig.from_dict({"train_file": "t.jsonl", "valid_file": "v.jsonl", "out_dir": str(tmp_path),
                                       "hold_out": [TUNE]})
    with pytest.raises(ValueError, match="hold_out"):
        pretrain(config)


def test_the_driver_refuses_a_tune_problem_when_the_run_holds_the_slice_out(tmp_path: Path) -> None:
    tune = next(p for p in load_benchmark(TUNE) if p.theorem is not None)
    problem = SourceProblem(f"minif2f-rocq-train/{tune.name}", "minif2f-rocq-train", tune.theorem)

    def config(run: str, hold_out: list[str]) -> ExpertIterationConfig:
        return ExpertIterationConfig.from_dict({"run_dir": str(tmp_path / run), "checkpoint": str(CHECKPOINT),
                                                "hold_out": hold_out, "learner": {"quantization": ""}})

    with pytest.raises(ValueError, match=f"holds out.*{tune.name}"):
        ExpertIteration(config("held", [TUNE]), [problem], [], [], lambda kind, problems: None)
    ExpertIteration(config("open", []), [problem], [], [], lambda kind, problems: None)
    with pytest.raises(ValueError, match="hold_out must be a list of benchmark names"):
        config("bad", [""])
