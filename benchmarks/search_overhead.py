"""Search overhead: the share of wall time spent outside the prover and the evaluator, and
simulations per second, for MCTS and best-first search on a few Coq problems, in one run.

    python benchmarks/search_overhead.py [--checkpoint DIR | --no-network] [--seconds 20]

Goal: the search's own work (selection, backup, bookkeeping) stays ≤ 10% of wall time.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lean_interface.coq import CoqEnv, theorem_from_proposition
from search.config import BestFirstConfig, Budget, MCTSConfig
from search.best_first import run_best_first
from search.fixed_evaluator import FixedTacticEvaluator
from search.mcts import run_mcts

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "checkpoints" / "alphaprover-coq-small"
PROBLEMS = [
    ("forall l : list nat, rev (rev l) = l", "Require Import List."),
    ("forall n : nat, n * (n + 1) mod 2 = 0", "Require Import Arith Lia."),
    ("forall a b c : nat, a <= b -> b <= c -> a + b <= c + c", "Require Import Arith Lia."),
    ("forall x y : Z, (x + y) * (x + y) = x * x + 2 * x * y + y * y", "Require Import ZArith Lia. Open Scope Z_scope."),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED) if SHIPPED.exists() else None)
    parser.add_argument("--no-network", action="store_true")
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    if args.no_network or not args.checkpoint:
        evaluator, source = FixedTacticEvaluator(), "fixed tactic list"
    else:
        from networks.evaluator import NetworkEvaluator

        evaluator, source = NetworkEvaluator.from_checkpoint(args.checkpoint, threads=2), args.checkpoint
    budget = Budget(max_simulations=0, max_seconds=args.seconds)
    print(f"evaluator: {source} · budget {args.seconds:g}s per problem")
    print(f"{'method':6} {'problem':58} {'proved':>6} {'sims':>6} {'sims/s':>7} {'prover':>7} {'network':>8} {'search':>7}")
    totals = {"mcts": [0.0, 0.0], "bfs": [0.0, 0.0]}
    with CoqEnv(timeout=5.0) as env:
        for statement, header in PROBLEMS:
            theorem = theorem_from_proposition(statement, name="bench", header=header)
            for method in ("mcts", "bfs"):
                root = env.start(theorem)
                if method == "mcts":
                    result = run_mcts(root, env, evaluator, MCTSConfig(), budget)
                else:
                    result = run_best_first(root, env, evaluator, BestFirstConfig(), budget)
                s = result.stats
                total = max(s.total_seconds, 1e-9)
                totals[method][0] += s.search_seconds
                totals[method][1] += total
                print(f"{method:6} {statement[:58]:58} {str(result.proved):>6} {s.simulations:6d} "
                      f"{s.simulations / total:7.1f} {100 * s.prover_seconds / total:6.1f}% "
                      f"{100 * s.evaluator_seconds / total:7.1f}% {100 * s.search_seconds / total:6.1f}%")
    for method, (search, total) in totals.items():
        print(f"{method}: time outside prover and evaluator = {100 * search / total:.1f}% of wall time (goal <= 10%)")


if __name__ == "__main__":
    main()
