"""lean_interface.coq.declaration, the one parser of declarations and binders (the refusals as
negation words them are in tests/test_negation_text.py)."""

from __future__ import annotations

import pytest

from lean_interface.coq.declaration import (Declaration, DeclarationError, closed, forall_binders, forall_parts,
                                            leading_binders, parse_binders, parse_declaration)


def test_binders_of_every_bracket_kind_and_the_type() -> None:
    declaration = parse_declaration("Lemma l (x y : R) {n : nat} [H : P n] `{C : Eq} : x <= y -> n = n.")
    assert declaration == Declaration("Lemma", "l", "(x y : R) {n : nat} [H : P n] `{C : Eq}", "x <= y -> n = n")
    assert declaration.closed_type() == "forall (x y : R) {n : nat} [H : P n] `{C : Eq}, x <= y -> n = n"
    assert parse_binders(declaration.binders) == [("x", "R"), ("y", "R"), ("n", "nat"), ("H", "P n"), ("C", "Eq")]
    assert closed("", "True") == "True"


def test_colons_arrows_and_commas_inside_brackets_are_not_top_level() -> None:
    declaration = parse_declaration("Theorem t (f : nat -> (nat * nat)) (h : forall k : nat, f k = (k, k)) : "
                                    "exists m : nat, (m <-> m) = (m, m).")
    assert declaration.binders == "(f : nat -> (nat * nat)) (h : forall k : nat, f k = (k, k))"
    assert declaration.type == "exists m : nat, (m <-> m) = (m, m)"
    assert parse_binders(declaration.binders) == [("f", "nat -> (nat * nat)"), ("h", "forall k : nat, f k = (k, k)")]


def test_comments_and_strings_around_the_separator() -> None:
    declaration = parse_declaration('Theorem t (* x : nat. *) (s : string) : s = ":" (* ; ")" *).')
    assert declaration.binders == "(s : string)" and declaration.type == 's = ":"'


def test_refusals_are_declaration_errors_with_a_reason() -> None:
    with pytest.raises(DeclarationError) as info:
        parse_declaration("Theorem t : nat := 0.")
    assert info.value.reason == "a top-level ':=' (the statement has a body)"
    assert info.value.snippet == "Theorem t : nat := 0." and isinstance(info.value, ValueError)
    for statement in ("Theorem t '(a, b) : a = b.", "Theorem t (x : nat) : x = x with u : True.", "Goal True."):
        with pytest.raises(DeclarationError):
            parse_declaration(statement)


def test_parse_binders_forms() -> None:
    assert parse_binders("x y : R") == [("x", "R"), ("y", "R")]
    assert parse_binders("x y : nat -> (R)") == [("x", "nat -> (R)"), ("y", "nat -> (R)")]
    assert parse_binders("x (y : R) z") == [("x", ""), ("y", "R"), ("z", "")]
    assert parse_binders("(x : nat := 3)") is None
    assert parse_binders("(q : P {| num := 0 |})") == [("q", "P {| num := 0 |}")]   # a record value, not a definition
    assert parse_binders("'(a, b)") is None and parse_binders("x + y") is None and parse_binders("") is None
    assert parse_binders("(x : R]") is None and parse_binders('(s : "') is None


def test_forall_parts_and_binders_of_nested_and_printed_foralls() -> None:
    assert forall_parts("forall (x : R) (p : R * R), forall y, x = y") == ("(x : R) (p : R * R)", "forall y, x = y")
    assert forall_parts("∀ n : nat, n = n") == ("n : nat", "n = n")
    assert forall_parts("exists n : nat, n = 1") is None and forall_parts("forall x y") is None
    assert forall_binders("forall {n : nat} [m : nat], n = m") == ([("n", "nat"), ("m", "nat")], "n = m")
    assert forall_binders("forall x y, x = y") is None                  # untyped: no types to instantiate
    assert forall_binders("forall (x : R) (h : x > 0 -> (x, x) = (x, x)), True") == (
        [("x", "R"), ("h", "x > 0 -> (x, x) = (x, x)")], "True")


def test_leading_binders_follow_the_forall_chain_only() -> None:
    assert leading_binders("forall x, forall (y : R) (z : Z), y = 1 -> forall w : R, True") == [("y", "R"), ("z", "Z")]
    assert leading_binders("(forall x : R, x = x) -> True") == []
    assert leading_binders("forall α : R, α = α") == [("α", "R")]
    assert leading_binders('forall s : string, s = "a, b" -> True') == [("s", "string")]
