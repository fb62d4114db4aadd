"""`alphaprover eval-runs A.jsonl B.jsonl …`: the same arms measured in several eval runs, side by side.

Why: at 60 s on 2 cores a search's count is not a fixed property of its weights. Measured on the
dev subset (docs/experiments.md, session 44): the same fine-tune proved 14 in one run and 12 in the
next, while the shipped checkpoint proved the same 13 twice — problems found near the end of the
budget come and go. A one-problem lead in one run is inside that noise, so a ship decision reads
the arms over several runs: per arm, its count in each run and the sum; per problem that is not
settled, in how many runs each arm proved it.

An arm is a method string as the results file names it (`mcts-mixed@runs/x/last`). The same weights
may sit at two paths in two runs (a run directory, then its export): `--same OLD=NEW` reads method
OLD as NEW, or, where OLD is a checkpoint, every `…@OLD` method as `…@NEW`. Only searched records count (proved or failed; a bad statement or an error is not an
attempt), and every file must have the same budget — runs at different budgets do not add up.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from alphaprover.config import UsageError
from alphaprover.eval_records import ProblemRecord, read_records
from search.outcome import Outcome


@dataclass
class ArmRuns:
    """One arm across the runs: `proved[i]` is the set it proved in run i, `searched[i]` what it
    searched there (empty when the run did not have the arm)."""

    method: str
    proved: list[set[str]] = field(default_factory=list)
    searched: list[set[str]] = field(default_factory=list)

    def runs_with_arm(self) -> list[int]:
        return [i for i, searched in enumerate(self.searched) if searched]

    def total(self) -> int:
        return sum(len(proved) for proved in self.proved)

    def times_proved(self, problem: str) -> tuple[int, int]:
        """(runs that proved `problem`, runs that searched it)."""
        return (sum(problem in p for p in self.proved), sum(problem in s for s in self.searched))


def parse_same(pairs: Sequence[str]) -> dict[str, str]:
    """`OLD=NEW` pairs → {OLD: NEW}; UsageError on a pair without `=` or with an empty side."""
    renames: dict[str, str] = {}
    for pair in pairs:
        old, sep, new = pair.partition("=")
        if not sep or not old.strip() or not new.strip():
            raise UsageError(f"--same takes OLD=NEW (two method names), got {pair!r}")
        renames[old.strip()] = new.strip()
    return renames


def arms_over_runs(runs: Sequence[Sequence[ProblemRecord]], renames: dict[str, str] | None = None) -> list[ArmRuns]:
    """Each arm (renamed) with what it proved and searched in each run, in order of first appearance.
    UsageError when the runs' budgets differ (seconds or simulations)."""
    renames = renames or {}

    def arm_name(method: str) -> str:
        if method in renames:
            return renames[method]
        search, at, checkpoint = method.rpartition("@")
        return f"{search}@{renames[checkpoint]}" if at and checkpoint in renames else method

    budgets = {(r.budget_seconds, r.budget_simulations) for rows in runs for r in rows}
    if len(budgets) > 1:
        shown = ", ".join(f"{s:g} s/{n} sims" for s, n in sorted(budgets))
        raise UsageError(f"the runs have different budgets ({shown}): compare runs of one budget")
    arms: dict[str, ArmRuns] = {}
    for index, rows in enumerate(runs):
        for record in rows:
            method = arm_name(record.method)
            arm = arms.setdefault(method, ArmRuns(method))
            while len(arm.proved) < len(runs):
                arm.proved.append(set())
                arm.searched.append(set())
            if record.status in (Outcome.PROVED, Outcome.FAILED):
                arm.searched[index].add(record.problem)
                if record.status is Outcome.PROVED:
                    arm.proved[index].add(record.problem)
    return list(arms.values())


def counts_table(arms: Sequence[ArmRuns], names: Sequence[str]) -> str:
    """Per arm: proved/searched in each run ("–" where the run lacks the arm), the sum, the range."""
    lines = ["| arm | " + " | ".join(names) + " | sum | min–max |",
             "|---|" + "---:|" * len(names) + "---:|---:|"]
    for arm in arms:
        cells = [f"{len(arm.proved[i])}/{len(arm.searched[i])}" if arm.searched[i] else "–"
                 for i in range(len(names))]
        counts = [len(arm.proved[i]) for i in arm.runs_with_arm()]
        spread = f"{min(counts)}–{max(counts)}" if counts else "–"
        lines.append(f"| {arm.method} | " + " | ".join(cells) + f" | {arm.total()} | {spread} |")
    return "\n".join(lines)


def unsettled_table(arms: Sequence[ArmRuns]) -> str:
    """The problems some arm proved in some run and not in every run of every arm: `k/n` per arm
    (proved in k of the n runs that searched it). Empty when arms and runs all agree."""
    problems = sorted({p for arm in arms for proved in arm.proved for p in proved})
    rows = []
    for problem in problems:
        marks = [arm.times_proved(problem) for arm in arms]
        if all(n and k == n for k, n in marks):
            continue
        rows.append(f"| {problem} | " + " | ".join(f"{k}/{n}" if n else "–" for k, n in marks) + " |")
    if not rows:
        return ""
    return "\n".join(["| problem | " + " | ".join(arm.method for arm in arms) + " |",
                      "|---|" + "---:|" * len(arms), *rows])


def report(paths: Sequence[Path], renames: dict[str, str] | None = None) -> str:
    """The Markdown comparison of the runs in `paths` (each an `alphaprover eval` results file)."""
    if len(paths) < 1:
        raise UsageError("eval-runs needs at least one results file")
    runs = []
    for path in paths:
        if not path.is_file():
            raise UsageError(f"no results file {path}")
        rows = read_records(path)
        if not rows:
            raise UsageError(f"{path} holds no eval records")
        runs.append(rows)
    renames = renames or {}
    arms = arms_over_runs(runs, renames)  # refuses mixed budgets before the renames are checked
    known = {name for rows in runs for r in rows for name in (r.method, r.method.rpartition("@")[2])}
    unknown = sorted(set(renames) - known)
    if unknown:
        raise UsageError(f"--same names a method or checkpoint no run has: {unknown[0]}")
    names = [f"run {i + 1}" for i in range(len(paths))]
    sections = ["runs: " + ", ".join(f"{name} = {path}" for name, path in zip(names, paths)), "",
                counts_table(arms, names)]
    unsettled = unsettled_table(arms)
    sections += ["", "Problems the arms or the runs disagree on (proved in k of the n runs that searched it):", "", unsettled] if unsettled \
        else ["", "Every proved problem was proved by every arm in every run."]
    return "\n".join(sections)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", nargs="+", type=Path, help="eval results files (JSONL), one per run")
    parser.add_argument("--same", action="append", default=[], metavar="OLD=NEW",
                        help="read method OLD as NEW (the same weights at another path); repeatable")
    parser.add_argument("--out", type=Path, help="also write the Markdown here")


def run(args: argparse.Namespace) -> int:
    text = report(args.results, parse_same(args.same))
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0
