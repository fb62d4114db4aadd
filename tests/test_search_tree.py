"""The AND-OR graph (status propagation, transpositions, cycles, merging, invariants), proof
extraction, and the selection formulas against hand-computed numbers."""

from __future__ import annotations

import math

import pytest

from lean_interface.api import Goal, ProofStep
from search.config import Budget, MCTSConfig
from search.mcts import backup
from search.selection import (and_scores, edge_q, exploration, needs_sampling, or_scores, sampling_allowed,
                              select_and_child, select_edge, value_score)
from search.tree import Edge, InvariantError, SearchTree, Status, extract_proof, proof_edges


def g(text: str) -> Goal:
    return Goal(text, ("ref", text))


def build(edges: list[tuple[str, str, list[str]]], exhausted: tuple[str, ...] = ()) -> SearchTree:
    """A tree from (parent text, tactic, goal texts) triples, root "A"; then mark goals exhausted.
    The invariants are checked after every step."""
    tree = SearchTree(g("A"))
    for parent, tactic, goals in edges:
        tree.add_edge(tree.node_id(parent), tactic, -1.0, 1.0, [g(t) for t in goals])
        tree.check_invariants()
    for text in exhausted:
        tree.mark_exhausted(tree.node_id(text))
        tree.check_invariants()
    return tree


def test_and_node_is_proved_only_when_every_goal_is() -> None:
    """
        A ──split──► AND(B, C)
                      B ──b──► ∎
                      C ──c──► ∎      (added last: only now is A proved)
    """
    tree = build([("A", "split", ["B", "C"]), ("B", "b", [])])
    assert tree.nodes[tree.node_id("B")].status is Status.PROVED
    assert tree.root.edges[0].status is Status.OPEN and tree.root.status is Status.OPEN
    tree.add_edge(tree.node_id("C"), "c", -1.0, 1.0, [])
    tree.check_invariants()
    assert tree.root.edges[0].status is Status.PROVED and tree.root.status is Status.PROVED
    assert tree.root.proof_size == 3


def test_one_failed_goal_fails_the_and_and_an_exhausted_or_fails() -> None:
    """
        A ──bad──► AND(B, D)     B ──b──► ∎      D: exhausted, no tactic works → FAILED
        A ──t────► E             E: open           → A still OPEN (E might work)
        E exhausted, no tactic → FAILED;  A exhausted, every edge failed → FAILED
    """
    tree = build([("A", "bad", ["B", "D"]), ("B", "b", []), ("A", "t", ["E"])], exhausted=("D",))
    assert tree.nodes[tree.node_id("D")].status is Status.FAILED
    assert tree.root.edges[0].status is Status.FAILED
    assert tree.root.status is Status.OPEN
    tree.mark_exhausted(tree.node_id("E"))
    assert tree.root.status is Status.OPEN  # the root itself may still get more tactics
    tree.mark_exhausted(0)
    tree.check_invariants()
    assert tree.root.status is Status.FAILED


def test_an_or_node_with_no_edges_fails_only_when_exhausted() -> None:
    tree = build([])
    assert tree.root.status is Status.OPEN
    tree.mark_exhausted(0)
    assert tree.root.status is Status.FAILED


def test_transpositions_share_one_node() -> None:
    """
        A ──p──► B ──r──► D ──z──► ∎
        A ──q──► C ──s──► D              (D reached twice: one node, two parents)
    """
    tree = build([("A", "p", ["B"]), ("A", "q", ["C"]), ("B", "r", ["D"]), ("C", "s", ["D"])])
    assert len(tree) == 4
    d = tree.node_id("D")
    assert sorted(tree.nodes[d].parents) == [(tree.node_id("B"), 0), (tree.node_id("C"), 0)]
    tree.add_edge(d, "z", -1.0, 1.0, [])
    tree.check_invariants()
    assert all(tree.nodes[tree.node_id(t)].status is Status.PROVED for t in "ABCD")
    assert tree.root.proof_size == 3


def test_cycles_are_refused() -> None:
    """
        A ──p──► B ──q──► C
        C ──back──► A       refused: A already reaches C, so A ─► B ─► C ─► A would loop
        B ──noop──► B       refused: a tactic leaving its own goal
        C ──side──► (B, X)  refused: B already reaches C (X is not added either)
    """
    tree = build([("A", "p", ["B"]), ("B", "q", ["C"])])
    c, b = tree.node_id("C"), tree.node_id("B")
    assert tree.add_edge(c, "back", -1.0, 1.0, [g("A")]) is None
    assert tree.add_edge(b, "noop", -1.0, 1.0, [g("B")]) is None
    assert tree.add_edge(c, "side", -1.0, 1.0, [g("B"), g("X")]) is None
    assert tree.refused_cycles == 3
    assert "X" not in tree.by_text
    assert tree.nodes[c].tried == {"back": None, "side": None}
    tree.check_invariants()


def test_duplicate_tactics_and_same_goal_tactics_merge() -> None:
    tree = SearchTree(g("A"))
    assert tree.add_edge(0, "split", -1.0, 0.5, [g("B"), g("C")]) == 0
    assert tree.add_edge(0, "split", -1.0, 0.25, [g("B"), g("C")]) is None          # same string
    assert tree.add_edge(0, "constructor", -3.0, 0.125, [g("C"), g("B")]) is None   # same goals
    assert len(tree.root.edges) == 1
    assert tree.root.edges[0].prior == pytest.approx(0.875)
    assert tree.root.edges[0].tactic == "split"
    assert tree.root.tried == {"split": 0, "constructor": 0}
    assert tree.merged_edges == 2
    tree.check_invariants()


def test_check_invariants_catches_corruption() -> None:
    tree = build([("A", "split", ["B", "C"]), ("B", "b", [])])
    tree.root.status = Status.PROVED
    with pytest.raises(InvariantError, match="node 0"):
        tree.check_invariants()
    tree = build([("A", "split", ["B", "C"])])
    tree.nodes[tree.node_id("B")].parents.clear()
    with pytest.raises(InvariantError, match="missing parent link"):
        tree.check_invariants()
    tree = build([("A", "p", ["B"])])
    tree.nodes[1].edges.append(Edge("loop", -1.0, 1.0, (0,)))
    with pytest.raises(InvariantError):
        tree.check_invariants()


def test_status_propagates_through_a_very_deep_chain() -> None:
    """A ─► G1 ─► G2 ─► … ─► G3000 ─► ∎: closing the last goal proves the root (no recursion limit)."""
    tree = SearchTree(g("A"))
    parent = 0
    for depth in range(1, 3001):
        tree.add_edge(parent, "next", -1.0, 1.0, [g(f"G{depth}")])
        parent = tree.node_id(f"G{depth}")
    tree.add_edge(parent, "done", -1.0, 1.0, [])
    assert tree.root.status is Status.PROVED and tree.root.proof_size == 3001
    assert len(proof_edges(tree)) == 3001


def test_extraction_picks_the_smallest_proof() -> None:
    """
        A ──long──► B ──b1──► C ──c──► ∎                      3 tactics (first found)
        A ──split─► AND(D, E)   D ──d──► ∎   E ──e──► ∎        3 tactics (a tie: the earlier edge wins)
        A ──short─► F ──f──► ∎                                 2 tactics ← extracted once found
    """
    tree = build([("A", "long", ["B"]), ("B", "b1", ["C"]), ("C", "c", []), ("A", "split", ["D", "E"]),
                  ("D", "d", []), ("E", "e", [])])
    assert extract_proof(tree) == ProofStep("long", (ProofStep("b1", (ProofStep("c"),)),))
    tree.add_edge(0, "short", -1.0, 1.0, [g("F")])
    tree.add_edge(tree.node_id("F"), "f", -1.0, 1.0, [])
    proof = extract_proof(tree)
    assert proof == ProofStep("short", (ProofStep("f"),)) and proof.size() == tree.root.proof_size == 2
    assert proof_edges(tree) == {(0, 2), (tree.node_id("F"), 0)}


def test_extracted_children_follow_the_provers_goal_order() -> None:
    """A ──split──► AND(B, C): C is proved first, the proof still lists B's sub-proof first."""
    tree = build([("A", "split", ["B", "C"]), ("C", "c", []), ("B", "b", [])])
    assert extract_proof(tree) == ProofStep("split", (ProofStep("b"), ProofStep("c")))
    with pytest.raises(ValueError, match="not proved"):
        extract_proof(build([("A", "t", ["B"])]))


# ---- selection formulas ----------------------------------------------------------------------------
def test_exploration_and_value_score_numbers() -> None:
    config = MCTSConfig()
    # pb_c(N=100, n=4) = (log(3301/3200) + 0.001) · sqrt(100)/5 = (0.0310746 + 0.001) · 2 = 0.0641493
    assert exploration(100, 4, config) == pytest.approx(0.0641493, abs=1e-7)
    assert exploration(0, 0, config) == 0.0
    # γ^(−1 − q): q = −1 (the tactic closes the goal) → 1; q = −4 → 0.99³ = 0.970299
    assert value_score(-1.0, config) == 1.0
    assert value_score(-4.0, config) == pytest.approx(0.970299)


def test_or_scores_match_hand_computed_values() -> None:
    """
        A (V = −2) ──x (prior 3, 4 visits, Q = −4)──► X
                   ──y (prior 1, unvisited)─────────► Y       Q(y) = V(A) − 0.5 = −2.5
        N = 4;  pb_c(4, 4) = (log(3205/3200) + 0.001)·2/5 = 0.00102451
                pb_c(4, 0) = (log(3205/3200) + 0.001)·2/1 = 0.00512256
        score(x) = 0.99³    + 0.00102451 · 3/4 = 0.970299 + 0.000768 = 0.971067
        score(y) = 0.99^1.5 + 0.00512256 · 1/4 = 0.985038 + 0.001281 = 0.986318   → y
    """
    config = MCTSConfig()
    tree = SearchTree(g("A"))
    tree.add_edge(0, "x", -1.0, 3.0, [g("X")])
    tree.add_edge(0, "y", -1.0, 1.0, [g("Y")])
    node = tree.root
    node.value = -2.0
    x, y = node.edges
    x.visits, x.value_sum = 4, -16.0
    scores = or_scores(node, config)
    assert scores[0] == pytest.approx(0.971067, abs=1e-6)
    assert scores[1] == pytest.approx(0.986318, abs=1e-6)
    assert select_edge(node, config) == 1
    # a simulation in flight through y: Q(y) = virtual loss −40 → 0.99³⁹ = 0.676 → x wins
    y.in_flight = 1
    assert edge_q(y, -2.0, config) == -40.0
    assert select_edge(node, config) == 0
    # a failed tactic is excluded; priors renormalise over the open ones
    y.in_flight = 0
    x.status = Status.FAILED
    assert list(or_scores(node, config)) == [1]


def test_and_scores_pick_the_hardest_goal() -> None:
    """
        split ──► AND(B, C, D)    B: 2 visits, V = −3    C: 1 visit, V = −1    D: unvisited, V = −5
        N = 3, 3 open goals, pb_c(3, n) = (log(3204/3200) + 0.001)·sqrt(3)/(n + 1) = 0.0038958/(n + 1)
        score(B) = 1 − 0.99³ + 0.0038958/3/3 = 0.029701 + 0.000433 = 0.030134
        score(C) = 1 − 0.99¹ + 0.0038958/2/3 = 0.010000 + 0.000649 = 0.010649
        score(D) = 1 − 0.99⁵ + 0.0038958/1/3 = 0.049010 + 0.001299 = 0.050309   → D (hardest)
    """
    config = MCTSConfig()
    tree = SearchTree(g("A"))
    tree.add_edge(0, "split", -1.0, 1.0, [g("B"), g("C"), g("D")])
    b, c, d = (tree.nodes[tree.node_id(t)] for t in "BCD")
    b.visits, b.value_sum = 2, -6.0
    c.visits, c.value_sum = 1, -1.0
    d.value = -5.0
    children = tree.root.edges[0].children
    scores = and_scores(tree, children, -2.0, config)
    assert scores == pytest.approx({0: 0.030134, 1: 0.010649, 2: 0.050309}, abs=1e-6)
    assert select_and_child(tree, children, -2.0, config) == 2
    # proved goals are skipped: close D and the choice is B
    tree.add_edge(tree.node_id("D"), "d", -1.0, 1.0, [])
    assert select_and_child(tree, children, -2.0, config) == 0
    assert set(and_scores(tree, children, -2.0, config)) == {0, 1}


def test_progressive_sampling_threshold() -> None:
    """expand again while expansions <= ps_c · visits^ps_alpha.
    AlphaProof's ps_c = 0.01, ps_alpha = 0.6: 0.01 · 2154^0.6 = 0.99988 < 1 ≤ 0.01 · 2155^0.6 = 1.00016,
    so a goal is sampled a second time at its 2155th visit (a third at its 6840th)."""
    config = MCTSConfig(ps_c=0.01, ps_alpha=0.6)
    assert not sampling_allowed(1, 2154, config) and sampling_allowed(1, 2155, config)
    assert not sampling_allowed(2, 6839, config) and sampling_allowed(2, 6840, config)
    small = MCTSConfig(ps_c=0.5, ps_alpha=0.5, max_expansions=3)  # 0.5·sqrt(v) >= 1 ⇔ v >= 4
    assert [sampling_allowed(1, v, small) for v in (1, 3, 4, 9)] == [False, False, True, True]
    tree = build([("A", "t", ["B"])])
    node = tree.root
    node.expansions, node.visits = 1, 4
    assert needs_sampling(node, small)
    node.expansions = 3  # the round cap
    assert not needs_sampling(node, small)
    node.expansions, node.visits = 1, 0
    node.edges[0].status = Status.FAILED  # no open tactic left: ask again whatever the visits
    assert needs_sampling(node, small)


def test_backup_passes_the_minimum_over_unproved_and_goals() -> None:
    """
        A ──split──► AND(B, C)      B ──b──► B1 (leaf, value −2)      C: evaluated −5, unvisited
        at B:      −1 + (−2) = −3
        at split:  min(−3, V(C) = −5) = −5  →  A gets −1 + (−5) = −6
        with C proved instead, only B counts:   A gets −1 + (−3) = −4
    """
    config = MCTSConfig()
    for c_proved, expected in ((False, -6.0), (True, -4.0)):
        tree = build([("A", "split", ["B", "C"]), ("B", "b", ["B1"])])
        b, c = tree.node_id("B"), tree.node_id("C")
        tree.nodes[c].value = -5.0
        if c_proved:
            tree.add_edge(c, "c", -1.0, 1.0, [])
        walk = [(0, 0, 0), (b, 0, 0)]
        backup(tree, walk, tree.node_id("B1"), -2.0, config)
        assert tree.nodes[b].value_sum == -3.0 and tree.nodes[b].edges[0].value_sum == -3.0
        assert tree.root.edges[0].value_sum == expected and tree.root.value_sum == expected
        assert tree.root.visits == tree.nodes[b].visits == 1


def test_budget_and_config_validation() -> None:
    with pytest.raises(ValueError, match="at least one budget"):
        Budget(max_simulations=0, max_seconds=0, max_prover_calls=0)
    with pytest.raises(ValueError, match="unknown MCTSConfig keys: bogus"):
        MCTSConfig.from_dict({"bogus": 1, "ps_c": 0.1})
    with pytest.raises(ValueError, match="value_discount"):
        MCTSConfig(value_discount=1.5)
    assert MCTSConfig.from_dict({"ps_c": 0.5}).ps_c == 0.5
    defaults = MCTSConfig()
    assert (defaults.pb_c_base, defaults.pb_c_init, defaults.prior_temperature, defaults.value_discount,
            defaults.no_legal_actions_value, defaults.ps_c, defaults.ps_alpha) == (3200, 0.001, 4, 0.99, -40, 0.2, 0.6)
    assert math.isclose(Budget.from_dict({"max_seconds": 5}).max_seconds, 5.0)
