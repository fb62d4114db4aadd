"""Proof extraction: the smallest proof in a solved search graph, as a `ProofStep` tree.

At each OR node take the PROVED edge with the smallest total proof size (ties: the earliest edge),
then one sub-proof per goal it left, in the order the prover listed them (`TacticResult.goals`),
which is the order the backend's `render` expects. Shared by MCTS, best-first search and the
portfolio; also tells the HTML view which edges to highlight.
"""

from __future__ import annotations

from lean_interface.api import ProofStep
from search.tree import SearchTree, Status


def best_proof_edge(tree: SearchTree, node_id: int) -> int:
    """Index of the proved edge of `node_id` that gives its smallest proof (ValueError if unproved)."""
    node = tree.nodes[node_id]
    if node.status is not Status.PROVED:
        raise ValueError(f"goal #{node_id} is not proved")
    proved = [i for i, e in enumerate(node.edges) if e.status is Status.PROVED]
    return min(proved, key=lambda i: (tree.edge_proof_size(node.edges[i]), i))


def extract_proof(tree: SearchTree, node_id: int = 0) -> ProofStep:
    """The smallest proof of a PROVED goal (the root by default). Its `size()` equals the node's
    `proof_size`. ValueError if the goal is not proved."""
    edge = tree.nodes[node_id].edges[best_proof_edge(tree, node_id)]
    return ProofStep(edge.tactic, tuple(extract_proof(tree, child) for child in edge.children))


def proof_edges(tree: SearchTree) -> set[tuple[int, int]]:
    """(node id, edge index) pairs used by the extracted proof of the root; empty if unproved."""
    used: set[tuple[int, int]] = set()
    if tree.root.status is not Status.PROVED:
        return used
    stack = [0]
    while stack:
        node_id = stack.pop()
        index = best_proof_edge(tree, node_id)
        if (node_id, index) not in used:
            used.add((node_id, index))
            stack.extend(tree.nodes[node_id].edges[index].children)
    return used
