"""Skill family for two distinct values that satisfy the same equation (`distinct_roots`).

Why (issue #39, item 3; docs/factory_skills.md): seven miniF2F-rocq train problems state two
different numbers that satisfy one equation and ask for what they share — amc12a_2013_p8
(`x + 2/x = y + 2/y`, `x <> y` ⊢ `x * y = 2`), mathd_algebra_131 (a and b roots of
`2x² − 7x + 2`, `a <> b` ⊢ a value in a + b and a b), mathd_algebra_206, mathd_algebra_482,
amc12a_2002_p12, aime_1996_p5 and, over C, mathd_algebra_73. The automation proves none of them.
Micromega does read a `<>` hypothesis — nra alone closes `a <> b -> a^2 - 15a = b^2 - 15b -> a + b =
15`, and the portfolio's `rewrite_functions; nra` the sum or product of two roots of a given
quadratic — but not through a denominator (`x + 2/x = y + 2/y`) nor toward a quotient of the roots
(`1/(a-1) + 1/(b-1)`), so those are the shapes drawn. The step a person takes is to subtract the
two equations, factor out the nonzero difference and cancel it:

    assert (h4 : (a - b) * (2 * (a + b) - 7) = 0) by nra.
    apply Rmult_integral in h4. destruct h4 as [h4 | h4]. { exfalso. apply h3. lra. }

The factor to assert is read off the statement (the difference of the two values times the
difference quotient of the equation), so the policy can learn to write it; what follows is one
closing call. Checked by hand in Coq 8.16 under the project prelude: amc12a_2013_p8 (`… { field_simplify_eq in H2; auto. nra. } …`), mathd_algebra_206 (two cancellations) and
mathd_algebra_131 (the sum, then the product by nra, then the quotient by field_simplify_eq).

Shapes (values drawn first, exact Fractions; the statement written around them):
  * `a x + c / x = a y + c / y`, x, y, x − y nonzero ⊢ `x * y = c / a`
    (amc12a_2013_p8; the factor is `(x − y) (a x y − c)`, the assert closed after clearing the
    denominators);
  * f given by `forall x, f x = p x² + q x + r`, `f a = 0`, `f b = 0`, `a <> b` ⊢ in three items
    of four `1/(a − k) + 1/(b − k)` for a k that is not a root (mathd_algebra_131's conclusion),
    else the sum, the product or `a² + b²` of the two roots, whose values the drawn roots fix
    (the function rewritten in, the difference cancelled, then the value).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

from lean_interface.problems.factory.family import Draft, Family, nonzero
from lean_interface.problems.factory.render import join_terms, linear, literal, standalone

_CANCEL = "apply Rmult_integral in {h}. destruct {h} as [{h} | {h}]. {{ exfalso. apply {neq}. lra. }}"
#: names the two values take, as the train split writes them
_PAIRS = (("x", "y"), ("a", "b"), ("m", "n"), ("r", "s"))


def _reciprocal_sum(rng: random.Random) -> Draft:
    """a x + c/x = a y + c/y with x <> y: x y = c / a (amc12a_2013_p8's shape)."""
    a, c = nonzero(rng, -6, 6), nonzero(rng, -12, 12)
    u, v = rng.choice(_PAIRS[:2])
    linear_term, reciprocal = join_terms([(a, u)]), f"{literal(c)} / {u}"
    left = f"{linear_term} + {reciprocal}" if rng.random() < 0.7 else f"{reciprocal} + {linear_term}"
    right = left.replace(u, v)
    factor = f"({u} - {v}) * ({join_terms([(a, f'({u} * {v})'), (-c, '')])})"
    script = (f"assert (h4 : {factor} = 0). {{ field_simplify_eq in h3; auto. nra. }} "
              + _CANCEL.format(h="h4", neq="h2") + " { lra. }")
    return Draft(((u, "R"), (v, "R")), (f"{u} <> 0", f"{v} <> 0", f"{u} <> {v}", f"{left} = {right}"),
                 f"{u} * {v} = {standalone(Fraction(c, a))}", script)


def _shift_not_a_root(rng: random.Random, roots: list[Fraction]) -> int:
    """k with neither root equal to k (the denominators a − k, b − k are nonzero) and a nonzero
    value (a zero numerator leaves `field_simplify_eq` nothing for the closing call)."""
    return rng.choice([k for k in range(-4, 5) if Fraction(k) not in roots and 2 * k != sum(roots)])


def _roots_tail(rng: random.Random, u: str, v: str, roots: list[Fraction]) -> tuple[str, str]:
    """(conclusion, script after the cancellation) for roots u, v of p x^2 + q x + r.

    Three in four ask for 1/(u − k) + 1/(v − k) (mathd_algebra_131's conclusion): the product
    from the sum, each denominator nonzero because k is not a root, then `field_simplify_eq`. The
    rest ask for the sum, the product or the sum of squares; the automation's `rewrite` family
    closes most of those on its own, they are here for the cancellation step they share."""
    s, t = sum(roots), roots[0] * roots[1]
    if rng.random() < 0.75:
        k = _shift_not_a_root(rng, roots)
        left, right = linear([1], [u], -k), linear([1], [v], -k)
        value = (s - 2 * k) / (t - k * s + k * k)
        steps = (f"assert (h5 : {u} * {v} = {standalone(t)}) by nra. assert (h6 : {left} <> 0) by (intro; nra). assert (h7 : {right} <> 0) by (intro; nra). "
                 "field_simplify_eq; auto. nra.")
        return f"1 / ({left}) + 1 / ({right}) = {standalone(value)}", steps
    kind = rng.choice(("sum", "product", "squares"))
    return {"sum": (f"{u} + {v} = {standalone(s)}", "lra."),
            "product": (f"{u} * {v} = {standalone(t)}", "nra."),
            "squares": (f"{u}^2 + {v}^2 = {standalone(s * s - 2 * t)}", "nra.")}[kind]


def _two_roots(rng: random.Random) -> Draft:
    """f x = p x^2 + q x + r with f a = 0, f b = 0, a <> b: a symmetric value of the roots."""
    while True:
        roots = [Fraction(rng.randint(-9, 9), rng.choice((1, 1, 1, 2))) for _ in range(2)]
        if roots[0] != roots[1]:
            break
    p = rng.choice((1, 1, 2, 3, -1, -2))
    s, t = sum(roots), roots[0] * roots[1]
    scale = math.lcm((p * s).denominator, (p * t).denominator)   # half roots: integral coefficients
    p, q, r = p * scale, int(-p * s * scale), int(p * t * scale)
    u, v = rng.choice(_PAIRS[1:])
    f = rng.choice(("f", "f", "g", "q"))
    polynomial = join_terms([(p, "x^2"), (q, "x"), (r, "")])
    hypotheses = (f"forall x, {f} x = {polynomial}", f"{f} {u} = 0", f"{f} {v} = 0", f"{u} <> {v}")
    conclusion, tail = _roots_tail(rng, u, v, roots)
    quotient = join_terms([(p, f'({u} + {v})'), (q, '')])
    factor = f"({u} - {v}) * {quotient if (p, q) == (1, 0) else f'({quotient})'}"
    script = (f"rewrite h0 in h1, h2. assert (h4 : {factor} = 0) by nra. "
              + _CANCEL.format(h="h4", neq="h3") + f" {{ {tail} }}")
    return Draft(((u, "R"), (v, "R"), (f, "R -> R")), hypotheses, conclusion, script)


def distinct_roots(rng: random.Random) -> Draft:
    """Two distinct values satisfying one equation: cancel their nonzero difference."""
    return rng.choices((_reciprocal_sum, _two_roots), weights=(35, 65))[0](rng)


FAMILIES = (Family("distinct_roots", "two distinct values of one equation, the difference cancelled", "R", 800,
                   distinct_roots),)
