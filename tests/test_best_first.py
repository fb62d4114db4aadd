"""The baselines: best-first search (ReProver's, AND-aware), the automation portfolio, and the
no-network fixed-tactic evaluator."""

from __future__ import annotations

import math

import pytest

from fake_env import TableEnv, TableEvaluator, provable, random_world
from lean_interface.api import Goal, ProofStep
from search.best_first import frontier_priorities, run_best_first
from search.config import BestFirstConfig, Budget, PortfolioConfig
from search.evaluator import EvalRequest
from search.fixed_evaluator import (LEAN_VOCABULARY, FixedTacticEvaluator, goal_count, hypotheses,
                                    instantiated_tactics)
from search.portfolio import run_portfolio
from search.tree import Status

BUDGET = Budget(max_simulations=200, max_seconds=30)


def test_best_first_expands_by_cumulative_logprob() -> None:
    """A ──cheap (−0.1)──► B (dead end);  A ──pricey (−3)──► C ──c──► ∎"""
    table = {("A", "cheap"): ["B"], ("A", "pricey"): ["C"], ("C", "c"): []}
    evaluator = TableEvaluator({"A": [("cheap", -0.1), ("pricey", -3.0)], "B": [], "C": [("c", -0.1)]})
    env = TableEnv(table)
    result = run_best_first(Goal("A", "A"), env, evaluator, BestFirstConfig(num_parallel=1), BUDGET)
    assert result.proved and env.check_proof("A", result.proof)
    assert [r.goal for r in evaluator.requests] == ["A", "B", "C"]
    assert result.tree.nodes[result.tree.node_id("B")].status is Status.FAILED
    result.tree.check_invariants()


AND_TABLE = {("A", "and"): ["B", "C"], ("A", "single"): ["D"], ("B", "b"): ["B2"], ("D", "d"): ["D2"],
             ("C", "c"): [], ("B2", "b2"): []}
AND_PROPOSALS = {"A": [("and", -1.0), ("single", -1.5)], "B": [("b", -2.0)], "C": [("c", -0.5)],
                 "D": [("d", -3.0)], "B2": [("b2", -0.1)]}


def test_priorities_sum_over_the_goals_an_and_still_needs() -> None:
    """
        A ──and (−1)───────► AND(B, C)     B ──b (−2)──► B2        C: not expanded yet
        A ──single (−1.5)──► D             D: not expanded yet
        cost(and)    = 1 + h(B) + h(C) = 1 + 2 + 0                = 3
        priority(C)  = o(C) + h(C)     = (3 − 0) + 0              = 3
        priority(B2) = o(B2) + h(B2)   = (3 − 2) + 2 − 0 + 0      = 3
        priority(D)  = 1.5                                        → D before C, unlike plain
                                                                    cumulative log-prob (1 < 1.5)
    """
    evaluator = TableEvaluator(AND_PROPOSALS)
    result = run_best_first(Goal("A", "A"), TableEnv(AND_TABLE), evaluator, BestFirstConfig(num_parallel=1),
                            Budget(max_simulations=2, max_seconds=30))
    tree = result.tree
    priorities = {tree.nodes[n].goal.text: p for n, p in frontier_priorities(tree).items()}
    assert priorities == pytest.approx({"C": 3.0, "B2": 3.0, "D": 1.5})


def test_best_first_and_search_order_and_proof() -> None:
    """Order A, B, D (1.5), C (3, before B2 by age), B2 (3 < D2's 4.5); proof and(b(b2), c)."""
    env = TableEnv(AND_TABLE)
    evaluator = TableEvaluator(AND_PROPOSALS)
    result = run_best_first(Goal("A", "A"), env, evaluator, BestFirstConfig(num_parallel=1), BUDGET)
    assert [r.goal for r in evaluator.requests] == ["A", "B", "D", "C", "B2"]
    assert result.proof == ProofStep("and", (ProofStep("b", (ProofStep("b2"),)), ProofStep("c")))
    assert env.check_proof("A", result.proof) and result.stats.simulations == 5


def test_best_first_batches_the_cheapest_goals() -> None:
    evaluator = TableEvaluator(AND_PROPOSALS)
    run_best_first(Goal("A", "A"), TableEnv(AND_TABLE), evaluator, BestFirstConfig(num_parallel=2),
                   Budget(max_simulations=3, max_seconds=30))
    assert [r.goal for r in evaluator.requests] == ["A", "B", "C"]  # B and C (1 each) in one call
    assert evaluator.calls == 2


@pytest.mark.parametrize("seed", range(25))
def test_best_first_agrees_with_exhaustive_search(seed: int) -> None:
    table, proposals = random_world(seed)
    env = TableEnv(table, root="G0")
    result = run_best_first(Goal("G0", "G0"), env, TableEvaluator(proposals), BestFirstConfig(num_parallel=2), BUDGET)
    result.tree.check_invariants()
    expected = provable(table, proposals, "G0", {})
    assert result.proved == expected
    if expected:
        assert env.check_proof("G0", result.proof)
    else:
        assert result.tree.root.status is Status.FAILED


def test_best_first_budget() -> None:
    table = {("A", "t"): ["A1"]} | {(f"A{i}", "t"): [f"A{i + 1}"] for i in range(1, 100)}
    proposals = {"A": [("t", -0.1)]} | {f"A{i}": [("t", -0.1)] for i in range(1, 100)}
    result = run_best_first(Goal("A", "A"), TableEnv(table), TableEvaluator(proposals), BestFirstConfig(),
                            Budget(max_simulations=0, max_seconds=0, max_prover_calls=9))
    assert result.stats.prover_calls == 9 and not result.proved


# ---- portfolio -----------------------------------------------------------------------------------
def test_portfolio_returns_the_first_closing_tactic() -> None:
    table = {("A", "auto"): ["A2"], ("A", "lia"): []}
    env = TableEnv(table)
    result = run_portfolio(Goal("A", "A"), env, PortfolioConfig(tactics=("ring", "auto", "lia", "nia")), BUDGET)
    assert result.proved and result.proof == ProofStep("lia")
    assert env.calls == [("A", "ring"), ("A", "auto"), ("A", "lia")]
    assert [e.tactic for e in result.tree.root.edges] == ["auto", "lia"]  # partial progress is kept, not pursued


def test_portfolio_fails_when_nothing_closes_and_respects_the_budget() -> None:
    config = PortfolioConfig(tactics=("ring", "auto", "lia"))
    result = run_portfolio(Goal("A", "A"), TableEnv({("A", "auto"): ["A2"]}), config, BUDGET)
    assert not result.proved and result.tree.root.status is Status.FAILED
    result.tree.check_invariants()
    env = TableEnv({})
    result = run_portfolio(Goal("A", "A"), env, config, Budget(max_simulations=2, max_seconds=0))
    assert len(env.calls) == 2 and result.tree.root.status is Status.OPEN


def test_hammer_tactics_only_when_the_header_loads_hammer() -> None:
    config = PortfolioConfig(tactics=("lia",), hammer_tactics=("sauto", "hauto"))
    assert config.tactics_for("Require Import Arith Lia.") == ("lia",)
    assert config.tactics_for("From Hammer Require Import Tactics.") == ("lia", "sauto", "hauto")
    env = TableEnv({("A", "hauto"): []})
    result = run_portfolio(Goal("A", "A"), env, config, BUDGET, header="From Hammer Require Import Tactics.")
    assert result.proof == ProofStep("hauto")
    assert PortfolioConfig.from_dict({"tactics": ["a", "b"]}).tactics == ("a", "b")
    with pytest.raises(ValueError, match="unknown PortfolioConfig keys: tactic"):
        PortfolioConfig.from_dict({"tactic": ["a"]})


# ---- the fixed evaluator -----------------------------------------------------------------------------
COQ_GOAL = "\n".join([
    "n, m : nat",
    "l : list nat",
    "b : bool",
    "x : R",
    "k := 3 : nat",
    "H : n = m + 1",
    "Hlt : m < n",
    "⊢ n + 0 = S m",
])


def test_hypotheses_are_parsed_from_the_canonical_goal_text() -> None:
    assert hypotheses(COQ_GOAL) == [("n", "nat"), ("m", "nat"), ("l", "list nat"), ("b", "bool"), ("x", "R"),
                                    ("k", "nat"), ("H", "n = m + 1"), ("Hlt", "m < n")]
    lean = "a b : ℕ\nh₀ : a = b\nn✝ : ℕ\nH : ∀ x : ℕ, x = x\n⊢ a + 0 = b"
    assert hypotheses(lean) == [("a", "ℕ"), ("b", "ℕ"), ("h₀", "a = b"), ("H", "∀ x : ℕ, x = x")]
    assert hypotheses("⊢ forall n : nat, n = n") == []


def test_instantiated_tactics_use_the_hypothesis_names() -> None:
    tactics = instantiated_tactics(COQ_GOAL)
    for expected in ("induction n", "destruct n", "induction m", "induction l", "destruct b", "rewrite H",
                     "rewrite <- H", "apply H", "exact Hlt", "inversion Hlt", "destruct H", "rewrite H in Hlt"):
        assert expected in tactics
    assert not any(t.endswith(" x") for t in tactics)  # a real number variable: nothing to destruct
    assert "rewrite Hlt" not in tactics  # not an equation
    # `Q` declared as a local proposition is not Coq's rationals: its proofs get hypothesis tactics
    assert instantiated_tactics("P, Q : Prop\nH : P\nH0 : Q\n⊢ Q")[-5:] == [
        "apply H0", "exact H0", "destruct H0", "inversion H0", "eapply H0"]
    lean = instantiated_tactics("a b : ℕ\nh : a = b\n⊢ a = b", LEAN_VOCABULARY)
    assert {"induction a", "cases b", "rw [h]", "rw [← h]", "exact h"} <= set(lean)


def test_fixed_evaluator_uniform_priors_and_rounds() -> None:
    evaluator = FixedTacticEvaluator()
    first, later, coupled = evaluator.evaluate([EvalRequest(COQ_GOAL, 4, 0), EvalRequest(COQ_GOAL, 4, 1),
                                                EvalRequest("⊢ ?x = 1\n\n⊢ ?x > 0", 4, 0)])
    tactics = [t for t, _ in first.tactics]
    assert len(tactics) == len(set(tactics)) > 4  # the whole list, num_samples notwithstanding
    assert {"intros.", "lia.", "split.", "induction n.", "rewrite H."} <= set(tactics)  # one canonical form
    assert all(lp == pytest.approx(-math.log(len(tactics))) for _, lp in first.tactics)
    assert later.tactics == () and first.value == later.value == -1.0
    assert coupled.value == -2.0 and goal_count("⊢ a\n\n⊢ b") == 2
    assert evaluator.calls == 1
