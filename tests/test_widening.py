"""Progressive widening (`mcts.first_expansion_k`): a goal's first expansion sends only the top-k
proposals by prior, the next ones follow as the goal earns visits (or at once when all failed),
and a new evaluator round is asked only when nothing is pending; k = 0 sends everything at once."""

from __future__ import annotations

import math

import pytest

from fake_env import TableEnv, TableEvaluator
from lean_interface.api import Goal
from search.config import Budget, MCTSConfig
from search.expansion import BudgetClock, SearchStats, expand
from search.mcts import run_mcts
from search.selection import needs_sampling
from search.tree import SearchTree, Status

TACTICS = [f"t{i}" for i in range(10)]
#: the evaluator's ranking is deliberately not alphabetical: t9 is the most likely
RANKED = [(t, -0.1 * (9 - i)) for i, t in enumerate(TACTICS)]
BY_PRIOR = [t for t, _ in sorted(RANKED, key=lambda item: -item[1])]


def _deep_world() -> tuple[dict, dict]:
    """Every root tactic t_i leads to its own long chain of open goals B_i/0 → B_i/1 → …, so root
    tactics stay open and the root's own widening is decided by its visits alone."""
    table: dict = {}
    proposals: dict = {"A": RANKED}
    for t in TACTICS:
        table[("A", t)] = [f"{t}/0"]
        for depth in range(60):
            table[(f"{t}/{depth}", "step")] = [f"{t}/{depth + 1}"]
            proposals[f"{t}/{depth}"] = [("step", -0.1)]
    return table, proposals


def _root_tactics(env: TableEnv) -> list[str]:
    return [tactic for goal, tactic in env.calls if goal == "A"]


def _search(width: int, simulations: int) -> tuple[TableEnv, TableEvaluator, SearchTree]:
    table, proposals = _deep_world()
    env, evaluator = TableEnv(table), TableEvaluator(proposals)
    config = MCTSConfig(num_parallel=1, first_expansion_k=width)
    result = run_mcts(Goal("A", "A"), env, evaluator, config, Budget(max_simulations=simulations))
    result.tree.check_invariants()
    return env, evaluator, result.tree


def test_first_expansion_sends_only_the_top_k_and_widens_with_visits() -> None:
    env, _, tree = _search(3, 10)   # a second expansion needs 1 <= 0.2 · visits^0.6: 15 visits
    assert _root_tactics(env) == BY_PRIOR[:3] and tree.root.visits == 10
    assert sorted(tree.root.pending) == sorted(BY_PRIOR[3:])
    env, evaluator, tree = _search(3, 40)   # 15 visits: the next 3; the third step needs 47
    assert _root_tactics(env) == BY_PRIOR[:6]
    assert [r.round for r in evaluator.requests if r.goal == "A"] == [0]   # widening asks the evaluator nothing
    assert (tree.root.expansions, tree.root.rounds) == (2, 1)


def test_width_zero_sends_every_proposal_at_the_first_expansion() -> None:
    env, _, tree = _search(0, 10)
    assert _root_tactics(env) == BY_PRIOR and not tree.root.pending
    assert (tree.root.expansions, tree.root.rounds) == (1, 1)


def test_when_every_tactic_sent_fails_the_next_ones_go_at_once() -> None:
    table = {("A", "t3"): []}   # t0, t1, t2 (the top 3) fail; t3 closes the goal
    proposals = {"A": [(t, -0.1 * i) for i, t in enumerate(TACTICS)]}
    env, evaluator = TableEnv(table), TableEvaluator(proposals)
    result = run_mcts(Goal("A", "A"), env, evaluator, MCTSConfig(num_parallel=1, first_expansion_k=3),
                      Budget(max_simulations=3))
    assert result.proved and result.stats.simulations == 2
    assert _root_tactics(env) == ["t0", "t1", "t2", "t3", "t4", "t5"]
    assert result.stats.prover_calls == 6 and len(evaluator.requests) == 1


def _clock() -> BudgetClock:
    return BudgetClock(Budget(max_simulations=100), SearchStats())


def test_a_new_round_is_asked_only_when_nothing_is_pending() -> None:
    proposals = {("A", 0): [("t0", -0.1), ("t1", -0.2), ("t2", -0.3)], ("A", 1): [("t1", -0.1), ("u0", -0.5)]}
    env, evaluator = TableEnv({("A", t): [f"B{t}"] for t in ("t0", "t1", "t2", "u0")}), TableEvaluator(proposals)
    tree, clock = SearchTree(Goal("A", "A")), _clock()
    options = dict(num_samples=4, prior_temperature=1.0, max_expansions=2, clock=clock, width=2)
    expand(tree, [0], evaluator, env, **options)
    assert _root_tactics(env) == ["t0", "t1"] and list(tree.root.pending) == ["t2"]
    expand(tree, [0], evaluator, env, **options)   # widening: t2, no evaluator call
    assert _root_tactics(env) == ["t0", "t1", "t2"] and evaluator.calls == 1
    tree.check_invariants()
    expand(tree, [0], evaluator, env, **options)   # nothing pending: round 1; t1 again adds to its prior
    assert _root_tactics(env) == ["t0", "t1", "t2", "u0"] and [r.round for r in evaluator.requests] == [0, 1]
    assert tree.root.rounds == 2 and tree.root.exhausted   # the last allowed round, nothing pending
    t1 = next(e for e in tree.root.edges if e.tactic == "t1")
    assert t1.prior == pytest.approx(math.exp(-0.2) + math.exp(-0.1))
    assert clock.stats.prover_calls == 4 and clock.stats.expansions == 3
    tree.check_invariants()


def test_unsent_tactics_stay_pending_when_the_budget_runs_out() -> None:
    env = TableEnv({("A", f"t{i}"): [f"B{i}"] for i in range(10)})
    evaluator = TableEvaluator({"A": RANKED})
    tree = SearchTree(Goal("A", "A"))
    clock = BudgetClock(Budget(max_simulations=0, max_seconds=0, max_prover_calls=4), SearchStats())
    expand(tree, [0], evaluator, env, num_samples=4, prior_temperature=1.0, max_expansions=8, clock=clock, width=6)
    assert _root_tactics(env) == BY_PRIOR[:4]
    assert sorted(tree.root.pending) == sorted(BY_PRIOR[4:])   # the two taken but unsent, and the rest
    assert tree.root.expansions == 0 and tree.root.rounds == 1 and tree.root.status is Status.OPEN
    tree.check_invariants()


def test_a_goal_with_tactics_pending_still_needs_sampling_after_its_last_round() -> None:
    tree = SearchTree(Goal("A", "A"))
    node = tree.root
    node.expansions = node.rounds = 2
    config = MCTSConfig(max_expansions=2)
    assert not needs_sampling(node, config)
    node.pending["t0"] = -1.0
    assert needs_sampling(node, config)   # no open tactic: widen at once


def test_first_expansion_k_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="first_expansion_k"):
        MCTSConfig(first_expansion_k=-1)
