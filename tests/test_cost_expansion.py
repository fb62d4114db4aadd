"""Cost-aware expansion (`mcts.expansion = "cost"`, search/cost.py): a non-root goal's first
expansion sends only its cheap proposals; the root sends every family; a goal whose cheap tactics
all failed, or whose visits grant the prover seconds, gets its expensive ones; "eager" is unchanged."""

from __future__ import annotations

import pytest

from fake_env import TableEnv, TableEvaluator
from lean_interface.api import Goal, TacticResult
from search.config import Budget, MCTSConfig
from search.cost import CostModel, cheap_first, is_expensive, same_class_prefix
from search.expansion import BudgetClock, SearchStats, expand
from search.mcts import run_mcts
from search.tree import SearchTree

PSATZ = "timeout 3 (intros; psatz R 2)"
HINTS = "timeout 2 (intros; pose proof (pow2_ge_0 x); nra)"
CASES = "timeout 1 (intros; split_Rabs; lra)"
EXPENSIVE = [PSATZ, HINTS, CASES]


def _sent_to(env: TableEnv, goal: str) -> list[str]:
    return [tactic for text, tactic in env.calls if text == goal]


def _expand(tree: SearchTree, nodes: list[int], evaluator: TableEvaluator, env: TableEnv,
            cost: CostModel | None) -> None:
    expand(tree, nodes, evaluator, env, num_samples=4, prior_temperature=1.0, max_expansions=8,
           clock=BudgetClock(Budget(max_simulations=100), SearchStats()), cost=cost)


def _two_level() -> tuple[TableEnv, TableEvaluator]:
    """A --intros--> B; B's cheap tactic `split` leaves C (open), its cheap `lra` fails, and only
    psatz (the most likely of all) closes B; every proposal is offered at A and at B."""
    proposals = [(PSATZ, -0.1), ("lra", -0.5), ("split", -0.6), (HINTS, -0.7), ("intros", -0.8), (CASES, -0.9)]
    table = {("A", "intros"): ["B"], ("B", "split"): ["C"], ("B", PSATZ): [], ("A", "split"): ["D"]}
    return TableEnv(table), TableEvaluator({"A": proposals, "B": proposals, "C": [], "D": []})


def test_classes_follow_the_family_time_limit() -> None:
    assert all(is_expensive(t) for t in EXPENSIVE) and is_expensive("intros; psatz R 3")
    assert not any(is_expensive(t) for t in ("lra", "intros; nra", "apply h0", "destruct h", "field_simplify"))


def test_the_root_sends_every_family_at_its_first_expansion() -> None:
    env, evaluator = _two_level()
    tree = SearchTree(Goal("A", "A"))
    _expand(tree, [0], evaluator, env, CostModel(0.2, 0.8))
    assert sorted(_sent_to(env, "A")) == sorted(t for t, _ in evaluator.proposals["A"])
    assert not tree.root.pending
    # cheap before expensive, never in one batch
    assert _sent_to(env, "A") == ["lra", "split", "intros", PSATZ, HINTS, CASES] and env.batches == [3, 3]


def test_a_non_root_first_expansion_sends_no_expensive_tactic() -> None:
    env, evaluator = _two_level()
    tree = SearchTree(Goal("A", "A"))
    cost = CostModel(0.2, 0.8)
    _expand(tree, [0], evaluator, env, cost)
    b = tree.node_id("B")
    _expand(tree, [b], evaluator, env, cost)
    assert _sent_to(env, "B") == ["lra", "split", "intros"]
    assert sorted(tree.nodes[b].pending) == sorted(EXPENSIVE)
    assert not tree.nodes[b].exhausted and tree.nodes[b].open_edges()
    tree.check_invariants()


def test_eager_expansion_still_sends_everything_at_a_non_root_goal() -> None:
    env, evaluator = _two_level()
    tree = SearchTree(Goal("A", "A"))
    _expand(tree, [0], evaluator, env, None)
    b = tree.node_id("B")
    _expand(tree, [b], evaluator, env, None)
    assert _sent_to(env, "B")[0] == PSATZ and len(_sent_to(env, "B")) == 6
    assert tree.root.status.value == "proved" or tree.nodes[b].status.value == "proved"


def test_expensive_tactics_go_once_every_cheap_tactic_failed() -> None:
    table = {("A", "intros"): ["B"], ("B", HINTS): []}
    proposals = {"A": [("intros", -0.1)], "B": [("lra", -0.1), ("nra", -0.2), (HINTS, -0.3), (PSATZ, -0.4)]}
    env, evaluator = TableEnv(table), TableEvaluator(proposals)
    tree = SearchTree(Goal("A", "A"))
    cost = CostModel(0.0, 0.8)   # no allowance: only "all cheap failed" can release them
    _expand(tree, [0], evaluator, env, cost)
    b = tree.node_id("B")
    _expand(tree, [b], evaluator, env, cost)
    assert _sent_to(env, "B") == ["lra", "nra"] and not tree.nodes[b].open_edges()
    _expand(tree, [b], evaluator, env, cost)
    assert _sent_to(env, "B") == ["lra", "nra", HINTS, PSATZ]   # all of them, most likely first
    assert tree.root.status.value == "proved"
    tree.check_invariants()


def test_visits_grant_expensive_tactics_by_expected_seconds_most_likely_first() -> None:
    tree = SearchTree(Goal("A", "A"))
    tree.add_edge(0, "intros", -0.1, 1.0, [Goal("B", "B")])
    b = tree.node_id("B")
    node = tree.nodes[b]
    node.pending = {PSATZ: -0.1, HINTS: -0.2, CASES: -0.3, "lra": -0.4}
    tree.add_edge(b, "split", -0.1, 1.0, [Goal("C", "C")])   # an open tactic: cheap ones did not all fail
    cost = CostModel(c=1.0, alpha=1.0)
    node.visits = 2                       # 2 s allowed: psatz (3 s, unmeasured) does not fit
    assert cost.choose(tree, b, 0) == [("lra", -0.4)]
    assert sorted(node.pending) == sorted(EXPENSIVE)
    cost.record(PSATZ, 0.5)               # measured: psatz fails in 0.5 s here
    cost.record(PSATZ, 1.5)
    assert cost.expected_seconds(PSATZ) == pytest.approx(1.0)
    assert cost.choose(tree, b, 0) == [(PSATZ, -0.1)]   # 1 s fits; hints (2 s) then does not
    assert cost.spent[b] == pytest.approx(1.0)
    node.visits = 5                       # 5 − 1 = 4 s: hints (2) and cases (1) both fit
    assert cost.choose(tree, b, 0) == [(HINTS, -0.2), (CASES, -0.3)] and not node.pending


def test_cheap_width_and_batches_keep_classes_apart() -> None:
    jobs = [(1, (PSATZ, -0.1)), (1, ("lra", -0.2)), (2, (HINTS, -0.3)), (2, ("nra", -0.4))]
    ordered = cheap_first(jobs)
    assert [t for _, (t, _) in ordered] == ["lra", "nra", PSATZ, HINTS]
    assert same_class_prefix(ordered, 16) == ordered[:2] and same_class_prefix(ordered[2:], 1) == ordered[2:3]
    tree = SearchTree(Goal("A", "A"))
    tree.add_edge(0, "intros", -0.1, 1.0, [Goal("B", "B")])
    tree.nodes[1].pending = {"t0": -0.1, "t1": -0.2, "t2": -0.3, PSATZ: -0.01}
    assert CostModel(0.0, 1.0).choose(tree, 1, 2) == [("t0", -0.1), ("t1", -0.2)]


class _TimedEnv(TableEnv):
    """Reports each call's own prover seconds, as CoqEnv does."""

    def apply(self, goal: Goal, tactic: str) -> TacticResult:
        result = super().apply(goal, tactic)
        return TacticResult(goals=result.goals, error=result.error, elapsed=2.5 if is_expensive(tactic) else 0.01)


def test_a_search_measures_families_and_never_resends_a_failed_tactic_to_a_shared_goal() -> None:
    # two routes reach the same goal B; its hint fails once and is never sent again
    table = {("A", "intros"): ["B"], ("A", "simpl"): ["B2"], ("B2", "intros"): ["B"], ("B", "split"): ["C"]}
    proposals = {"A": [("intros", -0.1), ("simpl", -0.2)], "B2": [("intros", -0.1)],
                 "B": [("lra", -0.1), ("split", -0.2), (HINTS, -0.3)], "C": [("lra", -0.1)]}
    env, evaluator = _TimedEnv(table), TableEvaluator(proposals)
    config = MCTSConfig(num_parallel=1, expansion="cost", cost_c=1.0, cost_alpha=1.0)
    result = run_mcts(Goal("A", "A"), env, evaluator, config, Budget(max_simulations=60))
    result.tree.check_invariants()
    assert env.calls.count(("B", HINTS)) == 1 and result.stats.expensive_calls == 1
    assert result.stats.max_depth == 2 and not result.proved


def test_expansion_mode_is_validated() -> None:
    with pytest.raises(ValueError, match="unknown expansion 'lazy'"):
        MCTSConfig(expansion="lazy")
    with pytest.raises(ValueError, match="cost_c"):
        MCTSConfig(cost_c=-1.0)


def test_a_new_round_does_not_hold_back_the_families_of_a_goal_whose_tactics_all_failed() -> None:
    # mixed mode: round 1 brings new policy samples; B's expensive tactics go with them, not after
    table = {("A", "intros"): ["B"]}
    proposals = {"A": [("intros", -0.1)], ("B", 0): [("lra", -0.1), (PSATZ, -0.2)], ("B", 1): [("nra", -0.1)]}
    env, evaluator = TableEnv(table), TableEvaluator(proposals)
    tree = SearchTree(Goal("A", "A"))
    cost = CostModel(0.0, 1.0)
    _expand(tree, [0], evaluator, env, cost)
    b = tree.node_id("B")
    _expand(tree, [b], evaluator, env, cost)
    assert _sent_to(env, "B") == ["lra"]
    _expand(tree, [b], evaluator, env, cost)
    assert _sent_to(env, "B") == ["lra", "nra", PSATZ] and tree.nodes[b].rounds == 2
    tree.check_invariants()
