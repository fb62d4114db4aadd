"""Best-first search by cumulative log-probability (ReProver's baseline), on the AND-OR graph.

ReProver expands, at each step, the open goal with the highest cumulative log-prob of the tactics
leading to it. Here a tactic may leave several goals that must ALL be proved, so the cost of a
goal counts everything its partial proof still needs (an AO*-style cost):

    h(goal)   = 0 if proved or never expanded,  ∞ if failed,
                else min over its open tactics a of cost(a)
    cost(a)   = −logprob(a) + Σ h(g) over the goals g of a not yet proved
    o(goal)   = the cheapest "rest of a partial proof of the root" around this goal:
                o(root) = 0,  o(g) = min over open tactics a above g of o(parent) + cost(a) − h(g)
    priority  = o(goal) + h(goal), lowest first; among unexpanded open goals only.

On a graph without AND nodes the priority is exactly −(cumulative log-prob), as in ReProver.
Unexpanded goals come first; once none is left, the cheapest open goal that is not exhausted gets
another sampling round (at most `max_expansions`, the same rounds rule as MCTS), so best-first
search spends its whole budget and the comparison with MCTS is at equal budget. `num_parallel`
goals share one evaluator call, with the same expansion,
graph, proof extraction and budgets as MCTS, so the two differ only in what they choose.
(`run_portfolio`, the other baseline, lives in `search.portfolio` and is re-exported here.)
"""

from __future__ import annotations

import math

from lean_interface.api import Goal, ProofEnv
from search.config import BestFirstConfig, Budget
from search.evaluator import Evaluator
from search.expansion import BudgetClock, SearchResult, SearchStats, expand
from search.portfolio import run_portfolio
from search.tree import SearchTree, Status

__all__ = ["frontier_priorities", "run_best_first", "run_portfolio"]

INFINITY = math.inf


def _open_order(tree: SearchTree) -> list[int]:
    """Open goals reachable from the root through open tactics, parents before children."""
    order: list[int] = []
    state: dict[int, bool] = {}  # False: on the stack, True: finished
    stack: list[tuple[int, bool]] = [(0, False)]
    while stack:
        node_id, children_done = stack.pop()
        if children_done:
            state[node_id] = True
            order.append(node_id)
            continue
        if node_id in state or tree.nodes[node_id].status is not Status.OPEN:
            continue
        state[node_id] = False
        stack.append((node_id, True))
        for edge in tree.nodes[node_id].edges:
            if edge.status is Status.OPEN:
                stack.extend((c, False) for c in edge.children if c not in state)
    order.reverse()  # reverse post-order of a DAG = a topological order
    return order


def _needs_expansion(tree: SearchTree, node_id: int) -> bool:
    node = tree.nodes[node_id]
    return node.status is Status.OPEN and not node.exhausted and not node.open_edges()


def _may_resample(tree: SearchTree, node_id: int) -> bool:
    node = tree.nodes[node_id]
    return node.status is Status.OPEN and not node.exhausted


def frontier_priorities(tree: SearchTree, resample: bool = False) -> dict[int, float]:
    """priority = o + h (see the module docstring) of every open goal still to expand; with
    `resample`, of every open goal that may get another sampling round (used once no goal is
    left unexpanded, so best-first spends its whole budget under MCTS's rounds rule)."""
    order = _open_order(tree)
    h: dict[int, float] = {}

    def h_of(node_id: int) -> float:
        status = tree.nodes[node_id].status
        return 0.0 if status is Status.PROVED else INFINITY if status is Status.FAILED else h[node_id]

    def cost(edge_logprob: float, children: tuple[int, ...]) -> float:
        return -edge_logprob + sum(h_of(c) for c in dict.fromkeys(children))

    for node_id in reversed(order):  # children first
        node = tree.nodes[node_id]
        if _needs_expansion(tree, node_id):
            h[node_id] = 0.0
        else:
            h[node_id] = min((cost(e.logprob, e.children) for e in node.edges if e.status is Status.OPEN),
                             default=INFINITY)
    outside: dict[int, float] = {0: 0.0} if order else {}
    for node_id in order:  # parents first
        if node_id not in outside:
            continue
        for edge in tree.nodes[node_id].edges:
            if edge.status is not Status.OPEN:
                continue
            through = outside[node_id] + cost(edge.logprob, edge.children)
            for child in dict.fromkeys(edge.children):
                if tree.nodes[child].status is Status.OPEN:
                    candidate = through - h[child]
                    if candidate < outside.get(child, INFINITY):
                        outside[child] = candidate
    wanted = _may_resample if resample else _needs_expansion
    return {n: outside[n] + h[n] for n in order if n in outside and wanted(tree, n)}


def run_best_first(root: Goal, env: ProofEnv, evaluator: Evaluator, config: BestFirstConfig,
                   budget: Budget) -> SearchResult:
    """Expand the cheapest open goals until the root is proved or failed, or the budget is spent."""
    tree = SearchTree(root)
    stats = SearchStats()
    clock = BudgetClock(budget, stats)
    while tree.root.status is Status.OPEN and not clock.spent():
        priorities = frontier_priorities(tree) or frontier_priorities(tree, resample=True)
        left = clock.simulations_left()
        batch = config.num_parallel if left is None else min(config.num_parallel, left)
        chosen = sorted(priorities, key=lambda n: (priorities[n], n))[:batch]
        if not chosen:
            break
        expand(tree, chosen, evaluator, env, num_samples=config.num_samples, prior_temperature=1.0,
               max_expansions=config.max_expansions, clock=clock)
        stats.simulations += len(chosen)
    return clock.finish(tree)
