"""Baselines beside MCTS: best-first search (ReProver's) and the automation portfolio.

Best-first expands, at each step, the open unexpanded goals with the highest cumulative
log-probability from the root (the sum of the policy's log-probs of the tactics leading there),
`num_parallel` at a time so one evaluator call serves several goals. It uses the same graph,
expansion, proof extraction and budgets as MCTS, so the two differ only in what they choose.

The portfolio tries decision procedures one after another on the whole goal: no network, no tree.
"""

from __future__ import annotations

import time

from lean_interface.api import Goal, ProofEnv, ProofStep
from search.config import BestFirstConfig, Budget, PortfolioConfig
from search.evaluator import Evaluator
from search.expansion import SearchStats, budget_spent, deadline_of, expand
from search.mcts import SearchResult
from search.tree import SearchTree, Status


def _relevant(tree: SearchTree) -> list[int]:
    """Open, unexpanded goals that still matter: reachable from the root through open nodes/edges."""
    out, stack, seen = [], [0], set()
    while stack:
        node_id = stack.pop()
        if node_id in seen:
            continue
        seen.add(node_id)
        node = tree.nodes[node_id]
        if node.status is not Status.OPEN:
            continue
        if not node.expanded:
            out.append(node_id)
            continue
        for edge in node.edges:
            if edge.status is Status.OPEN:
                stack.extend(edge.children)
    return out


def run_best_first(root: Goal, env: ProofEnv, evaluator: Evaluator, config: BestFirstConfig,
                   budget: Budget) -> SearchResult:
    tree = SearchTree(root)
    stats = SearchStats()
    while tree.root.status is Status.OPEN and not budget_spent(budget, stats):
        frontier = sorted(_relevant(tree), key=lambda n: (-tree.nodes[n].logprob, n))[: max(1, config.num_parallel)]
        if not frontier:
            break
        expand(tree, frontier, evaluator, env, config.num_samples, prior_temperature=1.0, max_expansions=1,
               stats=stats, deadline=deadline_of(budget, stats))
        stats.simulations += len(frontier)
    budget_spent(budget, stats)
    proof = tree.extract_proof() if tree.root.status is Status.PROVED else None
    return SearchResult(tree, stats, proof)


def run_portfolio(root: Goal, env: ProofEnv, config: PortfolioConfig, budget: Budget) -> SearchResult:
    """Try each tactic of the portfolio on the root goal; the first that closes it is the proof."""
    tree = SearchTree(root)
    stats = SearchStats()
    for tactic in config.tactics:
        if budget_spent(budget, stats):
            break
        started = time.monotonic()
        result = env.apply(root, tactic)
        stats.prover_seconds += time.monotonic() - started
        stats.prover_calls += 1
        stats.simulations += 1
        if not result.ok:
            stats.prover_errors += 1
            continue
        if tree.add_edge(0, tactic, 0.0, 1.0, result.goals) is not None and result.closed:
            break
    tree.root.expansions = 1
    tree.mark_exhausted(0)
    budget_spent(budget, stats)
    stats.nodes = len(tree.nodes)
    proof = ProofStep(next(e.tactic for e in tree.root.edges if e.status is Status.PROVED)) \
        if tree.root.status is Status.PROVED else None
    return SearchResult(tree, stats, proof)
