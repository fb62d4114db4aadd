"""The value head of every published version of an expert-iteration run, on fixed goal sets.

    PYTHONPATH=. .venv/bin/python benchmarks/value_fixed_goals.py runs/expert-9
    PYTHONPATH=. .venv/bin/python benchmarks/value_fixed_goals.py runs/expert-9 --goals r000,r006 --versions v000000,v000006

`curve.tsv`'s `value_auc` scores round r's weights on round r's own held-out goals; those goals
change with the policy (round 0 reaches shallow goals, round 6 the deep goals of multi-step
proofs that are harder to tell apart), so the column mixes two things: the value head and the
test it is given. Here each version is scored on the same goals: the goals of the rounds named
by `--goals` (each round's `rounds/rNNN/heldout.jsonl`: proved vs searched without a proof), so
a row reads how one head does across tests and a column how the heads of successive rounds do on
one test. The diagonal is `curve.tsv`'s column. Nothing is searched; the held-out goals are
evaluation data and never reach a learner.

`--goals-from` takes the goal files from another run on the same slice, so runs that differ in
one setting are scored on one test (BENCHMARKS.md, run 13: runs 12 and 13 on run 10's goals):

    PYTHONPATH=. .venv/bin/python benchmarks/value_fixed_goals.py runs/expert-13 --goals-from runs/expert-10 \
        --goals r000,r003,r006
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.policy_baselines import value_auc  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--goals", default="", help="rounds whose held-out goals are the tests (default: all)")
    parser.add_argument("--versions", default="", help="published versions to score (default: all)")
    parser.add_argument("--goals-from", type=Path, default=None,
                        help="another run whose rounds' goal files are the tests (default: run_dir's own)")
    args = parser.parse_args(argv)
    goals_run = args.goals_from or args.run_dir
    rounds_dir, weights_dir = goals_run / "rounds", args.run_dir / "weights"
    if not rounds_dir.is_dir() or not weights_dir.is_dir():
        print(f"error: {args.run_dir} (weights) or {goals_run} (goals) is not an expert-iteration run "
              "(no weights/ or rounds/)", file=sys.stderr)
        return 2
    goal_rounds = args.goals.split(",") if args.goals else sorted(
        p.parent.name for p in rounds_dir.glob("r*/heldout.jsonl"))
    versions = args.versions.split(",") if args.versions else sorted(p.name for p in weights_dir.glob("v*"))
    missing = [r for r in goal_rounds if not (rounds_dir / r / "heldout.jsonl").is_file()] + \
        [v for v in versions if not (weights_dir / v / "config.json").is_file()]
    if missing:
        print(f"error: not found: {', '.join(missing)}", file=sys.stderr)
        return 2
    print(f"value AUC, proved vs unproved held-out goals: weights of {args.run_dir}, goals of {goals_run}")
    print("| version | " + " | ".join(f"{r}'s goals" for r in goal_rounds) + " |")
    print("|---|" + "---:|" * len(goal_rounds))
    for version in versions:
        cells = [f"{value_auc(str(weights_dir / version), rounds_dir / r / 'heldout.jsonl'):.3f}" for r in goal_rounds]
        print(f"| {version} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
