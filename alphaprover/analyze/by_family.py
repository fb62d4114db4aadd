"""`alphaprover analyze RUN_DIR heldout-by-family [--eval FILE]`: a run's held-out curve broken
down by factory family, round by round.

The curve's one number (held-out items proved by the policy alone) hides what the slice is made
of: a family held out whole with many items (run 2: `fe_symmetric`, 17 of 64) weighs as much as a
dozen families held out by seed (runs since pick their slice `by_family`,
`iteration.heldout_selection`). Printed: per family, how many slice items it has and how many each
round's weights proved; then the items never proved in any round, the ceiling the curve can reach
with what the policy has learnt so far; then, round to round, the items lost and gained by family
— a flat or falling round is usually a whole family's items (3–4 on a 96-item slice, one shared
step) changing together (run 8, docs/experiments.md). Reads `rounds/r*/heldout.jsonl`, or with
`--eval` an `alphaprover eval` results file over the exported slice (one column per method, e.g.
each published version); nothing is searched.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

from alphaprover.analyze.repeats import proved_sets
from alphaprover.analyze.run_files import read_rounds
from alphaprover.config import UsageError
from lean_interface.durable import read_jsonl, skip_torn
from selfplay.round_metrics import family_of


def read_eval(path: Path) -> tuple[list[str], list[dict[str, bool]]]:
    """An `eval` results file as columns: per method, labelled by its last path component, or its
    whole target when two share one (`repeats.proved_sets`; sorted, so `v000000`, `v000001`, … in
    version order), the item → proved map, items named as in the run (`heldout/<name>`) so both
    sources line up."""
    records = read_jsonl(path, on_bad=skip_torn, what="an eval record")   # appended: a torn line is skipped
    table = proved_sets(records)
    labels = sorted(table)
    return labels, [{"heldout/" + problem.rsplit("/", 1)[-1]: proved for problem, proved in table[label].items()}
                    for label in labels]


def round_changes(rounds: list[dict[str, bool]]) -> list[tuple[dict[str, int], dict[str, int]]]:
    """Per consecutive pair of columns: (lost, gained) items, counted by family."""
    changes = []
    for before, after in zip(rounds, rounds[1:]):
        lost: dict[str, int] = defaultdict(int)
        gained: dict[str, int] = defaultdict(int)
        for problem in sorted(set(before) | set(after)):
            was, now = before.get(problem, False), after.get(problem, False)
            if was != now:
                (gained if now else lost)[family_of(problem)] += 1
        changes.append((dict(lost), dict(gained)))
    return changes


def by_count(counts: dict[str, int]) -> str:
    """`{"vieta": 3, "divides": 1}` → `vieta 3, divides 1` (largest first); `-` when empty."""
    items = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(f"{family} {count}" for family, count in items) or "-"


def family_report(labels: list[str], rounds: list[dict[str, bool]]) -> list[str]:
    """The printed report: the per-family table (tab-separated), the never-proved line, and one
    lost/gained line per consecutive pair of columns."""
    problems = sorted({p for outcome in rounds for p in outcome})
    by_family: dict[str, list[str]] = defaultdict(list)
    for problem in problems:
        by_family[family_of(problem)].append(problem)
    lines = ["\t".join(["family", "items", *labels])]
    for family, members in sorted(by_family.items(), key=lambda item: (-len(item[1]), item[0])):
        counts = [str(sum(outcome.get(p, False) for p in members)) for outcome in rounds]
        lines.append("\t".join([family, str(len(members)), *counts]))
    lines.append("\t".join(["all", str(len(problems)), *[str(sum(outcome.values())) for outcome in rounds]]))
    never = [p for p in problems if not any(outcome.get(p, False) for outcome in rounds)]
    never_by_family: dict[str, int] = defaultdict(int)
    for problem in never:
        never_by_family[family_of(problem)] += 1
    lines.append(f"never proved in any round: {len(never)} of {len(problems)} ({by_count(never_by_family)}); "
                 f"proved in some round: {len(problems) - len(never)}")
    for (first, second), (lost, gained) in zip(zip(labels, labels[1:]), round_changes(rounds)):
        lines.append(f"{first} -> {second}: lost {sum(lost.values())} ({by_count(lost)}), "
                     f"gained {sum(gained.values())} ({by_count(gained)})")
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--eval", type=Path, default=None,
                        help="an `alphaprover eval` results file over the run's exported slice, one column per method")


def run(run_dir: Path, args: argparse.Namespace) -> int:
    if args.eval is not None:
        if not args.eval.is_file():
            raise UsageError(f"no eval results file {args.eval}")
        try:
            labels, rounds = read_eval(args.eval)
        except (ValueError, KeyError) as error:
            raise UsageError(f"{args.eval} is not an eval results file ({error})") from None
    else:
        rounds = read_rounds(run_dir)
        labels = [f"r{index}" for index in range(len(rounds))]
    if not rounds:
        raise UsageError(f"no rounds/r*/heldout.jsonl under {run_dir}")
    print("\n".join(family_report(labels, rounds)))
    return 0
