"""The witness proposer without Coq: it reads `exists` binders, finds values by solving and by a
bounded search, checks them numerically (also against the goal's other variables at sampled points),
and proposes nothing where no value works."""

from __future__ import annotations

import pytest

from search.proposers.witnesses import WITNESSES, split_exists


def test_split_exists_reads_every_binder_form() -> None:
    assert split_exists("exists (p : Z) (q : positive), p = 1") == ([("p", "Z"), ("q", "positive")], "p = 1")
    assert split_exists("exists a b : Z, a = b") == ([("a", "Z"), ("b", "Z")], "a = b")
    assert split_exists("exists x : R, exists y : R, x = y") == ([("x", "R"), ("y", "R")], "x = y")
    assert split_exists("forall x : R, x = x") is None


def test_a_solved_witness_then_the_closer() -> None:
    tactics = WITNESSES.tactics("⊢ exists x : R, 2 * x + 1 = 7 /\\ 0 < x")
    assert tactics[:2] == ["timeout 3 (exists (3)%R; lra).", "timeout 3 (exists (3)%R; nra)."]
    assert tactics[-1] == "timeout 3 (exists (3)%R)."


def test_a_witness_may_be_a_term_in_the_goals_variables() -> None:
    tactics = WITNESSES.tactics("⊢ forall a : R, exists x : R, x + a = 2 * a")
    assert tactics[0] == "timeout 3 (intros; exists (a)%R; lra)."


def test_a_searched_pair_of_nat_witnesses() -> None:
    tactics = WITNESSES.tactics("⊢ exists x y : nat, x + y = 10 /\\ x * y = 21")
    assert "timeout 3 (exists (3)%nat, (7)%nat; lia)." in tactics and len(tactics) <= 8


def test_a_sqrt_witness_comes_with_its_square() -> None:
    tactics = WITNESSES.tactics("⊢ exists x : R, x * x = 2 /\\ 0 < x")
    assert tactics[0].startswith("timeout 3 (exists (sqrt 2)%R; pose proof (sqrt_sqrt (2)%R ltac:(lra));")
    assert not any("- sqrt 2" in t for t in tactics)  # 0 < x rules the negative root out


def test_the_witness_must_hold_for_every_sampled_value_of_the_other_variables() -> None:
    # x = 0 works for a = 0 only: the sampled a's (0 < a) rule it out; x = a works everywhere
    tactics = WITNESSES.tactics("a : R\nH : 0 < a\n⊢ exists x : R, x * a = a * a")
    assert tactics and all("(0)%R" not in t for t in tactics) and "(a)%R" in tactics[0]


@pytest.mark.parametrize("goal", [
    "⊢ exists x : nat, x * x = 2",                    # no nat value
    "⊢ exists x : R, x * x + 1 = 0",                  # no real value
    "x : R\n⊢ x ^ 2 >= 0",                             # not an existential
    "⊢ exists f : nat -> nat, f 0 = 1",               # a witness of another type
    "n : nat\n⊢ exists k : nat, n ^ 3 + 2 * n = 3 * k",  # a value past the search (a division)
])
def test_no_proposal_where_no_witness_holds(goal: str) -> None:
    assert WITNESSES.tactics(goal) == []
