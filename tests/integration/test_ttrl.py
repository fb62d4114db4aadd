"""`alphaprover ttrl` on real Coq with the shipped checkpoint and tiny budgets: a competition
directory of two train-split problems (one the checkpoint proves at once, one it does not) under one
budget writes report.md / report.json with the easy target proved and its proof verified; a kill -9
mid-run loses nothing, and the rerun continues without attempting the proved target again; a
dev-subset target is refused with exit code 2."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lean_interface.coq import CoqEnv
from lean_interface.problems.benchmarks import BUNDLED, dev_problem_names, find_problem, is_dev_problem

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
VALID = BUNDLED["minif2f-rocq-valid"][0]
EASY, HARD = "mathd_numbertheory_35", "aime_1983_p9"      # train split: proved at once / not
FAST = ["supervised_file=", "threads=1", "learner.threads=1", "mcts.num_samples=8", "matchmaker.base_seconds=4",
        "matchmaker.base_simulations=24", "min_buffer_records=1", "learner.batch_size=8", "learner.publish_every=4",
        "learner.checkpoint_every=4", "target_every=3", "min_slice_seconds=5", "slice_minutes=0.25"]


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "alphaprover.cli", "ttrl", *args]


def _state(run_dir: Path) -> dict | None:
    try:
        return json.loads((run_dir / "state.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def _episodes(target_dir: Path) -> int:
    return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in (target_dir / "buffer").glob("shard-*.jsonl"))


def test_dev_subset_target_is_refused(tmp_path: Path) -> None:
    dev = sorted(dev_problem_names())[1]
    done = subprocess.run(_cli(dev, f"run_dir={tmp_path / 'run'}"), cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("alphaprover: error: ") and "dev subset" in lines[0]
    assert not (tmp_path / "run").exists()


def test_competition_proves_reports_and_resumes_after_kill(tmp_path: Path) -> None:
    assert not is_dev_problem(EASY) and not is_dev_problem(HARD)
    comp = tmp_path / "competition"
    comp.mkdir()
    for name in (EASY, HARD):
        shutil.copy(VALID / f"{name}.v", comp / f"{name}.v")
    run_dir = tmp_path / "run"
    common = [str(comp), f"run_dir={run_dir}", *FAST]

    process = subprocess.Popen(_cli(*common, "max_minutes=1.5"), cwd=REPO, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        deadline, proved_at = time.monotonic() + 150, None
        while time.monotonic() < deadline and process.poll() is None:
            state = _state(run_dir)
            if proved_at is None and state and state["targets"].get(EASY, {}).get("status") == "proved":
                proved_at = time.monotonic()
            if proved_at is not None and time.monotonic() > proved_at + 6:   # mid-way through a later slice
                break
            time.sleep(0.5)
        assert process.poll() is None, "the run ended before it could be killed"
        os.kill(process.pid, signal.SIGKILL)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()

    state = _state(run_dir)                          # written atomically: whole after a kill -9
    easy, hard = state["targets"][EASY], state["targets"][HARD]
    assert easy["status"] == "proved" and easy["proof"] and hard["status"] == "open"
    assert easy["variants_generated"] > 0 and hard["seconds"] > 0
    report = json.loads((run_dir / "report.json").read_text())
    assert report["proved"] == 1 and report["results"][0]["name"] == HARD
    markdown = (run_dir / "report.md").read_text()
    assert f"## {EASY}: proved" in markdown and easy["proof"].strip() in markdown
    with CoqEnv(timeout=10.0) as env:                # the reported proof checks from scratch
        verdict = env.verify(find_problem(EASY).theorem, easy["proof"])
    assert verdict.ok, verdict.message

    easy_episodes, easy_slices = _episodes(run_dir / EASY), easy["slices"]
    used = state["elapsed_seconds"]
    rerun = subprocess.run(_cli(*common, f"max_minutes={(used + 20) / 60:.4f}"), cwd=REPO, capture_output=True,
                           text=True, timeout=150)
    after = _state(run_dir)
    easy2, hard2 = after["targets"][EASY], after["targets"][HARD]
    proved = 1 + (hard2["status"] == "proved")
    assert rerun.returncode == (0 if proved == 2 else 1), rerun.stderr[-2000:]   # 0 only when every target is
    assert f"ttrl: proved {proved} of 2: " in rerun.stdout
    assert easy2["proof"] == easy["proof"] and easy2["status"] == "proved"
    assert easy2["slices"] == easy_slices and _episodes(run_dir / EASY) == easy_episodes   # never re-attempted
    assert f"ttrl: {EASY}: slice" not in rerun.stdout and f"ttrl: {HARD}: slice" in rerun.stdout
    assert hard2["slices"] > hard["slices"] and hard2["seconds"] > hard["seconds"]
    assert used + 14 <= after["elapsed_seconds"] <= used + 30             # one budget across the rerun
    assert f"## {EASY}: proved" in (run_dir / "report.md").read_text()
