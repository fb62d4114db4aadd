"""AlphaProof's selection rules as pure functions of node statistics (no prover, no network).

Values: V(goal) ≈ −(tactics still needed), reward −1 per tactic, so a tactic's value is
q = reward + V(what it left) = −1 + V. A proved goal needs nothing more: V = 0.

OR node (a goal), tactic a — argmax of
    score(a)   = value_score(Q(a)) + pb_c(N, n_a) · prior(a) / Σ_open prior
    pb_c(N, n) = (log((N + pb_c_base + 1) / pb_c_base) + pb_c_init) · sqrt(N) / (n + 1)
    value_score(q) = γ^(−1 − q)            (q = −1, a closing tactic → 1; each extra tactic × γ)
    Q(a) = (value_sum + in_flight · virtual_loss) / (visits + in_flight)   if visited or in flight
         = V(parent) − unvisited_penalty                                  otherwise
  N = Σ (visits + in_flight) over all the node's tactics; n_a = visits + in_flight of a; only
  OPEN tactics compete (proved ones end the search of this goal, failed ones are excluded) and
  the priors are renormalised over them (progressive sampling keeps adding tactics).

AND node (a tactic that left several goals), goal g — argmax over the goals still OPEN of
    score(g) = (1 − value_score(−1 + V(g))) + c_and · pb_c(N, n_g) · 1 / #open goals
  i.e. the hardest goal first. In-flight simulations count as visits whose value is 0 (the goal
  looks easy while someone works on it), so parallel walks spread over the goals.
  V(g) of a goal never evaluated defaults to min(0, V(parent) + 1).

Progressive sampling: an OR node is expanded again while
    expansions <= ps_c · visits^ps_alpha
(and always when it has no open tactic left): it sends its next pending proposals when it has
some (`first_expansion_k` > 0: progressive widening, `search.widening`), else asks the evaluator
for a new round, up to `max_expansions` rounds.
"""

from __future__ import annotations

import math
import random
from typing import Sequence

from search.config import MCTSConfig
from search.tree import Edge, OrNode, SearchTree, Status


def exploration(total_visits: int, child_visits: int, config: MCTSConfig) -> float:
    """pb_c(N, n) = (log((N + base + 1)/base) + init) · sqrt(N)/(n + 1)."""
    base = config.pb_c_base
    return (math.log((total_visits + base + 1) / base) + config.pb_c_init) * math.sqrt(total_visits) / (child_visits + 1)


def value_score(q: float, config: MCTSConfig) -> float:
    """γ^(−1 − q): 1 for a tactic that closes the goal (q = −1), × γ per further tactic."""
    return config.value_discount ** (-1.0 - q)


def node_value(node: OrNode, default: float, config: MCTSConfig) -> float:
    """V(goal): 0 if proved, no_legal_actions_value if failed, else the mean backed-up value,
    else the evaluator's value, else `default` (never evaluated)."""
    if node.status is Status.PROVED:
        return 0.0
    if node.status is Status.FAILED:
        return config.no_legal_actions_value
    if node.visits > 0:
        return node.value_sum / node.visits
    return node.value if node.value is not None else default


def edge_q(edge: Edge, parent_value: float, config: MCTSConfig) -> float:
    """Q(a): mean value through the tactic with virtual loss, or V(parent) − penalty if untried."""
    visits = edge.visits + edge.in_flight
    if visits == 0:
        return parent_value - config.unvisited_penalty
    return (edge.value_sum + edge.in_flight * config.virtual_loss) / visits


def or_scores(node: OrNode, config: MCTSConfig) -> dict[int, float]:
    """score(a) for every OPEN tactic of an OR node, by edge index."""
    candidates = node.open_edges()
    total_prior = sum(node.edges[i].prior for i in candidates)
    total_visits = sum(e.visits + e.in_flight for e in node.edges)
    parent_value = node_value(node, 0.0, config)
    scores: dict[int, float] = {}
    for i in candidates:
        edge = node.edges[i]
        prior = edge.prior / total_prior if total_prior > 0 else 1.0 / len(candidates)
        scores[i] = (value_score(edge_q(edge, parent_value, config), config)
                     + exploration(total_visits, edge.visits + edge.in_flight, config) * prior)
    return scores


def and_scores(tree: SearchTree, children: Sequence[int], parent_value: float,
               config: MCTSConfig) -> dict[int, float]:
    """score(g) for every OPEN goal of an AND node, by position in `children`."""
    first_position: dict[int, int] = {}  # a goal listed twice is one goal
    for p, c in enumerate(children):
        if tree.nodes[c].status is Status.OPEN:
            first_position.setdefault(c, p)
    positions = list(first_position.values())
    default = min(0.0, parent_value + 1.0)
    total = sum(tree.nodes[children[p]].visits + tree.nodes[children[p]].in_flight for p in positions)
    scores: dict[int, float] = {}
    for p in positions:
        child = tree.nodes[children[p]]
        visits = child.visits + child.in_flight
        value = node_value(child, default, config)
        if child.in_flight:
            value = value * child.visits / visits  # in-flight visits count as value 0
        scores[p] = (1.0 - value_score(-1.0 + value, config)
                     + config.c_and * exploration(total, visits, config) / len(positions))
    return scores


def argmax(scores: dict[int, float], rng: random.Random | None = None) -> int | None:
    """The key with the highest score; ties go to the first key, or a random one with `rng`."""
    if not scores:
        return None
    best = max(scores.values())
    tied = [key for key, score in scores.items() if score >= best - 1e-12]
    return tied[0] if rng is None or len(tied) == 1 else rng.choice(tied)


def select_edge(node: OrNode, config: MCTSConfig, rng: random.Random | None = None) -> int | None:
    """Index of the tactic to follow from an OR node, or None if no tactic is open."""
    return argmax(or_scores(node, config), rng)


def select_and_child(tree: SearchTree, children: Sequence[int], parent_value: float, config: MCTSConfig,
                     rng: random.Random | None = None) -> int | None:
    """Position in `children` of the goal to work on at an AND node, or None if none is open."""
    return argmax(and_scores(tree, children, parent_value, config), rng)


def sampling_allowed(expansions: int, visits: int, config: MCTSConfig) -> bool:
    """The progressive-sampling test: expansions <= ps_c · visits^ps_alpha."""
    return expansions <= config.ps_c * visits ** config.ps_alpha


def needs_sampling(node: OrNode, config: MCTSConfig) -> bool:
    """Whether a walk reaching this OR node should stop here and expand it (again): send its next
    pending proposals (`search.widening`), or ask the evaluator for a new round. A goal that was
    only glanced at (`OrNode.awaiting_policy`) stops the walk the first time it is reached again:
    the search came back, so the policy is worth asking."""
    if node.exhausted or (node.policy_rounds >= config.max_expansions and not node.pending):
        return False
    if not node.expanded or not node.open_edges() or node.awaiting_policy:
        return True  # a new goal, or every tactic so far failed: more are needed to go on
    return sampling_allowed(node.expansions, node.visits, config)
