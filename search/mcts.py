"""AND-OR Monte-Carlo tree search with progressive sampling (AlphaProof's rules).

One iteration selects up to `num_parallel` leaves, each by a walk down from the root: at an OR
node follow the best tactic (`selection.select_edge`); at a tactic that left several goals (AND)
go to the hardest open goal (`selection.select_and_child`); stop at a goal that needs (more)
sampling (`selection.needs_sampling`). Virtual loss on each walk's path pushes the next walk
elsewhere. Then ONE evaluator call and batched prover calls expand all the leaves at once
(`expansion.expand`; with `first_expansion_k` = k a leaf sends only its k most likely untried
proposals, the rest wait for its next expansion: `search.widening`; with `expansion` = "cost" a
non-root goal sends its `cheap_first_k` most likely cheap proposals first, the rest of them and
its expensive automation as its visits grant it: `search.cost`), and each walk is backed up:

    leaf value  = 0 if the goal got proved, no_legal_actions_value if it failed,
                  else the evaluator's value
    through a tactic:   value ← reward (−1) + value, where at an AND tactic `value` is first
                        replaced by the minimum over its goals not yet proved
                        (the walked goal with the value coming up, the others with their V)

The search stops when the root is proved or failed, nothing is left to select, or the budget
(simulations, seconds, prover calls) is spent.
"""

from __future__ import annotations

import random

from lean_interface.api import Goal, ProofEnv
from search.config import Budget, MCTSConfig
from search.cost import CostModel
from search.evaluator import Evaluator
from search.expansion import BudgetClock, SearchResult, SearchStats, expand
from search.selection import needs_sampling, node_value, select_and_child, select_edge
from search.tree import SearchTree, Status

#: reward per tactic: a goal's value is minus the tactics still needed.
REWARD = -1.0

#: a walk: one (node id, edge index, position of the chosen goal among the edge's children) per step
Walk = list[tuple[int, int, int]]


def select_leaf(tree: SearchTree, config: MCTSConfig, rng: random.Random | None = None) -> tuple[Walk, int] | None:
    """Walk from the root to a goal that needs sampling; None if no open path is left."""
    walk: Walk = []
    node_id = 0
    while True:
        node = tree.nodes[node_id]
        if node.status is not Status.OPEN:
            return None
        if needs_sampling(node, config):
            return walk, node_id
        edge_index = select_edge(node, config, rng)
        if edge_index is None:
            return None  # an OPEN, exhausted goal always has an open tactic; be safe anyway
        edge = node.edges[edge_index]
        position = select_and_child(tree, edge.children, node_value(node, 0.0, config), config, rng)
        if position is None:
            return None
        walk.append((node_id, edge_index, position))
        node_id = edge.children[position]


def apply_virtual_loss(tree: SearchTree, walk: Walk, leaf: int, sign: int) -> None:
    """Add (sign=+1) or remove (−1) one in-flight visit along a walk."""
    for node_id, edge_index, _ in walk:
        tree.nodes[node_id].in_flight += sign
        tree.nodes[node_id].edges[edge_index].in_flight += sign
    tree.nodes[leaf].in_flight += sign


def leaf_value(tree: SearchTree, leaf: int, evaluated: float, config: MCTSConfig) -> float:
    """The value a simulation starts its backup with."""
    node = tree.nodes[leaf]
    if node.status is Status.PROVED:
        return 0.0
    if node.status is Status.FAILED:
        return config.no_legal_actions_value
    return evaluated


def backup(tree: SearchTree, walk: Walk, leaf: int, value: float, config: MCTSConfig) -> None:
    """Add one simulation's value along its walk, leaf first."""
    node = tree.nodes[leaf]
    node.visits += 1
    node.value_sum += value
    for node_id, edge_index, position in reversed(walk):
        node = tree.nodes[node_id]
        edge = node.edges[edge_index]
        if len(edge.children) > 1:
            default = min(0.0, node_value(node, 0.0, config) + 1.0)
            walked = edge.children[position]
            unproved = [value] if tree.nodes[walked].status is not Status.PROVED else []
            unproved += [node_value(tree.nodes[c], default, config) for c in edge.children
                         if c != walked and tree.nodes[c].status is not Status.PROVED]
            value = min(unproved, default=0.0)
        value = REWARD + value
        edge.visits += 1
        edge.value_sum += value
        node.visits += 1
        node.value_sum += value


def run_mcts(root: Goal, env: ProofEnv, evaluator: Evaluator, config: MCTSConfig, budget: Budget,
             rng: random.Random | None = None) -> SearchResult:
    """Search for a proof of `root`. Pure orchestration: the prover and the evaluator come in.
    `rng` only breaks ties between equal selection scores (None: the first one wins)."""
    tree = SearchTree(root)
    stats = SearchStats()
    clock = BudgetClock(budget, stats)
    cost = None if config.expansion == "eager" else CostModel(config.cost_c, config.cost_alpha, config.cheap_first_k,
                                                              measure_heads=config.expansion in ("measured", "glance"))
    while tree.root.status is Status.OPEN and not clock.spent():
        left = clock.simulations_left()
        batch = config.num_parallel if left is None else min(config.num_parallel, left)
        walks: list[tuple[Walk, int]] = []
        collided: list[tuple[Walk, int]] = []
        for _ in range(batch):
            selected = select_leaf(tree, config, rng)
            if selected is None:
                break
            apply_virtual_loss(tree, *selected, +1)  # also on a collision: it pushes the next walk away
            if any(leaf == selected[1] for _, leaf in walks):
                collided.append(selected)
                stats.collisions += 1
            else:
                walks.append(selected)
        for walk, leaf in collided:
            apply_virtual_loss(tree, walk, leaf, -1)
        if not walks:
            break  # nothing left to try: the root stays open or has failed
        leaves = [leaf for _, leaf in walks]
        values = expand(tree, leaves, evaluator, env, num_samples=config.num_samples,
                        prior_temperature=config.prior_temperature, max_expansions=config.max_expansions,
                        clock=clock, width=config.first_expansion_k, cost=cost, deep_samples=config.deep_samples,
                        glance=config.expansion == "glance", glance_prices_list=config.glance_prices_list,
                        glance_list_prior=config.glance_list_prior)
        for (walk, leaf), value in zip(walks, values):
            apply_virtual_loss(tree, walk, leaf, -1)
            backup(tree, walk, leaf, leaf_value(tree, leaf, value, config), config)
            stats.simulations += 1
    return clock.finish(tree)
