"""Coq text for the factory's statements: headers per domain, numerals, linear forms, polynomials.

Why a module of its own: every family writes numbers and sums into Coq source, and the same few
rules must hold everywhere or a statement says something else than the Python value it was built
from. The rules: a negative or fractional literal is always parenthesised (`2 * -3` does not parse
in Coq, and `x / 3 * 2` would bind differently from `(x/3) * 2`), a coefficient 1 is not written,
and terms are joined with ` + ` / ` - ` so the text reads like a miniF2F statement.

Numbers are exact: `fractions.Fraction` for R, `int` for Z and nat (the nat domain never renders a
negative number: that is a ValueError, not a silent wrap-around).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping, Sequence

#: headers in the miniF2F-rocq style (data/minif2f-rocq/valid), by domain (C: Coquelicot's complex numbers)
HEADERS: dict[str, str] = {
    "R": "Require Import Reals.\nOpen Scope R_scope.",
    "Z": "Require Import ZArith.\nOpen Scope Z_scope.",
    "nat": "Require Import Arith.\nOpen Scope nat_scope.",
    "nat_list": "Require Import Arith.\nRequire Import List.\nImport ListNotations.\nOpen Scope nat_scope.",
    "C": "Require Import Reals.\nRequire Import Coquelicot.Coquelicot.\nOpen Scope C_scope.",
}
#: the Coq type a domain's variables have
TYPES: dict[str, str] = {"R": "R", "Z": "Z", "nat": "nat", "nat_list": "nat", "C": "C"}

Number = int | Fraction


def literal(value: Number, domain: str = "R") -> str:
    """`value` as a Coq atom: `3`, `(-3)`, `(3/4)`, `(-3/4)`; fractions only over R."""
    value = Fraction(value)
    if value.denominator != 1 and domain != "R":
        raise ValueError(f"{value} is not an integer: only R has fractions")
    if value < 0 and domain.startswith("nat"):
        raise ValueError(f"{value} is negative: nat has no negative numbers")
    magnitude = abs(value)
    text = str(magnitude.numerator) if magnitude.denominator == 1 else f"{magnitude.numerator}/{magnitude.denominator}"
    if value < 0:
        return f"(-{text})"
    return f"({text})" if magnitude.denominator != 1 else text


def standalone(value: Number, domain: str = "R") -> str:
    """`value` where nothing binds tighter around it (a side of `=`, `<`, …): `-3`, `3/4`."""
    return literal(value, domain).removeprefix("(").removesuffix(")")


def scaled(coefficient: Number, atom: str, domain: str = "R") -> tuple[int, str]:
    """(sign, text) of `coefficient * atom` without its sign: `(1, "3 * x")`, `(-1, "x")`,
    `(1, "(3/4) * x")`; `atom` "" means the number alone."""
    coefficient = Fraction(coefficient)
    sign = -1 if coefficient < 0 else 1
    magnitude = abs(coefficient)
    if not atom:
        return sign, literal(magnitude, domain)
    if magnitude == 1:
        return sign, atom
    return sign, f"{literal(magnitude, domain)} * {atom}"


def join_terms(terms: Sequence[tuple[Number, str]], domain: str = "R") -> str:
    """`c1 * a1 + c2 * a2 - …` with zero terms dropped; "0" when nothing is left. A leading
    negative term is written `-3 * x` or `-(3/4) * x` (Coq reads `-3 * x` as `(-3) * x`: equal)."""
    parts: list[str] = []
    for coefficient, atom in terms:
        if coefficient == 0:
            continue
        sign, text = scaled(coefficient, atom, domain)
        if domain.startswith("nat") and sign < 0:
            raise ValueError("nat has no subtraction of terms here: a negative coefficient")
        if not parts:
            parts.append(standalone(coefficient, domain) if not atom else f"-{text}" if sign < 0 else text)
        else:
            parts.append(f"- {text}" if sign < 0 else f"+ {text}")
    return " ".join(parts) if parts else "0"


def polynomial_value(coefficients: Mapping[int, Number], x: Fraction) -> Fraction:
    """The polynomial {power: coefficient} at x, exactly (the value a generator states)."""
    return sum((c * x ** power for power, c in coefficients.items()), Fraction(0))


def linear(coefficients: Sequence[Number], names: Sequence[str], constant: Number = 0, domain: str = "R") -> str:
    """`a*x + b*y + … + c` for coefficients over `names`."""
    if len(coefficients) != len(names):
        raise ValueError("one coefficient per name")
    return join_terms([*zip(coefficients, names), (constant, "")], domain)


#: a polynomial: exponent tuple (one exponent per variable) → coefficient
Polynomial = Mapping[tuple[int, ...], Number]


def poly_mul(p: Polynomial, q: Polynomial) -> dict[tuple[int, ...], Number]:
    """The product of two polynomials over the same variables, zero terms dropped."""
    out: dict[tuple[int, ...], Number] = {}
    for e1, c1 in p.items():
        for e2, c2 in q.items():
            exponent = tuple(a + b for a, b in zip(e1, e2))
            out[exponent] = out.get(exponent, 0) + c1 * c2
    return {e: c for e, c in out.items() if c != 0}


def monomial(exponents: tuple[int, ...], names: Sequence[str]) -> str:
    """`x^2 * y` for exponents (2, 1); "" for the constant monomial."""
    factors = [name if e == 1 else f"{name}^{e}" for name, e in zip(names, exponents) if e > 0]
    return " * ".join(factors)


def polynomial(p: Polynomial, names: Sequence[str], domain: str = "R") -> str:
    """A polynomial's text, highest total degree first, then lexicographically by exponents."""
    order = sorted(p, key=lambda e: (-sum(e), tuple(-x for x in e)))
    return join_terms([(p[e], monomial(e, names)) for e in order], domain)


def conjunction(parts: Sequence[str]) -> str:
    """`A /\\ B /\\ …` (Coq's `/\\` is right-associative: no parentheses needed)."""
    return " /\\ ".join(parts)


def binder_groups(binders: Sequence[tuple[str, str]]) -> list[tuple[list[str], str]]:
    """Consecutive binders of one type grouped: [(x, R), (y, R), (f, R -> R)] → [([x, y], R), ([f], R -> R)]."""
    groups: list[tuple[list[str], str]] = []
    for name, type_ in binders:
        if groups and groups[-1][1] == type_:
            groups[-1][0].append(name)
        else:
            groups.append(([name], type_))
    return groups


def signature(binders: Sequence[tuple[str, str]], hypotheses: Sequence[str], conclusion: str) -> str:
    """The part of a binder-style theorem after its name: `(x y : R) (h0 : …) : conclusion`.
    Consecutive binders of one type share parentheses, like miniF2F's `(x y : R)`."""
    groups = binder_groups(binders)
    parts = [f"({' '.join(names)} : {type_})" for names, type_ in groups]
    parts += [f"(h{i} : {hypothesis})" for i, hypothesis in enumerate(hypotheses)]
    head = " ".join(parts)
    return f"{head} : {conclusion}" if head else f": {conclusion}"
