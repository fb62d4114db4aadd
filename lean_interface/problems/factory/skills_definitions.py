"""Skill family for statements about a function the problem file defines (`local_definition`).

Why (issue #39, item 3; docs/factory_skills.md): 25 of the 244 miniF2F-rocq files define what
their statement uses (`Definition logb (a x : R) : R := ln x / ln a.`, a `Fixpoint` sum, an
operation `star a b`), and no step of the automation portfolio unfolds a definition: lra, nra,
ring and field treat `logb 8 32` or `f 3` as an atom, so such a statement is closed only once
`unfold NAME.` (or `unfold NAME in h.`) has run. The factory's other families state everything
with library functions, so the policy has never proposed an unfold (log-prob −33 for
`unfold logb.` on mathd_algebra_22's root goal, run 17 v16). This family writes the definition
into the problem's header (`Draft.definitions`) and drills the step in the forms the train split
uses: a base-b logarithm evaluated (`unfold logb`, numerals written as powers, `ln_pow`, then
`field` with `ln_neq_0` for the side condition — mathd_algebra_22's proof), a polynomial function
evaluated or composed, an affine one solved from a hypothesis, and a two-argument operation.

Names vary (`f`, `g`, `p`, `F`, …; `star`, `op`, …; the logarithm's two spellings in the train
split) so the policy learns to copy the name it sees, not one name. As everywhere in the
factory, the answer is drawn first (exact Fractions) and the statement written around it.
"""

from __future__ import annotations

import random
from fractions import Fraction

from lean_interface.problems.factory.family import Draft, Family, nonzero
from lean_interface.problems.factory.render import join_terms, literal, polynomial_value, standalone

#: the train split's two spellings of the base-b logarithm (aime_1988_p3, mathd_algebra_22)
_LOGB = ("Definition logb (a x : R) : R := ln x / ln a.", "Definition logb (a b : R) := ln b / ln a.")
_UNARY = ("f", "g", "p", "q", "F", "G", "u", "k")
_BINARY = ("op", "star", "diamond", "oplus", "clubsuit", "spade")
_FIELD_STEP = "simpl; field; apply ln_neq_0; lra."


def _power_or_numeral(base: int, exponent: int, numeral: bool) -> str:
    """`base^exponent` as Coq text: the numeral (`729`) or the power (`(9^3)`)."""
    return str(base ** exponent) if numeral else f"({base}^{exponent})"


def _logb(rng: random.Random) -> Draft:
    """logb B M = n/m for B = b^m, M = b^n, written as numerals or as powers."""
    while True:
        b, m, n = rng.randint(2, 9), rng.randint(1, 4), rng.randint(1, 8)
        if m != n and b ** n <= 100_000 and b ** m <= 10_000 and (m > 1 or rng.random() < 0.5):
            break
    numeral = rng.random() < 0.6
    base, argument = _power_or_numeral(b, m, numeral or m == 1), _power_or_numeral(b, n, numeral)
    steps = ["unfold logb."]
    if numeral:
        steps += [f"replace {b ** n} with ({b} ^ {n}) by lra."]
        if m > 1:
            steps += [f"replace {b ** m} with ({b} ^ {m}) by lra."]
    steps += ["rewrite !ln_pow by lra.", _FIELD_STEP]
    return Draft((), (), f"logb {base} {argument} = {standalone(Fraction(n, m))}", " ".join(steps),
                 (rng.choice(_LOGB),))


def _polynomial(rng: random.Random) -> tuple[list[tuple[int, str]], dict[int, int]]:
    """A polynomial in x of degree 1–3 as join_terms pairs (highest power first) and as {power: coefficient}."""
    degree = rng.choice((1, 2, 2, 3))
    coefficients = dict(zip(range(degree, -1, -1), [nonzero(rng, -5, 5)] + [rng.randint(-9, 9) for _ in range(degree)]))
    terms = [(c, "x" if d == 1 else f"x^{d}" if d else "") for d, c in coefficients.items()]
    return terms, coefficients


def _evaluated(rng: random.Random) -> Draft:
    """f v = value for a defined polynomial f; or f (g v) for two of them."""
    f, g = rng.sample(_UNARY, 2)
    terms, coefficients = _polynomial(rng)
    definitions = [f"Definition {f} (x : R) : R := {join_terms(terms)}."]
    v = Fraction(rng.randint(-6, 6), rng.choice((1, 1, 1, 2)))
    if rng.random() < 0.4:
        a, c = nonzero(rng, -4, 4), rng.randint(-6, 6)
        definitions.append(f"Definition {g} (x : R) : R := {join_terms([(a, 'x'), (c, '')])}.")
        inner = a * v + c
        return Draft((), (), f"{f} ({g} {literal(v)}) = {standalone(polynomial_value(coefficients, inner))}",
                     f"unfold {f}, {g}. lra.", tuple(definitions))
    return Draft((), (), f"{f} {literal(v)} = {standalone(polynomial_value(coefficients, v))}", f"unfold {f}. lra.",
                 tuple(definitions))


def _solved(rng: random.Random) -> Draft:
    """An affine f with f x = k given: x found; or f x = g x for two affine functions."""
    f, g = rng.sample(_UNARY, 2)
    a, c = nonzero(rng, -9, 9), rng.randint(-20, 20)
    x = Fraction(rng.randint(-12, 12), rng.choice((1, 1, 2, 3)))
    definitions = [f"Definition {f} (x : R) : R := {join_terms([(a, 'x'), (c, '')])}."]
    if rng.random() < 0.5:
        hypothesis, unfold = f"{f} x = {standalone(a * x + c)}", f"unfold {f} in h0. lra."
    else:
        b = nonzero(rng, -9, 9)
        while b == a:
            b = nonzero(rng, -9, 9)
        d = (a - b) * x + c                         # a x + c = b x + d at x
        definitions.append(f"Definition {g} (x : R) : R := {join_terms([(b, 'x'), (d, '')])}.")
        hypothesis, unfold = f"{f} x = {g} x", f"unfold {f}, {g} in h0. lra."
    return Draft((("x", "R"),), (hypothesis,), f"x = {standalone(x)}", unfold, tuple(definitions))


def _operation(rng: random.Random) -> Draft:
    """A two-argument operation, evaluated (star 3 4 = …) or solved for its first argument."""
    name = rng.choice(_BINARY)
    p, q, r, s = nonzero(rng, -4, 4), nonzero(rng, -4, 4), rng.randint(-3, 3), rng.randint(-9, 9)
    body = join_terms([(r, "a * b"), (p, "a"), (q, "b"), (s, "")])
    definition = (f"Definition {name} (a b : R) : R := {body}.",)
    u, w = rng.randint(-6, 6), rng.randint(-6, 6)
    value = r * u * w + p * u + q * w + s
    if rng.random() < 0.5 or r * w + p == 0:
        return Draft((), (), f"{name} {literal(u)} {literal(w)} = {standalone(value)}", f"unfold {name}. lra.",
                     definition)
    return Draft((("x", "R"),), (f"{name} x {literal(w)} = {standalone(value)}",), f"x = {standalone(u)}",
                 f"unfold {name} in h0. lra.", definition)


def local_definition(rng: random.Random) -> Draft:
    """A statement about a function its file defines, closed after `unfold`."""
    return rng.choices((_logb, _evaluated, _solved, _operation), weights=(35, 25, 25, 15))[0](rng)


FAMILIES = (Family("local_definition", "functions the problem file defines, unfolded", "R", 900, local_definition),)
