"""Progressive widening of a non-root goal's cheap proposals in cost mode (`mcts.cheap_first_k`,
search/cost.py), and work done once per goal text within one search: the root still sends every
proposal at once, a non-root goal sends its top k cheap ones by prior and the next k as it earns
visits or once every tactic it sent failed, its expensive ones wait until its cheap ones are
spent, `cheap_first_k` = 0 and "eager" are unchanged, and a goal reached by two routes is sent
each tactic once per search."""

from __future__ import annotations

import pytest

from fake_env import TableEnv, TableEvaluator
from lean_interface.api import Goal
from search.config import Budget, MCTSConfig
from search.cost import CostModel
from search.expansion import BudgetClock, SearchStats, expand
from search.mcts import run_mcts
from search.selection import needs_sampling
from search.tree import SearchTree

PSATZ = "timeout 3 (intros; psatz R 2)"
CHEAP = [f"c{i}" for i in range(10)]
#: B's proposals: ten cheap ones, c0 the most likely, and psatz more likely than all of them
B_PROPOSALS = [(PSATZ, -0.01)] + [(t, -0.1 * (i + 1)) for i, t in enumerate(CHEAP)]


def _sent_to(env: TableEnv, goal: str) -> list[str]:
    return [tactic for text, tactic in env.calls if text == goal]


def _expand(tree: SearchTree, evaluator: TableEvaluator, env: TableEnv, cost: CostModel | None,
            nodes: list[int]) -> None:
    expand(tree, nodes, evaluator, env, num_samples=4, prior_temperature=1.0, max_expansions=8,
           clock=BudgetClock(Budget(max_simulations=100), SearchStats()), cost=cost)


def _root_then_b(table: dict, cost: CostModel | None, root_proposals: list | None = None) -> tuple[
        TableEnv, TableEvaluator, SearchTree, int]:
    """A --intros--> B (B's proposals: `B_PROPOSALS`); A and B each expanded once."""
    table = {("A", "intros"): ["B"], **table}
    proposals = {"A": root_proposals or [("intros", -0.1)], "B": B_PROPOSALS}
    env, evaluator = TableEnv(table), TableEvaluator(proposals)
    tree = SearchTree(Goal("A", "A"))
    _expand(tree, evaluator, env, cost, [0])
    b = tree.node_id("B")
    _expand(tree, evaluator, env, cost, [b])
    return env, evaluator, tree, b


def test_a_non_root_first_expansion_sends_its_top_k_cheap_proposals_by_prior() -> None:
    env, _, tree, b = _root_then_b({("B", "c5"): ["C"]}, CostModel(0.2, 0.8, cheap_k=3))
    assert _sent_to(env, "B") == ["c0", "c1", "c2"]
    assert sorted(tree.nodes[b].pending) == sorted([PSATZ, *CHEAP[3:]])
    assert not tree.nodes[b].exhausted
    tree.check_invariants()


def test_the_root_still_sends_every_proposal_at_once() -> None:
    root = [("intros", -0.1)] + B_PROPOSALS
    env, _, tree, _ = _root_then_b({}, CostModel(0.2, 0.8, cheap_k=3), root_proposals=root)
    assert sorted(_sent_to(env, "A")) == sorted(["intros", PSATZ, *CHEAP]) and not tree.root.pending


def test_the_fixed_lists_equal_priors_keep_its_own_order() -> None:
    tree = SearchTree(Goal("A", "A"))
    tree.add_edge(0, "intros", -0.1, 1.0, [Goal("B", "B")])
    tree.nodes[1].pending = {t: -2.0 for t in ("reflexivity", "lia", PSATZ, "lra", "apply h")}
    assert [t for t, _ in CostModel(0.0, 1.0, cheap_k=3).choose(tree, 1, 0)] == ["reflexivity", "lia", "lra"]


def test_when_every_sent_tactic_failed_the_next_k_go_and_the_goal_needs_sampling_at_once() -> None:
    cost = CostModel(0.0, 1.0, cheap_k=3)   # no allowance: visits grant no expensive tactic
    env, evaluator, tree, b = _root_then_b({("B", "c4"): []}, cost)
    node = tree.nodes[b]
    assert not node.open_edges() and needs_sampling(node, MCTSConfig())   # never a dead end
    _expand(tree, evaluator, env, cost, [b])
    assert _sent_to(env, "B") == CHEAP[:6]   # the next three (c4 closes B), not c6
    assert tree.root.status.value == "proved"
    assert PSATZ not in _sent_to(env, "B")   # cheap proposals were left: the families waited
    tree.check_invariants()


def test_expensive_proposals_go_with_the_last_cheap_batch_of_a_goal_whose_tactics_all_failed() -> None:
    cost = CostModel(0.0, 1.0, cheap_k=4)
    env, evaluator, tree, b = _root_then_b({("B", PSATZ): []}, cost)
    _expand(tree, evaluator, env, cost, [b])
    assert _sent_to(env, "B") == CHEAP[:8]
    _expand(tree, evaluator, env, cost, [b])   # c8, c9 are the last cheap ones: psatz goes after them
    assert _sent_to(env, "B") == [*CHEAP, PSATZ] and tree.root.status.value == "proved"
    assert [r.goal for r in evaluator.requests].count("B") == 1   # widening asked no new round
    tree.check_invariants()


def test_a_goal_with_an_open_tactic_widens_its_cheap_proposals_as_visits_grant_expansions() -> None:
    cost = CostModel(0.0, 1.0, cheap_k=3)
    env, evaluator, tree, b = _root_then_b({("B", "c0"): ["C"]}, cost)
    node = tree.nodes[b]
    config = MCTSConfig()
    node.visits = 14   # a second expansion needs 1 <= 0.2 · visits^0.6: 15 visits
    assert node.open_edges() and not needs_sampling(node, config)
    node.visits = 15
    assert needs_sampling(node, config)
    _expand(tree, evaluator, env, cost, [b])
    assert _sent_to(env, "B") == CHEAP[:6] and PSATZ in node.pending


def test_cheap_first_k_zero_is_cost_mode_as_before_and_eager_ignores_it() -> None:
    env, _, tree, b = _root_then_b({}, CostModel(0.2, 0.8, cheap_k=0))
    assert _sent_to(env, "B") == CHEAP and list(tree.nodes[b].pending) == [PSATZ]
    env, _, tree, b = _root_then_b({}, None)
    assert _sent_to(env, "B") == [PSATZ, *CHEAP] and not tree.nodes[b].pending


def test_a_search_uses_the_configured_width_and_eager_sends_everything() -> None:
    table = {("A", "intros"): ["B"], ("B", "c0"): ["C"], ("C", "c0"): ["D"]}
    proposals = {"A": [("intros", -0.1)], "B": B_PROPOSALS, "C": B_PROPOSALS, "D": []}
    for expansion, width, sent in (("cost", 2, ["c0", "c1"]), ("cost", 0, CHEAP), ("eager", 2, [PSATZ, *CHEAP])):
        env = TableEnv(table)
        config = MCTSConfig(num_parallel=1, expansion=expansion, cheap_first_k=width)
        result = run_mcts(Goal("A", "A"), env, TableEvaluator(proposals), config, Budget(max_simulations=4))
        result.tree.check_invariants()
        assert _sent_to(env, "B") == sent and result.stats.max_depth == 3


def test_a_goal_reached_by_two_routes_is_one_goal_with_one_widening_schedule() -> None:
    # A --t1--> B and A --t2--> M --t3--> B: B's tactics are sent once, failures never again
    table = {("A", "t1"): ["B"], ("A", "t2"): ["M"], ("M", "t3"): ["B"], ("B", "c9"): []}
    proposals = {"A": [("t1", -0.1), ("t2", -0.2)], "M": [("t3", -0.1)], "B": B_PROPOSALS}
    env, evaluator = TableEnv(table), TableEvaluator(proposals)
    config = MCTSConfig(num_parallel=2, expansion="cost", cheap_first_k=3, cost_c=0.0)
    result = run_mcts(Goal("A", "A"), env, evaluator, config, Budget(max_simulations=40))
    result.tree.check_invariants()
    assert result.proved and len(result.tree.nodes[result.tree.node_id("B")].parents) == 2
    assert _sent_to(env, "B") == CHEAP   # in prior order, k at a time, each once
    assert [r.goal for r in evaluator.requests].count("B") == 1   # one evaluator round for both routes


def test_the_work_done_once_is_per_search() -> None:
    table = {("A", "intros"): ["B"]}
    proposals = {"A": [("intros", -0.1)], "B": [("c0", -0.1), ("c1", -0.2)]}
    env = TableEnv(table)
    config = MCTSConfig(num_parallel=1, cheap_first_k=1)
    for _ in range(2):
        run_mcts(Goal("A", "A"), env, TableEvaluator(proposals), config, Budget(max_simulations=10))
    # each search tries each of B's tactics once: nothing carries over from the first search
    assert env.calls.count(("B", "c0")) == 2 and env.calls.count(("B", "c1")) == 2


def test_cheap_first_k_is_validated() -> None:
    with pytest.raises(ValueError, match="cheap_first_k"):
        MCTSConfig(cheap_first_k=-1)
