"""AND-OR Monte-Carlo tree search with progressive sampling (AlphaProof's rules).

One iteration selects up to `num_parallel` leaves, each by walking down from the root:
at an OR node follow the best tactic (`select_edge`), at an edge with several goals (AND) go to
the hardest open goal (`select_and_child`); stop at a goal that needs (more) sampling. Virtual
loss on the way keeps the parallel walks apart. Then ONE evaluator call and ONE batched prover
call expand all the leaves, and each walk is backed up:

    value at the leaf = its evaluator value (0 if it got proved, no_legal_actions_value if failed)
    through an edge   = reward (−1) + (the value, or at an AND edge the minimum over its open goals)

The search stops when the root is proved or failed, or the budget is spent.
"""

from __future__ import annotations

from dataclasses import dataclass

from lean_interface.api import Goal, ProofEnv, ProofStep
from search.config import Budget, MCTSConfig
from search.evaluator import Evaluator
from search.expansion import SearchStats, budget_spent, deadline_of, expand
from search.selection import needs_sampling, node_value, select_and_child, select_edge
from search.tree import SearchTree, Status

REWARD = -1.0


@dataclass
class SearchResult:
    """What a search leaves behind: the graph, its statistics and (if proved) the smallest proof."""

    tree: SearchTree
    stats: SearchStats
    proof: ProofStep | None

    @property
    def proved(self) -> bool:
        return self.proof is not None


# a walk: (node id, edge index, position of the chosen goal in the edge's children) per step
Walk = list[tuple[int, int, int]]


def _select(tree: SearchTree, config: MCTSConfig) -> tuple[Walk, int] | None:
    """Walk from the root to a goal that needs sampling. None when no open path exists."""
    walk: Walk = []
    node_id = 0
    for _ in range(10_000):
        node = tree.nodes[node_id]
        if node.status is not Status.OPEN:
            return None
        if needs_sampling(node, config):
            return walk, node_id
        edge_index = select_edge(node, config)
        if edge_index is None:
            return None
        edge = node.edges[edge_index]
        position = select_and_child(tree, edge.children, node_value(node, 0.0), config)
        if position is None:
            return None
        walk.append((node_id, edge_index, position))
        node_id = edge.children[position]
    raise RuntimeError("selection did not terminate")


def _apply_virtual_loss(tree: SearchTree, walk: Walk, leaf: int, sign: int) -> None:
    for node_id, edge_index, _ in walk:
        tree.nodes[node_id].in_flight += sign
        tree.nodes[node_id].edges[edge_index].in_flight += sign
    tree.nodes[leaf].in_flight += sign


def _backup(tree: SearchTree, walk: Walk, leaf: int, leaf_value: float) -> None:
    node = tree.nodes[leaf]
    node.visits += 1
    node.value_sum += leaf_value
    value = leaf_value
    for node_id, edge_index, position in reversed(walk):
        node = tree.nodes[node_id]
        edge = node.edges[edge_index]
        if len(edge.children) > 1:
            default = min(0.0, node_value(node, 0.0) + 1.0)
            others = [node_value(tree.nodes[c], default) for p, c in enumerate(edge.children)
                      if p != position and tree.nodes[c].status is Status.OPEN]
            value = min([value, *others])
        value = REWARD + value
        edge.visits += 1
        edge.value_sum += value
        node.visits += 1
        node.value_sum += value


def _leaf_value(tree: SearchTree, leaf: int, evaluated: float, config: MCTSConfig) -> float:
    node = tree.nodes[leaf]
    if node.status is Status.PROVED:
        return -float(node.proof_size - 1) if node.proof_size else 0.0
    if node.status is Status.FAILED:
        return config.no_legal_actions_value
    return evaluated


def run_mcts(root: Goal, env: ProofEnv, evaluator: Evaluator, config: MCTSConfig, budget: Budget) -> SearchResult:
    """Search for a proof of `root`. Pure orchestration: the prover and the network come in."""
    tree = SearchTree(root)
    stats = SearchStats()
    while tree.root.status is Status.OPEN and not budget_spent(budget, stats):
        walks: list[tuple[Walk, int]] = []
        leaves: set[int] = set()
        for _ in range(max(1, config.num_parallel)):
            selected = _select(tree, config)
            if selected is None or selected[1] in leaves:
                break
            walks.append(selected)
            leaves.add(selected[1])
            _apply_virtual_loss(tree, selected[0], selected[1], +1)
        if not walks:
            break  # nothing left to try: the root can only fail or stay open
        order = [leaf for _, leaf in walks]
        values = expand(tree, order, evaluator, env, config.num_samples, config.prior_temperature,
                        config.max_expansions, stats, deadline_of(budget, stats))
        for (walk, leaf), value in zip(walks, values):
            _apply_virtual_loss(tree, walk, leaf, -1)
            _backup(tree, walk, leaf, _leaf_value(tree, leaf, value, config))
            stats.simulations += 1
    budget_spent(budget, stats)  # refresh total time
    proof = tree.extract_proof() if tree.root.status is Status.PROVED else None
    return SearchResult(tree, stats, proof)
