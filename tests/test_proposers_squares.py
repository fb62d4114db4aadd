"""The completed-squares proposer computes its hints from the goal's quadratics (pure: sympy, no Coq),
and it is pending: offered by the set "pending" or by name, never by "all" until measured."""

from __future__ import annotations

import sympy

from alphaprover.eval_runner import split_proposers
from search.proposers import all_proposers, family_of, pending_proposers, proposer_set
from search.proposers.squares import PROPOSERS, completions

SQUARES = PROPOSERS[0]


def test_completing_the_square_gives_the_vertex_shift_variable_by_variable() -> None:
    x, y, c = sympy.symbols("x y c", real=True)
    assert completions(2 * x ** 2 + 5 * x + c, [x, c]) == [x + sympy.Rational(5, 4)]
    # a² + b² + 1 - ab - a - b: a - b/2 - 1/2 first, then b - 1 in what is left
    a, b = sympy.symbols("a b", real=True)
    assert completions(a ** 2 + b ** 2 + 1 - a * b - a - b, [a, b]) == [a - b / 2 - sympy.Rational(1, 2), b - 1]
    assert completions(x ** 2 + y ** 2, [x, y]) == []  # no linear part: the classic hints' x ^ 2
    assert completions(x * y + x, [x, y]) == []        # no square in x or y


def test_the_tactics_pose_the_computed_squares_then_nra_or_psatz() -> None:
    tactics = SQUARES.tactics("c, x : R\nHx : 2 * x ^ 2 + 5 * x + c <= 0\n⊢ c <= 25 / 8")
    assert tactics == ["timeout 3 (pose proof (pow2_ge_0 (5 / 4 + x)); nra).",
                       "timeout 3 (pose proof (pow2_ge_0 (5 / 4 + x)); psatz R 2)."]
    assert SQUARES.tactics("⊢ forall x : R, x ^ 2 - 6 * x + 10 > 0")[0].startswith(
        "timeout 3 (intros; pose proof (pow2_ge_0 (- 3 + x)); nra)")
    for goal in ("x, y : R\n⊢ x + y = 2", "n : nat\n⊢ n * n + 2 * n >= 0", "f : R -> R\nx : R\n⊢ f x ^ 2 + x >= 0"):
        assert SQUARES.tactics(goal) == [], goal


def test_a_pending_proposer_is_offered_by_name_or_by_pending_never_by_all() -> None:
    assert SQUARES in pending_proposers() and SQUARES not in all_proposers()
    assert SQUARES not in proposer_set("all") and SQUARES in proposer_set("pending")
    assert proposer_set("all,squares") == (*all_proposers(), SQUARES)
    assert split_proposers("mcts-fixed+pending") == ("mcts-fixed", "pending")
    assert family_of("timeout 3 (pose proof (pow2_ge_0 (5 / 4 + x)); nra).") == "squares"
    assert family_of("timeout 2 (intros; pose proof (pow2_ge_0 (x - y)); nra).") == "hints"
