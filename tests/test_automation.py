"""The automation families as text: what each one generates from a goal, and how tactics are labelled."""

from __future__ import annotations

import time

import pytest

from lean_interface.coq.declaration import leading_binders
from lean_interface.coq.guard import normalise_tactic
from search.automation import FAMILIES, family_tactics, square_hints
from search.proposers import family_of
from search.fixed_evaluator import FixedTacticEvaluator
from search.goal_facts import goal_facts

AIME = ("⊢ forall x y z w : R, x ^ 2 / (2 ^ 2 - 1) + y ^ 4 = 1 -> x ^ 2 + y ^ 2 = 36")
CONTEXT = "a, b : R\nh0 : 0 < a /\\ 0 < b\nh1 : a = 1 \\/ b = 2\n⊢ Rabs (a - b) <= 2"


def test_leading_binders_in_both_printed_forms() -> None:
    assert leading_binders("forall x y : R, x = y") == [("x", "R"), ("y", "R")]
    assert leading_binders("forall (x : R) (n m : nat), forall k : Z, x = 1 -> forall j : Z, k = j") == [
        ("x", "R"), ("n", "nat"), ("m", "nat"), ("k", "Z")]  # the chain before the first arrow only
    assert leading_binders("x = 1 -> forall y : R, y = 1") == []


def test_goal_facts_read_variables_powers_disjunctions_and_rabs() -> None:
    facts = goal_facts(AIME)
    assert facts.reals == ("x", "y", "z", "w") and facts.has_real and not facts.function_equations
    assert facts.even_powers == (("y", 4),)
    context = goal_facts(CONTEXT)
    assert context.reals == ("a", "b") and context.disjunctions == ("h1",) and context.uses_rabs


def test_square_hints_use_the_goals_own_variables() -> None:
    groups = square_hints(goal_facts(AIME))
    assert groups[0][:2] == ["x - y", "x - z"] and groups[1] == ["x", "y", "z", "w"]
    assert ["y ^ 2 - 1", "y ^ 2 + 1"] in groups
    assert square_hints(goal_facts("⊢ forall n : nat, n = n")) == []


def test_family_tactics_are_canonical_limited_and_labelled() -> None:
    generated = family_tactics(AIME)
    assert generated and len({t for t, _ in generated}) == len(generated)
    for tactic, family in generated:
        assert normalise_tactic(tactic) == tactic and tactic.startswith("timeout ")
        assert family_of(tactic) == family, tactic
    families = {family for _, family in generated}
    assert {"hints", "psatz", "cases"} <= families and "rewrite" not in families
    assert {family for _, family in family_tactics("⊢ (2 ^ 8) mod 5 = 1")} == {"psatz"}  # lia's own business


def test_function_equations_get_the_rewrite_family() -> None:
    linear = "⊢ forall (a b : R) (f : R -> R), (forall x, f x = a * x + b) -> f 6 - f 2 = 12 -> f 12 - f 2 = 30"
    assert goal_facts(linear).function_equations
    rewrite = [t for t, family in family_tactics(linear) if family == "rewrite"]
    assert len(rewrite) == 3 and all("intros; rewrite_functions; " in t for t in rewrite)
    remainder = "⊢ forall n : nat, n mod 7 = 3 -> (2 * n + 1) mod 7 = 0"
    assert not goal_facts(remainder).function_equations  # the statement's own forall is not a function's values
    conditional = "x : R\nh0 : forall x : R, x < 0 -> f x = 1\n⊢ f (-1) = 1"
    assert not goal_facts(conditional).function_equations  # rewriting it would leave side goals


def test_function_equation_check_is_fast_on_long_hypotheses_without_an_equation() -> None:
    # the end of an FMapAVL goal (data/extracted): the old pattern's nested repetition backtracked on it
    # for minutes, past the `forall`, across lines without an `=`
    long = ("l : L.t elt\nH : forall e : enumeration elt, IfEq (cont e) l (flatten_e e)\n"
            "⊢ IfEq (equal_cont cmp (Node l1 x1 d1 r1 h1) cont e2) (elements (Node l1 x1 d1 r1 h1) ++ l) (flatten_e e2)")
    started = time.monotonic()
    assert not goal_facts(long).function_equations
    assert time.monotonic() - started < 1.0


def test_case_splits_follow_rabs_and_disjunctions() -> None:
    tactics = [t for t, family in family_tactics(CONTEXT) if family == "cases"]
    assert any("split_Rabs; lra" in t for t in tactics)
    assert any("destruct h1; lra" in t for t in tactics)
    assert any("Rle_dec a b" in t for t in tactics)


@pytest.mark.parametrize("tactic, family", [
    ("lia.", "decide"), ("intros; field_simplify; lra.", "decide"), ("intros n.", "tactic"),
    ("rewrite H.", "tactic"), ("timeout 3 (intros; psatz R 2).", "psatz"),
    ("intros; pose proof (pow2_ge_0 (x - y)); nra.", "hints"), ("destruct h; lra.", "cases"),
    ("timeout 3 (intros; repeat match goal with H : forall _, _ = _ |- _ => progress rewrite ?H in * end; lra).",
     "rewrite"),
    ("timeout 1 (intros; rewrite_functions; lra).", "rewrite"),
])
def test_family_of_any_tactic(tactic: str, family: str) -> None:
    assert family_of(tactic) == family


def test_the_fixed_evaluator_offers_every_family_in_canonical_form() -> None:
    tactics = FixedTacticEvaluator().tactics_for(AIME)
    assert all(normalise_tactic(t) == t for t in tactics)
    offered = {family_of(t) for t in tactics}
    assert {family.name for family in FAMILIES if family.name != "rewrite"} <= offered
