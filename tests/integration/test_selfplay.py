"""Self-play on real Coq with the shipped checkpoint: `alphaprover train` streams episodes,
trains and publishes; a kill -9 of the driver (learner) loses nothing stored and `resume`
continues; a Ray actor killed mid-attempt is restarted and the run goes on; the dev subset
cannot become a problem source."""

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

from alphaprover.config import UsageError
from lean_interface.problems.benchmarks import BUNDLED, dev_problem_names
from selfplay.episode import Episode
from tests.procfs import alive as _alive
from tests.procfs import children as _children

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
VALID = BUNDLED["minif2f-rocq-valid"][0]
#: train-split problems: two that the checkpoint proves fast, one it does not
PROBLEMS = ("mathd_numbertheory_35", "mathd_algebra_119", "aime_1983_p9")
FAST = ["loop=selfplay", "matchmaker.base_seconds=4", "matchmaker.base_simulations=24", "learner.publish_every=2",
        "learner.checkpoint_every=2", "learner_steps_per_episode=2", "min_buffer_records=1", "supervised_file=",
        "library_file=",
        "mcts.num_samples=8"]


@pytest.fixture()
def source_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "problems"
    directory.mkdir()
    for name in PROBLEMS:
        shutil.copy(VALID / f"{name}.v", directory / f"{name}.v")
    return directory


def _train(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "alphaprover.cli", "train", *args], cwd=REPO, capture_output=True,
                          text=True, **kwargs)


def _episodes(run_dir: Path) -> list[Episode]:
    lines = [line for shard in sorted((run_dir / "buffer").glob("shard-*.jsonl"))
             for line in shard.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Episode.from_dict(json.loads(line)) for line in lines]


def test_train_streams_trains_publishes_and_survives_a_kill(tmp_path: Path, source_dir: Path) -> None:
    run_dir = tmp_path / "run"
    common = [f"sources=[{source_dir}]", f"run_dir={run_dir}", "actors=0", *FAST]
    process = subprocess.Popen([sys.executable, "-m", "alphaprover.cli", "train", *common, "max_episodes=100"],
                               cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and len(_episodes(run_dir)) < 3 if (run_dir / "buffer").exists() else True:
        if time.monotonic() > deadline:
            break
        time.sleep(1)
    os.kill(process.pid, signal.SIGKILL)  # the driver holds the learner and the buffer
    process.wait()
    stored = _episodes(run_dir)
    assert len(stored) >= 3 and any(e.proved for e in stored)
    assert all(e.problem.startswith("problems/") and e.records for e in stored if e.proved)
    first_versions = {e.weights_version for e in stored}

    done = _train([*common, "max_episodes=3"], timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["episodes"] == 3 and summary["episodes_total"] == len(stored) + 3
    after = _episodes(run_dir)
    assert [e.to_dict() for e in after[: len(stored)]] == [e.to_dict() for e in stored]  # nothing lost or rewritten
    assert summary["weights_version"] >= 1 and max(e.weights_version for e in after) >= max(first_versions)
    assert (run_dir / "learner" / "learner_state.pt").is_file() and (run_dir / "config.yaml").is_file()
    assert list((run_dir / "tb").glob("events.out.tfevents.*"))


def test_a_killed_ray_actor_is_restarted_and_the_pool_goes_on(tmp_path: Path, source_dir: Path) -> None:
    from alphaprover.config import load_config, to_plain
    from alphaprover.train_setup import ActorRecipe, EvaluatorRecipe, load_sources
    from selfplay.learner import Learner, LearnerConfig
    from selfplay.matchmaker import Attempt
    from selfplay.ray_workers import RayActors

    plain = to_plain(load_config("train", ["mcts.num_samples=8"]))
    Learner(tmp_path / "run", REPO / "checkpoints" / "alphaprover-coq-small", LearnerConfig(quantization=""))
    problems = tuple(load_sources([str(source_dir)]))
    evaluator = EvaluatorRecipe("mixed", plain["backend"], 1.0, 0, 1, None)
    pool = RayActors(2, lambda i: ActorRecipe(f"actor-{i}", problems, plain["backend"], {**plain, "method": "mcts"},
                                              evaluator, str(tmp_path / "run" / "weights"), {}, i))
    try:
        victim_pid = pool.pids()[0]
        slow = Attempt("problems/aime_1983_p9", False, 60.0, 100_000)
        quick = Attempt("problems/mathd_numbertheory_35", False, 20.0, 200)
        pool.submit(slow)
        pool.submit(quick)
        time.sleep(8)  # both actors are searching
        os.kill(victim_pid, signal.SIGKILL)
        results = []
        deadline = time.monotonic() + 180
        while len(results) < 2 and time.monotonic() < deadline:
            results.extend(pool.poll(timeout=1.0))
        outcomes = {attempt.problem: episode for attempt, episode in results}
        assert outcomes["problems/aime_1983_p9"] is None  # lost with its actor, reported as lost
        assert outcomes["problems/mathd_numbertheory_35"].proved
        assert pool.restarts == 1
        while pool.recovering and time.monotonic() < deadline + 180:  # Ray restarts the victim
            pool.poll(timeout=1.0)
        assert not pool.recovering and pool.idle() == 2
        assert victim_pid not in pool.pids()  # a new process
        pool.submit(quick)  # one attempt per actor: the restarted one works again
        pool.submit(quick)
        again: list = []
        while len(again) < 2 and time.monotonic() < deadline + 300:
            again.extend(pool.poll(timeout=1.0))
        assert [e is not None and e.proved for _, e in again] == [True, True]
        assert {e.actor for _, e in again} == {"actor-0", "actor-1"}
        provers = [child for pid in pool.pids() for child in _children(pid) if _is_coqtop(child)]
        assert len(provers) == 2  # one coqtop per actor
        pool.close()  # each actor closes (kills and reaps) its prover before it returns; then Ray kills the actor
        assert not any(_alive(pid) for pid in provers)  # at once: `ray.kill` alone returns with them still running
    finally:
        pool.close()


def _is_coqtop(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return b"coqtop" in handle.read().split(b"\0")[0]
    except FileNotFoundError:
        return False


def test_the_dev_subset_cannot_be_a_source(tmp_path: Path) -> None:
    from alphaprover.train_setup import load_sources
    from selfplay.actor import SourceProblem
    from selfplay.loop import SelfPlay, SelfPlayConfig

    dev_name = sorted(dev_problem_names())[0]
    directory = tmp_path / "mixed"
    directory.mkdir()
    shutil.copy(VALID / f"{dev_name}.v", directory / f"{dev_name}.v")
    shutil.copy(VALID / "mathd_algebra_119.v", directory / "mathd_algebra_119.v")
    with pytest.raises(UsageError, match="dev-subset"):
        load_sources([str(directory)])
    with pytest.raises(UsageError, match="dev-subset"):
        load_sources(["minif2f-rocq-valid"])
    from lean_interface.problems.benchmarks import find_problem

    smuggled = SourceProblem(f"other/{dev_name}", "other", find_problem(dev_name).theorem)
    with pytest.raises(ValueError, match="dev-subset"):
        SelfPlay(SelfPlayConfig(run_dir=str(tmp_path / "run"), checkpoint="unused"), [smuggled], [])


def test_a_renamed_copy_of_a_dev_problem_is_refused(tmp_path: Path) -> None:
    """The dev guard reads statements, not only names: a dev problem saved under another name is
    refused by the source loader and by the driver."""
    from lean_interface.problems.benchmarks import find_problem
    from alphaprover.train_setup import load_sources
    from selfplay.actor import SourceProblem
    from selfplay.loop import SelfPlay, SelfPlayConfig

    dev_name = sorted(dev_problem_names())[1]
    directory = tmp_path / "renamed"
    directory.mkdir()
    text = (VALID / f"{dev_name}.v").read_text(encoding="utf-8").replace(f"Theorem {dev_name}", "Theorem innocent")
    (directory / "innocent.v").write_text(text, encoding="utf-8")
    with pytest.raises(UsageError, match="dev-subset"):
        load_sources([str(directory)])
    theorem = find_problem(dev_name).theorem
    renamed = SourceProblem("other/innocent", "other", type(theorem)(
        "innocent", theorem.header, theorem.statement.replace(dev_name, "innocent", 1), theorem.language))
    with pytest.raises(ValueError, match="dev-subset"):
        SelfPlay(SelfPlayConfig(run_dir=str(tmp_path / "run"), checkpoint="unused"), [renamed], [])
