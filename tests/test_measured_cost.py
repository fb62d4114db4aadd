"""Measured expansion (`mcts.expansion=measured`, `search.cost`): a cheap kind of tactic that proves
slow in this search waits at non-root goals as the expensive families do; the root still sends all."""

from __future__ import annotations

from fake_env import TableEnv, TableEvaluator
from lean_interface.api import Goal
from search.config import Budget, MCTSConfig
from search.cost import SLOW_HEAD_CALLS, CostModel, cheap_first, tactic_head
from search.expansion import BudgetClock, SearchStats, expand
from search.tree import SearchTree


def test_a_tactics_head_is_the_first_word_of_its_last_step() -> None:
    assert tactic_head("intros; nra.") == "nra"
    assert tactic_head("nia.") == "nia"
    assert tactic_head("apply sqrt_lem_1; lra.") == "lra"
    assert tactic_head("rewrite H, H0.") == "rewrite"
    assert tactic_head("timeout 3 (intros; psatz R 2).") == "psatz"
    assert tactic_head("") == ""


def test_a_head_becomes_slow_after_enough_slow_calls_and_recovers() -> None:
    model = CostModel(0.2, 0.8, measure_heads=True)
    for _ in range(SLOW_HEAD_CALLS - 1):
        model.record("nra.", 5.0)
    assert not model.expensive("intros; nra.")  # too few calls to judge
    model.record("intros; nra.", 5.0)
    assert model.expensive("nra.") and model.expensive("intros; nra.") and not model.expensive("lra.")
    assert model.expected_seconds("nra.") == 5.0
    for _ in range(20):
        model.record("nra.", 0.01)
    assert not model.expensive("nra.")  # its mean fell below the threshold
    plain = CostModel(0.2, 0.8)  # mode "cost": heads are not measured
    for _ in range(5):
        plain.record("nra.", 5.0)
    assert not plain.expensive("nra.")


def test_slow_heads_wait_at_a_non_root_goal_but_the_root_sends_them() -> None:
    model = CostModel(0.2, 0.8, measure_heads=True)
    for _ in range(SLOW_HEAD_CALLS):
        model.record("nia.", 4.0)
    proposals = {"A": [("intros", -0.1), ("nia.", -0.05)], "B": [("nia.", -0.01), ("lia.", -0.2), ("ring.", -0.3)]}
    env, evaluator = TableEnv({("A", "intros"): ["B"]}), TableEvaluator(proposals)
    tree = SearchTree(Goal("A", "A"))

    def run(nodes: list[int]) -> None:
        expand(tree, nodes, evaluator, env, num_samples=4, prior_temperature=1.0, max_expansions=8,
               clock=BudgetClock(Budget(max_simulations=100), SearchStats()), cost=model)

    run([0])
    assert sorted(t for g, t in env.calls if g == "A") == ["intros", "nia."]
    b = tree.node_id("B")
    run([b])
    assert sorted(t for g, t in env.calls if g == "B") == ["lia.", "ring."]  # nia. waits for visits
    assert "nia." in tree.nodes[b].pending
    jobs = [(b, ("nia.", -0.01)), (b, ("lia.", -0.2))]
    assert [t for _, (t, _) in cheap_first(jobs, model.expensive)] == ["lia.", "nia."]
    tree.check_invariants()


def test_measured_is_an_expansion_mode_and_an_eval_label_option() -> None:
    from alphaprover.eval_runner import split_expansion

    assert MCTSConfig(expansion="measured").expansion == "measured"
    assert split_expansion("mcts-mixed+measured") == ("mcts-mixed", "measured")


def test_deep_samples_asks_fewer_tactics_below_the_root_only() -> None:
    proposals = {"A": [("intros", -0.1)], "B": [("lia.", -0.2)]}
    env, evaluator = TableEnv({("A", "intros"): ["B"]}), TableEvaluator(proposals)
    tree = SearchTree(Goal("A", "A"))
    for nodes in ([0], None):
        expand(tree, nodes if nodes is not None else [tree.node_id("B")], evaluator, env, num_samples=32,
               prior_temperature=1.0, max_expansions=8, clock=BudgetClock(Budget(max_simulations=100), SearchStats()),
               cost=CostModel(0.2, 0.8), deep_samples=8)
    assert [(r.goal, r.num_samples) for r in evaluator.requests] == [("A", 32), ("B", 8)]
    assert MCTSConfig().deep_samples == 0
