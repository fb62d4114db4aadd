"""Glance expansion (`mcts.expansion=glance`, search/expansion.py): in a mixed search a goal other
than the root is first expanded from the automation list at uniform priors with the network's value
alone; the policy is asked — and re-prices what the glance left — when a walk comes back to it."""

from __future__ import annotations

import math

import pytest

from fake_env import TableEnv, TableEvaluator
from lean_interface.api import Goal
from search.action_set import MixedEvaluator
from search.config import Budget, MCTSConfig
from search.cost import CostModel
from search.evaluator import EvalRequest
from search.expansion import BudgetClock, SearchStats, expand
from search.mcts import run_mcts
from search.selection import needs_sampling
from search.tree import SearchTree

AUTOMATION = ["lia.", "ring.", "nra."]


def _mixed(proposals: dict, values: dict | None = None) -> tuple[TableEvaluator, MixedEvaluator]:
    policy = TableEvaluator(proposals, values)
    return policy, MixedEvaluator(policy, lambda goal: AUTOMATION)


def _expand(tree: SearchTree, evaluator: MixedEvaluator, env: TableEnv, nodes: list[int], glance: bool = True,
            prices_list: bool = False) -> None:
    expand(tree, nodes, evaluator, env, num_samples=4, prior_temperature=1.0, max_expansions=8,
           clock=BudgetClock(Budget(max_simulations=100), SearchStats()), cost=CostModel(0.2, 0.8, cheap_k=2),
           glance=glance, glance_prices_list=prices_list)


def test_a_glance_answers_the_candidates_at_uniform_priors_with_a_value_only_network_call() -> None:
    policy, mixed = _mixed({"B": [("policy_tactic", -0.5)]}, values={"B": -3.0})
    [answer] = mixed.evaluate([EvalRequest("B", 32, 0, glance=True)])
    assert answer.tactics == tuple((t, -math.log(3)) for t in AUTOMATION)
    assert answer.value == -3.0
    assert [(r.goal, r.num_samples, r.candidates) for r in policy.requests] == [("B", 0, ())]
    [full] = mixed.evaluate([EvalRequest("B", 32, 0)])
    assert ("policy_tactic", -0.5) in full.tactics  # without a glance: samples ∪ candidates
    assert policy.requests[-1].candidates == tuple(AUTOMATION)


def test_the_root_asks_the_policy_and_a_new_goal_glances_first() -> None:
    env = TableEnv({("A", "intros"): ["B"]})
    policy, mixed = _mixed({"A": [("intros", -0.1)], "B": [("deep", -0.2)]})
    tree = SearchTree(Goal("A", "A"))
    _expand(tree, mixed, env, [0])
    b = tree.node_id("B")
    assert not tree.nodes[0].glanced and tree.nodes[b].rounds == 0
    _expand(tree, mixed, env, [b])
    node = tree.nodes[b]
    assert node.glanced and node.awaiting_policy and node.policy_rounds == 0
    assert [t for g, t in env.calls if g == "B"] == AUTOMATION[:2]  # cheap_k = 2 of the list, in its order
    assert needs_sampling(node, MCTSConfig())  # the search came back: the policy is asked
    assert [(r.goal, r.num_samples) for r in policy.requests] == [("A", 4), ("B", 0)]
    from search.tree_html import render_tree_html

    assert render_tree_html(tree, "t").count("(glance first)") == 1  # the picture says which goal


@pytest.mark.parametrize("prices_list", [True, False])
def test_the_policy_round_after_a_glance_reprices_what_is_left_and_adds_its_samples(prices_list: bool) -> None:
    """With `glance_prices_list` the round scores the list again; without, the list is not sent to the
    policy, and what the policy samples of it (here nra. and lia.) gets the policy's price all the same."""
    env = TableEnv({("A", "intros"): ["B"], ("B", "lia."): ["C"]})
    policy, mixed = _mixed({"A": [("intros", -0.1)], "B": [("deep", -0.2), ("nra.", -9.0), ("lia.", -5.0)]})
    tree = SearchTree(Goal("A", "A"))
    _expand(tree, mixed, env, [0])
    b = tree.node_id("B")
    _expand(tree, mixed, env, [b])
    assert tree.nodes[b].pending == {"nra.": -math.log(3)}
    _expand(tree, mixed, env, [b], prices_list=prices_list)
    node = tree.nodes[b]
    assert policy.requests[-1] == EvalRequest("B", 4, 0, tuple(AUTOMATION) if prices_list else ())
    assert not node.awaiting_policy and node.policy_rounds == 1
    assert "deep" in node.tried  # the policy's own sample went to the prover
    assert node.pending.get("nra.", -9.0) == -9.0  # the policy's price replaced the glance's
    [lia] = [e for e in node.edges if e.tactic == "lia."]
    assert lia.logprob == -5.0 and lia.prior == math.exp(-5.0)
    tree.check_invariants()


def test_a_glance_that_proposes_nothing_does_not_exhaust_the_goal() -> None:
    env = TableEnv({("A", "intros"): ["B"], ("B", "deep"): []})
    policy = TableEvaluator({"A": [("intros", -0.1)], "B": [("deep", -0.2)]})
    mixed = MixedEvaluator(policy, lambda goal: [])
    tree = SearchTree(Goal("A", "A"))
    _expand(tree, mixed, env, [0])
    b = tree.node_id("B")
    _expand(tree, mixed, env, [b])
    assert not tree.nodes[b].exhausted and tree.nodes[b].awaiting_policy
    _expand(tree, mixed, env, [b])
    assert tree.nodes[0].status.name == "PROVED"


def test_a_search_with_glances_finds_a_proof_only_the_policy_knows_below_the_root() -> None:
    env = TableEnv({("A", "intros"): ["B"], ("B", "special"): ["C"], ("C", "finish"): []})
    proposals = {"A": [("intros", -0.1)], "B": [("special", -0.3)], "C": [("finish", -0.3)]}
    for expansion in ("glance", "measured"):
        policy, mixed = _mixed(proposals)
        result = run_mcts(Goal("A", "A"), env, mixed, MCTSConfig(expansion=expansion, num_parallel=1),
                          Budget(max_simulations=50))
        assert result.proved, expansion
        glances = [r for r in policy.requests if r.num_samples == 0]
        assert (len(glances) == 2) == (expansion == "glance")  # B and C glanced at, never the root


def test_glance_is_an_expansion_mode_and_an_eval_label_option() -> None:
    from alphaprover.eval_runner import split_expansion

    assert MCTSConfig(expansion="glance").expansion == "glance"
    assert split_expansion("mcts-mixed+glance") == ("mcts-mixed", "glance")


def test_an_evaluator_without_glances_answers_in_full_and_the_goal_is_not_glanced() -> None:
    env = TableEnv({("A", "intros"): ["B"]})
    policy = TableEvaluator({"A": [("intros", -0.1)], "B": [("x", -0.2)]})
    tree = SearchTree(Goal("A", "A"))
    _expand(tree, policy, env, [0])
    b = tree.node_id("B")
    _expand(tree, policy, env, [b])
    assert policy.requests[-1].glance  # asked for one …
    node = tree.nodes[b]
    assert not node.glanced and not node.awaiting_policy and node.policy_rounds == 1  # … got a full answer


def test_residual_logprob_shares_the_mass_the_policy_leaves() -> None:
    from search.widening import RESIDUAL_FLOOR, residual_logprob

    assert residual_logprob([("a", math.log(0.5)), ("b", math.log(0.3))], 4) == pytest.approx(math.log(0.2 / 4))
    assert residual_logprob([("a", math.log(0.999999))], 2) == pytest.approx(math.log(RESIDUAL_FLOOR / 2))
    assert residual_logprob([], 3) == pytest.approx(math.log(1 / 3))


def test_with_a_residual_list_prior_the_policy_round_puts_its_samples_before_the_glanced_list() -> None:
    """The glance left a 6-tactic list at uniform priors (1/6 each) and sent one (t0, which opened an
    edge). The policy's round samples `sure` (p = 0.85) and `deep` (p = 0.1) and prices t1 at e^−9.
    Uniform: the next two sent are `sure` and a list tactic (1/6 > 0.1). Residual: the four list
    tactics it did not price and the edge t0 share the mass left, (1 − 0.95 − e^−9) / 5 each, so
    `sure` and `deep` go first."""
    listed = [f"t{i}." for i in range(6)]
    for prior, second in (("uniform", "t2."), ("residual", "deep")):
        env = TableEnv({("A", "intros"): ["B"], ("B", "t0."): ["C"]})
        policy = TableEvaluator({"A": [("intros", -0.1)],
                                 "B": [("sure", math.log(0.85)), ("deep", math.log(0.1)), ("t1.", -9.0)]})
        mixed = MixedEvaluator(policy, lambda goal: listed)
        tree = SearchTree(Goal("A", "A"))
        _expand(tree, mixed, env, [0])
        b = tree.node_id("B")
        for cheap_k in (1, 2):  # the glance, then the policy's round
            expand(tree, [b], mixed, env, num_samples=4, prior_temperature=1.0, max_expansions=8,
                   clock=BudgetClock(Budget(max_simulations=100), SearchStats()),
                   cost=CostModel(0.2, 0.8, cheap_k=cheap_k), glance=True, glance_list_prior=prior)
        node = tree.nodes[b]
        assert [t for g, t in env.calls if g == "B"] == ["t0.", "sure", second], prior
        [t0] = [e for e in node.edges if e.tactic == "t0."]
        if prior == "residual":
            left = math.log((1 - 0.95 - math.exp(-9.0)) / 5)
            assert node.pending["t3."] == pytest.approx(left) and t0.logprob == pytest.approx(left)
            assert node.pending["t1."] == -9.0
        else:
            assert node.pending["t3."] == -math.log(6) and t0.logprob == -math.log(6)
        tree.check_invariants()


def test_glance_list_prior_is_checked() -> None:
    assert MCTSConfig(glance_list_prior="residual").glance_list_prior == "residual"
    with pytest.raises(ValueError, match="glance_list_prior"):
        MCTSConfig(glance_list_prior="nonsense")
