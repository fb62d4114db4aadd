"""Search overhead: the share of wall time spent outside the prover and the evaluator, and
simulations per second, for MCTS and best-first search on a few Coq problems.

    PYTHONPATH=. .venv/bin/python benchmarks/search_overhead.py [--seconds 10] [--checkpoint DIR]

Without --checkpoint the no-network fixed evaluator is used, which makes the prover the dominant
cost and so measures the search's own bookkeeping most harshly. Goal: the search's own work
(selection, backup, status propagation, expansion bookkeeping) stays <= 10% of wall time. Printed
last: each method's share, and MCTS's simulations per second over best-first's, from the same run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lean_interface.coq import CoqEnv, theorem_from_proposition  # noqa: E402
from search.best_first import run_best_first  # noqa: E402
from search.config import BestFirstConfig, Budget, MCTSConfig  # noqa: E402
from search.evaluator import Evaluator  # noqa: E402
from search.expansion import SearchResult  # noqa: E402
from search.fixed_evaluator import FixedTacticEvaluator  # noqa: E402
from search.mcts import run_mcts  # noqa: E402
from search.solve import Method  # noqa: E402

#: (proposition, header): a mix of quickly proved, slowly proved and unproved goals
PROBLEMS = [
    ("forall n : nat, n + 0 = n", "Require Import Arith Lia."),
    ("forall l : list nat, rev (rev l) = l", "Require Import List Arith Lia."),
    ("forall n : nat, n * (n + 1) mod 2 = 0", "Require Import Arith Lia."),
    ("forall a b c : nat, a <= b -> b <= c -> a + b <= c + c", "Require Import Arith Lia."),
    ("forall n m : nat, n * m = m * n -> n + m = m + n", "Require Import Arith Lia."),
    ("forall x y : Z, (x + y) * (x + y) = x * x + 2 * x * y + y * y",
     "Require Import ZArith Lia. Open Scope Z_scope."),
]
METHODS = (Method.MCTS, Method.BEST_FIRST)


def run_one(method: Method, env: CoqEnv, evaluator: Evaluator, statement: str, header: str,
            budget: Budget) -> SearchResult:
    theorem = theorem_from_proposition(statement, name="bench", header=header)
    root = env.start(theorem)
    if method is Method.MCTS:
        return run_mcts(root, env, evaluator, MCTSConfig(), budget)
    return run_best_first(root, env, evaluator, BestFirstConfig(), budget)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--checkpoint", default=None, help="a network checkpoint directory (default: no network)")
    parser.add_argument("--seconds", type=float, default=10.0, help="time budget per problem and method")
    parser.add_argument("--simulations", type=int, default=2000, help="simulation budget per problem and method")
    args = parser.parse_args()
    def make_evaluator() -> Evaluator:
        if not args.checkpoint:
            return FixedTacticEvaluator()
        from networks.evaluator import NetworkEvaluator

        return NetworkEvaluator.from_checkpoint(args.checkpoint, threads=2)

    # one evaluator per method, so a cached network answer never flatters the second method
    evaluators = {method: make_evaluator() for method in METHODS}
    source = args.checkpoint or "fixed tactic list (no network)"
    budget = Budget(max_simulations=args.simulations, max_seconds=args.seconds)
    print(f"evaluator: {source} · budget {args.simulations} simulations / {args.seconds:g} s per problem")
    print(f"{'method':9} {'problem':52} {'proved':>6} {'sims':>6} {'sims/s':>8} {'nodes':>6} {'prover':>7} "
          f"{'eval':>6} {'search':>7}")
    totals = {method: [0.0, 0.0, 0.0] for method in METHODS}  # search seconds, wall seconds, simulations
    with CoqEnv(timeout=5.0) as env:
        for statement, header in PROBLEMS:
            for method in METHODS:
                result = run_one(method, env, evaluators[method], statement, header, budget)
                s = result.stats
                total = max(s.total_seconds, 1e-9)
                totals[method][0] += s.search_seconds
                totals[method][1] += total
                totals[method][2] += s.simulations
                print(f"{method.value:9} {statement[:52]:52} {'yes' if result.proved else 'no':>6} "
                      f"{s.simulations:6d} {s.simulations / total:8.1f} {s.nodes:6d} "
                      f"{100 * s.prover_seconds / total:6.1f}% {100 * s.evaluator_seconds / total:5.1f}% "
                      f"{100 * s.search_seconds / total:6.1f}%")
    for method, (search, total, simulations) in totals.items():
        verdict = "OK" if search <= 0.10 * total else "ABOVE GOAL"
        print(f"{method.value}: time outside prover and evaluator = {100 * search / total:.1f}% of {total:.1f} s "
              f"wall (goal <= 10%: {verdict}); {simulations / total:.1f} simulations/s overall")
    rate = {method: simulations / max(total, 1e-9) for method, (_, total, simulations) in totals.items()}
    print(f"simulations/s {Method.MCTS.value} / {Method.BEST_FIRST.value}: "
          f"{rate[Method.MCTS] / max(rate[Method.BEST_FIRST], 1e-9):.2f}×")


if __name__ == "__main__":
    main()
