"""The CAS layer (`search.proposers.cas`) and the solve-and-assert proposer, without Coq: bounded
calls stop, the cache answers once per goal, the numeric check follows Coq's conventions, the goal
reader types the variables, and solve-and-assert proposes the values a system determines — and
nothing where the values would be false or the goal is not of its shape."""

from __future__ import annotations

import threading
import time
from fractions import Fraction

import pytest

from search.proposers.base import goal_context
from search.proposers.cas import bounded, consistent, evaluate, holds_numerically, per_goal, read_goal, sample_points
from search.proposers.expr import parse_expr, parse_prop
from search.proposers.solve_assert import SOLVE_ASSERT, conjuncts, factored, solutions


def _spin(seconds: float) -> str:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
    return "done"


def _swallowing_spin(seconds: float) -> str:
    """A computation that catches every Exception (as sympy's internals do) still stops."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            _spin(0.01)
        except Exception:
            pass
    return "done"


def test_bounded_returns_the_value_of_a_quick_call() -> None:
    assert bounded(lambda a, b: a + b, 0.5, 2, 3) == 5


@pytest.mark.parametrize("fn", [_spin, _swallowing_spin])
def test_bounded_stops_a_long_call_on_the_main_thread(fn) -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        bounded(fn, 0.1, 5.0)
    assert time.monotonic() - started < 1.0


def test_bounded_gives_up_waiting_off_the_main_thread() -> None:
    box: dict[str, object] = {}

    def worker() -> None:
        started = time.monotonic()
        try:
            bounded(_spin, 0.1, 2.0)
        except TimeoutError:
            box["elapsed"] = time.monotonic() - started

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(5)
    assert box["elapsed"] < 1.0


def test_bounded_passes_the_calls_own_errors_through() -> None:
    with pytest.raises(ZeroDivisionError):
        bounded(lambda: 1 / 0, 0.5)


def test_per_goal_caches_results_and_errors_by_goal_text_but_not_timeouts() -> None:
    calls: list[str] = []

    @per_goal(maxsize=2)
    def f(context):
        calls.append(context.text)
        if "bad" in context.text:
            raise ValueError("bad goal")
        if "slow" in context.text:
            raise TimeoutError("CAS call over 0.5 s")
        return len(context.text)

    good, bad, slow = (goal_context(f"x : R\n⊢ {word} = 1") for word in ("x", "bad", "slow"))
    assert f(good) == f(good)
    for _ in range(2):
        with pytest.raises(ValueError):
            f(bad)
        with pytest.raises(TimeoutError):
            f(slow)
    assert calls == [good.text, bad.text, slow.text, slow.text]


def test_evaluation_is_exact_on_rationals_and_follows_coq_conventions() -> None:
    assert evaluate(parse_expr("x / 3 + 1"), {"x": 1}) == Fraction(4, 3)
    assert evaluate(parse_expr("sqrt (x - 5)"), {"x": 1}) == 0  # Coq: sqrt of a negative is 0
    assert evaluate(parse_expr("sqrt 49"), {}) == 7
    assert evaluate(parse_expr("n - 5"), {"n": 3}, {"n": "nat"}) == 0  # nat subtraction truncates
    assert evaluate(parse_expr("n - 5"), {"n": 3}, {"n": "Z"}) == -2


def test_holds_numerically_drops_false_facts_and_abstains_when_it_cannot_tell() -> None:
    assert holds_numerically(parse_prop("x ^ 2 = 9 /\\ 0 < x"), {"x": 3}) is True
    assert holds_numerically(parse_prop("x ^ 2 = 9 /\\ 0 < x"), {"x": -3}) is False
    assert holds_numerically(parse_prop("a < c"), {"a": -6, "c": -6}) is False  # exact: no float slack
    assert holds_numerically(parse_prop("sqrt 2 * sqrt 2 = 2"), {}) is True  # floats, within tolerance
    assert holds_numerically(parse_prop("1 / x = 1"), {"x": 0}) is None
    assert holds_numerically(parse_prop("y = 1"), {"x": 0}) is None
    assert consistent([parse_prop("x > 0"), parse_prop("y = 1")], {"x": 2})


def test_sample_points_satisfy_the_facts() -> None:
    facts = [parse_prop("0 < x"), parse_prop("x + y = 3")]
    points = sample_points(facts[:1], {"x": "R", "y": "R"}, ["x", "y"], count=5)
    assert len(points) == 5 and all(p["x"] > 0 for p in points)
    assert sample_points([parse_prop("n * n = 2")], {"n": "nat"}, ["n"]) == []


def test_read_goal_types_names_and_skips_what_does_not_parse() -> None:
    root = goal_context("⊢ forall (x : R) (n : nat), 0 < x -> n mod 4 = 2 -> x + INR n = 3 -> x = 1")
    goal = read_goal(root)
    assert goal.types == {"x": "R", "n": "nat"} and goal.prefix == "intros; "
    assert [f.name for f in goal.hypotheses] == ["H", "H1"]  # H0 (mod) does not parse
    assert goal.conclusion is not None and goal.scope(["n"]) == "nat" and goal.scope(["x", "n"]) == "R"
    inner = read_goal(goal_context("x, y : R\nh0 : x + y = 10\n⊢ x = 6"))
    assert inner.prefix == "" and inner.hypotheses[0].name == "h0"


def test_conjuncts_flatten_only_conjunctions() -> None:
    assert len(conjuncts(parse_prop("0 < x /\\ 0 < y /\\ x = 1"))) == 3
    assert len(conjuncts(parse_prop("x = 1 \\/ x = 2"))) == 1


def test_solutions_keep_only_values_consistent_with_every_hypothesis_and_type() -> None:
    goal = read_goal(goal_context("b : nat\nH : 0 < b\nH0 : 3 * b ^ 2 + 2 * b + 1 = 57\n⊢ b = 4"))
    assert solutions(goal) == [{"b": 4}]  # -14/3 is not a nat
    goal = read_goal(goal_context("x : R\nH : 0 < x\nH0 : x ^ 2 = 9\n⊢ x = 3"))
    assert solutions(goal) == [{"x": 3}]  # -3 contradicts 0 < x


def test_solve_assert_proposes_the_value_and_a_closing_sentence() -> None:
    tactics = SOLVE_ASSERT.tactics("⊢ forall x y : R, x + y = 7 -> 3 * x + y = 45 -> x ^ 2 - y ^ 2 = 217")
    assert tactics[0] == ("timeout 3 (intros; assert (hx_val : (x = 19)%R) by lra; "
                          "assert (hy_val : (y = - 12)%R) by lra; subst x y; lra).")
    assert "timeout 3 (intros; assert (hx_val : (x = 19)%R) by lra)." in tactics
    assert len(tactics) <= 8


def test_solve_assert_proposes_a_factored_disjunction_for_several_roots() -> None:
    tactics = SOLVE_ASSERT.tactics("x : R\nH : x ^ 2 - 5 * x + 6 = 0\n⊢ x = 2 \\/ x = 3")
    assert any("((x = 2) \\/ (x = 3))%R" in t and "Rmult_integral" in t and "(x - 3) * (x - 2)" in t
               for t in tactics)


def test_factored_keeps_an_irreducible_factor_for_nra_to_refute() -> None:
    goal = read_goal(goal_context("y : R\nH : y ^ 3 = 1\n⊢ y = 1"))
    product, count = factored(goal, "y", [Fraction(1)])
    assert count == 2 and "y ^ 2" in repr(product) or "Bin(op='^'" in repr(product)


def test_solve_assert_does_not_assert_a_value_the_conclusion_contradicts_as_closing() -> None:
    tactics = SOLVE_ASSERT.tactics("x : R\nH : 2 * x = 6\n⊢ x = 4")
    assert tactics == ["timeout 3 (assert (hx_val : (x = 3)%R) by lra)."]  # true fact, no false closer


@pytest.mark.parametrize("goal", [
    "x : R\nH : 0 < x\n⊢ x + 1 > 1",                    # no equation
    "x, y : R\nH : x + y = 3\n⊢ x = 1",                # infinitely many solutions
    "x : R\nH : x ^ 2 = 2\n⊢ x ^ 4 = 4",                # irrational values only
    "n : nat\nH : Nat.gcd n 4 = 2\n⊢ n = 2",            # does not parse
    "x : R\nH : x ^ 2 = 4\nH0 : x > 5\n⊢ x = 2",        # no solution consistent with the hypotheses
])
def test_solve_assert_proposes_nothing_outside_its_shape(goal: str) -> None:
    assert SOLVE_ASSERT.tactics(goal) == []
