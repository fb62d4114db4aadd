"""`alphaprover analyze RUN_DIR value-fixed-goals [--goals r000,r006] [--versions …] [--goals-from RUN]`:
the value head of every published version of a run, on fixed goal sets.

`curve.tsv`'s `value_auc` scores round r's weights on round r's own held-out goals; those goals
change with the policy (round 0 reaches shallow goals, round 6 the deep goals of multi-step proofs
that are harder to tell apart), so the column mixes two things: the value head and the test it is
given. Here each version is scored on the same goals: the goals of the rounds named by `--goals`
(each round's `rounds/rNNN/heldout.jsonl`: proved vs searched without a proof), so a row reads how
one head does across tests and a column how the heads of successive rounds do on one test. The
diagonal is `curve.tsv`'s column. Nothing is searched; the held-out goals are evaluation data and
never reach a learner.

`--goals-from` takes the goal files from another run on the same slice, so runs that differ in one
setting are scored on one test (docs/experiments.md, run 13: runs 12 and 13 on run 10's goals):

    alphaprover analyze runs/expert-13 value-fixed-goals --goals-from runs/expert-10 --goals r000,r003,r006
"""

from __future__ import annotations

import argparse
from pathlib import Path

from alphaprover.analyze.run_files import value_auc
from alphaprover.config import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--goals", default="", help="rounds whose held-out goals are the tests (default: all)")
    parser.add_argument("--versions", default="", help="published versions to score (default: all)")
    parser.add_argument("--goals-from", type=Path, default=None,
                        help="another run whose rounds' goal files are the tests (default: RUN_DIR's own)")


def run(run_dir: Path, args: argparse.Namespace) -> int:
    goals_run = args.goals_from or run_dir
    rounds_dir, weights_dir = goals_run / "rounds", run_dir / "weights"
    if not rounds_dir.is_dir() or not weights_dir.is_dir():
        raise UsageError(f"{run_dir} (weights) or {goals_run} (goals) is not an expert-iteration run "
                         "(no weights/ or rounds/)")
    goal_rounds = args.goals.split(",") if args.goals else sorted(
        p.parent.name for p in rounds_dir.glob("r*/heldout.jsonl"))
    versions = args.versions.split(",") if args.versions else sorted(p.name for p in weights_dir.glob("v*"))
    missing = [r for r in goal_rounds if not (rounds_dir / r / "heldout.jsonl").is_file()] + \
        [v for v in versions if not (weights_dir / v / "config.json").is_file()]
    if missing:
        raise UsageError(f"not found: {', '.join(missing)}")
    print(f"value AUC, proved vs unproved held-out goals: weights of {run_dir}, goals of {goals_run}")
    print("| version | " + " | ".join(f"{r}'s goals" for r in goal_rounds) + " |")
    print("|---|" + "---:|" * len(goal_rounds))
    for version in versions:
        cells = [f"{value_auc(str(weights_dir / version), rounds_dir / r / 'heldout.jsonl'):.3f}" for r in goal_rounds]
        print(f"| {version} | " + " | ".join(cells) + " |", flush=True)
    return 0
