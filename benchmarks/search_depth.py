"""Search depth: simulations per minute, prover seconds per simulation and depth reached, for the
eager and the cost-aware expansion (`mcts.expansion`) side by side in one run, on a tuning split.

    PYTHONPATH=. .venv/bin/python benchmarks/search_depth.py [--benchmark minif2f-rocq-train] \\
        [--every 16] [--skip 0] [--limit 0] [--seconds 30] [--methods mcts-fixed,mcts-mixed] \\
        [--modes eager,cost] [--checkpoint DIR]

A mode is an expansion (`eager`, `cost`, `measured`, `glance`), optionally with the cheap width of
cost mode: `cost:0` is cost mode sending every cheap proposal at once (before `mcts.cheap_first_k`),
`cost:12` sends a non-root goal's 12 most likely cheap proposals first. A mode may end in `@P`: the
search then runs on a Coq env with P coqtop processes (`backend.pool_size`), so one expansion's
prover calls run P at a time (`glance,glance@2`: does a second process speed one search up? On a
machine with P cores, P searches of one process each are the alternative: a pooled search pays off
for throughput only if its simulations a minute grow by more than P×; for one `solve` any gain counts).
Any `MCTSConfig` setting may follow as `/KEY=VALUE` (`glance,glance/glance_prices_list=1`).

Issue #40: with every proposal sent at a goal's first expansion, the automation families run to
their 1–3 s timeouts on every new subgoal, so a search makes few simulations and stays one or two
levels deep (docs/ARCHITECTURE.md §Cost-aware expansion). For each method (an MCTS action set) and
each expansion mode, one row: problems proved; simulations per minute, the median over the
problems it failed, and pooled over all (all simulations / all search minutes: a proof in one
simulation would make a median over all problems meaningless); prover seconds per simulation; the mean (over problems) and the
max of the deepest goal's depth (`SearchStats.max_depth`); prover calls; and then, per method,
each mode against the first as a ratio. Every mode runs on each problem right after the others,
under the same budget, so a change of machine load falls on all of them; each (method, mode) has
its own evaluator, so no mode reads another's cached network answers. A dev-subset problem is
refused: the dev subset is for `alphaprover eval` (`mcts-mixed+eager,mcts-mixed+cost`).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lean_interface.api import EnvError, ProofEnv, Theorem  # noqa: E402
from search.action_set import ActionMode, action_evaluator  # noqa: E402
from search.config import EXPANSIONS, Budget, MCTSConfig  # noqa: E402
from search.evaluator import Evaluator  # noqa: E402
from search.solve import Method, SearchSettings, SolveOutcome, solve  # noqa: E402

DEFAULT_CHECKPOINT = ROOT / "checkpoints" / "alphaprover-coq-small"
#: the table's columns, in order
FIELDS = ("proved", "sims/min failed", "sims/min all", "prover s/sim", "mean depth", "max depth", "prover calls")


@dataclass
class ModeTotals:
    """What one (method, expansion mode) did, problem by problem."""

    proved: list[bool] = field(default_factory=list)
    simulations: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    prover_seconds: list[float] = field(default_factory=list)
    prover_calls: list[int] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)

    def add(self, outcome: SolveOutcome) -> None:
        stats = outcome.stats
        self.proved.append(outcome.proved)
        self.simulations.append(stats.simulations)
        self.seconds.append(stats.total_seconds)
        self.prover_seconds.append(stats.prover_seconds)
        self.prover_calls.append(stats.prover_calls)
        self.depth.append(stats.max_depth)

    def metrics(self) -> dict[str, float]:
        """The table's fields (NaN where nothing was measured, e.g. no failed problem)."""
        rates = [60.0 * s / max(t, 1e-9) for s, t in zip(self.simulations, self.seconds)]
        failed = [r for r, p in zip(rates, self.proved) if not p]
        nan = float("nan")
        return {
            "proved": float(sum(self.proved)),
            "sims/min failed": statistics.median(failed) if failed else nan,
            "sims/min all": 60.0 * sum(self.simulations) / sum(self.seconds) if sum(self.seconds) else nan,
            "prover s/sim": sum(self.prover_seconds) / sum(self.simulations) if sum(self.simulations) else nan,
            "mean depth": statistics.mean(self.depth) if self.depth else nan,
            "max depth": float(max(self.depth, default=0)),
            "prover calls": float(sum(self.prover_calls)),
        }


def _cell(value: float) -> str:
    if value != value:  # NaN
        return "-"
    return f"{value:.0f}" if value == int(value) and abs(value) >= 1 else f"{value:.2f}"


def table(totals: dict[tuple[str, str], ModeTotals], problems: int) -> str:
    """Markdown table: one row per (method, mode), then per method each later mode / the first."""
    lines = [f"| method | expansion | {' | '.join(FIELDS)} |", "|---|---|" + "---:|" * len(FIELDS)]
    for (method, mode), total in totals.items():
        metrics = total.metrics()
        cells = [f"{int(metrics['proved'])}/{problems}", *(_cell(metrics[name]) for name in FIELDS[1:])]
        lines.append(f"| {method} | {mode} | {' | '.join(cells)} |")
    methods = list(dict.fromkeys(method for method, _ in totals))
    for method in methods:
        modes = [mode for m, mode in totals if m == method]
        base = totals[(method, modes[0])].metrics()
        for mode in modes[1:]:
            other = totals[(method, mode)].metrics()
            ratios = [f"{other[name] / base[name]:.2f}×" if base[name] and base[name] == base[name]
                      and other[name] == other[name] else "-" for name in FIELDS]
            lines.append(f"| {method} | {mode} / {modes[0]} | {' | '.join(ratios)} |")
    return "\n".join(lines)


def search_action(method: str) -> ActionMode:
    """The action set of an MCTS method label (`mcts-fixed` → fixed); ValueError otherwise."""
    name, _, suffix = method.partition("-")
    if Method.parse(name) is not Method.MCTS or not suffix:
        raise ValueError(f"{method!r}: the expansion is MCTS's; name a method as mcts-<actions>, e.g. mcts-fixed")
    return ActionMode.parse(suffix)


def _overrides(mode: str) -> tuple[str, dict[str, object]]:
    """`glance/glance_prices_list=1/num_samples=16` → ("glance", {...}): MCTSConfig fields after `/`,
    each value read as its field's type (a bool as 0/1/true/false); ValueError for an unknown field."""
    head, *pairs = mode.split("/")
    defaults = MCTSConfig()
    names = {f.name for f in dataclasses.fields(MCTSConfig)}
    values: dict[str, object] = {}
    for pair in pairs:
        key, eq, text = pair.partition("=")
        if not eq or key not in names:
            raise ValueError(f"{mode!r}: {pair!r} is not KEY=VALUE with KEY an mcts setting")
        kind = type(getattr(defaults, key))
        if kind is bool:
            if text.lower() not in ("0", "1", "true", "false"):
                raise ValueError(f"{mode!r}: {key} takes 0/1/true/false")
            values[key] = text.lower() in ("1", "true")
        else:
            values[key] = kind(text)
    return head, values


def pool_size(mode: str) -> int:
    """The coqtop processes a mode's search runs on: P for a mode ending in `@P`, else 1."""
    _, at, size = _overrides(mode)[0].partition("@")
    if not at:
        return 1
    if not size.isdigit() or int(size) < 1:
        raise ValueError(f"{mode!r}: a pool is written @P with P >= 1 coqtop processes, e.g. glance@2")
    return int(size)


def mode_config(mode: str) -> MCTSConfig:
    """The MCTS configuration of a mode: `eager`, `cost`, `measured`, `glance`, or `cost:K` / `cost:K:S`
    (`cheap_first_k` = K, `deep_samples` = S; the same for `measured`, `glance`), any of them with a
    pool `@P` (`pool_size`) and then `/KEY=VALUE` settings of `MCTSConfig`; ValueError otherwise."""
    pool_size(mode)
    head, overrides = _overrides(mode)
    expansion, *numbers = head.partition("@")[0].split(":")
    if not numbers:
        return MCTSConfig(**{"expansion": expansion, **overrides})
    if expansion == "eager" or len(numbers) > 2 or not all(n.isdigit() for n in numbers):
        raise ValueError(f"{mode!r}: only cost and measured modes take numbers, as cost:K or cost:K:S with K, S >= 0")
    deep = int(numbers[1]) if len(numbers) == 2 else 0
    return MCTSConfig(**{"expansion": expansion, "cheap_first_k": int(numbers[0]), "deep_samples": deep, **overrides})


def run_depth(problems: Sequence[tuple[str, Theorem]], env: ProofEnv, methods: Sequence[str], modes: Sequence[str],
              budget: Budget, make_evaluator: Callable[[ActionMode], Evaluator],
              report: Callable[[str], None] = print,
              pooled_env: Callable[[int], ProofEnv] | None = None) -> dict[tuple[str, str], ModeTotals]:
    """Solve every problem with every (method, mode), problem-major; one line per problem to `report`.
    `env` serves modes without a pool; `pooled_env(P)` the env of P coqtop processes for a mode
    ending in `@P` (P > 1; ValueError when such a mode has none)."""
    def env_of(mode: str) -> ProofEnv:
        size = pool_size(mode)
        if size == 1:
            return env
        if pooled_env is None:
            raise ValueError(f"mode {mode!r} needs an env of {size} coqtop processes")
        return pooled_env(size)

    evaluators = {(m, mode): make_evaluator(search_action(m)) for m in methods for mode in modes}
    totals = {key: ModeTotals() for key in evaluators}
    for name, theorem in problems:
        try:
            env.start(theorem)
        except EnvError as error:
            report(f"{name[:34]:34} skipped: {error}")
            continue
        cells = []
        for (method, mode), evaluator in evaluators.items():
            settings = SearchSettings(mcts=mode_config(mode))
            outcome = solve(theorem, env_of(mode), evaluator, Method.MCTS, settings, budget, random.Random(0))
            totals[(method, mode)].add(outcome)
            cells.append(f"{method}/{mode}: {'proved' if outcome.proved else 'open':6} "
                         f"{outcome.stats.simulations:4d} sims depth {outcome.stats.max_depth:2d}")
        report(f"{name[:34]:34} " + " | ".join(cells))
    return totals


def make_evaluator(checkpoint: Path) -> Callable[[ActionMode], Evaluator]:
    def build(mode: ActionMode) -> Evaluator:
        if mode is ActionMode.FIXED:
            return action_evaluator(mode, None)
        from networks.evaluator import NetworkEvaluator

        return action_evaluator(mode, NetworkEvaluator.from_checkpoint(checkpoint, threads=1))

    return build


def main() -> None:
    from lean_interface.coq import CoqEnv
    from lean_interface.problems.benchmarks import dev_problem_of, load_benchmark

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--benchmark", default="minif2f-rocq-train")
    parser.add_argument("--every", type=int, default=16, help="every n-th problem of the benchmark")
    parser.add_argument("--limit", type=int, default=0, help="at most this many problems (0 = all)")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N chosen problems (before --limit)")
    parser.add_argument("--seconds", type=float, default=30.0, help="search seconds per problem")
    parser.add_argument("--methods", default="mcts-fixed", help="comma-separated mcts-<actions> labels")
    parser.add_argument("--modes", default=",".join(EXPANSIONS),
                        help="expansion modes (eager, cost, measured, glance, cost:K, cost:K:S; @P: P coqtop "
                             "processes), the baseline first")
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    args = parser.parse_args()
    try:
        methods = [m.strip() for m in args.methods.split(",") if m.strip()]
        modes = [m.strip() for m in args.modes.split(",") if m.strip()]
        for method in methods:
            search_action(method)
        for mode in modes:
            mode_config(mode)
        if args.every < 1 or args.seconds <= 0 or not methods or not modes:
            raise ValueError("--every, --seconds, --methods and --modes must be positive and non-empty")
        chosen = [p for p in load_benchmark(args.benchmark)[:: args.every] if p.theorem is not None]
    except ValueError as error:
        parser.exit(2, f"search_depth: error: {error}\n")
    chosen = chosen[max(0, args.skip):]
    chosen = chosen[: args.limit] if args.limit else chosen
    dev = [p.name for p in chosen if dev_problem_of(p.name, p.theorem)]
    if dev:
        parser.exit(2, f"search_depth: error: dev-subset problems {', '.join(dev[:5])} are for measuring only\n")
    budget = Budget(max_simulations=0, max_seconds=args.seconds)
    print(f"{len(chosen)} problems of {args.benchmark} (every {args.every}), {args.seconds:g} s each, "
          f"methods {', '.join(methods)}, expansion {' vs '.join(modes)}", flush=True)
    pools: dict[int, CoqEnv] = {}

    def pooled(size: int) -> CoqEnv:
        if size not in pools:
            pools[size] = CoqEnv(timeout=5.0, pool_size=size)
        return pools[size]

    try:
        with CoqEnv(timeout=5.0) as env:
            problems = [(p.name, p.theorem) for p in chosen if p.theorem is not None]
            totals = run_depth(problems, env, methods, modes, budget, make_evaluator(args.checkpoint),
                               report=lambda line: print(line, flush=True), pooled_env=pooled)
    finally:
        for pool in pools.values():
            pool.close()
    searched = len(next(iter(totals.values())).proved) if totals else 0
    print()
    print(table(totals, searched))


if __name__ == "__main__":
    main()
