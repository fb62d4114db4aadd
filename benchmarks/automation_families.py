"""Reach and cost of each automation family on a benchmark's root goals, through our Coq env.

For every problem, each family's tactics (`search.automation.FAMILIES`, plus `decide`: the
portfolio's fixed decision-procedure list) run on the root goal in order until one closes it. A
family's row says on how many problems it closed the goal, how many of those `decide` does not
close (what it adds), and what it cost in prover seconds and calls. This is the measurement
behind the families' order and time limits (docs/ARCHITECTURE.md §Proposers); run it
on the train split, never the dev subset.

`--no-csdp` runs with a PATH that holds Coq's programs but not CSDP's `csdp`, so `psatz` fails
as on a machine without coinor-csdp.

    PYTHONPATH=. .venv/bin/python benchmarks/automation_families.py [minif2f-rocq-train] [--no-csdp]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tqdm import tqdm  # noqa: E402

from lean_interface.api import EnvError  # noqa: E402
from lean_interface.coq.env import CoqEnv  # noqa: E402
from lean_interface.problems.benchmarks import Problem, load_benchmark  # noqa: E402
from search.automation import FAMILIES  # noqa: E402
from search.config import PortfolioConfig  # noqa: E402
from search.goal_facts import goal_facts  # noqa: E402

COQ_PROGRAMS = ("coqtop", "coqc", "coqchk", "csdpcert", "coqworker.opt", "coqidetop")


def family_runs(problem: Problem, timeout: float, only: tuple[str, ...] = ()) -> dict[str, dict[str, object]]:
    """For each family: whether it closed the root goal, with which tactic, at what cost."""
    assert problem.theorem is not None
    out: dict[str, dict[str, object]] = {}
    with CoqEnv(timeout=timeout) as env:
        try:
            root = env.start(problem.theorem)
        except EnvError as error:
            return {"error": {"reason": str(error)}}
        facts = goal_facts(root.text)
        lists = {"decide": list(PortfolioConfig().tactics)}
        lists.update({family.name: family.tactics(facts) for family in FAMILIES})
        for name, tactics in lists.items():
            if only and name not in only:
                continue
            started, calls, closer = time.monotonic(), 0, None
            for tactic in tactics:
                calls += 1
                result = env.apply(root, tactic)
                if result.ok and result.closed:
                    closer = tactic
                    break
            out[name] = {"closed_by": closer, "seconds": time.monotonic() - started, "calls": calls,
                         "offered": len(tactics)}
    return out


def path_without_csdp() -> str:
    """A directory holding links to Coq's programs only: PATH for a machine with no `csdp`."""
    folder = tempfile.mkdtemp(prefix="alphaprover-no-csdp-")
    for program in COQ_PROGRAMS:
        found = shutil.which(program)
        if found:
            os.symlink(found, os.path.join(folder, program))
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("benchmark", nargs="?", default="minif2f-rocq-train")
    parser.add_argument("--timeout", type=float, default=5.0, help="env limit per tactic (s)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--no-csdp", action="store_true")
    parser.add_argument("--json", type=Path, help="write every problem's runs here")
    parser.add_argument("--only", default="", help="comma-separated families to run (decide is always run)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N problems (a quick look)")
    args = parser.parse_args()
    if args.benchmark == "minif2f-rocq-dev":
        sys.exit("automation_families: the dev subset is for measuring only; tune on minif2f-rocq-train")
    if args.no_csdp:
        os.environ["PATH"] = path_without_csdp()
    problems = [p for p in load_benchmark(args.benchmark) if p.theorem is not None]
    problems = problems[:args.limit] if args.limit else problems
    only = tuple(["decide", *args.only.split(",")]) if args.only else ()
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        runs = list(tqdm(pool.map(lambda p: family_runs(p, args.timeout, only), problems), total=len(problems)))
    if args.json:
        args.json.write_text(json.dumps(dict(zip((p.name for p in problems), runs)), indent=1))
    families = [n for n in ["decide", *(f.name for f in FAMILIES)] if not only or n in only]
    print(f"{args.benchmark}: {len(problems)} problems, csdp {'absent' if args.no_csdp else 'present'}")
    print(f"| family | closes | not closed by decide | prover s / problem | calls / problem |")
    print("|---|---|---|---|---|")
    for name in families:
        rows = [r[name] for r in runs if name in r]
        closes = [r for r in runs if name in r and r[name]["closed_by"]]
        extra = [r for r in closes if not r["decide"]["closed_by"]]
        seconds = sum(float(r["seconds"]) for r in rows) / max(1, len(rows))
        calls = sum(int(r["calls"]) for r in rows) / max(1, len(rows))
        print(f"| {name} | {len(closes)} | {len(extra)} | {seconds:.2f} | {calls:.1f} |")
    union = [r for r in runs if any(r.get(n, {}).get("closed_by") for n in families)]
    print(f"any family: {len(union)}/{len(problems)}")


if __name__ == "__main__":
    main()
