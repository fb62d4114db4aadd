"""Algebra families: linear systems, linear equations, polynomial identities, quadratics and their
roots, Vieta-style symmetric expressions, functional equations evaluated at points.

Each generator picks the answer first (the solution, the roots, the function) and writes the
statement around it with exact rationals, so every statement is true; its proof script is the
argument a person would give, in Coq 8.16 under the project prelude.
"""

from __future__ import annotations

import random
from fractions import Fraction

from lean_interface.problems.factory.family import Draft, Family, nonzero
from lean_interface.problems.factory.render import (conjunction, join_terms, linear, literal, poly_mul, polynomial,
                                                   standalone)


def _rational(rng: random.Random, bound: int, denominators: tuple[int, ...] = (1, 1, 1, 2, 3)) -> Fraction:
    return Fraction(rng.randint(-bound, bound), rng.choice(denominators))


def _determinant(m: list[list[int]]) -> int:
    if len(m) == 2:
        return m[0][0] * m[1][1] - m[0][1] * m[1][0]
    return sum((-1) ** j * m[0][j] * _determinant([row[:j] + row[j + 1:] for row in m[1:]]) for j in range(len(m)))


def _linear_system(rng: random.Random, names: tuple[str, ...], bound: int) -> Draft:
    """An invertible integer system in `names` with a chosen solution; the conclusion is the
    solution, one variable, or the value of another linear form."""
    n = len(names)
    while True:
        matrix = [[rng.randint(-bound, bound) for _ in names] for _ in names]
        if _determinant(matrix) != 0:
            break
    solution = [_rational(rng, 12) for _ in names]
    hypotheses = tuple(f"{linear(row, names)} = {standalone(sum(c * v for c, v in zip(row, solution)))}"
                       for row in matrix)
    kind = rng.randrange(3)
    if kind == 0:
        conclusion = conjunction([f"{name} = {standalone(value)}" for name, value in zip(names, solution)])
        proof = "repeat split; lra."
    elif kind == 1:
        index = rng.randrange(n)
        conclusion, proof = f"{names[index]} = {standalone(solution[index])}", "lra."
    else:
        form = [nonzero(rng, -5, 5) for _ in names]
        conclusion = f"{linear(form, names)} = {standalone(sum(c * v for c, v in zip(form, solution)))}"
        proof = "lra."
    return Draft(tuple((name, "R") for name in names), hypotheses, conclusion, proof)


def linear_system_2(rng: random.Random) -> Draft:
    return _linear_system(rng, ("x", "y"), 9)


def linear_system_3(rng: random.Random) -> Draft:
    return _linear_system(rng, ("x", "y", "z"), 6)


def linear_equation(rng: random.Random) -> Draft:
    """One linear equation in x, with x on both sides or in fractions; conclusion `x = value`."""
    kind = rng.randrange(3)
    if kind == 0:                                   # a*x + b = c*x + d
        a, c = nonzero(rng, -12, 12), nonzero(rng, -12, 12)
        while c == a:
            c = nonzero(rng, -12, 12)
        b, d = rng.randint(-30, 30), rng.randint(-30, 30)
        hypothesis = f"{linear([a], ['x'], b)} = {linear([c], ['x'], d)}"
        value = Fraction(d - b, a - c)
    elif kind == 1:                                 # x / p + x / q = r
        p, q = rng.randint(2, 12), nonzero(rng, -12, 12)
        while q in (1, -1, -p):
            q = nonzero(rng, -12, 12)
        r = nonzero(rng, -20, 20)
        hypothesis = f"x / {p} + x / {literal(q)} = {standalone(r)}"
        value = Fraction(r * p * q, p + q)
    else:                                           # (x + a) / p = (x - b) / q
        p, q = rng.randint(2, 9), rng.randint(2, 9)
        while q == p:
            q = rng.randint(2, 9)
        a, b = rng.randint(-20, 20), rng.randint(-20, 20)
        hypothesis = f"({linear([1], ['x'], a)}) / {p} = ({linear([1], ['x'], -b)}) / {q}"
        value = Fraction(-p * b - q * a, q - p)
    return Draft((("x", "R"),), (hypothesis,), f"x = {standalone(value)}", "lra.")


def _random_polynomial(rng: random.Random, terms: int) -> dict[tuple[int, ...], int]:
    exponents = [(2, 0), (1, 1), (0, 2), (1, 0), (0, 1), (0, 0)]
    return {e: nonzero(rng, -6, 6) for e in rng.sample(exponents, terms)}


def poly_identity(rng: random.Random) -> Draft:
    """An expansion over Z: a product or a square of small polynomials in x y equals its expanded form."""
    names = ("x", "y")
    p = _random_polynomial(rng, rng.randint(2, 3))
    if rng.random() < 0.3:
        factors, product = [p], poly_mul(p, p)
        left = f"({polynomial(p, names, 'Z')})^2"
    else:
        q = _random_polynomial(rng, rng.randint(2, 3))
        factors, product = [p, q], poly_mul(p, q)
        left = f"({polynomial(p, names, 'Z')}) * ({polynomial(q, names, 'Z')})"
    used = [name for i, name in enumerate(names) if any(e[i] for f in factors for e in f)]
    return Draft(tuple((name, "Z") for name in used), (), f"{left} = {polynomial(product, names, 'Z')}", "ring.")


def quadratic_roots(rng: random.Random) -> Draft:
    """k*x^2 + b*x + c = 0 with chosen roots r1 < r2: x is one of them, or the one a side condition picks."""
    r1, r2 = sorted(rng.sample([Fraction(n, d) for n in range(-12, 13) for d in (1, 1, 2)], 2))
    while r1 == r2:
        r2 = r1 + 1
    k = nonzero(rng, -5, 5)
    equation = f"{polynomial({(2,): k, (1,): -k * (r1 + r2), (0,): k * r1 * r2}, ('x',))} = 0"
    factored = f"({join_terms([(1, 'x'), (-r1, '')])}) * ({join_terms([(1, 'x'), (-r2, '')])}) = 0"
    cases = f"assert (h : {factored}) by nra. destruct (Rmult_integral _ _ h) as [e | e]"
    choice = rng.randrange(3)
    if choice == 0:
        return Draft((("x", "R"),), (equation,), f"x = {standalone(r1)} \\/ x = {standalone(r2)}",
                     f"{cases}; [left | right]; lra.")
    middle = (r1 + r2) / 2                          # a side condition that rules one root out
    side, root = (f"{standalone(middle)} < x", r2) if choice == 1 else (f"x < {standalone(middle)}", r1)
    return Draft((("x", "R"),), (equation, side), f"x = {standalone(root)}", f"{cases}; lra.")


#: Vieta-style targets: (expression in a b, its value from s = a+b and p = a*b, the identity used)
_SYMMETRIC = (
    ("a^2 + b^2", lambda s, p: s * s - 2 * p, "(a + b)^2 - 2 * (a * b)"),
    ("a^3 + b^3", lambda s, p: s ** 3 - 3 * p * s, "(a + b)^3 - 3 * (a * b) * (a + b)"),
    ("(a - b)^2", lambda s, p: s * s - 4 * p, "(a + b)^2 - 4 * (a * b)"),
    ("a^2 * b + a * b^2", lambda s, p: p * s, "(a * b) * (a + b)"),
    ("(a + 1) * (b + 1)", lambda s, p: p + s + 1, "a * b + (a + b) + 1"),
)


def vieta(rng: random.Random) -> Draft:
    """Given a + b and a * b, the value of a symmetric expression (rewrite it in a+b and a*b)."""
    s, p = Fraction(rng.randint(-15, 15)), Fraction(nonzero(rng, -30, 30))
    expression, value, identity = rng.choice(_SYMMETRIC)
    proof = f"replace ({expression}) with ({identity}) by ring. rewrite h0, h1. field."
    return Draft((("a", "R"), ("b", "R")), (f"a + b = {standalone(s)}", f"a * b = {standalone(p)}"),
                 f"{expression} = {standalone(value(s, p))}", proof)


def fe_linear(rng: random.Random) -> Draft:
    """f given by a formula (linear or quadratic), or linear through two given points: f at another point."""
    t = Fraction(rng.randint(-10, 10))
    if rng.random() < 0.5:
        coefficients = [_rational(rng, 9, (1, 1, 2)) for _ in range(rng.choice((2, 3)))]
        formula = polynomial({(len(coefficients) - 1 - i,): c for i, c in enumerate(coefficients)}, ("x",))
        value = sum(c * t ** (len(coefficients) - 1 - i) for i, c in enumerate(coefficients))
        return Draft((("f", "R -> R"),), (f"forall x, f x = {formula}",), f"f {literal(t)} = {standalone(value)}",
                     "rewrite h0. field.")
    slope, intercept = _rational(rng, 9, (1, 1, 2)), Fraction(rng.randint(-20, 20))
    p1, p2 = rng.sample(range(-9, 10), 2)
    while t in (p1, p2):
        t += 1
    points = [(Fraction(p), slope * p + intercept) for p in (p1, p2)]
    hypotheses = ("forall x, f x = m * x + k",
                  *(f"f {literal(p)} = {standalone(v)}" for p, v in points))
    return Draft((("m", "R"), ("k", "R"), ("f", "R -> R")), hypotheses,
                 f"f {literal(t)} = {standalone(slope * t + intercept)}", "rewrite h0 in h1, h2. rewrite h0. lra.")


def fe_symmetric(rng: random.Random) -> Draft:
    """f x + k * f (c - x) = a x + b for all x: f t, from the equation at t and at c - t."""
    k = rng.choice([Fraction(n, d) for n in range(-5, 6) for d in (1, 2) if abs(Fraction(n, d)) not in (0, 1)])
    c, t = nonzero(rng, -9, 9), rng.randint(-9, 9)
    a, b = nonzero(rng, -9, 9), rng.randint(-12, 12)
    first, second = a * t + b, a * (c - t) + b
    value = (first - k * second) / (1 - k * k)
    mirror = f"{literal(c)} - {literal(t)}"
    proof = (f"pose proof (h0 {literal(t)}) as h1. pose proof (h0 ({mirror})) as h2. "
             f"replace ({literal(c)} - ({mirror})) with {literal(t)} in h2 by ring. lra.")
    equation = f"forall x, f x + {literal(k)} * f ({literal(c)} - x) = {linear([a], ['x'], b)}"
    return Draft((("f", "R -> R"),), (equation,), f"f {literal(t)} = {standalone(value)}", proof)


FAMILIES = (
    Family("linear_system_2", "linear systems", "R", 1600, linear_system_2),
    Family("linear_system_3", "linear systems", "R", 1200, linear_system_3),
    Family("linear_equation", "linear equations", "R", 1500, linear_equation),
    Family("poly_identity", "polynomial identities and expansions", "Z", 1500, poly_identity),
    Family("quadratic_roots", "quadratics and their roots", "R", 1200, quadratic_roots),
    Family("vieta", "quadratics and their roots", "R", 900, vieta),
    Family("fe_linear", "functional equations evaluated at points", "R", 1300, fe_linear),
    Family("fe_symmetric", "functional equations evaluated at points", "R", 1200, fe_symmetric),
)
