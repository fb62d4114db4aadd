"""`alphaprover analyze`: each analysis on a small run directory built here in the layout
`selfplay/expert_iteration.py` writes (`config.yaml`, `heldout_slice.json`,
`rounds/rNNN/heldout.jsonl`, `script_references.jsonl`, `weights/vNNNNNN/`), its pure helpers,
and bad input as one `alphaprover: error:` line with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alphaprover.analyze.by_family import by_count, family_report, read_eval, round_changes
from alphaprover.analyze.run_files import read_rounds
from alphaprover.cli import main

FAMILY_ITEMS = {"vieta": 2, "divides": 1}  # held-out slice: fam_vieta_90000, fam_vieta_90001, fam_divides_90000


def write_rows(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def slice_names() -> list[str]:
    return [f"fam_{family}_{90000 + i}" for family, count in FAMILY_ITEMS.items() for i in range(count)]


def make_run(root: Path, rounds: list[dict[str, bool]] | None = None, versions: int = 0) -> Path:
    """A run directory: config (a factory source, held-out budget, a `mcts` block), a factory file with
    the slice's held-out items and one train item, the slice, one held-out file per round, and
    `versions` published version directories (empty: enough for the analyses that only list them)."""
    run = root / "run"
    factory = root / "factory.jsonl"
    items = [{"name": name, "family": name[4:].rsplit("_", 1)[0], "seed": int(name.rsplit("_", 1)[1]),
              "split": "heldout", "header": "Require Import Reals.", "statement": f"Theorem {name} : 1 + 1 = 2."}
             for name in slice_names()]
    items.append({**items[0], "name": "fam_vieta_00001", "seed": 1, "split": "train"})
    write_rows(factory, items)
    run.mkdir(parents=True)
    (run / "config.yaml").write_text(
        f"sources: ['factory:{factory}']\nheldout_decoding: beam\nheldout_actions: network\n"
        "mcts:\n  num_samples: 16\n  c_and: 1.0\niteration:\n  heldout_seconds: 20\n  heldout_simulations: 32\n",
        encoding="utf-8")
    (run / "heldout_slice.json").write_text(json.dumps({"problems": [f"heldout/{n}" for n in slice_names()]}))
    for index, outcome in enumerate(rounds or []):
        write_rows(run / "rounds" / f"r{index:03d}" / "heldout.jsonl",
                   [{"problem": problem, "proved": proved, "goals": []} for problem, proved in outcome.items()])
    for version in range(versions):
        (run / "weights" / f"v{version:06d}").mkdir(parents=True)
    return run


def tiny_checkpoint(directory: Path, texts: list[str]) -> Path:
    """A 1-layer network with a tokenizer trained on `texts`, saved at `directory`."""
    import torch

    from networks.checkpoint import save_checkpoint
    from networks.model import ProverModel, ProverModelConfig
    from networks.tokenizer import ProofTokenizer

    tokenizer = ProofTokenizer.train(texts + ["lra.", "lia."] * 4, vocab_size=300)
    config = ProverModelConfig(vocab_size=tokenizer.vocab_size, d_model=32, d_ff=64, num_heads=2, encoder_layers=1,
                               decoder_layers=1, dropout=0.0, max_goal_tokens=32, max_tactic_tokens=16)
    torch.manual_seed(0)
    return save_checkpoint(directory, ProverModel(config), tokenizer)


def error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("alphaprover: error: "), err
    return err


# --- the pure helpers (moved with the analyses from benchmarks/, assertions unchanged) ---

def test_heldout_rounds_are_read_in_order(tmp_path: Path) -> None:
    for index, proved in enumerate([[True, False], [True, True]]):
        directory = tmp_path / "rounds" / f"r{index:03d}"
        directory.mkdir(parents=True)
        (directory / "heldout.jsonl").write_text("".join(
            json.dumps({"problem": f"heldout/fam_a_{n}", "proved": p}) + "\n" for n, p in enumerate(proved)))
    assert read_rounds(tmp_path) == [{"heldout/fam_a_0": True, "heldout/fam_a_1": False},
                                     {"heldout/fam_a_0": True, "heldout/fam_a_1": True}]


def test_round_changes_count_lost_and_gained_items_by_family_and_eval_files_line_up(tmp_path: Path) -> None:
    rounds = [{"heldout/fam_vieta_1": True, "heldout/fam_vieta_2": True, "heldout/fam_divides_1": False},
              {"heldout/fam_vieta_1": False, "heldout/fam_vieta_2": False, "heldout/fam_divides_1": True},
              {"heldout/fam_vieta_1": False, "heldout/fam_vieta_2": False, "heldout/fam_divides_1": True}]
    assert round_changes(rounds) == [({"vieta": 2}, {"divides": 1}), ({}, {})]
    assert by_count({"divides": 1, "vieta": 2}) == "vieta 2, divides 1" and by_count({}) == "-"
    results = tmp_path / "eval.jsonl"
    records = [{"problem": name, "method": f"mcts-network@runs/x/weights/v00000{v}", "status": status}
               for v, outcome in ((1, "failed"), (0, "proved")) for name, status in
               (("fam_vieta_1", outcome), ("fam_divides_1", "proved"))]
    results.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    labels, columns = read_eval(results)
    assert labels == ["v000000", "v000001"]  # version order, whatever the file's order
    assert columns == [{"heldout/fam_vieta_1": True, "heldout/fam_divides_1": True},
                       {"heldout/fam_vieta_1": False, "heldout/fam_divides_1": True}]
    assert round_changes(columns) == [({"vieta": 1}, {})]


def test_two_runs_versions_of_one_name_stay_apart(tmp_path: Path) -> None:
    """One results file with run A's and run B's `v000006`: two columns, not one merged."""
    results = tmp_path / "both.jsonl"
    records = [{"problem": "fam_vieta_1", "method": f"mcts-network@runs/{run}/weights/v000006", "status": status}
               for run, status in (("a", "proved"), ("b", "failed"))]
    results.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    labels, columns = read_eval(results)
    assert labels == ["runs/a/weights/v000006", "runs/b/weights/v000006"]
    assert columns == [{"heldout/fam_vieta_1": True}, {"heldout/fam_vieta_1": False}]


def test_budget_table_counts_each_version_at_each_budget() -> None:
    from alphaprover.analyze.budgets import budget_table

    records = [{"method": "mcts-network@/r/weights/v000000", "budget_simulations": 8, "status": "proved"},
               {"method": "mcts-network@/r/weights/v000000", "budget_simulations": 8, "status": "failed"},
               {"method": "mcts-network@/r/weights/v000001", "budget_simulations": 8, "status": "proved"},
               {"method": "mcts-network@/r/weights/v000001", "budget_simulations": 32, "status": "proved"}]
    assert budget_table(records, ["v000000", "v000001"], [8, 32]) == [["v000000", "1/2", "-"],
                                                                      ["v000001", "1/1", "1/1"]]


def test_repeat_rows_give_each_versions_spread_and_the_change_of_its_mean() -> None:
    from alphaprover.analyze.repeats import format_rows, repeat_rows

    def records(proved: dict[str, list[str]]) -> list[dict]:
        return [{"method": f"mcts-network@/r/weights/{version}", "problem": problem,
                 "status": "proved" if problem in names else "failed"}
                for version, names in proved.items() for problem in ("a", "b", "c", "d")]

    repeats = [records({"v0": ["a"], "v1": ["a", "b"], "v2": ["a", "b", "c", "d"]}),
               records({"v0": ["a", "b"], "v1": ["a", "c"], "v2": ["a", "b", "c", "d"]})]
    rows = repeat_rows(repeats, ["v0", "v1", "v2", "v9"])
    assert [r["version"] for r in rows] == ["v0", "v1", "v2"]  # v9 was never searched
    assert [r["counts"] for r in rows] == [[1, 2], [2, 2], [4, 4]]
    assert [(r["always"], r["ever"]) for r in rows] == [(1, 2), (1, 3), (4, 4)]
    assert [r["change"] for r in rows] == [None, 0.5, 2.0]
    assert [r["apart"] for r in rows] == [None, False, True]
    assert format_rows(rows)[3] == "v2\t4,4 /4\t4.00\t4-4\t4/4\t+2.00\tyes"


def test_a_version_missing_from_one_repeat_is_left_out() -> None:
    from alphaprover.analyze.repeats import repeat_rows

    one = [{"method": "m@/w/v0", "problem": "a", "status": "proved"}]
    assert repeat_rows([one, []], ["v0"]) == []


def test_slice_evals_search_as_the_run_did() -> None:
    """A run's held-out search uses its own `mcts` block (train.yaml: 16 beams) and held-out decoding;
    `eval` alone would use its defaults (32 beams) and measure something else."""
    from alphaprover.analyze.budgets import search_overrides

    run = {"decoding": "sample", "heldout_decoding": "beam", "mcts": {"num_samples": 16, "c_and": 1.0}}
    assert search_overrides(run) == ("decoding=beam", "mcts.c_and=1.0", "mcts.num_samples=16")
    assert search_overrides({"decoding": "sample"}) == ("decoding=sample",)


# --- each analysis through the command line, on a run directory built here ---

def test_heldout_by_family_reports_families_ceiling_and_changes(tmp_path: Path, capsys) -> None:
    r0 = {"heldout/fam_vieta_90000": True, "heldout/fam_vieta_90001": True, "heldout/fam_divides_90000": False}
    r1 = {"heldout/fam_vieta_90000": False, "heldout/fam_vieta_90001": True, "heldout/fam_divides_90000": False}
    run = make_run(tmp_path, [r0, r1])
    assert main(["analyze", str(run), "heldout-by-family"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == family_report(["r0", "r1"], [r0, r1])
    assert out[:4] == ["family\titems\tr0\tr1", "vieta\t2\t2\t1", "divides\t1\t0\t0", "all\t3\t2\t1"]
    assert out[4] == "never proved in any round: 1 of 3 (divides 1); proved in some round: 2"
    assert out[5] == "r0 -> r1: lost 1 (vieta 1), gained 0 (-)"


def test_heldout_by_family_refuses_a_run_without_rounds_and_a_missing_eval_file(tmp_path: Path, capsys) -> None:
    run = make_run(tmp_path)
    assert main(["analyze", str(run), "heldout-by-family"]) == 2
    assert "no rounds/r*/heldout.jsonl" in error_line(capsys)
    assert main(["analyze", str(run), "heldout-by-family", "--eval", str(tmp_path / "none.jsonl")]) == 2
    assert "no eval results file" in error_line(capsys)
    assert main(["analyze", str(tmp_path / "nothing"), "heldout-by-family"]) == 2
    assert "no run directory" in error_line(capsys)
    assert main(["analyze", str(run), "no-such-analysis"]) == 2
    assert "invalid choice" in error_line(capsys)


def test_export_heldout_slice_writes_the_slice_items_only(tmp_path: Path, capsys) -> None:
    run = make_run(tmp_path)
    out = tmp_path / "slice"
    assert main(["analyze", str(run), "export-heldout-slice", str(out)]) == 0
    assert sorted(p.stem for p in out.glob("*.v")) == sorted(slice_names())  # the train item stays out
    assert (out / "fam_divides_90000.v").read_text() == (
        "Require Import Reals.\n\nTheorem fam_divides_90000 : 1 + 1 = 2.\nProof.\nAdmitted.\n")
    assert "3 of 3 slice items written" in capsys.readouterr().out
    slice_file = run / "heldout_slice.json"
    slice_file.write_text(json.dumps({"problems": ["heldout/fam_vieta_90000", "heldout/fam_gone_90000"]}))
    assert main(["analyze", str(run), "export-heldout-slice", str(tmp_path / "other")]) == 2
    assert "1 of 2 slice items" in error_line(capsys)


def fake_eval(calls: list[tuple], proved: dict[str, set[str]]):
    """A stand-in for `run_slice_eval` that records its arguments and appends one eval record per
    (version, slice item): proved when the item is in `proved[version]`."""
    from alphaprover.eval_records import ProblemRecord
    from search.outcome import Outcome as Status

    def run_slice_eval(slice_dir: Path, methods: str, simulations: int, seconds: float, workers: int, out: Path,
                       *overrides: str) -> bool:
        calls.append((methods, simulations, seconds, overrides))
        with out.open("a", encoding="utf-8") as handle:
            for method in methods.split(","):
                version = method.rsplit("/", 1)[-1]
                for item in sorted(slice_dir.glob("*.v")):
                    status = Status.PROVED if item.stem in proved.get(version, set()) else Status.FAILED
                    handle.write(ProblemRecord(item.stem, method, status, 1.0, 3, seconds, simulations).to_json() + "\n")
        return True

    return run_slice_eval


def test_curve_budgets_reads_every_version_at_each_budget_with_the_runs_search(tmp_path: Path, capsys,
                                                                               monkeypatch) -> None:
    import alphaprover.analyze.budgets as budgets

    run = make_run(tmp_path, versions=2)
    calls: list[tuple] = []
    monkeypatch.setattr(budgets, "run_slice_eval", fake_eval(calls, {"v000001": {"fam_vieta_90000"}}))
    assert main(["analyze", str(run), "curve-budgets", "--simulations", "8", "32"]) == 0
    assert [c[1] for c in calls] == [8, 32] and {c[2] for c in calls} == {20.0}  # the run's held-out seconds
    assert calls[0][3] == ("decoding=beam", "mcts.c_and=1.0", "mcts.num_samples=16")
    assert calls[0][0] == f"mcts-network@{run}/weights/v000000,mcts-network@{run}/weights/v000001"
    out = capsys.readouterr().out.splitlines()
    assert out[-3:] == ["version\t8 sims\t32 sims", "v000000\t0/3\t0/3", "v000001\t1/3\t1/3"]
    assert (run / "heldout_slice_files" / "fam_vieta_90001.v").is_file()
    assert main(["analyze", str(run), "curve-budgets", "--simulations", "0"]) == 2
    assert "at least 1" in error_line(capsys)


def test_curve_repeats_tabulates_each_repeat_and_refuses_unknown_versions(tmp_path: Path, capsys,
                                                                          monkeypatch) -> None:
    import alphaprover.analyze.repeats as repeats

    run = make_run(tmp_path, versions=2)
    calls: list[tuple] = []
    monkeypatch.setattr(repeats, "run_slice_eval", fake_eval(calls, {"v000001": {"fam_vieta_90000"}}))
    assert main(["analyze", str(run), "curve-repeats", "--repeats", "2", "--simulations", "8"]) == 0
    assert len(calls) == 2 and sorted(p.name for p in (run / "repeats").iterdir()) == ["repeat-1.jsonl",
                                                                                       "repeat-2.jsonl"]
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == ["v000000\t0,0 /3\t0.00\t0-0\t0/0\t\t", "v000001\t1,1 /3\t1.00\t1-1\t1/1\t+1.00\tyes"]
    assert main(["analyze", str(run), "curve-repeats", "--versions", "v000009"]) == 2
    assert "has no version v000009" in error_line(capsys)
    assert main(["analyze", str(make_run(tmp_path / "empty")), "curve-repeats"]) == 2
    assert "no published weights" in error_line(capsys)


def test_script_logprob_curve_scores_every_version_on_the_runs_scripts(tmp_path: Path, capsys) -> None:
    from alphaprover.analyze.script_logprob import logprob_row
    from alphaprover.iterate_cmd import logprob_scorer

    steps = [("x : R\n⊢ x + 1 > x", "intros x.", 2), ("x : R\n⊢ x + 1 > x", "lra.", 1),
             ("n : nat\n⊢ n + 0 = n", "induction n.", 3)]
    run = make_run(tmp_path)
    assert main(["analyze", str(run), "script-logprob-curve"]) == 2
    assert "no evaluated round 0" in error_line(capsys)
    write_rows(run / "rounds" / "r000" / "heldout.jsonl", [{"problem": "heldout/fam_vieta_90000", "proved": False}])
    references = run / "script_references.jsonl"  # present: nothing is replayed in Coq
    write_rows(references, [{"problem": "heldout/fam_vieta_90000", "goal": steps[1][0], "tactic": "lra.", "steps": 1}])
    assert main(["analyze", str(run), "script-logprob-curve"]) == 2  # one-step scripts only
    assert "no multi-step scripts" in error_line(capsys)
    write_rows(references,
               [{"problem": "heldout/fam_vieta_90000", "goal": g, "tactic": t, "steps": s} for g, t, s in steps])
    weights = tiny_checkpoint(run / "weights" / "v000000", [g for g, _, _ in steps])
    assert main(["analyze", str(run), "script-logprob-curve"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("2 script steps before the closing call")  # the closing `lra.` is not scored
    scores = logprob_scorer(weights, [(g, t) for g, t, s in steps if s > 1])
    assert out[-1] == logprob_row("v000000", scores)


def test_value_fixed_goals_scores_one_runs_weights_on_another_runs_goals(tmp_path: Path, capsys) -> None:
    from alphaprover.analyze.run_files import value_auc

    goals = [("x : R\n⊢ x + 1 > x", True), ("n : nat\n⊢ n + 0 = n", True), ("x : R\n⊢ x * x < 0", False),
             ("f : R -> R\n⊢ f 3 = 7", False)]
    weights = tiny_checkpoint(tmp_path / "a" / "weights" / "v000000", [g for g, _ in goals])
    (tmp_path / "a" / "rounds").mkdir()  # run a: weights, no goal files of its own
    heldout = tmp_path / "b" / "rounds" / "r000" / "heldout.jsonl"
    heldout.parent.mkdir(parents=True)
    heldout.write_text(json.dumps({"problem": "p", "proved": True, "goals": [[g, label] for g, label in goals]}) + "\n",
                       encoding="utf-8")
    assert main(["analyze", str(tmp_path / "a"), "value-fixed-goals", "--goals", "r000"]) == 2  # not in run a
    assert "r000" in capsys.readouterr().err
    assert main(["analyze", str(tmp_path / "a"), "value-fixed-goals", "--goals-from", str(tmp_path / "b"),
                 "--goals", "r000"]) == 0
    row = capsys.readouterr().out.strip().splitlines()[-1]
    assert row == f"| v000000 | {value_auc(str(weights), heldout):.3f} |"


def test_export_proof_records_writes_each_proved_step_once_and_refuses_to_overwrite(tmp_path: Path, capsys) -> None:
    from selfplay.episode import Episode, Outcome, TrainingRecord
    from selfplay.replay_buffer import ReplayBuffer

    run = tmp_path / "run"
    step = TrainingRecord("x : R\n⊢ x = x", "reflexivity.", 1, "minif2f-rocq-train")
    with ReplayBuffer(run / "buffer", capacity=16) as buffer:
        buffer.add(Episode("minif2f-rocq-train/a", "minif2f-rocq-train", False, Outcome.PROVED, "reflexivity.",
                           (step, TrainingRecord("⊢ 1 = 2", None, 5, "minif2f-rocq-train"))))
        buffer.add(Episode("factory/b", "factory", False, Outcome.FAILED, None,
                           (TrainingRecord("⊢ 3 = 4", None, 9, "factory"),)))
        buffer.add(Episode("factory/c", "factory", False, Outcome.PROVED, "intros; lra.",
                           (TrainingRecord("⊢ forall x : R, x = x", "intros; lra.", 1, "factory"),)))
        buffer.add(Episode("minif2f-rocq-train/a", "minif2f-rocq-train", False, Outcome.PROVED, "reflexivity.",
                           (step,)))
    out = tmp_path / "records.jsonl"
    assert main(["analyze", str(run), "export-proof-records", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["tactic"], r["lemma"]) for r in rows] == [("intros; lra.", "factory/c"),
                                                         ("reflexivity.", "minif2f-rocq-train/a")]
    assert "2 records from 2 proved problems" in capsys.readouterr().out
    assert main(["analyze", str(run), "export-proof-records", str(out)]) == 2
    assert "exists (pass --force" in capsys.readouterr().err
    assert main(["analyze", str(run), "export-proof-records", str(out), "--force", "--sources", "factory"]) == 0
    assert [json.loads(line)["lemma"] for line in out.read_text(encoding="utf-8").splitlines()] == ["factory/c"]
    assert main(["analyze", str(tmp_path), "export-proof-records", str(out)]) == 2


def test_proofs_beyond_lists_loop_proofs_of_problems_the_baseline_failed(tmp_path: Path, capsys) -> None:
    from selfplay.episode import Episode, Outcome
    from selfplay.replay_buffer import ReplayBuffer

    run = tmp_path / "run"
    train = "minif2f-rocq-train"
    with ReplayBuffer(run / "buffer", capacity=16) as buffer:
        for problem, outcome, proof, version, disprove in [
            ("a", Outcome.PROVED, "intros. nra.", 2, False),          # baseline failed: beyond
            ("a", Outcome.PROVED, "nra.", 3, False),                  # a shorter script, later
            ("b", Outcome.PROVED, "lra.", 1, False),                  # baseline proved it
            ("c", Outcome.FAILED, None, 1, False),                    # the loop failed too
            ("d", Outcome.PROVED, "exists 11. intuition.", 4, False),  # baseline never tried it
            ("e", Outcome.PROVED, "intros. lia.", 1, True),           # a disproof is no proof of e
        ]:
            buffer.add(Episode(f"{train}/{problem}", train, disprove, outcome, proof, weights_version=version))
        buffer.add(Episode("variants/c_v1", "variants", False, Outcome.PROVED, "lia."))
    baseline = tmp_path / "fixed.jsonl"
    record = {"seconds": 60.0, "prover_calls": 10, "budget_seconds": 60.0, "budget_simulations": 100000}
    write_rows(baseline, [{"problem": name, "method": "mcts-fixed", "status": status, **record}
                          for name, status in [("a", "failed"), ("b", "proved"), ("c", "failed"), ("e", "failed")]]
               + [{"problem": "a", "method": "mcts-mixed", "status": "proved", **record}])
    assert main(["analyze", str(run), "proofs-beyond", str(baseline), "--method", "mcts-fixed"]) == 0
    out = capsys.readouterr().out
    assert "loop proved 3 problems" in out and "failed 3 of 4" in out and "**1**" in out
    assert "| a | 2 | 2 | `nra.` |" in out and "| b |" not in out and "| e |" not in out
    assert "1 loop-proved problems not in the baseline run" in out
    assert main(["analyze", str(run), "proofs-beyond", str(baseline), "--method", "mcts-fixed", "--names"]) == 0
    assert capsys.readouterr().out == "a\n"
    # two methods in the file and none named; an absent method; no buffer: one line, exit 2
    assert main(["analyze", str(run), "proofs-beyond", str(baseline)]) == 2
    assert "pick one with --method" in capsys.readouterr().err
    assert main(["analyze", str(run), "proofs-beyond", str(baseline), "--method", "bfs"]) == 2
    assert main(["analyze", str(tmp_path), "proofs-beyond", str(baseline), "--method", "mcts-fixed"]) == 2
    assert main(["analyze", str(run), "proofs-beyond", str(tmp_path / "none.jsonl")]) == 2


BASELINE_RECORD = {"seconds": 60.0, "prover_calls": 10, "budget_seconds": 60.0, "budget_simulations": 100000}


def loop_of_three(tmp_path: Path) -> Path:
    """A run directory whose buffer holds one proof of each of the train problems a, b and c."""
    from selfplay.episode import Episode, Outcome
    from selfplay.replay_buffer import ReplayBuffer

    run = tmp_path / "run"
    train = "minif2f-rocq-train"
    with ReplayBuffer(run / "buffer", capacity=16) as buffer:
        for problem in ("a", "b", "c"):
            buffer.add(Episode(f"{train}/{problem}", train, False, Outcome.PROVED, "nra.", weights_version=1))
    return run


def test_proofs_beyond_reads_several_baseline_files_as_one(tmp_path: Path, capsys) -> None:
    """A running loop's baseline comes in pieces (one eval run per batch of new names): a problem is
    beyond the baseline only when no file's run proved it, and every file must hold the method."""
    run, record = loop_of_three(tmp_path), BASELINE_RECORD
    first, second, other = tmp_path / "r1.jsonl", tmp_path / "r2.jsonl", tmp_path / "bfs.jsonl"
    write_rows(first, [{"problem": "a", "method": "mcts-fixed", "status": "failed", **record},
                       {"problem": "b", "method": "mcts-fixed", "status": "failed", **record}])
    write_rows(second, [{"problem": "b", "method": "mcts-fixed", "status": "proved", **record},  # proved once
                        {"problem": "c", "method": "mcts-fixed", "status": "failed", **record}])
    write_rows(other, [{"problem": "c", "method": "bfs", "status": "failed", **record}])
    assert main(["analyze", str(run), "proofs-beyond", str(first), str(second)]) == 0
    out = capsys.readouterr().out
    assert "failed 2 of 3" in out and "**2**" in out and f"{first}, {second}" in out
    assert "| a |" in out and "| c |" in out and "| b |" not in out
    assert main(["analyze", str(run), "proofs-beyond", str(first), str(second), "--names"]) == 0
    assert capsys.readouterr().out == "a,c\n"
    # files of different methods and no --method: one line, exit 2; with --method, the file lacking it fails
    assert main(["analyze", str(run), "proofs-beyond", str(first), str(other)]) == 2
    assert "different methods" in capsys.readouterr().err
    assert main(["analyze", str(run), "proofs-beyond", str(first), str(other), "--method", "mcts-fixed"]) == 2
    assert "is not in" in capsys.readouterr().err


def test_proofs_beyond_unseen_names_are_what_the_baseline_still_has_to_run(tmp_path: Path, capsys) -> None:
    run, record = loop_of_three(tmp_path), BASELINE_RECORD
    first, later = tmp_path / "r1.jsonl", tmp_path / "r2.jsonl"
    args = ["analyze", str(run), "proofs-beyond", str(first), str(later), "--method", "mcts-fixed", "--unseen-names"]
    assert main(args) == 0 and capsys.readouterr().out == "a,b,c\n"   # no baseline file yet: every name
    write_rows(first, [{"problem": "b", "method": "mcts-fixed", "status": "failed", **record}])
    assert main(args) == 0 and capsys.readouterr().out == "a,c\n"     # r2 still missing: counts as empty
    write_rows(later, [{"problem": "a", "method": "mcts-fixed", "status": "proved", **record},
                       {"problem": "c", "method": "mcts-fixed", "status": "failed", **record}])
    assert main(args) == 0 and capsys.readouterr().out == "\n"


def test_proofs_beyond_with_the_ledger_counts_other_runs_proofs(tmp_path: Path, capsys) -> None:
    """A replaced machine takes earlier runs' directories; their proofs survive in the ledger and
    count beside this run's buffer, shown with their run. This run's own ledger rows are its buffer's."""
    run, record = loop_of_three(tmp_path), BASELINE_RECORD
    baseline, ledger = tmp_path / "fixed.jsonl", tmp_path / "ledger.jsonl"
    write_rows(baseline, [{"problem": name, "method": "mcts-fixed", "status": status, **record}
                          for name, status in [("a", "failed"), ("b", "proved"), ("d", "failed"),
                                               ("e", "proved"), ("f", "failed")]])
    write_rows(ledger, [{"problem": "d", "script": "intros. field_simplify_eq in H0; lra.", "run": "expert-18",
                         "first_version": 4, "proofs": 2},
                        {"problem": "d", "script": "intros. nra.", "run": "expert-17", "first_version": 9, "proofs": 1},
                        {"problem": "e", "script": "lra.", "run": "expert-18", "first_version": 1, "proofs": 1},
                        {"problem": "f", "script": "intros. lia.", "run": "run", "first_version": 0, "proofs": 1},
                        {"problem": "a", "script": "intros. lra.", "run": "expert-18", "first_version": 2,
                         "proofs": 1}])
    args = ["analyze", str(run), "proofs-beyond", str(baseline)]
    assert main(args) == 0 and "**1**" in capsys.readouterr().out            # the buffer alone: a
    assert main(args + ["--ledger", str(ledger)]) == 0
    out = capsys.readouterr().out
    assert "loop proved 5 problems" in out and "**2**" in out
    assert "| a | 1 | 1 | `nra.` |" in out                                   # the buffer's proof of a wins
    assert "| d | expert-17 v9 | 1 | `intros. nra.` |" in out                # the shortest other run's script
    assert "| e |" not in out and "| f |" not in out                         # baseline proved e; f is this run's row
    assert main(args + ["--ledger", str(ledger), "--names"]) == 0 and capsys.readouterr().out == "a,d\n"
    assert main(args + ["--ledger", str(tmp_path / "none.jsonl")]) == 2
    assert "no ledger" in capsys.readouterr().err


def test_proofs_beyond_fresh_counts_the_list_proved_by_a_second_method_of_the_same_run(tmp_path: Path,
                                                                                      capsys) -> None:
    """The train done-when in one eval run: the list is what the baseline failed, and the fresh
    search's count is read off the same file; an unattempted problem is never counted as proved."""
    run, record = loop_of_three(tmp_path), BASELINE_RECORD
    both, other = tmp_path / "both.jsonl", tmp_path / "other.jsonl"
    write_rows(both, [{"problem": "a", "method": "mcts-fixed", "status": "failed", **record},
                      {"problem": "b", "method": "mcts-fixed", "status": "failed", **record},
                      {"problem": "c", "method": "mcts-fixed", "status": "failed", **record},
                      {"problem": "a", "method": "mcts-mixed@v2", "status": "proved", **record},
                      {"problem": "b", "method": "mcts-mixed@v2", "status": "failed", **record}])
    write_rows(other, [{"problem": "a", "method": "mcts-fixed", "status": "failed", **record}])
    args = ["analyze", str(run), "proofs-beyond", str(both), "--method", "mcts-fixed"]
    assert main(args + ["--fresh", "mcts-mixed@v2"]) == 0
    out = capsys.readouterr().out
    assert "proved by the loop and not by the baseline: **3**" in out
    assert "fresh search `mcts-mixed@v2` in the same run proved **1** of the 3" in out
    assert "| a | 1 | 1 | `nra.` | proved |" in out and "| b | 1 | 1 | `nra.` | failed |" in out
    assert "| c | 1 | 1 | `nra.` | not attempted |" in out
    # two files (two runs), the baseline as its own fresh arm, an absent method: one line, exit 2
    assert main(["analyze", str(run), "proofs-beyond", str(both), str(other), "--method", "mcts-fixed",
                 "--fresh", "mcts-mixed@v2"]) == 2
    assert "one run" in capsys.readouterr().err
    assert main(args + ["--fresh", "mcts-fixed"]) == 2
    assert "baseline method itself" in capsys.readouterr().err
    assert main(args + ["--fresh", "bfs"]) == 2
    assert "is not in" in capsys.readouterr().err


def test_export_train_proofs_merges_this_runs_proofs_into_the_ledger(tmp_path: Path, capsys) -> None:
    from lean_interface.problems.benchmarks import dev_problem_names
    from selfplay.episode import Episode, Outcome
    from selfplay.replay_buffer import ReplayBuffer

    run = loop_of_three(tmp_path)
    ledger = tmp_path / "ledger" / "train.jsonl"
    ledger.parent.mkdir()
    write_rows(ledger, [{"problem": "a", "script": "lra.", "run": "expert-17", "first_version": 4, "proofs": 2},
                        {"problem": "z", "script": "lia.", "run": "run", "first_version": 0, "proofs": 1}])
    assert main(["analyze", str(run), "export-train-proofs", str(ledger)]) == 0
    assert "3 problems of run, 3 problems over 2 runs" in capsys.readouterr().out  # run's old z row replaced
    rows = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert [(r["problem"], r["run"]) for r in rows] == [("a", "expert-17"), ("a", "run"), ("b", "run"), ("c", "run")]
    assert rows[1] == {"problem": "a", "script": "nra.", "run": "run", "first_version": 1, "proofs": 1}
    # the ledger's lines are probe references: problem and script
    assert all({"problem", "script"} <= row.keys() for row in rows)
    ledger.write_text("{not json\n")
    assert main(["analyze", str(run), "export-train-proofs", str(ledger)]) == 2
    assert "not a ledger row" in error_line(capsys)
    with ReplayBuffer(run / "buffer", capacity=16) as buffer:
        dev = sorted(dev_problem_names())[0]
        buffer.add(Episode(f"minif2f-rocq-train/{dev}", "minif2f-rocq-train", False, Outcome.PROVED, "lra."))
    fresh = tmp_path / "fresh.jsonl"
    assert main(["analyze", str(run), "export-train-proofs", str(fresh)]) == 2
    assert "dev subset" in error_line(capsys) and not fresh.exists()


def test_a_reader_that_closes_the_pipe_ends_the_command_quietly(tmp_path: Path) -> None:
    """`alphaprover analyze … | head -1`: the closed pipe is the reader's choice, not an error to
    print a traceback for; the command exits with the shell's SIGPIPE status and nothing on stderr."""
    import subprocess
    import sys

    from selfplay.episode import Episode, Outcome
    from selfplay.replay_buffer import ReplayBuffer

    run = tmp_path / "run"
    with ReplayBuffer(run / "buffer", capacity=4) as buffer:
        buffer.add(Episode("minif2f-rocq-train/a", "minif2f-rocq-train", False, Outcome.PROVED, "nra.", weights_version=1))
    baseline = tmp_path / "fixed.jsonl"
    write_rows(baseline, [{"problem": "a", "method": "mcts-fixed", "status": "failed", "seconds": 60.0,
                           "prover_calls": 10, "budget_seconds": 60.0, "budget_simulations": 100000}])
    child = subprocess.Popen([sys.executable, "-c", "import sys; from alphaprover.cli import main; sys.exit(main())",
                              "analyze", str(run), "proofs-beyond", str(baseline)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[1])
    child.stdout.close()  # the reader leaves before the report is written
    stderr = child.stderr.read().decode()
    assert child.wait(timeout=120) == 141, stderr
    assert "Traceback" not in stderr and stderr == ""


def test_a_broken_pipe_that_is_not_stdout_still_surfaces(tmp_path: Path, monkeypatch, capfd) -> None:
    """Only the reader of stdout leaving ends a command quietly: a BrokenPipeError from another pipe
    (a prover's, a worker's) while stdout is fine is raised as before, never turned into status 141."""
    import alphaprover.analyze

    def broken(args):
        raise BrokenPipeError("coqtop went away")

    monkeypatch.setattr(alphaprover.analyze, "run_analysis", broken)
    with pytest.raises(BrokenPipeError, match="coqtop went away"):
        main(["analyze", str(tmp_path), "proofs-beyond", str(tmp_path / "fixed.jsonl")])
