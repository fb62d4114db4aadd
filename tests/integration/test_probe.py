"""`alphaprover probe` on real Coq: a train problem's script replayed into its steps, a wrong one refused
with the step that fails, and the whole command end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alphaprover.cli import main
from alphaprover.probe import Reference, replay_reference
from lean_interface.coq.proof_replay import ProofReplayer
from lean_interface.problems.benchmarks import find_problem
from tests.test_analyze import tiny_checkpoint

pytestmark = pytest.mark.integration

SCRIPT = "intros. destruct n as [|m]. { contradiction. } { exists (2 * 4 ^ m)%nat. simpl. lia. }"


def reference(script: str) -> Reference:
    return Reference("numbertheory_2dvd4expn", find_problem("numbertheory_2dvd4expn").theorem, script)


def test_a_script_replays_into_its_goals_and_steps_to_go() -> None:
    with ProofReplayer() as replayer:
        records, why = replay_reference(replayer, reference(SCRIPT))
    assert why == ""
    assert [(r.tactic, r.steps) for r in records] == [
        ("intros.", 5), ("destruct n as [|m].", 4), ("contradiction.", 1), ("exists (2 * 4 ^ m)%nat.", 3),
        ("simpl.", 2), ("lia.", 1)]
    assert records[0].goal.endswith("⊢ forall n : nat, n <> 0 -> Nat.divide 2 (4 ^ n)")
    assert "m : nat" in records[3].goal and records[3].goal.endswith("⊢ Nat.divide 2 (4 ^ S m)")


def test_a_wrong_script_is_refused_naming_the_step_that_fails() -> None:
    with ProofReplayer() as replayer:
        records, why = replay_reference(replayer, reference("intros. exists 2%nat. lia."))
        good, _ = replay_reference(replayer, reference(SCRIPT))  # the replayer is usable after a refusal
    assert records == [] and why.startswith("`lia.` failed on replay")
    assert len(good) == 6


def test_probe_prints_a_table_per_reference_and_fails_when_coq_refuses_one(tmp_path: Path, capsys) -> None:
    refs = tmp_path / "refs.jsonl"
    refs.write_text(json.dumps({"problem": "numbertheory_2dvd4expn", "script": SCRIPT}) + "\n"
                    + json.dumps({"problem": "numbertheory_2dvd4expn", "script": "intros. lia."}) + "\n")
    ckpt = tiny_checkpoint(tmp_path / "ckpt", ["n : nat\n⊢ Nat.divide 2 (4 ^ n)", "lia."])
    assert main(["probe", str(refs), "--checkpoint", str(ckpt), "--beam", "2"]) == 1
    out = capsys.readouterr().out
    assert out.count("### numbertheory_2dvd4expn") == 2
    assert "| 4 | `exists (2 * 4 ^ m)%nat.` | 3 |" in out
    assert "Coq refuses the script: `lia.` failed on replay" in out
    assert "1 of 2 scripts replayed; beam width 2" in out
    assert f"- {ckpt}: " in out and " / 6 steps in the beam" in out
    assert main(["probe", str(refs), "--checkpoint", str(ckpt), "--beam", "2", "--summary"]) == 1
    short = capsys.readouterr().out
    assert "| 4 |" not in short and short.count("### numbertheory_2dvd4expn") == 1  # the refusal still shown
    assert "Coq refuses the script" in short and f"- {ckpt}: " in short and " / 6 steps in the beam" in short


def test_every_committed_reference_still_replays_in_coq() -> None:
    """`data/probe/train-references.jsonl` feeds the curve's `competition_bottleneck`: each script must
    still prove its train problem (a refused one would drop out of the measurement silently)."""
    from alphaprover.probe import read_references, reference_steps
    from lean_interface.problems.benchmarks import REPO_ROOT

    path = str(REPO_ROOT / "data" / "probe" / "train-references.jsonl")
    rows = reference_steps(path)
    assert {row["problem"] for row in rows} == {reference.problem for reference in read_references(path)}
    assert all(row["goal"] and row["tactic"].endswith(".") and row["steps"] >= 1 for row in rows)
