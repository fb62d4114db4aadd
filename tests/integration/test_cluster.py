"""A real multi-node Ray cluster on this machine (docs/ARCHITECTURE.md §On a cluster): a head and two
worker nodes started with `ray start`, as the README's "On a cluster" says, with Ray's token
authentication on (a token file of the test's own; the drivers get only `RAY_AUTH_TOKEN_PATH`, as a
user has it). Nodes are started with `--node-ip-address=127.0.0.1`; Ray 2.60 still advertises the
machine's reachable address for them (its `resolve_ip_for_localhost`), which is this machine.

- without a cluster (a local Ray), the same: actors get each published version through Ray;
- actors get the weights through Ray (a `RayWeights` source, never the run directory) and report
  the newest version after a publish; a short `alphaprover train` runs attached, its learner a Ray
  actor (`learner.placement=cluster`);
- a driver with the wrong token gets one line and exit 2;
- `alphaprover eval` across the two worker nodes survives one of them being killed mid-run, every
  problem reported once.

The cluster (`benchmarks.loopback_cluster`, shared with the cluster benchmark) is stopped by
killing the processes whose command line names its temporary directory (`ray stop` would stop
every Ray on the machine).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from benchmarks.loopback_cluster import LoopbackCluster

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
CHECKPOINT = REPO / "checkpoints" / "alphaprover-coq-small"


@pytest.fixture(scope="module")
def cluster() -> Iterator[LoopbackCluster]:
    started = LoopbackCluster()
    try:
        yield started
    finally:
        started.stop()


def _cli(args: list[str], env: dict[str, str], timeout: float = 400) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "alphaprover.cli", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)


def _actors_see_each_publish(address: str, actors: int, tmp_path: Path) -> Path:
    """Ray actors built by `ray_pool` get version 0, then version 1 once the learner publishes it,
    through Ray (their recipes never see the run directory); returns the problems' directory."""
    import ray

    from alphaprover.config import load_config, to_plain
    from alphaprover.train_setup import ActorRecipe, EvaluatorRecipe, load_sources
    from lean_interface.problems.benchmarks import BUNDLED
    from selfplay.learner import Learner, LearnerConfig
    from selfplay.ray_workers import ray_pool
    from selfplay.weights_store import RayWeights

    run_dir = tmp_path / "run"
    learner = Learner(run_dir, CHECKPOINT, LearnerConfig(quantization=""))
    plain = to_plain(load_config("train", ["mcts.num_samples=8"]))
    source = tmp_path / "problems"
    source.mkdir()
    shutil.copy(BUNDLED["minif2f-rocq-valid"][0] / "mathd_numbertheory_35.v", source)
    problems = tuple(load_sources([str(source)]))
    given = []

    def recipe(index: int, weights: object) -> ActorRecipe:
        given.append(weights)
        return ActorRecipe(f"actor-{index}", problems, plain["backend"], {**plain, "method": "mcts"},
                           EvaluatorRecipe("mixed", plain["backend"], 1.0, 0, 1, None), weights, {}, index)

    pool = ray_pool(actors, recipe, address, run_dir / "weights")
    try:
        assert all(isinstance(w, RayWeights) for w in given) and str(run_dir) not in repr(given)
        assert pool.weights_versions() == [0] * actors
        learner.train_batch(_records())
        version, _ = learner.publish()
        assert version == 1 and pool.weights_versions() == [1] * actors  # the new version reached every actor
        nodes = {n["NodeID"] for n in ray.nodes() if n["Alive"] and n["Resources"].get("CPU")}
        assert len(nodes) == (2 if address else 1)
    finally:
        pool.close()
        ray.shutdown()
    return source


def test_without_a_cluster_actors_get_weights_through_a_local_ray(tmp_path: Path) -> None:
    import ray

    ray.shutdown()
    _forget_token_mode()
    try:
        _actors_see_each_publish("", 1, tmp_path)
    finally:
        _forget_token_mode()


def test_actors_get_weights_through_ray_and_train_runs_attached(cluster: LoopbackCluster, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import ray

    for key in [k for k in os.environ if k.startswith("RAY_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(cluster.token))
    ray.shutdown()
    _forget_token_mode()
    try:
        source = _actors_see_each_publish(cluster.address, 2, tmp_path)
    finally:
        _forget_token_mode()

    train_dir = tmp_path / "train"
    done = _cli(["train", "loop=selfplay", f"sources=[{source}]",
                 f"run_dir={train_dir}", f"ray_address={cluster.address}", "actors=1", "max_episodes=2",
                 "learner.placement=cluster", "learner.quantization=", "learner.publish_every=1",
                 "learner_steps_per_episode=1", "min_buffer_records=1", "supervised_file=", "library_file=",
                 "matchmaker.base_seconds=5", "matchmaker.base_simulations=16", "mcts.num_samples=8"],
               cluster.driver_env())
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((train_dir / "summary.json").read_text())
    assert summary["episodes"] == 2 and summary["learner_steps"] >= 1 and summary["weights_version"] >= 1
    assert (train_dir / "weights" / f"v{summary['weights_version']:06d}" / "model.safetensors").is_file()
    assert (train_dir / "learner" / "learner_state.pt").is_file()  # the remote learner's state, mirrored


def _forget_token_mode() -> None:
    """Forget, in this test process, the token mode and the token Ray cached when a Ray was started
    or attached (a CLI process ends instead): the next Ray must not expect another cluster's token."""
    from ray._private.authentication_test_utils import reset_auth_token_state

    os.environ.pop("RAY_AUTH_MODE", None)
    reset_auth_token_state()


def _records():
    from selfplay.episode import TrainingRecord

    return [TrainingRecord(goal="n : nat\n============================\nn + 0 = n", tactic="lia", steps=1,
                           source="test")] * 2


def test_a_wrong_token_is_one_line_and_exit_2(cluster: LoopbackCluster, tmp_path: Path) -> None:
    wrong = tmp_path / "token"
    wrong.write_text(secrets.token_hex(32))
    done = _cli(["eval", "minif2f-rocq-valid", "--methods", "portfolio", "--limit", "1", "--workers", "2",
                 f"ray_address={cluster.address}", "--out", str(tmp_path / "r.jsonl"), f"runs_dir={tmp_path}"],
                cluster.driver_env(wrong), timeout=120)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert lines[-1].startswith("alphaprover: error: the Ray cluster at") and "token" in lines[-1]


def test_eval_across_two_nodes_survives_one_dying(cluster: LoopbackCluster, tmp_path: Path) -> None:
    # four searches that use their whole budget (the automation alone proves none), then two quick proofs:
    # when the first record is written both workers are mid-search
    problems = ["aimeII_2001_p3", "aime_1988_p4", "amc12a_2002_p21", "amc12b_2003_p17", "mathd_numbertheory_101",
                "mathd_algebra_190"]
    out = tmp_path / "eval.jsonl"
    process = subprocess.Popen([sys.executable, "-m", "alphaprover.cli", "eval", "minif2f-rocq-valid", "--methods",
                                "mcts-fixed", "--workers", "2", "--problems", ",".join(problems), "--seconds", "6",
                                "--simulations", "100000",
                                f"ray_address={cluster.address}", "--out", str(out), f"runs_dir={tmp_path}"],
                               cwd=REPO, env=cluster.driver_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not (out.is_file() and out.read_text().strip()):
        assert process.poll() is None, process.communicate()[1][-3000:]
        time.sleep(0.5)
    cluster.kill_node("node_c")  # one worker node dies while jobs are in flight
    _, stderr = process.communicate(timeout=400)
    assert process.returncode == 0, stderr[-3000:]
    reported = [json.loads(line)["problem"] for line in out.read_text().splitlines() if line.strip()]
    assert sorted(reported) == sorted(problems)  # each once: the lost job ran again on the other node
    assert "a new worker takes its place" in stderr  # a job was lost with the node, and rerun
