"""Progressive widening: proofs, prover calls per proof and depth reached, side by side for several
`mcts.first_expansion_k` values, on a tuning split (never the dev subset), at one prover-call budget.

    PYTHONPATH=. .venv/bin/python benchmarks/expansion_width.py [--widths 0,8,16] [--limit 4] \\
        [--every 7] [--prover-calls 300] [--seconds 30] [--actions mixed] [--checkpoint DIR]

Issue #19: with every candidate of a goal's first round sent to Coq (k = 0), the prior only orders
what is tried. With k > 0 the policy chooses: a good policy should reach deeper on the same
budget, a bad one loses proofs. The budget is a number of prover calls (the same work for every
k), with a seconds cap as a safety net. `deepest` is the depth of the deepest goal the search
reached, averaged over problems. Each width gets its own evaluator, so no width reads another's
cached network answers. The default problems are the tuning set of `search/config.py`
(minif2f-rocq-train, every 7th); a dev-subset problem is refused. Printed last: each width against
the first (proofs, and prover calls per proof as a ratio).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lean_interface.api import EnvError  # noqa: E402
from lean_interface.coq import CoqEnv  # noqa: E402
from lean_interface.problems.benchmarks import dev_problem_of, load_benchmark  # noqa: E402
from search.action_set import ActionMode, action_evaluator  # noqa: E402
from search.config import Budget, MCTSConfig  # noqa: E402
from search.evaluator import Evaluator  # noqa: E402
from search.solve import Method, SearchSettings, SolveOutcome, solve  # noqa: E402

DEFAULT_CHECKPOINT = ROOT / "checkpoints" / "alphaprover-coq-small"


@dataclass
class WidthTotals:
    """What one width did over all problems."""

    proved: int = 0
    prover_calls: int = 0
    deepest: list[int] = field(default_factory=list)
    simulations: list[int] = field(default_factory=list)

    def add(self, outcome: SolveOutcome) -> None:
        self.proved += outcome.proved
        self.prover_calls += outcome.stats.prover_calls
        self.deepest.append(max((n.depth for n in outcome.tree.nodes), default=0) if outcome.tree else 0)
        self.simulations.append(outcome.stats.simulations)

    def row(self, width: int, problems: int) -> str:
        if not self.deepest:
            return f"{width if width else 'all':>6} no problem searched"
        per_proof = f"{self.prover_calls / self.proved:.0f}" if self.proved else "-"
        return (f"{width if width else 'all':>6} {self.proved:>4}/{problems:<3} {self.prover_calls:>12} "
                f"{per_proof:>14} {statistics.mean(self.deepest):>8.1f} {statistics.median(self.simulations):>10.0f}")


def make_evaluator(mode: ActionMode, checkpoint: Path) -> Evaluator:
    if mode is ActionMode.FIXED:
        return action_evaluator(mode, None)
    from networks.evaluator import NetworkEvaluator

    return action_evaluator(mode, NetworkEvaluator.from_checkpoint(checkpoint, threads=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--benchmark", default="minif2f-rocq-train")
    parser.add_argument("--every", type=int, default=7, help="every n-th problem of the benchmark")
    parser.add_argument("--limit", type=int, default=4, help="at most this many problems")
    parser.add_argument("--widths", default="0,8,16", help="first_expansion_k values (0 = all at once)")
    parser.add_argument("--prover-calls", type=int, default=300, help="prover-call budget per problem")
    parser.add_argument("--seconds", type=float, default=30.0, help="time cap per problem")
    parser.add_argument("--actions", default="mixed", choices=[m.value for m in ActionMode])
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    args = parser.parse_args()
    widths = [int(w) for w in args.widths.split(",")]
    problems = [p for p in load_benchmark(args.benchmark)[:: args.every] if p.theorem is not None][: args.limit]
    dev = [p.name for p in problems if dev_problem_of(p.name, p.theorem)]
    if dev:
        raise SystemExit(f"refused: dev-subset problems {', '.join(dev)} are for measuring only")
    mode = ActionMode.parse(args.actions)
    evaluators = {width: make_evaluator(mode, args.checkpoint) for width in widths}
    budget = Budget(max_simulations=0, max_seconds=args.seconds, max_prover_calls=args.prover_calls)
    totals = {width: WidthTotals() for width in widths}
    print(f"{len(problems)} problems of {args.benchmark} (every {args.every}), actions={mode.value}, "
          f"budget {args.prover_calls} prover calls / {args.seconds:g} s")
    searched = 0
    with CoqEnv(timeout=5.0) as env:
        for problem in problems:
            assert problem.theorem is not None
            try:
                env.start(problem.theorem)
            except EnvError as error:
                print(f"{problem.name[:34]:34} skipped: {error}", flush=True)
                continue
            searched += 1
            cells = []
            for width in widths:
                settings = SearchSettings(mcts=MCTSConfig(first_expansion_k=width))
                outcome = solve(problem.theorem, env, evaluators[width], Method.MCTS, settings, budget,
                                random.Random(0))
                totals[width].add(outcome)
                cells.append(f"k={width}: {'proved' if outcome.proved else 'open':6} "
                             f"{outcome.stats.prover_calls:4d} calls depth {totals[width].deepest[-1]:2d}")
            print(f"{problem.name[:34]:34} " + " | ".join(cells), flush=True)
    print(f"\n{'k':>6} {'proved':>8} {'prover calls':>12} {'calls / proof':>14} {'deepest':>8} {'median sims':>10}")
    for width in widths:
        print(totals[width].row(width, searched))
    base = totals[widths[0]]
    for width in widths[1:]:
        other = totals[width]
        per_proof = (f"{(other.prover_calls / other.proved) / (base.prover_calls / base.proved):.2f}×"
                     if other.proved and base.proved else "-")
        print(f"k={width or 'all'} against k={widths[0] or 'all'}: proofs {other.proved}/{base.proved}, "
              f"prover calls per proof {per_proof}")


if __name__ == "__main__":
    main()
