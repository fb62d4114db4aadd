"""The linear-combination proposer without Coq: the certificate is exact (checked by expansion),
constant coefficients are found before polynomial ones, and goals outside the shape get nothing."""

from __future__ import annotations

import pytest
import sympy

from search.proposers.linear_combination import LINEAR_COMBINATION, certificate


def test_certificate_with_constant_coefficients() -> None:
    x, y = sympy.symbols("x y", real=True)
    target, generators = x - 19, [x + y - 7, 3 * x + y - 45]
    coefficients = certificate(target, generators, 0)
    assert coefficients is not None
    assert sympy.expand(target - sum(c * g for c, g in zip(coefficients, generators))) == 0


def test_certificate_needs_polynomial_coefficients_for_a_nonlinear_consequence() -> None:
    a, b = sympy.symbols("a b", real=True)
    target, generators = a ** 2 + b ** 2 - 13, [a + b - 5, a * b - 6]
    assert certificate(target, generators, 0) is None
    coefficients = certificate(target, generators, 1)
    assert coefficients is not None
    assert sympy.expand(target - sum(c * g for c, g in zip(coefficients, generators))) == 0


def test_no_certificate_when_the_goal_does_not_follow() -> None:
    a, b = sympy.symbols("a b", real=True)
    assert all(certificate(a - 1, [a + b - 5, a * b - 6], d) is None for d in (0, 1, 2))


def test_the_proposal_asserts_the_identity_rewrites_the_hypotheses_and_closes() -> None:
    tactics = LINEAR_COMBINATION.tactics("⊢ forall a b : R, a + b = 5 -> a * b = 6 -> a ^ 2 + b ^ 2 = 13")
    assert tactics[0] == ("timeout 3 (intros; assert (hlc : (a ^ 2 + b ^ 2 - 13 = (5 + a + b) * (a + b - 5) + "
                          "- 2 * (a * b - 6))%R) by field; assert (e0 : (a + b - 5 = 0)%R) by lra; "
                          "assert (e1 : (a * b - 6 = 0)%R) by lra; rewrite e0, e1 in hlc; lra).")
    assert tactics[-1].endswith("by field).") and len(tactics) == 3


def test_integer_goals_close_with_lia() -> None:
    tactics = LINEAR_COMBINATION.tactics("a, b : Z\nH : a + b = 5\nH0 : a - b = 1\n⊢ a = 3")
    assert tactics and "%Z) by ring" in tactics[0] and tactics[0].endswith("in hlc; lia).")


@pytest.mark.parametrize("goal", [
    "a, b : R\nH : a + b = 5\n⊢ a <= 5",                  # not an equation
    "a, b : R\nH : a + b = 5\n⊢ a = 1",                   # does not follow
    "a : R\n⊢ (a + 1) ^ 2 = a ^ 2 + 2 * a + 1",           # no hypothesis: ring's business
    "m, n : nat\nH : m + n = 5\nH0 : m - n = 1\n⊢ m = 3",  # nat subtraction
    "x : R\nH : 1 / x = 2\n⊢ x = 1 / 2",                  # not polynomial
])
def test_no_proposal_outside_the_shape(goal: str) -> None:
    assert LINEAR_COMBINATION.tactics(goal) == []
