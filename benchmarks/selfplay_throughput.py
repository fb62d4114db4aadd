"""Self-play throughput: episodes per second with 1 vs 2 Ray actors, side by side in one run.

    PYTHONPATH=. .venv/bin/python benchmarks/selfplay_throughput.py [--minutes 4] [--seconds 6]

Each configuration runs the real `alphaprover train` machinery (Ray actors around `Actor`,
the driver storing every episode with fsync, the shipped checkpoint, Coq) on the
minif2f-rocq-train problems for the same wall time, with the same matchmaker seed and a fixed
per-attempt budget (`--seconds`, adaptive growth off), in fresh run directories. The learner is
off (`learner_steps_per_episode=0`) so the ratio measures the actors; with the learner on, its
steps take CPU from the actors on a 2-core machine. Target: 2 actors ≥ 1.7× 1 actor.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from alphaprover.config import load_config, to_plain  # noqa: E402
from alphaprover.train_setup import ActorRecipe, EvaluatorRecipe, load_sources  # noqa: E402
from selfplay.loop import SelfPlay, SelfPlayConfig  # noqa: E402
from selfplay.ray_workers import RayActors  # noqa: E402


def measure(actors: int, minutes: float, seconds: float, run_dir: Path) -> tuple[int, int, float]:
    """(episodes, proofs, episodes per second) of `actors` Ray actors for `minutes`."""
    plain = to_plain(load_config("train", []))
    checkpoint = str(ROOT / "checkpoints" / "alphaprover-coq-small")
    cfg = SelfPlayConfig.from_dict({
        "run_dir": str(run_dir), "checkpoint": checkpoint, "actors": actors, "max_minutes": minutes,
        "learner_steps_per_episode": 0, "seed": 0,
        "learner": {"quantization": "float32"},
        "matchmaker": {"base_seconds": seconds, "base_simulations": 100_000, "budget_growth": 1.0},
    })
    problems = load_sources(["minif2f-rocq-train"])
    driver = SelfPlay(cfg, problems, [])
    evaluator = EvaluatorRecipe("mixed", plain["backend"], 1.0, 0, 1, None)
    search = {**plain, "method": "mcts"}
    pool = RayActors(actors, lambda i: ActorRecipe(f"actor-{i}", tuple(problems), plain["backend"], search, evaluator,
                                                   str(run_dir / "weights"), {}, 1000 * i))
    pool.pids()  # wait until every actor is up: start-up is not part of the measurement
    started = time.monotonic()
    progress = driver.run(pool)
    elapsed = time.monotonic() - started
    return progress.episodes, progress.proofs, progress.episodes / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=4.0, help="wall time per configuration")
    parser.add_argument("--seconds", type=float, default=6.0, help="search budget per attempt")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for actors in (1, 2):
            episodes, proofs, rate = measure(actors, args.minutes, args.seconds, Path(tmp) / f"actors-{actors}")
            rows.append((actors, episodes, proofs, rate))
            print(f"{actors} actor(s): {episodes} episodes ({proofs} proofs) in {args.minutes:g} min = {rate:.3f} episodes/s",
                  flush=True)
    ratio = rows[1][3] / rows[0][3] if rows[0][3] else float("nan")
    print(f"\n| actors | episodes | proofs | episodes/s |\n|---:|---:|---:|---:|")
    for actors, episodes, proofs, rate in rows:
        print(f"| {actors} | {episodes} | {proofs} | {rate:.3f} |")
    print(f"\n2 actors / 1 actor: {ratio:.2f}x (target >= 1.7x)")


if __name__ == "__main__":
    main()
