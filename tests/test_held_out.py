"""No training source can yield a dev-subset or test-split problem, or a variant of one, by name or
by statement (docs/ARCHITECTURE.md §Data): the one guard (`held_out_problem_of`) and every
training entry point that applies it — benchmark and factory sources, the matchmaker, expert
iteration's subgoal problems."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lean_interface.api import Theorem
from lean_interface.problems.benchmarks import (BUNDLED, base_problem_name, dev_problem_names, held_out_problem_of,
                                                load_benchmark, minif2f_test_names)
from lean_interface.problems.factory.build import write_items
from lean_interface.problems.factory.family import TRAIN, Item
from selfplay.matchmaker import Matchmaker
from selfplay.sources import load_all

VALID = BUNDLED["minif2f-rocq-valid"][0]


def test_variant_names_lead_back_to_their_target() -> None:
    assert base_problem_name("variants/aime_1983_p9_v3") == "aime_1983_p9"
    assert base_problem_name("mathd_algebra_10_sg2_7") == "mathd_algebra_10"
    assert base_problem_name("amc12a_2019_p21_b12") == "amc12a_2019_p21"
    assert base_problem_name("x_lm1_v2") == "x"
    assert base_problem_name("minif2f-rocq-train/amc12a_2019_p21") == "amc12a_2019_p21"
    assert base_problem_name("induction_12dvd4expnp1p20") == "induction_12dvd4expnp1p20"


def test_test_split_names_come_from_the_lean_file_and_miss_the_valid_split() -> None:
    names = minif2f_test_names()
    assert len(names) == 244
    valid = {path.stem for path in VALID.glob("*.v")}
    assert not names & valid
    assert {p.name for p in load_benchmark("minif2f-lean-test")} == set(names)


def test_every_dev_and_test_problem_and_its_variants_are_held_out() -> None:
    for name in sorted(dev_problem_names()):
        for spelled in (name, f"minif2f-rocq-valid/{name}", f"variants/{name}_v4", f"{name}_sg1_2", f"{name}_b3"):
            assert held_out_problem_of(spelled) == f"{name} (dev subset)", spelled
    for name in sorted(minif2f_test_names()):
        for spelled in (name, f"minif2f-lean-test/{name}", f"variants/{name}_v1", f"{name}_lm2"):
            assert held_out_problem_of(spelled) == f"{name} (test split)", spelled
    train = [p for p in load_benchmark("minif2f-rocq-train") if p.theorem is not None]
    assert train and not [p.name for p in train if held_out_problem_of(p.name, p.theorem)]


def test_a_dev_statement_under_another_name_is_held_out() -> None:
    dev = next(p for p in load_benchmark("minif2f-rocq-dev") if p.theorem is not None)
    renamed = Theorem(name="innocent", header=dev.theorem.header,
                      statement=dev.theorem.statement.replace(dev.name, "innocent", 1))
    assert held_out_problem_of("innocent", renamed) == f"{dev.name} (dev subset)"
    assert held_out_problem_of("innocent_v2", renamed) == f"{dev.name} (dev subset)"


def test_training_sources_refuse_test_problems_and_variants_of_held_out_ones(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="test-split"):
        load_all(["minif2f-lean-test"], tmp_path / "cache")
    with pytest.raises(ValueError, match="test-split"):
        load_all(["variants:minif2f-lean-test:2"], tmp_path / "cache", make_variants=lambda t, n, env: [])
    # a .v directory holding a dev problem renamed as one of its variants
    dev_name = sorted(dev_problem_names())[0]
    directory = tmp_path / "renamed"
    directory.mkdir()
    text = (VALID / f"{dev_name}.v").read_text(encoding="utf-8")
    (directory / f"{dev_name}_v7.v").write_text(text.replace(dev_name, f"{dev_name}_v7"), encoding="utf-8")
    with pytest.raises(ValueError, match="dev-subset"):
        load_all([str(directory)], tmp_path / "cache")


def test_factory_source_refuses_a_test_named_item(tmp_path: Path) -> None:
    test_name = sorted(minif2f_test_names())[0]
    path = tmp_path / "factory.jsonl"
    write_items([Item(f"{test_name}_v1", "linear_equation", 0, TRAIN, "Require Import Reals.\nOpen Scope R_scope.",
                      f"Theorem {test_name}_v1 : forall x : R, x = x.")], path)
    with pytest.raises(ValueError, match="test-split"):
        load_all([f"factory:{path}"], tmp_path / "cache")


def test_matchmaker_refuses_held_out_ids() -> None:
    test_name = sorted(minif2f_test_names())[0]
    for problem_id in (f"variants/{test_name}_v2", f"variants/{sorted(dev_problem_names())[0]}_v2"):
        with pytest.raises(ValueError, match="held out") as info:
            Matchmaker(["minif2f-rocq-train/amc12a_2019_p21", problem_id])
        assert problem_id in str(info.value)


def test_a_variant_that_states_a_dev_problem_is_dropped(tmp_path: Path) -> None:
    dev = next(p for p in load_benchmark("minif2f-rocq-dev") if p.theorem is not None)
    train_name = next(p.name for p in load_benchmark("minif2f-rocq-train") if p.theorem is not None)
    directory = tmp_path / "one"
    directory.mkdir()
    shutil.copy(VALID / f"{train_name}.v", directory / f"{train_name}.v")

    def make_variants(target: Theorem, count: int, env: object) -> list[Theorem]:
        clash = Theorem(name=f"{target.name}_v1", header=dev.theorem.header,
                        statement=dev.theorem.statement.replace(dev.name, f"{target.name}_v1", 1))
        fine = Theorem(name=f"{target.name}_v2", header=target.header,
                       statement=f"Theorem {target.name}_v2 : 1 = 1.")
        return [clash, fine]

    problems = load_all([f"variants:{directory}:2"], None, make_variants=make_variants)
    assert [p.id for p in problems] == [f"variants/{train_name}_v2"]


def test_a_training_file_with_a_record_of_a_held_out_problem_is_refused(tmp_path: Path) -> None:
    """Supervised files (pretraining, the learner's demonstrations, exported loop or eval proofs)
    are read by `read_examples`: a record whose `lemma` is a dev or test problem, or a variant of
    one, stops the read with a one-line error; train problems and library lemmas pass."""
    import json

    from networks.dataset import HeldOutRecord, read_examples

    dev, test = sorted(dev_problem_names())[0], sorted(minif2f_test_names())[0]
    train = next(path.stem for path in sorted(VALID.glob("*.v")) if path.stem not in dev_problem_names())
    ok = [{"goal": "⊢ True", "tactic": "trivial.", "steps": 1, "lemma": name} for name in (train, "Rplus_comm", "")]
    file = tmp_path / "ok.jsonl"
    file.write_text("".join(json.dumps(row) + "\n" for row in ok))
    assert len(read_examples(file)) == 3
    for lemma in (dev, f"{dev}_v3", test, f"{test}_sg1_2"):
        bad = tmp_path / "bad.jsonl"
        bad.write_text("".join(json.dumps(row) + "\n" for row in
                               [*ok, {"goal": "⊢ True", "tactic": "trivial.", "steps": 1, "lemma": lemma}]))
        with pytest.raises(HeldOutRecord, match="never trained on"):
            read_examples(bad)


def test_subgoal_problems_of_held_out_problems_are_refused_made_or_stored(tmp_path: Path) -> None:
    """Expert iteration's subgoal source (`selfplay.subgoals`): a statement named after a dev or
    test problem, or stating a dev problem, is never made; one written into the run's store by
    hand stops the driver."""
    from selfplay.actor import SourceProblem
    from selfplay.expert_iteration import ExpertIteration, ExpertIterationConfig
    from selfplay.subgoals import SubgoalHarvester, SubgoalStore

    dev = next(p for p in load_benchmark("minif2f-rocq-dev") if p.theorem is not None)
    test_name = sorted(minif2f_test_names())[0]
    target = next(p for p in load_benchmark("minif2f-rocq-train") if p.theorem is not None)
    source = SourceProblem(f"minif2f-rocq-train/{target.name}", "minif2f-rocq-train", target.theorem)
    clash = f"{target.name}_sg0_1"
    made = [Theorem(f"{test_name}_sg0_1", "", f"Theorem {test_name}_sg0_1 : 1 = 1."),
            Theorem(f"{dev.name}_sg0_1", "", f"Theorem {dev.name}_sg0_1 : 2 = 2."),
            Theorem(clash, dev.theorem.header, dev.theorem.statement.replace(dev.name, clash, 1))]
    store = SubgoalStore(tmp_path / "run" / "subgoals.jsonl")
    harvester = SubgoalHarvester(store, lambda theorem, texts, prefix: [(t, texts[0]) for t in made],
                                 ["minif2f-rocq-train"], 3, 3)
    rows = [{"problem": source.id, "proved": False, "outcome": "failed", "open_leads": ["⊢ 1 = 1"]}]
    (tmp_path / "run").mkdir()
    assert harvester.harvest(0, rows, {source.id: source}, set()) == [] and not store.problems
    store.add_problem(SourceProblem(f"subgoals/{clash}", "subgoals", made[2]), source.id, 0, "⊢ 1 = 1")
    cfg = ExpertIterationConfig.from_dict({"run_dir": str(tmp_path / "run"), "checkpoint": "unused",
                                           "subgoal_sources": ["minif2f-rocq-train"], "learner": {"quantization": ""}})
    with pytest.raises(ValueError, match="cannot enter expert iteration"):
        ExpertIteration(cfg, [source], [], [], lambda kind, problems: None, subgoal_maker=lambda *args: [])


def test_the_bundled_coq_test_split_is_184_problems_of_the_lean_test_rows() -> None:
    """`minif2f-rocq-test` (184 of the 244 test problems; 60 withheld outside the project): every
    name is a test row of the Lean file, none is a valid problem, and each is held out."""
    coq_test = load_benchmark("minif2f-rocq-test")
    assert len(coq_test) == 184
    lean_test = {p.name for p in load_benchmark("minif2f-lean-test")}
    assert {p.name for p in coq_test} <= lean_test
    assert not {p.name for p in coq_test} & {path.stem for path in VALID.glob("*.v")}
    assert all(held_out_problem_of(p.name, p.theorem) == f"{p.name} (test split)" for p in coq_test)


def test_a_test_statement_under_another_name_is_held_out() -> None:
    test = next(p for p in load_benchmark("minif2f-rocq-test") if p.theorem is not None)
    renamed = Theorem(name="innocent", header=test.theorem.header,
                      statement=test.theorem.statement.replace(test.name, "innocent", 1))
    assert held_out_problem_of("innocent", renamed) == f"{test.name} (test split)"
    assert held_out_problem_of("innocent_v2", renamed) == f"{test.name} (test split)"


def test_no_train_problem_states_a_test_problem() -> None:
    train = [p for p in load_benchmark("minif2f-rocq-train") if p.theorem is not None]
    assert not [p.name for p in train if held_out_problem_of(p.name, p.theorem)]


def test_training_sources_refuse_the_coq_test_split(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="test-split"):
        load_all(["minif2f-rocq-test"], tmp_path / "cache")
    # a .v directory holding a test problem under an innocent name
    test = next(p for p in load_benchmark("minif2f-rocq-test") if p.theorem is not None)
    directory = tmp_path / "renamed"
    directory.mkdir()
    text = (BUNDLED["minif2f-rocq-test"][0] / f"{test.name}.v").read_text(encoding="utf-8")
    (directory / "innocent.v").write_text(text.replace(test.name, "innocent"), encoding="utf-8")
    with pytest.raises(ValueError, match="test-split"):
        load_all([str(directory)], tmp_path / "cache")
