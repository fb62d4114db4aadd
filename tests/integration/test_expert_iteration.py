"""Expert iteration on real Coq: proofs are pruned in the prover, and `alphaprover train` runs
rounds over a small factory, survives a kill mid-run and continues its curve when rerun."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lean_interface.api import ProofStep
from lean_interface.coq import CoqEnv, theorem_from_proposition
from selfplay.prune import proof_records, prune_proof, replays

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
REALS = "Require Import Reals.\nOpen Scope R_scope."


def test_a_step_that_can_be_left_out_goes_and_the_rest_still_closes_the_goal() -> None:
    theorem = theorem_from_proposition("forall x : R, x + 1 > x", name="prune_me", header=REALS)
    detour = ProofStep("intros x.", (ProofStep("assert (h : 0 < 1) by lra.", (ProofStep("lra."),)),))
    with CoqEnv(timeout=10.0) as env:
        root = env.start(theorem)
        assert replays(env, root, detour)
        pruned = prune_proof(env, root, detour)
        assert pruned == ProofStep("intros x.", (ProofStep("lra."),))
        assert replays(env, root, pruned)
        records = proof_records(env, root, pruned, "factory")
        assert [(r.tactic, r.steps) for r in records] == [("intros x.", 2), ("lra.", 1)]
        assert records[0].goal == root.text and "x : R" in records[1].goal
        assert not replays(env, root, ProofStep("lra."))  # what pruning may not produce: lra alone fails here


def _train(args: list[str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "alphaprover.cli", "train", *args], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def factory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small factory file (two families), built once for this module's runs."""
    path = tmp_path_factory.mktemp("factory") / "factory.jsonl"
    built = subprocess.run([sys.executable, "-m", "alphaprover.cli", "factory", f"out={path}", "scale=0.005",
                            "heldout_seeds=3", "families=[linear_equation,mod_linear]"], cwd=REPO,
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-2000:]
    return path


def test_train_runs_rounds_on_a_factory_is_killed_and_resumes_its_curve(tmp_path: Path, factory: Path) -> None:
    run_dir = tmp_path / "run"
    args = [f"sources=[factory:{factory}]", f"run_dir={run_dir}", "actors=0", "supervised_file=", "library_file=",
            "iteration.rounds=2", "iteration.problems_per_round=3", "iteration.heldout_problems=3",
            "iteration.search_seconds=8", "iteration.search_simulations=16", "iteration.heldout_seconds=8",
            "iteration.heldout_simulations=8", "iteration.learner_steps_per_round=3", "iteration.min_buffer_records=1",
            "learner.batch_size=4", "learner.checkpoint_every=1", "mcts.num_samples=4"]
    first = _train(args)
    deadline = time.monotonic() + 400
    state = run_dir / "iteration.json"
    while time.monotonic() < deadline and first.poll() is None:
        if state.is_file() and json.loads(state.read_text())["phase"] not in ("reference", "evaluate"):
            break  # round 0's evaluation is on disk: kill it mid-round
        time.sleep(1)
    if first.poll() is None:
        os.kill(first.pid, signal.SIGKILL)
    first.wait()
    heldout_0 = (run_dir / "rounds" / "r000" / "heldout.jsonl").read_text().splitlines()
    assert len(heldout_0) == 3

    second = _train(args)
    out, err = second.communicate(timeout=1200)
    assert second.returncode == 0, err[-3000:]
    assert (run_dir / "rounds" / "r000" / "heldout.jsonl").read_text().splitlines() == heldout_0  # not redone
    curve = (run_dir / "curve.tsv").read_text().splitlines()
    assert [line.split("\t")[0] for line in curve[1:]] == ["0", "1"]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert (summary["round"], summary["phase"]) == (2, "evaluate") and summary["weights_version"] == 2
    assert len((run_dir / "rounds" / "r002" / "heldout.jsonl").read_text().splitlines()) == 3
    searched = [json.loads(line) for r in ("r000", "r001")
                for line in (run_dir / "rounds" / r / "search.jsonl").read_text().splitlines()]
    assert len(searched) == 6 and len({row["problem"] for row in searched}) == 6
    assert all(row["problem"].startswith("factory/") for row in searched)
    assert list((run_dir / "tb").glob("events.out.tfevents.*")) and (run_dir / "config.yaml").is_file()
    header, *rows = curve
    columns = header.split("\t")
    assert "reference_top8" in columns and "value_auc" in columns and "script_logprob" in columns
    assert (run_dir / "script_references.jsonl").is_file()  # the held-out scripts, replayed once for the column
    assert (run_dir / "references.jsonl").read_text().count("\n") == 3
    # the CLI counts only benchmark sources as competition problems: a factory-only run counts none
    competition = [row.split("\t")[columns.index("competition_proved_total")] for row in rows]
    assert competition == ["0"] * len(rows)


def test_train_makes_problems_of_the_open_goals_of_failed_train_searches(tmp_path: Path, factory: Path) -> None:
    """`iteration.subgoal_sources`: after round 0's search, the open goals of the failed searches
    of two hard train-split problems (no 8 s search proves an IMO problem) are problems of source
    `subgoals` in `subgoals.jsonl`, named after their target, that elaborate in Coq; round 1
    searches some of them."""
    hard = tmp_path / "hardtrain"
    hard.mkdir()
    for name in ("imo_1974_p5", "imo_1962_p4"):
        (hard / f"{name}.v").write_text((REPO / "data" / "minif2f-rocq" / "valid" / f"{name}.v").read_text())
    run_dir = tmp_path / "run"
    args = [f"sources=[factory:{factory},{hard}]", f"run_dir={run_dir}", "actors=0", "supervised_file=", "library_file=",
            "iteration.rounds=2", "iteration.problems_per_round=4", "iteration.heldout_problems=1",
            "iteration.search_seconds=8", "iteration.search_simulations=16", "iteration.heldout_seconds=4",
            "iteration.heldout_simulations=4", "iteration.learner_steps_per_round=1", "iteration.min_buffer_records=1",
            "iteration.policy_search_share=0", "iteration.subgoal_sources=[hardtrain]",
            "iteration.source_weights={hardtrain:1,subgoals:2}", "learner.batch_size=4", "mcts.num_samples=4"]
    out, err = _train(args).communicate(timeout=1500)
    assert "Traceback" not in err, err[-3000:]
    rows = [json.loads(line) for line in (run_dir / "subgoals.jsonl").read_text().splitlines()]
    made = [row for row in rows if row["kind"] == "problem"]
    assert {"kind": "round", "round": 0} in rows and made
    assert all(row["id"].startswith(("subgoals/imo_1974_p5_sg", "subgoals/imo_1962_p4_sg")) for row in made)
    assert any("_sg0_" in row["id"] for row in made) and {row["round"] for row in made} <= {0, 1}
    from selfplay.source_cache import theorem_from_dict

    with CoqEnv(timeout=10.0) as env:
        for row in made:
            env.start(theorem_from_dict(row["theorem"]))         # raises if it does not elaborate
    searched = [json.loads(line)["problem"] for line in (run_dir / "rounds" / "r001" / "search.jsonl").read_text().splitlines()]
    assert any(problem.startswith("subgoals/") for problem in searched)
