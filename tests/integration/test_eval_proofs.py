"""`alphaprover eval-proofs` on real Coq: an eval run's proofs of train problems become supervised
records; a dev problem's proof never does, whether its row names it or a copy under another name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alphaprover.analyze.ledger import ledger_rows
from alphaprover.cli import main
from alphaprover.eval_proofs import eval_proof_records
from lean_interface.problems.benchmarks import (BUNDLED, dev_problem_names, held_out_problem_of, load_benchmark,
                                                tune_problem_names)

pytestmark = pytest.mark.integration

TRAIN_PROBLEM = "mathd_algebra_15"      # s 2 6 = 100 from h0 : forall a b, 0 < a -> 0 < b -> s a b = a ^ b + b ^ a
DEV_PROBLEM = "algebra_apb4leq8ta4pb4"  # in the dev subset (every 8th valid problem by name)


def row(problem: str, method: str, status: str, proof: str | None) -> dict:
    return {"problem": problem, "method": method, "status": status, "proof": proof}


def test_train_proofs_replay_into_records_and_dev_rows_are_left_out(tmp_path: Path) -> None:
    assert DEV_PROBLEM in dev_problem_names() and TRAIN_PROBLEM not in dev_problem_names()
    rows = [row(TRAIN_PROBLEM, "mcts-fixed", "proved", "apply h0. { lia. } { lia. }"),
            row(TRAIN_PROBLEM, "mcts-mixed", "proved", "apply h0.  { lia. } { lia. }\n"),   # the same proof
            row(TRAIN_PROBLEM, "portfolio", "proved", "lia."),                              # does not replay
            row("mathd_algebra_48", "mcts-fixed", "failed", None),
            row(DEV_PROBLEM, "mcts-fixed", "proved", "intros; nra.")]
    records, report = eval_proof_records(rows, "minif2f-rocq-train")
    assert (report.proofs, report.replayed, report.dropped, report.outside, report.refused) == (2, 1, 1, 1, 0)
    assert report.records == len(records) == 3
    [root] = [r for r in records if r["tactic"] == "apply h0."]
    assert root["goal"].endswith("⊢ s 2 6 = 100") and root["steps"] == 2
    assert root["lemma"] == TRAIN_PROBLEM and root["source"] == "minif2f-rocq-train"
    sides = sorted(r["goal"].rsplit("⊢ ", 1)[1] for r in records if r["tactic"] == "lia.")
    assert sides == ["0 < 2", "0 < 6"]
    assert all(DEV_PROBLEM not in r["lemma"] for r in records)

    only_portfolio, report = eval_proof_records(rows, "minif2f-rocq-train", methods=frozenset({"portfolio"}))
    assert only_portfolio == [] and (report.proofs, report.dropped) == (1, 1)


def test_a_dev_problem_under_another_name_is_refused(tmp_path: Path) -> None:
    """A benchmark directory that holds a dev problem's statement under a new name: its proof is
    refused (held out by statement), never replayed."""
    valid = BUNDLED["minif2f-rocq-valid"][0]
    text = (valid / f"{DEV_PROBLEM}.v").read_text().replace(DEV_PROBLEM, "renamed_problem")
    (tmp_path / "renamed_problem.v").write_text(text)
    records, report = eval_proof_records([row("renamed_problem", "mcts-fixed", "proved", "intros; nra.")],
                                         str(tmp_path))
    assert records == [] and (report.refused, report.proofs, report.replayed) == (1, 0, 0)


def test_the_command_writes_once_and_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    eval_file, out = tmp_path / "eval.jsonl", tmp_path / "records.jsonl"
    eval_file.write_text(json.dumps(row(TRAIN_PROBLEM, "mcts-fixed", "proved", "apply h0. { lia. } { lia. }")) + "\n")
    assert main(["eval-proofs", str(eval_file), str(out)]) == 0
    assert len(out.read_text().splitlines()) == 3
    assert "3 records from 1 problems" in capsys.readouterr().out
    assert main(["eval-proofs", str(eval_file), str(out)]) == 2              # exists: --force to replace
    assert main(["eval-proofs", str(tmp_path / "missing.jsonl"), str(tmp_path / "o.jsonl")]) == 2
    (tmp_path / "bad.jsonl").write_text('{"problem": "x"\n')
    assert main(["eval-proofs", str(tmp_path / "bad.jsonl"), str(tmp_path / "o.jsonl")]) == 2
    assert not (tmp_path / "o.jsonl").exists()
    assert "error:" in capsys.readouterr().err


def test_the_committed_ledger_replays_into_records(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Every line of the loop-proof ledger (`data/loop-proofs/`) replays in Coq into supervised records
    (a fresh run's demonstrations); a ledger row of a dev problem would be left out, as in an eval file."""
    ledger = Path(__file__).resolve().parents[2] / "data" / "loop-proofs" / "minif2f-rocq-train.jsonl"
    rows = ledger_rows(ledger)
    assert rows and all({"problem", "script", "run"} <= row.keys() for row in rows)
    records, report = eval_proof_records(rows + [{"problem": DEV_PROBLEM, "script": "intros; nra.", "run": "r"}],
                                         "minif2f-rocq-train")
    distinct = len({(row["problem"], " ".join(row["script"].split())) for row in rows})   # runs repeat scripts
    assert (report.proofs, report.replayed, report.dropped, report.outside) == (distinct, distinct, 0, 1)
    assert {record["lemma"] for record in records} == {row["problem"] for row in rows}
    out = tmp_path / "records.jsonl"
    assert main(["eval-proofs", str(ledger), str(out), "--methods", rows[0]["run"]]) == 0
    assert f"from {sum(row['run'] == rows[0]['run'] for row in rows)} problems" in capsys.readouterr().out


def test_the_written_train_proofs_replay_and_hold_no_tune_dev_or_test_problem() -> None:
    """`data/written-proofs/` (65 written, kernel-checked scripts of never-proved train problems) is a
    demonstration file like the ledger: every row replays to `Qed` into records, and none names a
    problem of the tune slice (measured on), the dev subset or the test split, by name or statement."""
    written = Path(__file__).resolve().parents[2] / "data" / "written-proofs" / "minif2f-rocq-train.jsonl"
    rows = ledger_rows(written)
    train = {problem.name: problem for problem in load_benchmark("minif2f-rocq-train")}
    names = [row["problem"] for row in rows]
    assert len(names) == len(set(names)) == 65 and set(names) <= set(train)
    assert not set(names) & tune_problem_names()
    assert not [name for name in names if held_out_problem_of(name, train[name].theorem)]
    records, report = eval_proof_records(rows, "minif2f-rocq-train", timeout=60.0)
    assert (report.proofs, report.replayed, report.dropped, report.refused) == (65, 65, 0, 0)
    assert {record["lemma"] for record in records} == set(names)
