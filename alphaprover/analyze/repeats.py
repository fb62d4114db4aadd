"""`alphaprover analyze RUN_DIR curve-repeats [--repeats 3]`: a run's held-out curve measured
several times, so a round's change can be read against the measurement's own noise.

Why: the curve's point for a round is one search per slice item. The proposals are deterministic
(beam), but Coq's per-tactic timeout and the per-problem time cut are wall-clock, so a search may
not be; whether a one-item step between rounds is real depends on how far repeated reads of the
same weights agree (run 7, two repeats on an idle machine: item for item). Every published
version is searched on the run's slice `--repeats` times with the run's own held-out search
(`budgets.heldout_setup`) at one budget, all versions side by side in each repeat (`eval` runs
problem-major, so load changes fall on every version alike), each repeat its own resumable
results file under RUN_DIR/repeats/. The table gives, per version, each repeat's count, the mean,
the range, and how many items flipped between repeats (the noise); then, per round, the change
of the mean and whether the two versions' ranges are apart. Evaluation only.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from alphaprover.analyze.budgets import heldout_setup, published_versions, run_slice_eval
from alphaprover.config import UsageError


def proved_sets(records: list[dict]) -> dict[str, dict[str, bool]]:
    """Per version name, per problem, whether that search proved it. The name is the method's
    last path component (`v000003`) unless two methods share it (one results file comparing
    two runs' `v000006`), then the method's whole `@` target, so no two columns merge."""
    methods = sorted({record["method"] for record in records})
    short = {method: method.rsplit("/", 1)[-1] for method in methods}
    clash = len(set(short.values())) < len(methods)
    table: dict[str, dict[str, bool]] = {}
    for record in records:
        method = record["method"]
        version = method.split("@", 1)[-1] if clash else short[method]
        table.setdefault(version, {})[record["problem"]] = record["status"] == "proved"
    return table


def repeat_rows(repeats: list[list[dict]], versions: list[str]) -> list[dict]:
    """Per version, from each repeat's eval records: the proved counts, their mean, min and max, the
    items proved in every repeat and in some repeat (their difference is the noise), and the change
    of the mean from the version before with `apart` true when the two ranges do not overlap."""
    per_repeat = [proved_sets(records) for records in repeats]
    rows: list[dict] = []
    for version in versions:
        outcomes = [table.get(version, {}) for table in per_repeat]
        if not all(outcomes):
            continue
        counts = [sum(o.values()) for o in outcomes]
        problems = set().union(*outcomes)
        always = sum(all(o.get(p, False) for o in outcomes) for p in problems)
        ever = sum(any(o.get(p, False) for o in outcomes) for p in problems)
        row = {"version": version, "counts": counts, "attempted": min(len(o) for o in outcomes),
               "mean": sum(counts) / len(counts), "min": min(counts), "max": max(counts),
               "always": always, "ever": ever, "change": None, "apart": None}
        if rows:
            before = rows[-1]
            row["change"] = row["mean"] - before["mean"]
            row["apart"] = row["min"] > before["max"] or row["max"] < before["min"]
        rows.append(row)
    return rows


def format_rows(rows: list[dict]) -> list[str]:
    """The table: a header and one tab-separated line per version."""
    lines = ["version\trepeats\tmean\trange\talways/ever\tchange of mean\tranges apart"]
    for row in rows:
        change = "" if row["change"] is None else f"{row['change']:+.2f}"
        apart = "" if row["apart"] is None else ("yes" if row["apart"] else "no")
        lines.append(f"{row['version']}\t{','.join(map(str, row['counts']))} /{row['attempted']}\t{row['mean']:.2f}\t"
                     f"{row['min']}-{row['max']}\t{row['always']}/{row['ever']}\t{change}\t{apart}")
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--simulations", type=int, default=0, help="per problem (default: the run's held-out budget)")
    parser.add_argument("--seconds", type=float, default=0.0, help="per problem (default: the run's held-out seconds)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="only the slice's first N items (a smoke run)")
    parser.add_argument("--versions", default="", help="comma-separated version names, e.g. v000002,v000003 "
                                                       "(default: every published version)")


def run(run_dir: Path, args: argparse.Namespace) -> int:
    versions = published_versions(run_dir)
    wanted = [name.strip() for name in args.versions.split(",") if name.strip()]
    unknown = sorted(set(wanted) - {path.name for path in versions})
    if unknown:
        raise UsageError(f"{run_dir} has no version {', '.join(unknown)}")
    versions = [path for path in versions if not wanted or path.name in wanted]
    if args.repeats < 1 or args.workers < 1 or min(args.simulations, args.seconds, args.limit) < 0:
        raise UsageError("--repeats and --workers must be at least 1, budgets not negative")
    from alphaprover.eval_records import read_records

    setup = heldout_setup(run_dir)
    seconds = args.seconds or setup.seconds
    simulations = args.simulations or setup.simulations
    methods = ",".join(f"mcts-{setup.actions}@{path}" for path in versions)
    outs = [run_dir / "repeats" / f"repeat-{k + 1}.jsonl" for k in range(args.repeats)]
    outs[0].parent.mkdir(parents=True, exist_ok=True)
    for out in outs:
        limit = ["--limit", str(args.limit)] if args.limit else []
        if not run_slice_eval(setup.slice_dir, methods, simulations, seconds, args.workers, out,
                              *setup.overrides, *limit):
            return 1
    repeats = [[{"method": r.method, "problem": r.problem, "status": r.status.value} for r in read_records(out)
                if r.budget_simulations == simulations and r.budget_seconds == seconds] for out in outs]
    print(f"{run_dir}: {args.repeats} repeats at {simulations} simulations / {seconds:g} s per item")
    print("\n".join(format_rows(repeat_rows(repeats, [path.name for path in versions]))))
    return 0
