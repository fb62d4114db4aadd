"""On a Ray cluster of this machine: self-play episodes per minute with actors on one node vs two,
and eval problems per minute with 1 vs 2 workers, each a ratio in one run (docs/ARCHITECTURE.md
§On a cluster).

    PYTHONPATH=. .venv/bin/python benchmarks/cluster_throughput.py [--minutes 1.5] [--seconds 5] [--problems 8]

A three-node cluster on loopback (`benchmarks.loopback_cluster`: a head without CPUs and two worker
nodes of one CPU each, token authentication on) is started and stopped by the script; this process
attaches to it as the driver. Self-play: the real `SelfPlay` driver with Ray actors whose weights
come through Ray (`selfplay.ray_workers.ray_pool`), the shipped checkpoint, minif2f-rocq-train,
a fixed per-attempt budget, the learner off (as in benchmarks/selfplay_throughput.py): 1 actor
(one node) vs 2 actors (one per node) for the same wall time. Eval: `alphaprover.eval_cluster.run_on_ray`
on the same `--problems` problems of minif2f-rocq-valid with `mcts-fixed` at `--seconds`, 1 worker vs 2.
On a 2-core machine shared with other jobs the ceiling is 2×, and the ratio says how close the
cluster path comes to it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.loopback_cluster import LoopbackCluster  # noqa: E402


def selfplay_rate(address: str, actors: int, minutes: float, seconds: float, run_dir: Path) -> tuple[int, float]:
    """(episodes, episodes per minute) of `actors` Ray actors attached to `address`."""
    from alphaprover.config import load_config, to_plain
    from alphaprover.train_setup import ActorRecipe, EvaluatorRecipe, load_sources
    from selfplay.loop import SelfPlay, SelfPlayConfig
    from selfplay.ray_workers import ray_pool

    plain = to_plain(load_config("train", []))
    cfg = SelfPlayConfig.from_dict({
        "run_dir": str(run_dir), "checkpoint": str(ROOT / "checkpoints" / "alphaprover-coq-small"), "actors": actors,
        "max_minutes": minutes, "learner_steps_per_episode": 0, "seed": 0, "learner": {"quantization": "float32"},
        "matchmaker": {"base_seconds": seconds, "base_simulations": 100_000, "budget_growth": 1.0},
    })
    problems = load_sources(["minif2f-rocq-train"])
    driver = SelfPlay(cfg, problems, [])
    evaluator = EvaluatorRecipe("mixed", plain["backend"], 1.0, 0, 1, None)
    search = {**plain, "method": "mcts"}
    pool = ray_pool(actors, lambda i, weights: ActorRecipe(f"actor-{i}", tuple(problems), plain["backend"], search,
                                                           evaluator, weights, {}, 1000 * i), address, run_dir / "weights")
    pool.weights_versions()  # every actor up with its weights: start-up is not measured
    started = time.monotonic()
    progress = driver.run(pool)
    return progress.episodes, 60 * progress.episodes / (time.monotonic() - started)


def eval_rate(address: str, workers: int, names: list[str], seconds: float) -> tuple[int, float]:
    """(problems, problems per minute) of `run_on_ray` with `workers` workers attached to `address`."""
    from alphaprover.config import load_config, to_plain
    from alphaprover.eval_cluster import run_on_ray
    from lean_interface.problems.benchmarks import load_benchmark

    plain = to_plain(load_config("config", [f"budget.max_seconds={seconds}", "budget.max_simulations=100000"]))
    known = {p.name: p for p in load_benchmark("minif2f-rocq-valid")}
    jobs = [(known[name], "mcts-fixed") for name in names]
    started = time.monotonic()
    records = list(run_on_ray(plain, jobs, workers, address))
    return len(records), 60 * len(records) / (time.monotonic() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=1.5, help="self-play wall time per configuration")
    parser.add_argument("--seconds", type=float, default=5.0, help="search budget per attempt / problem")
    parser.add_argument("--problems", type=int, default=8, help="eval problems (minif2f-rocq-valid, by name)")
    args = parser.parse_args()
    from lean_interface.problems.benchmarks import load_benchmark

    names = sorted(p.name for p in load_benchmark("minif2f-rocq-valid") if p.theorem is not None)[: args.problems]
    cluster = LoopbackCluster()
    os.environ["RAY_AUTH_TOKEN_PATH"] = str(cluster.token)
    rows: list[tuple[str, str, int, float]] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for actors in (1, 2):
                count, rate = selfplay_rate(cluster.address, actors, args.minutes, args.seconds,
                                            Path(tmp) / f"actors-{actors}")
                rows.append(("self-play", f"{actors} actor(s) on {actors} node(s)", count, rate))
                print(f"self-play, {actors} node(s): {count} episodes = {rate:.2f}/min", flush=True)
        for workers in (1, 2):
            count, rate = eval_rate(cluster.address, workers, names, args.seconds)
            rows.append(("eval", f"{workers} worker(s)", count, rate))
            print(f"eval, {workers} worker(s): {count} problems = {rate:.2f}/min", flush=True)
    finally:
        import ray

        ray.shutdown()
        cluster.stop()
    print("\n| job | configuration | done | per minute |\n|---|---|---:|---:|")
    for job, config, count, rate in rows:
        print(f"| {job} | {config} | {count} | {rate:.2f} |")
    for job in ("self-play", "eval"):
        one, two = [rate for j, _, _, rate in rows if j == job]
        print(f"{job}: two nodes / one = {two / one if one else float('nan'):.2f}x")


if __name__ == "__main__":
    main()
