"""The AND-OR search graph: OR nodes are goals, edges are tactics, an edge's goals form its AND.

    OR(goal) ──tactic──► [OR(g1), OR(g2), …]   the edge is proved when ALL its goals are;
                                               the OR node is proved when SOME edge is.

Goals are merged by text (transpositions): reaching a known goal again links to the same node.
An edge that would close a cycle (its goal can already reach the parent) is refused. Status
PROVED / FAILED / OPEN is propagated upward whenever an edge or node changes. Nothing here talks
to a prover or a network: the searches feed it results.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from lean_interface.api import Goal, ProofStep


class Status(enum.Enum):
    OPEN = "open"
    PROVED = "proved"
    FAILED = "failed"


@dataclass
class Edge:
    """A tactic that worked on its parent goal.

    Fields:
      tactic:      the tactic string.
      logprob:     the policy's log-probability (summed over merged duplicates' priors).
      prior:       unnormalised prior exp(logp / T), accumulated over duplicate samples.
      children:    OR node ids of the goals it left, in the prover's order (() = closed the goal).
      visits:      completed simulations through this edge.
      value_sum:   sum of backed-up values (reward + child value) over those simulations.
      in_flight:   simulations currently selected through it (virtual loss).
      status:      PROVED if every child is, FAILED if any child is.
    """

    tactic: str
    logprob: float
    prior: float
    children: tuple[int, ...]
    visits: int = 0
    value_sum: float = 0.0
    in_flight: int = 0
    status: Status = Status.OPEN


@dataclass
class OrNode:
    """One goal.

    Fields:
      goal:         the env's Goal (text + backend address).
      depth:        tactics from the root on the path that created it.
      edges:        tactics that worked on it.
      parents:      (parent node id, edge index) pairs that lead here.
      value:        the evaluator's value (None until evaluated).
      expansions:   evaluator rounds spent on it (progressive sampling).
      exhausted:    no further rounds will be asked (cap reached or nothing new came back).
      visits / value_sum / in_flight: simulation statistics.
      status:       PROVED if some edge is; FAILED if exhausted and every edge failed.
      proof_size:   tactics in its smallest known proof (when PROVED).
      logprob:      cumulative log-prob from the root (best-first priority).
    """

    goal: Goal
    depth: int
    edges: list[Edge] = field(default_factory=list)
    parents: list[tuple[int, int]] = field(default_factory=list)
    value: float | None = None
    expansions: int = 0
    exhausted: bool = False
    visits: int = 0
    value_sum: float = 0.0
    in_flight: int = 0
    status: Status = Status.OPEN
    proof_size: int = 0
    logprob: float = 0.0

    @property
    def expanded(self) -> bool:
        return self.expansions > 0


class SearchTree:
    """The graph of one search, rooted at node 0."""

    def __init__(self, root: Goal) -> None:
        self.nodes: list[OrNode] = [OrNode(root, depth=0)]
        self.by_text: dict[str, int] = {root.text: 0}
        self.tried_tactics: dict[int, set[str]] = {}  # every tactic string sent for a node, failed ones too
        self.refused_cycles = 0

    @property
    def root(self) -> OrNode:
        return self.nodes[0]

    def node_for(self, goal: Goal, depth: int, logprob: float) -> int:
        """The node of `goal`'s text, created if new."""
        existing = self.by_text.get(goal.text)
        if existing is not None:
            node = self.nodes[existing]
            node.logprob = max(node.logprob, logprob)
            return existing
        self.nodes.append(OrNode(goal, depth=depth, logprob=logprob))
        self.by_text[goal.text] = len(self.nodes) - 1
        return len(self.nodes) - 1

    def reaches(self, start: int, target: int) -> bool:
        """Whether `target` is reachable from `start` along edges (cycle check)."""
        stack, seen = [start], set()
        while stack:
            current = stack.pop()
            if current == target:
                return True
            if current in seen:
                continue
            seen.add(current)
            for edge in self.nodes[current].edges:
                stack.extend(edge.children)
        return False

    def add_edge(self, parent: int, tactic: str, logprob: float, prior: float, goals: tuple[Goal, ...]) -> int | None:
        """Attach a successful tactic. Returns the edge index, or None when refused (cycle) or merged
        into an existing edge (same tactic, or same resulting goals: priors add up)."""
        node = self.nodes[parent]
        texts = tuple(g.text for g in goals)
        for index, edge in enumerate(node.edges):
            if edge.tactic == tactic or tuple(self.nodes[c].goal.text for c in edge.children) == texts:
                edge.prior += prior
                edge.logprob = max(edge.logprob, logprob)
                return None
        known = [self.by_text.get(t) for t in texts]
        if any(k is not None and (k == parent or self.reaches(k, parent)) for k in known):
            self.refused_cycles += 1
            return None
        children = tuple(self.node_for(g, node.depth + 1, node.logprob + logprob) for g in goals)
        node.edges.append(Edge(tactic, logprob, prior, children))
        index = len(node.edges) - 1
        for child in set(children):
            self.nodes[child].parents.append((parent, index))
        self.refresh_edge(parent, index)
        return index

    # ---- status propagation -------------------------------------------------------------------
    def refresh_edge(self, parent: int, index: int) -> None:
        edge = self.nodes[parent].edges[index]
        statuses = [self.nodes[c].status for c in edge.children]
        if all(s is Status.PROVED for s in statuses):
            edge.status = Status.PROVED
        elif any(s is Status.FAILED for s in statuses):
            edge.status = Status.FAILED
        else:
            edge.status = Status.OPEN
        self.refresh_node(parent)

    def refresh_node(self, node_id: int) -> None:
        """Recompute a node's status and proof size; propagate to parents on change."""
        node = self.nodes[node_id]
        old = (node.status, node.proof_size)
        proved = [e for e in node.edges if e.status is Status.PROVED]
        if proved:
            node.status = Status.PROVED
            node.proof_size = min(1 + sum(self.nodes[c].proof_size for c in e.children) for e in proved)
        elif node.exhausted and all(e.status is Status.FAILED for e in node.edges):
            node.status = Status.FAILED
        else:
            node.status = Status.OPEN
        if (node.status, node.proof_size) != old:
            for parent, index in node.parents:
                self.refresh_edge(parent, index)

    def mark_exhausted(self, node_id: int) -> None:
        self.nodes[node_id].exhausted = True
        self.refresh_node(node_id)

    # ---- proofs -------------------------------------------------------------------------------
    def extract_proof(self, node_id: int = 0) -> ProofStep:
        """The smallest proof of a PROVED node, as a ProofStep tree."""
        node = self.nodes[node_id]
        if node.status is not Status.PROVED:
            raise ValueError(f"node {node_id} is not proved")
        best = min((e for e in node.edges if e.status is Status.PROVED),
                   key=lambda e: 1 + sum(self.nodes[c].proof_size for c in e.children))
        return ProofStep(best.tactic, tuple(self.extract_proof(c) for c in best.children))

    def proof_edges(self) -> set[tuple[int, int]]:
        """(node, edge index) pairs on the extracted proof (for drawing)."""
        out: set[tuple[int, int]] = set()
        if self.root.status is not Status.PROVED:
            return out
        stack = [0]
        while stack:
            node_id = stack.pop()
            node = self.nodes[node_id]
            index, edge = min(((i, e) for i, e in enumerate(node.edges) if e.status is Status.PROVED),
                              key=lambda p: 1 + sum(self.nodes[c].proof_size for c in p[1].children))
            out.add((node_id, index))
            stack.extend(edge.children)
        return out

    # ---- invariants ---------------------------------------------------------------------------
    def check_invariants(self) -> None:
        """Raise AssertionError on any inconsistency of structure or status."""
        assert self.by_text == {n.goal.text: i for i, n in enumerate(self.nodes)}, "text index out of sync"
        for node_id, node in enumerate(self.nodes):
            assert node.in_flight >= 0, f"node {node_id}: negative in-flight count"
            for index, edge in enumerate(node.edges):
                assert edge.in_flight >= 0 and edge.visits >= 0
                for child in edge.children:
                    assert (node_id, index) in self.nodes[child].parents, f"missing parent link {node_id}->{child}"
                    assert not self.reaches(child, node_id), f"cycle through {node_id}->{child}"
                statuses = [self.nodes[c].status for c in edge.children]
                expected = (Status.PROVED if all(s is Status.PROVED for s in statuses)
                            else Status.FAILED if any(s is Status.FAILED for s in statuses) else Status.OPEN)
                assert edge.status is expected, f"edge {node_id}/{index} status {edge.status} != {expected}"
            if any(e.status is Status.PROVED for e in node.edges):
                assert node.status is Status.PROVED, f"node {node_id} has a proved edge but is {node.status}"
            elif node.status is Status.FAILED:
                assert node.exhausted and all(e.status is Status.FAILED for e in node.edges)
            else:
                assert node.status is Status.OPEN, f"node {node_id} is {node.status} without reason"
            for parent, index in node.parents:
                assert node_id in self.nodes[parent].edges[index].children
