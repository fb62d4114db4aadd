"""Reach and cost of every proposer on a benchmark's goals, through our Coq env (issue 74 item 6).

For each problem, two goals: the root (`⊢ forall …, H -> … -> concl`) and the goal after one
`intros.` (hypotheses in the context, where the search usually meets them). Each proposer
(`search.proposers.all_proposers()`, plus `decide`: the portfolio's decision-procedure list) offers
its tactics for each goal; they run in order until one closes the goal. A closing script is then
checked from scratch by `verify` (module compile, coqchk, axiom audit) before it counts. Per
proposer the table says: goals it proposed on, tactics proposed, problems it closed (verified),
how many of those `decide` does not close (what it adds), tactics that succeeded without closing
(a step the search can continue from), prover seconds and Python seconds per problem. Then per
class of docs/factory_skills.md (the classes the proposers were designed for), the problems the
proposers of that class reach. Design on the train split (the default); the dev subset and the test
split are refused.

    PYTHONPATH=. .venv/bin/python benchmarks/proposers.py [minif2f-rocq-train] [--limit N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tqdm import tqdm  # noqa: E402

from lean_interface.api import EnvError, Goal  # noqa: E402
from lean_interface.coq.env import CoqEnv  # noqa: E402
from lean_interface.coq.guard import normalise_tactic  # noqa: E402
from lean_interface.problems.benchmarks import Problem, load_benchmark  # noqa: E402
from search.config import PortfolioConfig  # noqa: E402
from search.proposers import Proposer, all_proposers, goal_context, pending_proposers  # noqa: E402

#: the class of docs/factory_skills.md each proposer was written for
CLASS_OF = {
    "hints": "olympiad inequalities", "psatz": "olympiad inequalities", "rewrite": "identities at points",
    "cases": "Rabs and disjunctions", "solve_assert": "values by solving", "linear_combination": "values by solving",
    "witnesses": "existence by a witness", "field_side": "rational equations under <>",
    "positivity": "rational equations under <>", "instantiate": "identities at points",
    "unfold_defs": "nat/Z by bounding, gcd/lcm", "interval_cases": "nat/Z by bounding, gcd/lcm",
    "residues": "residues", "transcendental": "square roots, ln, exp", "distinct_roots": "two distinct roots",
    "nat_numbers": "closed computations too big for unary nat", "complex_parts": "complex numbers",
    "induction": "induction over nat", "floor_values": "floor and ceiling", "squares": "olympiad inequalities",
}


def _try(env: CoqEnv, goal: Goal, tactics: list[str]) -> tuple[str | None, int, float, int]:
    """(closing tactic or None, calls, prover seconds, tactics that succeeded without closing)."""
    calls, seconds, progress = 0, 0.0, 0
    for tactic in tactics:
        calls += 1
        started = time.monotonic()
        result = env.apply(goal, tactic)
        seconds += time.monotonic() - started
        if result.closed:
            return tactic, calls, seconds, progress
        progress += result.ok
    return None, calls, seconds, progress


def proposer_runs(problem: Problem, proposers: tuple[Proposer, ...], timeout: float,
                  verify: bool) -> dict[str, dict[str, object]]:
    """For `decide` and each proposer: what it offered, what closed, at what cost, on one problem."""
    assert problem.theorem is not None
    out: dict[str, dict[str, object]] = {}
    with CoqEnv(timeout=timeout) as env:
        try:
            root = env.start(problem.theorem)
        except EnvError as error:
            return {"error": {"reason": str(error)}}
        goals: list[tuple[str, Goal]] = [("", root)]
        introduced = env.apply(root, "intros.")
        if introduced.ok and len(introduced.goals) == 1:
            goals.append(("intros.\n", introduced.goals[0]))
        decide = [normalise_tactic(t) for t in PortfolioConfig().tactics]  # the form `verify` compiles
        lists = [("decide", lambda text: decide),
                 *((p.name, p.tactics) for p in proposers)]
        for name, tactics_of in lists:
            row = {"closed_by": None, "calls": 0, "prover_seconds": 0.0, "python_seconds": 0.0, "offered": 0,
                   "goals_proposed": 0, "progress": 0, "verified": None}
            for prefix, goal in goals:
                started = time.monotonic()
                tactics = tactics_of(goal.text)
                row["python_seconds"] += time.monotonic() - started
                row["offered"] += len(tactics)
                row["goals_proposed"] += bool(tactics)
                closer, calls, seconds, progress = _try(env, goal, tactics)
                row["calls"] += calls
                row["prover_seconds"] += seconds
                row["progress"] += progress
                if closer is not None:
                    row["closed_by"] = prefix + closer
                    break
            if row["closed_by"] and verify:
                verdict = env.verify(problem.theorem, str(row["closed_by"]))
                row["verified"] = verdict.ok
                if not verdict.ok:
                    row["closed_by"] = None
            out[name] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("benchmark", nargs="?", default="minif2f-rocq-train")
    parser.add_argument("--timeout", type=float, default=5.0, help="env limit per tactic (s)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--limit", type=int, default=0, help="only the first N problems (a quick look)")
    parser.add_argument("--only", default="", help="comma-separated proposer names (decide always runs)")
    parser.add_argument("--no-verify", action="store_true", help="count closes without the from-scratch check")
    parser.add_argument("--json", type=Path, help="write every problem's runs here")
    parser.add_argument("--merge", type=Path, help="an earlier --json whose proposers' rows this run's fill in "
                                                   "(e.g. a decide-only run: --only none --merge old.json)")
    args = parser.parse_args()
    if args.benchmark in ("minif2f-rocq-dev", "minif2f-rocq-test"):
        sys.exit("proposers: the dev subset and the test split are for measuring only; design on minif2f-rocq-train")
    # every proposer of `all`, or those --only names (a pending one, outside `all`, only by name)
    proposers = (all_proposers() if not args.only else
                 tuple(p for p in (*all_proposers(), *pending_proposers()) if p.name in args.only.split(",")))
    problems = [p for p in load_benchmark(args.benchmark) if p.theorem is not None]
    problems = problems[:args.limit] if args.limit else problems
    for problem in problems:  # warm the goal reader and the CAS imports outside the timed loop
        goal_context(problem.theorem.statement)
        break
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        runs = list(tqdm(pool.map(lambda p: proposer_runs(p, proposers, args.timeout, not args.no_verify), problems),
                         total=len(problems), desc="problems"))
    by_problem = dict(zip((p.name for p in problems), runs))
    if args.merge:
        earlier = json.loads(args.merge.read_text())
        for name, run in by_problem.items():
            run.update({k: v for k, v in earlier.get(name, {}).items() if k not in run})
        known = (*all_proposers(), *pending_proposers())
        proposers = tuple(p for p in known if any(p.name in run for run in by_problem.values()))
    if args.json:
        args.json.write_text(json.dumps(by_problem, indent=1))
    print(f"{args.benchmark}: {len(problems)} problems; tactic limit {args.timeout:g} s; "
          f"{'verified' if not args.no_verify else 'not verified'}")
    print("| proposer | goals proposed | tactics | closes | not closed by decide | steps that did not close "
          "| prover s / problem | Python ms / problem |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in ["decide", *(p.name for p in proposers)]:
        rows = [r[name] for r in runs if name in r]
        closes = [n for n, r in by_problem.items() if name in r and r[name]["closed_by"]]
        extra = [n for n in closes if not by_problem[n]["decide"]["closed_by"]]
        n = max(1, len(rows))
        print(f"| {name} | {sum(int(r['goals_proposed']) for r in rows)} | {sum(int(r['offered']) for r in rows)} "
              f"| {len(closes)} | {len(extra)} | {sum(int(r['progress']) for r in rows)} "
              f"| {sum(float(r['prover_seconds']) for r in rows) / n:.2f} "
              f"| {1000 * sum(float(r['python_seconds']) for r in rows) / n:.1f} |")
    classes: dict[str, set[str]] = {}
    for problem, run in by_problem.items():
        if run["decide"]["closed_by"] if "decide" in run else True:
            continue
        for name, row in run.items():
            if name in CLASS_OF and row.get("closed_by"):
                classes.setdefault(CLASS_OF[name], set()).add(problem)
    print("\nBeyond decide, by class (docs/factory_skills.md): problems reached")
    for name, reached in sorted(classes.items()):
        print(f"- {name}: {len(reached)} ({', '.join(sorted(reached))})")
    union = [n for n, r in by_problem.items() if any(v.get("closed_by") for k, v in r.items() if k != "error")]
    beyond = [n for n in union if not by_problem[n]["decide"]["closed_by"]]
    print(f"any: {len(union)}/{len(problems)}; beyond decide: {len(beyond)}")


if __name__ == "__main__":
    main()
