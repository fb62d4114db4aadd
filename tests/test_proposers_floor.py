"""floor_values reads `up`/`Int_part`/`floor` of closed reals from a goal's text and computes the
integer (pure: sympy, no Coq); a term with a variable or another function gets nothing."""

from __future__ import annotations

import pytest

from search.proposers.base import ProposerSkipped
from search.proposers.floor_values import PROPOSERS, floor_value, occurrences

FLOOR = PROPOSERS[0]


def test_occurrences_keep_the_goals_own_argument_text() -> None:
    assert occurrences("Z.sub (up (sqrt 27)) (up (sqrt 26) - 1) = 1%Z") == [("up", "(sqrt 27)"), ("up", "(sqrt 26)")]
    assert occurrences("floor (9 / 160 * 100) = 5%Z /\\ Int_part (x) = 0%Z") == [
        ("floor", "(9 / 160 * 100)"), ("Int_part", "(x)")]
    assert occurrences("setup (x) = 1") == []  # a longer name is not `up`


def test_the_value_is_the_exact_floor_with_the_roots_to_bound() -> None:
    assert floor_value("(sqrt 27)") == (5, ["27"])
    assert floor_value("(9 / 160 * 100)") == (5, [])
    assert floor_value("(- 7 / 2)") == (-4, [])
    assert floor_value("(sqrt 80 + 1 / 3)") == (9, ["80"])


@pytest.mark.parametrize("argument", ["(x + 1)", "(ln 3)", "(PI)"])
def test_an_argument_that_is_not_closed_arithmetic_is_skipped(argument: str) -> None:
    with pytest.raises(ProposerSkipped):
        floor_value(argument)


def test_the_tactic_rewrites_up_and_pins_a_floor() -> None:
    [up] = FLOOR.tactics("⊢ Z.sub (up (sqrt 27)) (up (sqrt 26) - 1) = 1%Z")
    assert "rewrite <- (up_tech (sqrt 27) (5)%Z) by" in up and "pose proof (sqrt_sqrt (26) ltac:(lra))" in up
    [floor] = FLOOR.tactics("⊢ floor (9 / 160 * 100) = 5%Z")
    assert "destruct (floor_ex (9 / 160 * 100)) as [fl1 [fl1a fl1b]]" in floor
    assert "replace fl1 with (5)%Z in * by lia" in floor
    assert FLOOR.tactics("x : R\n⊢ up (x) = 1%Z") == [] and FLOOR.tactics("⊢ 1 = 1") == []
