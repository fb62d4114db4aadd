"""The automation portfolio: Coq's decision procedures tried one after another on the whole goal.

No evaluator and no tree search: each tactic of `PortfolioConfig.tactics_for(header)` runs on
the root goal with the env's own time limit, then (Coq) the automation families' tactics built
from the root goal's text (`search.automation`), each under its family's limit; the first that
closes the goal is the proof. Tactics that
work but leave goals are kept as edges of the root (visible in the HTML view), not pursued.
It is the baseline that shows what the search adds over plain automation.
"""

from __future__ import annotations

import time

from lean_interface.api import Goal, ProofEnv
from search.automation import family_tactics
from search.config import Budget, PortfolioConfig
from search.expansion import BudgetClock, SearchResult, SearchStats
from search.tree import SearchTree, Status


def run_portfolio(root: Goal, env: ProofEnv, config: PortfolioConfig, budget: Budget,
                  header: str = "") -> SearchResult:
    """Try each portfolio tactic on `root` until one closes it or the budget is spent.
    `header` is the theorem's header: CoqHammer's tactics join only when it loads Hammer."""
    tree = SearchTree(root)
    stats = SearchStats()
    clock = BudgetClock(budget, stats)
    generated = [t for t, _ in family_tactics(root.text)] if config.families else []
    for tactic in dict.fromkeys([*config.tactics_for(header), *generated]):
        if clock.spent() or tree.root.status is Status.PROVED:
            break
        started = time.monotonic()
        result = env.apply(root, tactic)
        stats.prover_seconds += time.monotonic() - started
        stats.prover_calls += 1
        stats.simulations += 1
        if not result.ok:
            stats.prover_errors += 1
            tree.record_failure(0, tactic)
            continue
        tree.add_edge(0, tactic, 0.0, 1.0, result.goals)
    else:  # every tactic was tried and nothing more will come: the goals left by partial
        tree.root.expansions = 1  # progress are not pursued, so unless a tactic closed the root, it fails
        for node_id in reversed(range(len(tree))):
            tree.mark_exhausted(node_id)
    return clock.finish(tree)
