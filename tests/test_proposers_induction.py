"""The induction proposer reads its shapes from a goal's text and computes the step's witness (pure:
sympy, no Coq): the ratio and the polynomial step, the base from a lower bound, the numeric check
that refuses a false divisibility, and the goals it leaves alone."""

from __future__ import annotations

from search.proposers.expr import parse_expr
from search.proposers.induction import PROPOSERS, step_witness, unfolds_at_successor

INDUCTION = PROPOSERS[0]


def test_the_step_witness_is_a_ratio_times_the_previous_plus_a_polynomial() -> None:
    assert step_witness(parse_expr("2 ^ (2 * n + 1) + 1"), 3, "n", 0) == (1, "(4 * k - 1)%nat")
    assert step_witness(parse_expr("n ^ 3 + 2 * n"), 3, "n", 0) == (0, "(1 + k + n + n ^ 2)%nat")
    assert step_witness(parse_expr("10 ^ n - 1"), 9, "n", 1) == (1, "(1 + 10 * k)%nat")


def test_a_false_or_fractional_divisibility_gets_no_witness() -> None:
    assert step_witness(parse_expr("2 ^ n + 1"), 3, "n", 0) is None      # 2 + 1 = 3, but 4 + 1 = 5
    assert step_witness(parse_expr("n ^ 3 + 5 * n"), 6, "n", 0) is None  # the step (n² + n) / 2 + 1
    assert step_witness(parse_expr("10 ^ n - 1"), 9, "n", 0) == (0, "(1 + 10 * k)%nat")


def test_the_root_goal_and_the_introduced_one_get_the_same_induction() -> None:
    root = INDUCTION.tactics("⊢ forall n : nat, 0 < n -> Nat.divide 9 (10 ^ n - 1)")
    introduced = INDUCTION.tactics("n : nat\nH : 0 < n\n⊢ Nat.divide 9 (10 ^ n - 1)")
    assert len(root) == 1 and root[0].startswith("timeout 5 (intros n Hb; induction Hb as [|n Hb IH]; unfold Nat.divide;")
    assert "exists 1%nat" in root[0] and "exists (1 + 10 * k)%nat" in root[0] and "(0 < 10 ^ n)%nat" in root[0]
    assert introduced == [root[0].replace("(intros n Hb;", "(generalize dependent n; intros n Hb;")]


def test_a_lower_bound_moves_the_base_and_a_plain_relation_gets_simpl_and_nia() -> None:
    tactics = INDUCTION.tactics("⊢ forall n : nat, 4 <= n -> n ^ 2 <= fact n")
    assert tactics[0] == "timeout 5 (intros n Hb; induction Hb as [|n Hb IH]; simpl in *; nia)."
    assert INDUCTION.tactics("⊢ forall n : nat, n > 2 -> sum_n (fun k : nat => k) n >= n")[0].startswith(
        "timeout 5 (intros n Hb; induction Hb")


def test_goals_out_of_shape_get_nothing() -> None:
    for goal in ("⊢ forall n : nat, n * n + 1 > n",                 # a polynomial: lia/nia's job
                 "⊢ forall n m : nat, n + m = m + n",                # two variables
                 "⊢ forall n : nat, n mod 5 = 3 -> 2 * n mod 5 = 1",  # a premise that is not a bound
                 "⊢ forall x : R, x ^ 2 >= 0",                       # not nat
                 "n : nat\nH : n mod 2 = 1\nH0 : 3 <= n\n⊢ 2 ^ n > n"):   # two hypotheses on n
        assert INDUCTION.tactics(goal) == [], goal


def test_a_recursive_term_is_told_from_a_polynomial() -> None:
    assert unfolds_at_successor("n ^ 2 <= fact n", "n") and unfolds_at_successor("2 ^ (n + 1) >= n", "n")
    assert unfolds_at_successor("total (fun k : nat => 2 * k + 2) n = n * n + n", "n")
    assert not unfolds_at_successor("n * n + 2 = 3 * n", "n") and not unfolds_at_successor("n mod 5 = 3", "n")
