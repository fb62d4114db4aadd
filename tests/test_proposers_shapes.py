"""The shape proposers (field with side conditions, positivity, instantiation, definitions unfolded)
read a goal's text into complete tactic sentences: pure tests, no Coq."""

from __future__ import annotations

from lean_interface.coq.guard import normalise_tactic
from lean_interface.coq.prelude import DEFAULT_PRELUDE, POSITIVITY_LTAC, REWRITE_FUNCTIONS_LTAC
from search.proposers.expr import parse_prop
from search.proposers.field_side import PROPOSERS as FIELD, denominators
from search.proposers.instantiate import PROPOSERS as INSTANTIATE, solve_linear, unparen
from search.proposers.expr import Num, Var, Bin, coq
from search.proposers.positivity import PROPOSERS as POSITIVITY, positivity_shape
from search.proposers.unfold_defs import PROPOSERS as UNFOLD, header_names
from search.proposers.base import goal_context

ALL = (*FIELD, *POSITIVITY, *INSTANTIATE, *UNFOLD)


def test_every_proposer_is_named_bounded_and_marked() -> None:
    assert [p.name for p in ALL] == ["field_side", "positivity", "instantiate", "unfold_defs"]
    for proposer in ALL:
        assert 1 <= proposer.seconds <= 3 and proposer.marker is not None


def test_the_prelude_keeps_its_content_and_adds_positivity() -> None:
    assert REWRITE_FUNCTIONS_LTAC in DEFAULT_PRELUDE and POSITIVITY_LTAC in DEFAULT_PRELUDE
    assert DEFAULT_PRELUDE.startswith("Require Import Coq.micromega.Lia")
    assert "Ltac positivity :=" in POSITIVITY_LTAC and "Axiom" not in POSITIVITY_LTAC


def test_denominators_skip_nonzero_numerals() -> None:
    found = denominators(parse_prop("a / b + b / 2 + / (x - 1) = 3 / 4"))
    assert [coq(d) for d in found] == ["b", "x - 1"]


def test_field_side_asserts_each_denominator_and_simplifies() -> None:
    goal = "a, b : R\nH : a <> b\nH1 : (4 * a + 3 * b) / (a - 2 * b) = 5\n⊢ (a + 11 * b) / (a - b) = 2"
    tactics = FIELD[0].tactics(goal)
    assert 1 <= len(tactics) <= 4
    first = tactics[0]
    assert "assert (hd0 : (a - b <> 0)%R)" in first and "assert (hd1 : (a - 2 * b <> 0)%R)" in first
    assert "field_simplify_eq in H1" in first and first.startswith("timeout 3 (")
    assert all(normalise_tactic(t) == t for t in tactics)


def test_field_side_proposes_nothing_without_a_real_denominator() -> None:
    assert FIELD[0].tactics("x : R\nH : x + 1 = 3\n⊢ x = 2") == []
    assert FIELD[0].tactics("n : nat\nH : n / 2 = 3\n⊢ n < 8") == []  # Nat.div is no field
    assert FIELD[0].tactics("⊢ forall x : R, x / 2 = 1 -> x = 2") == []  # a numeral divisor: lra's
    assert FIELD[0].tactics("garbage ⊢ ((") == []


def test_positivity_shape_and_proposal() -> None:
    assert positivity_shape(parse_prop("0 < x * y + sqrt x"))
    assert positivity_shape(parse_prop("x ^ 2 + 1 <> 0")) and positivity_shape(parse_prop("e >= 0"))
    assert not positivity_shape(parse_prop("x < y")) and not positivity_shape(parse_prop("0 < 3"))
    assert POSITIVITY[0].tactics("⊢ forall x y : R, 0 < x -> 0 < y -> 0 < x * y + x / y") == \
        ["timeout 2 (intros; positivity)."]
    assert POSITIVITY[0].tactics("x : R\nH : 0 < x\n⊢ x > 0 /\\ x ^ 2 > 0") == ["timeout 2 (repeat split; positivity)."]


def test_positivity_proposes_nothing_over_nat_or_off_shape() -> None:
    assert POSITIVITY[0].tactics("n : nat\n⊢ 0 < n + 1") == []
    assert POSITIVITY[0].tactics("x : R\n⊢ x = 1") == []


def test_solve_linear_and_unparen() -> None:
    assert solve_linear(Bin("+", Var("x"), Num(3)), "x", Num(1), {"x": "R"}) is not None
    assert coq(solve_linear(Bin("+", Var("x"), Num(3)), "x", Num(1), {"x": "R"})) == "- 2"
    assert solve_linear(Bin("*", Var("x"), Var("x")), "x", Num(1), {"x": "R"}) is None
    assert unparen("(forall x : R, f x = 1)") == "forall x : R, f x = 1"
    assert unparen("(a) + (b)") == "(a) + (b)"


def test_instantiate_matches_points_and_folds_compound_arguments() -> None:
    goal = ("⊢ forall (a b c : R) (f : R -> R), (forall x : R, f (x + 3) = 3 * x ^ 2 + 7 * x + 4) -> "
            "(forall x : R, f x = a * x ^ 2 + b * x + c) -> a + b + c = 2")
    tactics = INSTANTIATE[0].tactics(goal)
    assert tactics and len(tactics) <= 4
    assert "pose proof (H (- 2)%R) as" in tactics[-1] and "replace (- 2 + 3)%R with (1)%R" in tactics[-1]
    assert "pose proof (H0 (1)%R) as" in tactics[-1]


def test_instantiate_recurrence_range_and_premises() -> None:
    goal = "s : nat -> R\nh0 : forall n : nat, s (S (S n)) = s (S n) + s n\nh1 : s 9%nat = 110\n⊢ s 4%nat = 10"
    tactics = INSTANTIATE[0].tactics(goal)
    assert any("pose proof (h0 (0)%nat) as i0" in t and "(h0 (9)%nat)" in t for t in tactics)
    premised = INSTANTIATE[0].tactics("s : nat -> nat -> nat\nh0 : forall a b : nat, 0 < a -> 0 < b -> "
                                      "s a b = a ^ b + b ^ a\n⊢ s 2 6 = 100")
    assert premised and "pose proof (h0 (2)%nat (6)%nat ltac:(" in premised[0]


def test_instantiate_drops_points_that_falsify_a_premise() -> None:
    goal = ("A, B : R\nH : forall x : R, x - 3 <> 0 /\\ x - 5 <> 0 -> 4 * x / (x ^ 2 - 8 * x + 15) = "
            "A / (x - 3) + B / (x - 5)\n⊢ A = -6 /\\ B = 3")
    text = " ".join(INSTANTIATE[0].tactics(goal))
    assert "(H (3)%R" not in text and "(H (0)%R" in text


def test_instantiate_proposes_nothing_without_a_forall() -> None:
    assert INSTANTIATE[0].tactics("x : R\nH : x + 1 = 2\n⊢ x = 1") == []


def test_unfold_finds_header_names_and_the_lcm_route() -> None:
    context = goal_context("x : R\nH : 1 < x\nH0 : logb 2 (logb 8 x) = logb 8 (logb 2 x)\n⊢ logb 2 x ^ 2 = 27")
    assert header_names(context) == ["logb"]
    tactics = UNFOLD[0].tactics(context)
    assert "timeout 3 ((unfold logb in * ))." in tactics
    lcm = UNFOLD[0].tactics("⊢ forall n k : nat, Nat.gcd n k = 4 -> Nat.lcm n k = 24 -> k = 8 -> n = 12")
    assert lcm[0].startswith("timeout 3 (intros; unfold Nat.lcm in H0; rewrite H in H0; simpl in H0;")


def test_unfold_proposes_nothing_for_known_functions() -> None:
    assert UNFOLD[0].tactics("x : R\nf : R -> R\nH : f x = sqrt x\n⊢ exp (f x) > 0") == []
