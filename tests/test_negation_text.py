"""selfplay.negation on tricky statement text (no Coq needed; the real-Coq check of every bundled
problem is tests/integration/test_negation.py)."""

from __future__ import annotations

import pytest

from lean_interface.api import Theorem
from lean_interface.coq.declaration import Declaration, parse_declaration
from selfplay.negation import negate, negated_statement


def coq(statement: str, name: str = "t", header: str = "Require Import Reals.") -> Theorem:
    return Theorem(name=name, header=header, statement=statement, language="coq")


def test_binders_become_a_forall_and_the_header_is_kept() -> None:
    theorem = coq("Theorem t (x y : nat) (h₀ : x < y) : x + 1 <= y.", header="Require Import Arith.\nOpen Scope nat_scope.")
    negated = negate(theorem)
    assert negated.statement == "Theorem t_neg : ~ (forall (x y : nat) (h₀ : x < y), x + 1 <= y)."
    assert negated.name == "t_neg"
    assert negated.header == theorem.header
    assert negated.language == "coq"


def test_no_binders_is_just_the_negated_type() -> None:
    negated = negate(coq("Theorem t : forall x : R, 0 < x -> x^2 > 0."))
    assert negated.statement == "Theorem t_neg : ~ (forall x : R, 0 < x -> x^2 > 0)."


def test_name_glued_to_the_colon() -> None:
    negated = negate(coq("Theorem amc12a_2008_p4:\n  Rprod 501 (fun k => k) = 502.", name="amc12a_2008_p4"))
    assert negated.statement == "Theorem amc12a_2008_p4_neg : ~ (Rprod 501 (fun k => k) = 502)."


def test_nested_parentheses_and_colons_inside_binders() -> None:
    statement = ("Theorem t (f : nat -> (nat * (nat -> Prop))) (h : forall n : nat, snd (f n) (fst (f n)))\n"
                 "  {A : Type} [B : Type] `{H : 1 = 1} : f 0 = f 0.")
    decl = parse_declaration(statement)
    assert decl.binders == ("(f : nat -> (nat * (nat -> Prop))) (h : forall n : nat, snd (f n) (fst (f n)))\n"
                            "  {A : Type} [B : Type] `{H : 1 = 1}")
    assert decl.type == "f 0 = f 0"
    assert negated_statement(statement) == (
        "t_neg", f"Theorem t_neg : ~ (forall {decl.binders}, f 0 = f 0).")


def test_bare_identifier_binders() -> None:
    assert parse_declaration("Lemma t x y : x = y.") == Declaration("Lemma", "t", "x y", "x = y")


def test_multiline_statement_and_every_keyword() -> None:
    for keyword in ("Theorem", "Lemma", "Example", "Fact", "Corollary", "Proposition", "Remark"):
        statement = f"{keyword} t\n  (a b : R)\n  (h₀ : 0 < a /\\ 0 < b) :\n  a * b > 0\n  ."
        decl = parse_declaration(statement)
        assert decl == Declaration(keyword, "t", "(a b : R)\n  (h₀ : 0 < a /\\ 0 < b)", "a * b > 0")
        assert negate(coq(statement)).statement == (
            "Theorem t_neg : ~ (forall (a b : R)\n  (h₀ : 0 < a /\\ 0 < b), a * b > 0).")


def test_comments_are_dropped_even_with_colons_parens_and_dots_inside() -> None:
    statement = ("Theorem t (* note: (x : nat) here. *) (n : nat) (* (* nested *) : *) :\n"
                 "  n + 0 = n (* a trailing remark. *).")
    negated = negate(coq(statement))
    assert negated.statement.startswith("Theorem t_neg : ~ (forall ")
    assert "note" not in negated.statement and "nested" not in negated.statement
    decl = parse_declaration(statement)
    assert decl.binders == "(n : nat)"
    assert decl.type == "n + 0 = n"


def test_unicode_names() -> None:
    negated = negate(coq("Theorem θ₁' (α : R) : α = α.", name="θ₁'"))
    assert negated.name == "θ₁'_neg"
    assert negated.statement == "Theorem θ₁'_neg : ~ (forall (α : R), α = α)."


def test_match_with_in_the_type_is_allowed() -> None:
    decl = parse_declaration("Theorem t (n : nat) : match n with 0 => True | S _ => True end.")
    assert decl.type == "match n with 0 => True | S _ => True end"


def test_custom_suffix() -> None:
    assert negate(coq("Theorem t : True."), suffix="_false").statement == "Theorem t_false : ~ (True)."


@pytest.mark.parametrize("statement, reason", [
    ("Definition t : nat.", "does not start"),
    ("Theorem t (x : nat) x = x.", "no ':'"),
    ("Theorem t (x : nat : x = x.", "unclosed"),
    ("Theorem t (x : nat)) : x = x.", "unbalanced"),
    ("Theorem t (x : nat] : x = x.", "unbalanced"),
    ("Theorem t : (x = x.", "unclosed"),
    ("Theorem t : .", "empty type"),
    ("Theorem t : True", "unterminated sentence"),
    ("Theorem t : True. Theorem u : True.", "one sentence"),
    ("Theorem t : nat := 0.", "':='"),
    ("Theorem t x + y : True.", "unexpected '+'"),
    ("Theorem t : True with u : True.", "mutual"),
    ("#[local] Theorem t : True.", "does not start"),
    ("Theorem t (* unterminated : True.", "unterminated"),
])
def test_unparseable_statements_raise_a_one_line_value_error(statement: str, reason: str) -> None:
    with pytest.raises(ValueError) as info:
        negate(coq(statement))
    message = str(info.value)
    assert reason in message
    assert "\n" not in message


def test_refuses_other_languages_and_mismatched_names() -> None:
    with pytest.raises(ValueError, match="Coq theorems only"):
        negate(Theorem("t", "", "theorem t : True", language="lean"))
    with pytest.raises(ValueError, match="declares 'u'"):
        negate(coq("Theorem u : True.", name="t"))


def test_a_top_level_let_in_the_type_is_not_a_body() -> None:
    decl = parse_declaration("Theorem t : let x := 3 in let '(a, b) := (x, x) in a = b.")
    assert decl.type == "let x := 3 in let '(a, b) := (x, x) in a = b"
    with pytest.raises(ValueError, match="body"):
        parse_declaration("Theorem t : let x := 3 in x = 3 := eq_refl.")
    with pytest.raises(ValueError, match="body"):
        parse_declaration("Theorem t (x := 3) y : x = y := eq_refl.")
