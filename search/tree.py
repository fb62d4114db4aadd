"""The AND-OR search graph: goals (OR nodes) joined by tactics (edges that act as AND nodes).

    OR node (one goal) ──tactic──► edge ──► (goal₁, goal₂, …)   every goal must be proved (AND)
                       ──tactic──► edge ──► ()                  the tactic closed the goal

* An OR node is PROVED when SOME edge is; FAILED when it is exhausted (no more tactics will be
  sampled for it) and EVERY edge failed; else OPEN.
* An edge is PROVED when ALL its goals are (an edge with no goals closed its goal); FAILED when
  ANY of its goals failed; else OPEN.
* Goals merge by text (transpositions): reaching a known goal again links to the same node.
* A tactic whose goals could reach back to its own goal would close a cycle: it is refused.
* A tactic that yields the same goals as an existing edge (or a tactic string sampled again)
  is merged into that edge: its prior adds up.

Status changes propagate upward at once. Nothing here talks to a prover or a network: the searches
feed it results. `check_invariants()` re-derives everything from scratch and raises on a mismatch.

Proof extraction reads the same sizes the propagation keeps (`proof_size`), so it lives here too:
`extract_proof` takes at each OR node the PROVED edge with the smallest total proof size (ties: the
earliest edge), then one sub-proof per goal it left, in the order the prover listed them
(`TacticResult.goals`), which is the order the backend's `render` expects. Shared by MCTS,
best-first search and the portfolio; `proof_edges` tells the HTML view which edges to highlight.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

from lean_interface.api import Goal, ProofStep


class Status(enum.Enum):
    """A goal's or a tactic's standing inside one search graph (module docstring). Not an attempt's
    outcome (`search.outcome.Outcome`): OPEN is "still being searched", and FAILED here is "no
    tactic left that could prove it", which only the graph knows. No run file stores it."""

    OPEN = "open"
    PROVED = "proved"
    FAILED = "failed"


class InvariantError(AssertionError):
    """The tree is inconsistent (raised explicitly, so it survives `python -O`)."""


@dataclass
class Edge:
    """A tactic that worked on its parent goal.

    Fields:
      tactic:    the tactic string (the first one that produced these goals).
      logprob:   the policy's log-probability (the best over merged duplicates).
      prior:     unnormalised prior exp(logp / T), summed over merged duplicates.
      children:  OR node ids of the goals it left, in the order the prover listed them
                 (() = it closed the goal). Several children make this edge an AND node.
      visits:    completed simulations through this edge.
      value_sum: sum of the values backed up through it (reward + value of what it left).
      in_flight: simulations selected through it and not yet backed up (virtual loss).
      status:    PROVED if every child is, FAILED if any child is, else OPEN.
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
      goal:       the env's Goal (text + backend address of the first route that reached it).
      depth:      tactics from the root on the shortest known route.
      edges:      tactics that worked on it.
      parents:    (parent node id, edge index) pairs that lead here.
      tried:      every tactic string ever sent to the prover for this goal (failed ones too),
                  mapped to the edge it ended up in (None: it failed or was refused).
      value:      the evaluator's value at the first expansion (None until then).
      expansions: completed expansions: sampling rounds and widening steps (`search.widening`);
                  progressive sampling's rule on visits counts these.
      rounds:     evaluator rounds answered (the next request's round index; capped by
                  `max_expansions`). Equal to `expansions` when every proposal is sent at once.
      glanced:    its first round was a glance (`EvalRequest.glance`): the automation list and the
                  value, no policy. Such a round is not one of the policy's: `policy_rounds`.
      pending:    proposals (canonical tactic → log-prob) not sent to the prover yet: the next
                  expansion sends the most likely of them before a new round is asked.
      exhausted:  no further tactics will come: nothing pending, and the evaluator had nothing
                  new or the round cap was reached.
      visits, value_sum, in_flight: simulation statistics (value_sum sums backed-up values).
      status:     PROVED if some edge is; FAILED if exhausted and every edge failed.
      proof_size: tactics in its smallest known proof (when PROVED; 0 otherwise).
    """

    goal: Goal
    depth: int
    edges: list[Edge] = field(default_factory=list)
    parents: list[tuple[int, int]] = field(default_factory=list)
    tried: dict[str, int | None] = field(default_factory=dict)
    value: float | None = None
    expansions: int = 0
    rounds: int = 0
    pending: dict[str, float] = field(default_factory=dict)
    exhausted: bool = False
    visits: int = 0
    value_sum: float = 0.0
    in_flight: int = 0
    status: Status = Status.OPEN
    proof_size: int = 0
    glanced: bool = False

    @property
    def expanded(self) -> bool:
        return self.expansions > 0

    @property
    def policy_rounds(self) -> int:
        """Rounds the policy answered (a glance is not one): the next policy request's round index,
        capped by `max_expansions`."""
        return self.rounds - self.glanced

    @property
    def awaiting_policy(self) -> bool:
        """Glanced at, and the policy not asked yet: its next expansion asks it."""
        return self.glanced and self.rounds == 1

    def open_edges(self) -> list[int]:
        return [i for i, e in enumerate(self.edges) if e.status is Status.OPEN]


def _multiset(texts: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted(texts))


class SearchTree:
    """The graph of one search, rooted at node 0. Counters: `refused_cycles`, `merged_edges`."""

    def __init__(self, root: Goal) -> None:
        self.nodes: list[OrNode] = [OrNode(root, depth=0)]
        self.by_text: dict[str, int] = {root.text: 0}
        self.refused_cycles = 0
        self.merged_edges = 0

    @property
    def root(self) -> OrNode:
        return self.nodes[0]

    def __len__(self) -> int:
        return len(self.nodes)

    def node_id(self, text: str) -> int:
        """The id of the goal with this text (KeyError if unknown)."""
        return self.by_text[text]

    def _node_for(self, goal: Goal, depth: int) -> int:
        existing = self.by_text.get(goal.text)
        if existing is not None:
            node = self.nodes[existing]
            node.depth = min(node.depth, depth)
            return existing
        self.nodes.append(OrNode(goal, depth=depth))
        self.by_text[goal.text] = len(self.nodes) - 1
        return len(self.nodes) - 1

    def reaches(self, start: int, target: int) -> bool:
        """Whether `target` is reachable from `start` along edges."""
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

    def add_edge(self, parent: int, tactic: str, logprob: float, prior: float,
                 goals: Sequence[Goal]) -> int | None:
        """Attach a tactic that worked on `parent`, leaving `goals`.

        Returns the index of the new edge, or None when it was merged into an existing edge (same
        tactic string, or the same goals: the prior adds up) or refused (it would close a cycle).
        `parent.tried` records where the tactic string went either way.
        """
        node = self.nodes[parent]
        texts = [g.text for g in goals]
        wanted = _multiset(texts)
        for index, edge in enumerate(node.edges):
            same_goals = _multiset([self.nodes[c].goal.text for c in edge.children]) == wanted
            if edge.tactic == tactic or same_goals:
                edge.prior += prior
                edge.logprob = max(edge.logprob, logprob)
                node.tried[tactic] = index
                self.merged_edges += 1
                return None
        known = [self.by_text.get(text) for text in texts]
        if any(k is not None and self.reaches(k, parent) for k in known):
            node.tried[tactic] = None
            self.refused_cycles += 1
            return None
        children = tuple(self._node_for(goal, node.depth + 1) for goal in goals)
        node.edges.append(Edge(tactic, logprob, prior, children))
        index = len(node.edges) - 1
        node.tried[tactic] = index
        for child in dict.fromkeys(children):
            self.nodes[child].parents.append((parent, index))
        self._propagate(parent)
        return index

    def record_failure(self, node_id: int, tactic: str) -> None:
        """Remember that `tactic` failed on this goal, so it is never sent again."""
        self.nodes[node_id].tried.setdefault(tactic, None)

    def mark_exhausted(self, node_id: int) -> None:
        """No more tactics will come for this goal: it fails if every edge has failed."""
        self.nodes[node_id].exhausted = True
        self._propagate(node_id)

    def extract_proof(self, node_id: int = 0) -> ProofStep:
        """The smallest proof of a proved goal: shorthand for the module's `extract_proof`."""
        return extract_proof(self, node_id)

    # ---- status propagation ---------------------------------------------------------------------
    def edge_status(self, edge: Edge) -> Status:
        statuses = [self.nodes[c].status for c in edge.children]
        if all(s is Status.PROVED for s in statuses):
            return Status.PROVED
        if any(s is Status.FAILED for s in statuses):
            return Status.FAILED
        return Status.OPEN

    def edge_proof_size(self, edge: Edge) -> int:
        """Tactics in the smallest proof through a PROVED edge (shared goals counted per use)."""
        return 1 + sum(self.nodes[c].proof_size for c in edge.children)

    def _derive(self, node: OrNode) -> tuple[Status, int]:
        """A node's status and proof size from its edges (whose statuses must be current)."""
        proved = [e for e in node.edges if e.status is Status.PROVED]
        if proved:
            return Status.PROVED, min(self.edge_proof_size(e) for e in proved)
        if node.exhausted and all(e.status is Status.FAILED for e in node.edges):
            return Status.FAILED, 0
        return Status.OPEN, 0

    def _propagate(self, start: int) -> None:
        """Recompute `start`'s edges and status; on a change, do the same for its parents, upward.
        A worklist, not recursion: chains of thousands of goals are fine."""
        work = [start]
        while work:
            node_id = work.pop()
            node = self.nodes[node_id]
            for edge in node.edges:
                edge.status = self.edge_status(edge)
            derived = self._derive(node)
            if derived != (node.status, node.proof_size):
                node.status, node.proof_size = derived
                work.extend(dict.fromkeys(parent for parent, _ in node.parents))

    # ---- invariants -------------------------------------------------------------------------------
    def check_invariants(self) -> None:
        """Re-derive every link, status and size from scratch; raise InvariantError on a mismatch."""

        def require(condition: bool, message: str) -> None:
            if not condition:
                raise InvariantError(message)

        require(self.by_text == {n.goal.text: i for i, n in enumerate(self.nodes)}, "text index out of sync")
        for node_id, node in enumerate(self.nodes):
            require(node.in_flight >= 0 and node.visits >= 0, f"node {node_id}: negative counts")
            tactics = [e.tactic for e in node.edges]
            require(len(set(tactics)) == len(tactics), f"node {node_id}: duplicate tactic edges")
            outcomes = [_multiset([self.nodes[c].goal.text for c in e.children]) for e in node.edges]
            require(len(set(outcomes)) == len(outcomes), f"node {node_id}: two edges leave the same goals")
            for index, edge in enumerate(node.edges):
                require(edge.in_flight >= 0 and edge.visits >= 0, f"edge {node_id}/{index}: negative counts")
                require(node.tried.get(edge.tactic) == index, f"edge {node_id}/{index}: not recorded as tried")
                for child in edge.children:
                    require((node_id, index) in self.nodes[child].parents, f"missing parent link {node_id}->{child}")
                expected = self.edge_status(edge)
                require(edge.status is expected, f"edge {node_id}/{index} is {edge.status.value}, "
                                                 f"expected {expected.value}")
            for parent, index in node.parents:
                require(node_id in self.nodes[parent].edges[index].children, f"stale parent link {parent}->{node_id}")
            status, size = self._derive(node)
            require((node.status, node.proof_size) == (status, size),
                    f"node {node_id} is {node.status.value}/{node.proof_size}, expected {status.value}/{size}")
            require(node.status is not Status.FAILED or node.exhausted, f"node {node_id} failed unexhausted")
            require(not node.exhausted or not node.pending, f"node {node_id} exhausted with tactics pending")
            require(not set(node.pending) & set(node.tried), f"node {node_id}: a pending tactic was already tried")
        self._check_acyclic(require)

    def _check_acyclic(self, require: Callable[[bool, str], None]) -> None:
        """Colour DFS over the whole graph: a node met again while still on the path is a cycle."""
        colour: Counter[int] = Counter()  # 0 unseen, 1 on the current path, 2 finished
        for start in range(len(self.nodes)):
            if colour[start]:
                continue
            stack: list[tuple[int, int]] = [(start, 0)]
            colour[start] = 1
            while stack:
                node_id, position = stack.pop()
                children = [c for e in self.nodes[node_id].edges for c in e.children]
                if position < len(children):
                    stack.append((node_id, position + 1))
                    child = children[position]
                    require(colour[child] != 1, f"cycle through {node_id}->{child}")
                    if colour[child] == 0:
                        colour[child] = 1
                        stack.append((child, 0))
                else:
                    colour[node_id] = 2


# ---- proof extraction ---------------------------------------------------------------------------

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
