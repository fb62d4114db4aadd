"""Inequality and absolute-value families: sums of squares and AM-GM over R, minima of quadratics,
signs of products on an interval, integer bounds from linear inequalities over Z, and absolute
value equations and inequalities (case analysis on the sign).

The nonlinear proofs name their square: `nra` is given `pow2_ge_0 (…)` of exactly the square
whose expansion is the inequality (the statement is built from that square), so each proof is the
textbook argument and does not depend on nra's search finding the hint itself.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

from lean_interface.problems.factory.family import Draft, Family, nonzero
from lean_interface.problems.factory.render import join_terms, linear, literal, polynomial, standalone


def abs_value(rng: random.Random) -> Draft:
    """|p - q| of numbers; |x - a| = b with the side of a given; |c*x - a| <= b as an interval."""
    kind = rng.randrange(3)
    if kind == 0:
        p, q = Fraction(rng.randint(-60, 60), rng.choice((1, 1, 2, 4))), Fraction(rng.randint(-60, 60))
        lemma = "Rabs_left" if p - q < 0 else "Rabs_right"
        return Draft((), (), f"Rabs ({standalone(p)} - {literal(q)}) = {standalone(abs(p - q))}",
                     f"rewrite {lemma} by lra. lra.")
    if kind == 1:
        a, b = rng.randint(-20, 20), rng.randint(1, 20)
        above = rng.random() < 0.5
        side = f"{standalone(a)} < x" if above else f"x < {standalone(a)}"
        lemma = "Rabs_right" if above else "Rabs_left"
        return Draft((("x", "R"),), (f"Rabs ({linear([1], ['x'], -a)}) = {b}", side),
                     f"x = {standalone(a + b if above else a - b)}", f"rewrite {lemma} in h0 by lra. lra.")
    c, a, b = rng.randint(1, 6), rng.randint(-20, 20), rng.randint(1, 20)
    inner = linear([c], ["x"], -a)
    return Draft((("x", "R"),), (f"Rabs ({inner}) <= {b}",),
                 f"{standalone(Fraction(a - b, c))} <= x /\\ x <= {standalone(Fraction(a + b, c))}",
                 f"unfold Rabs in h0. destruct (Rcase_abs ({inner})); split; lra.")


def am_gm(rng: random.Random) -> Draft:
    """Two positive reals: a weighted sum fixed bounds the product; a product fixed bounds a
    weighted sum. Both from (a x - b y)^2 >= 0."""
    a, b = rng.randint(1, 6), rng.randint(1, 6)
    difference = f"pose proof (pow2_ge_0 ({linear([a, -b], ['x', 'y'])})) as h3. nra."
    if rng.random() < 0.5:
        s = Fraction(rng.randint(1, 40), rng.choice((1, 1, 2)))
        return Draft((("x", "R"), ("y", "R")), ("0 < x", "0 < y", f"{linear([a, b], ['x', 'y'])} = {standalone(s)}"),
                     f"x * y <= {standalone(s * s / (4 * a * b))}", difference)
    c = rng.randint(1, 30)                          # x y = c^2 / (a b)  gives  a x + b y >= 2 c
    return Draft((("x", "R"), ("y", "R")), ("0 < x", "0 < y", f"x * y = {standalone(Fraction(c * c, a * b))}"),
                 f"{2 * c} <= {linear([a, b], ['x', 'y'])}", difference)


def sq_ineq(rng: random.Random) -> Draft:
    """a x^2 + b y^2 >= c x y (or a x^2 + b >= c x) whenever c^2 <= 4ab: 4a times the gap is
    (2ax - cy)^2 + (4ab - c^2) y^2."""
    a, b = rng.randint(1, 9), rng.randint(1, 9)
    limit = math.isqrt(4 * a * b)
    c = nonzero(rng, -limit, limit)
    names = ("x", "y") if rng.random() < 0.6 else ("x", "")
    left = join_terms([(a, "x^2"), (b, f"{names[1]}^2" if names[1] else "")])
    right = join_terms([(c, " * ".join(n for n in names if n))])
    square = f"pose proof (pow2_ge_0 ({join_terms([(2 * a, 'x'), (-c, names[1])])})) as h0. "
    binders = tuple((n, "R") for n in names if n)
    if names[1]:
        return Draft(binders, (), f"{right} <= {left}", square + "pose proof (pow2_ge_0 y) as h1. nra.")
    return Draft(binders, (), f"{right} <= {left}", square + "nra.")


def quadratic_min(rng: random.Random) -> Draft:
    """a x^2 + p x + q is at least its minimum q - p^2/(4a) (or strictly above anything below it)."""
    a, p, q = rng.randint(1, 6), rng.randint(-20, 20), rng.randint(-30, 30)
    minimum = q - Fraction(p * p, 4 * a)
    slack = rng.choice((0, 0, 1, 2, Fraction(1, 2)))
    relation = "<=" if slack == 0 else "<"
    expression = polynomial({(2,): a, (1,): p, (0,): q}, ("x",))
    return Draft((("x", "R"),), (), f"{standalone(minimum - slack)} {relation} {expression}",
                 f"pose proof (pow2_ge_0 ({join_terms([(1, 'x'), (Fraction(p, 2 * a), '')])})) as h0. nra.")


def int_bounds(rng: random.Random) -> Draft:
    """Two linear inequalities over Z that pin x to one integer (rounding matters); or one that bounds it."""
    v = rng.randint(-30, 30)
    a1, a2 = rng.randint(1, 9), rng.randint(1, 9)
    b1, b2 = rng.randint(-20, 20), rng.randint(-20, 20)
    low = rng.randint(a1 * (v - 1), a1 * v - 1)      # a1*x > low  <=>  x >= v
    high = rng.randint(a2 * v + 1, a2 * (v + 1))     # a2*x < high <=>  x <= v
    lower = f"{standalone(low + b1, 'Z')} < {linear([a1], ['x'], b1, 'Z')}"
    upper = f"{linear([a2], ['x'], b2, 'Z')} < {standalone(high + b2, 'Z')}"
    if rng.random() < 0.5:
        return Draft((("x", "Z"),), (lower, upper), f"x = {standalone(v, 'Z')}", "lia.")
    if rng.random() < 0.5:
        return Draft((("x", "Z"),), (lower,), f"{standalone(v, 'Z')} <= x", "lia.")
    return Draft((("x", "Z"),), (upper,), f"x <= {standalone(v, 'Z')}", "lia.")


def interval_product(rng: random.Random) -> Draft:
    """On [a, b] the product (x - a)(b - x) is non-negative and at most ((b - a)/2)^2."""
    a = Fraction(rng.randint(-20, 20), rng.choice((1, 1, 2)))
    b = a + Fraction(rng.randint(1, 20), rng.choice((1, 1, 2)))
    product = f"({join_terms([(1, 'x'), (-a, '')])}) * ({join_terms([(b, ''), (-1, 'x')])})"
    bounds = (f"{standalone(a)} <= x", f"x <= {standalone(b)}")
    if rng.random() < 0.5:
        return Draft((("x", "R"),), bounds, f"0 <= {product}", "nra.")
    middle = (a + b) / 2
    return Draft((("x", "R"),), bounds, f"{product} <= {standalone((b - a) ** 2 / 4)}",
                 f"pose proof (pow2_ge_0 ({join_terms([(1, 'x'), (-middle, '')])})) as h2. nra.")


FAMILIES = (
    Family("abs_value", "floor and absolute value", "R", 1200, abs_value),
    Family("am_gm", "inequalities with squares and AM-GM", "R", 1000, am_gm),
    Family("sq_ineq", "inequalities with squares and AM-GM", "R", 900, sq_ineq),
    Family("quadratic_min", "inequalities with squares and AM-GM", "R", 1200, quadratic_min),
    Family("int_bounds", "inequalities over the integers", "Z", 1200, int_bounds),
    Family("interval_product", "inequalities with squares and AM-GM", "R", 1000, interval_product),
)
