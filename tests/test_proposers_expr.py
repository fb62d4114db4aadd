"""The proposers' expression type (`search.proposers.expr`): Coq text parses into trees, trees print
back as Coq text that means the same, sympy round-trips only the supported shapes."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from search.proposers.expr import (App, Bin, Conn, Neg, Num, Rel, Unsupported, Var, coq, coq_prop, coq_scoped,
                                   from_sympy, functions, parse_expr, parse_prop, to_sympy, variables)


@pytest.mark.parametrize("text", [
    "x ^ 2 - 5 * x + 6", "a / (b + c)", "- x ^ 2", "sqrt (x * y) * (x - y)", "INR n / INR (n + k)",
    "f (x + 1) - f x", "(a - b) * (a + b)", "x ^ 3 * y ^ 2", "- (2 / 5)",
])
def test_printing_a_parsed_expression_gives_text_that_parses_to_the_same_tree(text: str) -> None:
    tree = parse_expr(text)
    assert parse_expr(coq(tree)) == tree


def test_precedence_follows_coq() -> None:
    assert parse_expr("a - b - c") == Bin("-", Bin("-", Var("a"), Var("b")), Var("c"))
    assert parse_expr("- x ^ 2") == Neg(Bin("^", Var("x"), Num(Fraction(2))))
    assert coq(Bin("-", Var("a"), Bin("-", Var("b"), Var("c")))) == "a - (b - c)"
    assert coq(Bin("*", Num(Fraction(3, 2)), Var("x"))) == "3 / 2 * x"


def test_propositions_connectives_chains_and_scopes() -> None:
    prop = parse_prop("0 < x /\\ (x = 1 \\/ ~ y <= 2)")
    assert isinstance(prop, Conn) and prop.op == "/\\"
    assert parse_prop("1 <= a <= 9") == Conn("/\\", Rel("<=", Num(Fraction(1)), Var("a")),
                                             Rel("<=", Var("a"), Num(Fraction(9))))
    assert parse_prop("(x = 3)%R") == Rel("=", Var("x"), Num(Fraction(3)))
    assert coq_prop(Rel("=", Var("x"), Neg(Num(Fraction(4)))), "Z") == "(x = - 4)%Z"
    assert coq_scoped(Num(Fraction(7)), "nat") == "(7)%nat"


def test_names_and_functions_of_a_tree() -> None:
    tree = parse_prop("f (x + y) = sqrt x + INR n")
    assert variables(tree) == ["x", "y", "n"] and functions(tree) == ["f", "sqrt", "INR"]


@pytest.mark.parametrize("text", ["n mod 3 = 1", "forall x, x = x", "x = 1.5", "x = \"a\"", "fun x => x"])
def test_text_outside_the_grammar_is_unsupported(text: str) -> None:
    with pytest.raises(Unsupported):
        parse_prop(text)


def test_to_sympy_types_the_variables() -> None:
    n = to_sympy(Var("n"), {"n": "nat"})
    z = to_sympy(Var("z"), {"z": "Z"})
    assert n.is_integer and n.is_nonnegative and z.is_integer and z.is_nonnegative is None
    assert to_sympy(parse_expr("INR n + sqrt 4"), {"n": "nat"}) == n + 2
    with pytest.raises(Unsupported):
        to_sympy(parse_expr("n / 2"), {"n": "nat"})  # integer division is not the CAS's


def test_from_sympy_accepts_only_supported_shapes() -> None:
    x = sympy.Symbol("x", real=True)
    assert coq(from_sympy(sympy.Rational(-3, 4))) == "- (3 / 4)"
    assert coq(from_sympy(2 * sympy.sqrt(x) + 1)) == "1 + 2 * sqrt x"
    assert coq(from_sympy(1 / (x + 1))) == "1 / (1 + x)"
    assert from_sympy(sympy.log(x)) == App("ln", (Var("x"),))
    with pytest.raises(Unsupported):
        from_sympy(sympy.sin(x))
    with pytest.raises(Unsupported):
        from_sympy(sympy.I)


def test_a_power_prints_only_with_a_nat_numeral_exponent() -> None:
    with pytest.raises(Unsupported):
        coq(parse_expr("2 ^ (3 ^ 2)"))
