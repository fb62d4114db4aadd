"""AlphaProof's selection rules as pure functions of node statistics.

OR node, tactic a:   score(a) = value_score(Q(a)) + pb_c(N, n_a) · prior(a) / Σ prior
    pb_c(N, n)     = (log((N + pb_c_base + 1) / pb_c_base) + pb_c_init) · sqrt(N) / (n + 1)
    value_score(q) = γ^(−1 − q)       with q = reward + V (reward −1 per tactic), so q = −1 → 1
    Q(a)           = mean backed-up value if visited, else V(parent) − unvisited_penalty
AND edge, goal g:    score(g) = (1 − value_score(−1 + V(g))) + c_and · pb_c(N, n_g) / #goals
    the hardest unproved goal first; proved goals are skipped.
Virtual loss: each in-flight simulation counts as a visit worth `virtual_loss`.
"""

from __future__ import annotations

import math
from typing import Sequence

from search.config import MCTSConfig
from search.tree import Edge, OrNode, SearchTree, Status


def exploration(total_visits: int, child_visits: int, config: MCTSConfig) -> float:
    """pb_c(N, n) = (log((N + base + 1)/base) + init) · sqrt(N)/(n + 1)."""
    base = config.pb_c_base
    return (math.log((total_visits + base + 1) / base) + config.pb_c_init) * math.sqrt(total_visits) / (child_visits + 1)


def value_score(q: float, config: MCTSConfig) -> float:
    """γ^(−1 − q): 1 for a goal closed in one tactic, smaller the more tactics remain."""
    return config.value_discount ** (-1.0 - q)


def node_value(node: OrNode, default: float) -> float:
    """V(node): minus its proof size when proved, else mean backed-up value, else its evaluation."""
    if node.status is Status.PROVED:
        return -float(node.proof_size)
    if node.visits + node.in_flight > 0 and node.visits > 0:
        return node.value_sum / node.visits
    return node.value if node.value is not None else default


def edge_q(edge: Edge, parent_value: float, config: MCTSConfig) -> float:
    """Mean value through `edge` with virtual loss; the unvisited default otherwise."""
    visits = edge.visits + edge.in_flight
    if visits == 0:
        return parent_value - config.unvisited_penalty
    return (edge.value_sum + edge.in_flight * config.virtual_loss) / visits


def select_edge(node: OrNode, config: MCTSConfig) -> int | None:
    """Index of the tactic to follow from an OR node (open edges only), or None if none is open."""
    candidates = [i for i, e in enumerate(node.edges) if e.status is Status.OPEN]
    if not candidates:
        return None
    total_prior = sum(node.edges[i].prior for i in candidates) or 1.0
    total_visits = sum(node.edges[i].visits + node.edges[i].in_flight for i in candidates)
    parent_value = node.value if node.value is not None else 0.0
    best, best_score = None, -math.inf
    for i in candidates:
        edge = node.edges[i]
        score = (value_score(edge_q(edge, parent_value, config), config)
                 + exploration(total_visits, edge.visits + edge.in_flight, config) * edge.prior / total_prior)
        if score > best_score:
            best, best_score = i, score
    return best


def select_and_child(tree: SearchTree, children: Sequence[int], parent_value: float,
                     config: MCTSConfig) -> int | None:
    """Position (in `children`) of the goal to work on at an AND edge: hardest open goal first."""
    open_positions = [p for p, c in enumerate(children) if tree.nodes[c].status is Status.OPEN]
    if not open_positions:
        return None
    total = sum(tree.nodes[children[p]].visits + tree.nodes[children[p]].in_flight for p in open_positions)
    default = min(0.0, parent_value + 1.0)
    best, best_score = None, -math.inf
    for position in open_positions:
        child = tree.nodes[children[position]]
        v = node_value(child, default)
        if child.in_flight:
            v = (v * child.visits + config.virtual_loss * child.in_flight) / (child.visits + child.in_flight)
        score = (1.0 - value_score(-1.0 + v, config)
                 + config.c_and * exploration(total, child.visits + child.in_flight, config) / len(open_positions))
        if score > best_score:
            best, best_score = position, score
    return best


def needs_sampling(node: OrNode, config: MCTSConfig) -> bool:
    """Progressive sampling: expand again while expansions <= ps_c · visits^ps_alpha."""
    if node.exhausted or node.expansions >= config.max_expansions:
        return False
    if not node.expanded:
        return True
    if not any(e.status is Status.OPEN for e in node.edges):
        return True  # every tactic so far failed: ask for more before giving up
    return node.expansions <= config.ps_c * node.visits ** config.ps_alpha
