"""An expert-iteration run's held-out curve broken down by factory family, round by round.

    PYTHONPATH=. .venv/bin/python benchmarks/heldout_by_family.py runs/expert-2

The curve's one number (held-out items proved by the policy alone) hides what the slice is made
of: the slice is spread over the held-out split, so a family held out whole with many items
(run 2: `fe_symmetric`, 17 of 64) weighs as much as a dozen families held out by seed (runs begun
since then pick their slice `by_family`, `iteration.heldout_selection`). Printed:
per family, how many slice items it has, and how many each round's weights proved; then the items
never proved in any round, the ceiling the curve can reach with what the policy has learnt so far.
Reads `rounds/r*/heldout.jsonl` only; nothing is searched.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from selfplay.round_metrics import family_of  # noqa: E402


def read_rounds(run_dir: Path) -> list[dict[str, bool]]:
    """Per round, in order: held-out problem → proved."""
    rounds = []
    for path in sorted((run_dir / "rounds").glob("r[0-9]*/heldout.jsonl")):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        rounds.append({row["problem"]: bool(row.get("proved")) for row in rows})
    return rounds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    args = parser.parse_args()
    rounds = read_rounds(args.run_dir)
    if not rounds:
        print(f"error: no rounds/r*/heldout.jsonl under {args.run_dir}", file=sys.stderr)
        return 2
    problems = sorted({p for outcome in rounds for p in outcome})
    by_family: dict[str, list[str]] = defaultdict(list)
    for problem in problems:
        by_family[family_of(problem)].append(problem)
    header = ["family", "items"] + [f"r{index}" for index in range(len(rounds))]
    print("\t".join(header))
    for family, members in sorted(by_family.items(), key=lambda item: (-len(item[1]), item[0])):
        counts = [str(sum(outcome.get(p, False) for p in members)) for outcome in rounds]
        print("\t".join([family, str(len(members)), *counts]))
    totals = [str(sum(outcome.values())) for outcome in rounds]
    print("\t".join(["all", str(len(problems)), *totals]))
    never = [p for p in problems if not any(outcome.get(p, False) for outcome in rounds)]
    never_by_family: dict[str, int] = defaultdict(int)
    for problem in never:
        never_by_family[family_of(problem)] += 1
    print(f"never proved in any round: {len(never)} of {len(problems)} ("
          + ", ".join(f"{family} {count}" for family, count in sorted(never_by_family.items(), key=lambda i: -i[1]))
          + f"); proved in some round: {len(problems) - len(never)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
