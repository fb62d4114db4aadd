"""The search on fake environments: AND/OR proving and failing, transpositions, cycles,
progressive sampling, selection scores, virtual loss, budgets, proof extraction."""

from __future__ import annotations

import math

import pytest

from fake_env import TableEnv, TableEvaluator
from lean_interface.api import Goal, Theorem
from search.config import Budget, MCTSConfig
from search.mcts import run_mcts
from search.selection import exploration, select_edge, value_score
from search.solve import Method
from search.tree import OrNode, SearchTree, Status

THM = Theorem("t", "", "t")
BUDGET = Budget(max_simulations=200, max_seconds=20)


def _run(table, proposals, config=MCTSConfig(), budget=BUDGET, values=None):
    env = TableEnv(table)
    result = run_mcts(Goal("A", "A"), env, TableEvaluator(proposals, values), config, budget)
    result.tree.check_invariants()
    return env, result


def test_or_node_fails_when_every_tactic_fails() -> None:
    """A ──t──► B ──u──► C (dead end): A is FAILED, the search stops early."""
    table = {("A", "t"): ["B"], ("B", "u"): ["C"]}
    proposals = {"A": [("t", -0.1)], "B": [("u", -0.1)], "C": [("nothing", -0.1)]}
    _, result = _run(table, proposals, config=MCTSConfig(max_expansions=1))
    assert not result.proved
    assert result.tree.root.status is Status.FAILED
    assert result.stats.simulations < BUDGET.max_simulations


def test_transpositions_share_one_node_and_cycles_are_refused() -> None:
    """
        A ──p──► B ──r──► D ──z──► ∎
        A ──q──► C ──s──► D          (D reached twice: one node)
        B ──back──► A                (a cycle: refused)
    """
    table = {("A", "p"): ["B"], ("A", "q"): ["C"], ("B", "r"): ["D"], ("C", "s"): ["D"], ("D", "z"): [],
             ("B", "back"): ["A"]}
    proposals = {"A": [("p", -0.1), ("q", -0.1)], "B": [("back", -0.01), ("r", -0.1)], "C": [("s", -0.1)],
                 "D": [("z", -0.1)]}
    env = TableEnv(table)
    tree = SearchTree(Goal("A", "A"))
    for parent, tactic in [("A", "p"), ("A", "q"), ("B", "r"), ("C", "s")]:
        tree.add_edge(tree.by_text[parent], tactic, -0.1, 1.0, env.apply(Goal(parent, parent), tactic).goals)
    assert len(tree.nodes) == 4  # A, B, C, D
    d = tree.by_text["D"]
    assert sorted(tree.nodes[d].parents) == [(tree.by_text["B"], 0), (tree.by_text["C"], 0)]
    assert tree.add_edge(tree.by_text["B"], "back", -0.1, 1.0, (Goal("A", "A"),)) is None
    assert tree.refused_cycles == 1
    tree.check_invariants()
    _, result = _run(table, proposals)
    assert result.proved and result.proof.size() == 3


def test_duplicate_tactics_and_same_result_tactics_merge() -> None:
    tree = SearchTree(Goal("A", "A"))
    assert tree.add_edge(0, "t", -1.0, 0.5, (Goal("B", "B"),)) == 0
    assert tree.add_edge(0, "t", -1.0, 0.25, (Goal("B", "B"),)) is None
    assert tree.add_edge(0, "t'", -3.0, 0.125, (Goal("B", "B"),)) is None  # same goals: merged
    assert len(tree.root.edges) == 1 and tree.root.edges[0].prior == pytest.approx(0.875)


def test_shortest_proof_is_extracted() -> None:
    """A ──long──► B ──b1──► C ──c──► ∎   (3 tactics)
       A ──short──► D ──d──► ∎             (2 tactics: extracted)"""
    table = {("A", "long"): ["B"], ("B", "b1"): ["C"], ("C", "c"): [], ("A", "short"): ["D"], ("D", "d"): []}
    tree = SearchTree(Goal("A", "A"))
    env = TableEnv(table)
    for parent, tactic in [("A", "long"), ("B", "b1"), ("C", "c"), ("A", "short"), ("D", "d")]:
        tree.add_edge(tree.by_text[parent], tactic, -0.1, 1.0, env.apply(Goal(parent, parent), tactic).goals)
    assert tree.root.status is Status.PROVED and tree.root.proof_size == 2
    proof = tree.extract_proof()
    assert proof.tactic == "short" and proof.size() == 2
    tree.check_invariants()


def test_selection_scores_match_hand_computed_values() -> None:
    config = MCTSConfig()
    # pb_c(N=100, n=4) = (log((100 + 3200 + 1)/3200) + 0.001) * sqrt(100) / 5
    assert exploration(100, 4, config) == pytest.approx((math.log(3301 / 3200) + 0.001) * 10 / 5)
    assert exploration(100, 4, config) == pytest.approx(0.06415, rel=1e-3)  # log(1.0315625) = 0.031075
    # value score γ^(−1 − q): q = −1 (solved next step) → 1; q = −3 → 0.99^2
    assert value_score(-1.0, config) == pytest.approx(1.0)
    assert value_score(-3.0, config) == pytest.approx(0.9801)
    node = OrNode(Goal("A", "A"), depth=0, value=-2.0)
    tree = SearchTree(Goal("A", "A"))
    tree.add_edge(0, "x", -1.0, 3.0, (Goal("X", "X"),))
    tree.add_edge(0, "y", -1.0, 1.0, (Goal("Y", "Y"),))
    node = tree.root
    node.value = -2.0
    x, y = node.edges
    x.visits, x.value_sum = 4, -4 * 4.0  # mean q = −4
    y.visits, y.value_sum = 0, 0.0       # unvisited: q = V(parent) − 0.5 = −2.5
    n = 4
    score_x = 0.99 ** 3 + exploration(n, 4, config) * 3 / 4
    score_y = 0.99 ** 1.5 + exploration(n, 0, config) * 1 / 4
    assert score_y > score_x
    assert select_edge(node, config) == 1


def test_a_goal_whose_new_tactics_all_failed_gets_another_round() -> None:
    """Round 0 proposes only failing tactics for B; the network may do better in round 1, so B
    stays open and is sampled again; a round with nothing new exhausts it."""
    table = {("A", "t"): ["B"], ("B", "good"): []}

    class TwoRounds(TableEvaluator):
        def evaluate(self, requests):
            self.requests.extend(requests)
            from search.evaluator import Evaluation

            answers = {("A", 0): [("t", -0.1)], ("B", 0): [("bad", -0.1)], ("B", 1): [("good", -0.1)]}
            return [Evaluation(tuple(answers.get((r.goal, r.round), [])), -1.0) for r in requests]

    evaluator = TwoRounds({})
    result = run_mcts(Goal("A", "A"), TableEnv(table), evaluator, MCTSConfig(num_parallel=1), BUDGET)
    assert result.proved and result.proof.children[0].tactic == "good"
    assert [(r.goal, r.round) for r in evaluator.requests] == [("A", 0), ("B", 0), ("B", 1)]


def test_progressive_sampling_asks_new_rounds() -> None:
    table = {("A", "t"): ["B"], ("B", "never"): ["B2"]}
    evaluator = TableEvaluator({"A": [("t", -0.1)], "B": [("never", -0.1)], "B2": []})
    config = MCTSConfig(ps_c=1.0, ps_alpha=1.0, max_expansions=3, num_parallel=1)
    run_mcts(Goal("A", "A"), TableEnv(table), evaluator, config, Budget(max_simulations=30, max_seconds=10))
    rounds = [r.round for r in evaluator.requests if r.goal == "A"]
    assert rounds[:2] == [0, 1]


def test_config_rejects_unknown_keys() -> None:
    with pytest.raises(ValueError, match="unknown MCTSConfig keys: bogus"):
        MCTSConfig.from_dict({"bogus": 1})
    with pytest.raises(ValueError, match="unknown method"):
        Method.parse("dfs")


def test_a_failed_tactic_sampled_again_is_not_retried() -> None:
    table = {("A", "t"): ["B"], ("B", "good"): []}

    class Repeats(TableEvaluator):
        def evaluate(self, requests):
            self.requests.extend(requests)
            from search.evaluator import Evaluation

            answers = {("A", 0): [("t", -0.1)], ("B", 0): [("bad", -0.1)], ("B", 1): [("bad", -0.1), ("good", -1.0)]}
            return [Evaluation(tuple(answers.get((r.goal, r.round), [])), -1.0) for r in requests]

    env = TableEnv(table)
    result = run_mcts(Goal("A", "A"), env, Repeats({}), MCTSConfig(num_parallel=1), BUDGET)
    assert result.proved
    assert env.calls.count(("B", "bad")) == 1
