"""Skill family over the complex numbers (Coquelicot's `C`): arithmetic by components.

Why: complex numbers are a class of their own among the miniF2F-rocq train problems the automation
portfolio leaves open (docs/factory_skills.md: 13, of which 8 elaborate on Coq 8.16 — `^` on `C`
falls back to R's power in the other 5). Coquelicot declares no `ring` structure for `C`, so every
decision procedure of the portfolio fails on them ("not a valid ring equation" for ring and field,
and lra/nra/lia see no linear arithmetic at all), yet 6 of those 8 yield to a script of one shape:
reduce the equation to its two real components and let `ring`/`lra`/`nra` work there.

  apply injective_projections; simpl; ring.        an identity: C is R * R, so an equation of pairs
                                                    is the equation of their fst and of their snd
  subst. apply injective_projections; simpl; ring. named values substituted first
  destruct x as [x1 x2], …. injection h0. …        unknowns split into components; a hypothesis
  intros. apply injective_projections; simpl; lra. `injection` splits into its two real equations

The one family `complex_arith` draws five shapes of the train split's complex problems: Gaussian
integer arithmetic (sums, differences and products of `a + b * Ci`), the same through named values
(`q = a + b * Ci -> …`), linear and bilinear identities in a complex variable, a 2×2 linear system
in two complex unknowns, and a sum times a purely imaginary value. The answer is computed first with
Python's exact integers; every statement is TRUE by construction (tests/test_factory_complex.py
re-checks each by exact arithmetic, and on real Coq that its script proves it and that no single
decision procedure does).
"""

from __future__ import annotations

import random

from lean_interface.problems.factory.family import Draft, Family, nonzero

#: the step that turns an equation in C into two equations in R: C is the pair type R * R
BY_COMPONENTS = "apply injective_projections; simpl"

Gaussian = tuple[int, int]


def gaussian(value: Gaussian) -> str:
    """`a + b * Ci` as miniF2F writes it (`3 - 2 * Ci`, `-4 * Ci`, `7`), parenthesised when it is more
    than one atom so it can stand as an operand."""
    re_part, im_part = value
    if im_part == 0:
        return f"({re_part})" if re_part < 0 else str(re_part)
    imaginary = "Ci" if abs(im_part) == 1 else f"{abs(im_part)} * Ci"
    if re_part == 0:
        return f"(-{imaginary})" if im_part < 0 else (imaginary if abs(im_part) == 1 else f"({imaginary})")
    return f"({re_part} {'-' if im_part < 0 else '+'} {imaginary})"


def unwrapped(value: Gaussian) -> str:
    """`gaussian(value)` without its outer parentheses, for a side of an equation."""
    text = gaussian(value)
    return text[1:-1] if text.startswith("(") and text.endswith(")") else text


def add(u: Gaussian, v: Gaussian) -> Gaussian:
    return u[0] + v[0], u[1] + v[1]


def sub(u: Gaussian, v: Gaussian) -> Gaussian:
    return u[0] - v[0], u[1] - v[1]


def mul(u: Gaussian, v: Gaussian) -> Gaussian:
    return u[0] * v[0] - u[1] * v[1], u[0] * v[1] + u[1] * v[0]


def _draw(rng: random.Random, top: int = 12, real_only: float = 0.15) -> Gaussian:
    """A Gaussian integer with both parts nonzero, or (sometimes) a real integer."""
    if rng.random() < real_only:
        return nonzero(rng, -top, top), 0
    return nonzero(rng, -top, top), nonzero(rng, -top, top)


_OPERATIONS = {"+": add, "-": sub, "*": mul}


def complex_arith(rng: random.Random) -> Draft:
    """One of five shapes of the train split's complex problems; the answer is computed first."""
    kind = rng.randrange(5)
    if kind == 0:                                   # Gaussian arithmetic: (a + b Ci) op (c + d Ci) = result
        symbol = rng.choice(("+", "-", "*", "*"))
        u, v = _draw(rng), _draw(rng)
        return Draft((), (), f"{gaussian(u)} {symbol} {gaussian(v)} = {unwrapped(_OPERATIONS[symbol](u, v))}",
                     f"{BY_COMPONENTS}; ring.")
    if kind == 1:                                   # named values: q = …, e = … (, d = …) -> q * e (* d) = result
        names = rng.choice((("q", "e"), ("z", "w"), ("a", "b"), ("q", "e", "d")))
        values = [_draw(rng, 9) for _ in names]
        symbol = rng.choice(("*", "*", "+", "-")) if len(names) == 2 else "*"
        result = values[0]
        for value in values[1:]:
            result = _OPERATIONS[symbol](result, value)
        hypotheses = tuple(f"{name} = {unwrapped(value)}" for name, value in zip(names, values))
        return Draft(tuple((name, "C") for name in names), hypotheses,
                     f"{f' {symbol} '.join(names)} = {unwrapped(result)}", f"subst. {BY_COMPONENTS}; ring.")
    if kind == 2:                                   # identities in a complex variable
        name = rng.choice(("y", "z", "x", "w"))
        k, a, b = nonzero(rng, 2, 9), nonzero(rng, -9, 9), nonzero(rng, -12, 12)
        if rng.random() < 0.5:                      # k (a y + b) = k a y + k b
            inner = f"{a} * {name}" if a > 0 else f"({a}) * {name}"
            lhs = f"{k} * ({inner} {'+' if b > 0 else '-'} {abs(b)})"
            rhs = f"{k * a} * {name} {'+' if k * b > 0 else '-'} {abs(k * b)}"
        else:                                       # (y + p)(y + q) = y y + (p + q) y + p q, p or q maybe imaginary
            p, q = _draw(rng, 7, 0.5), _draw(rng, 7, 0.5)
            middle, constant = add(p, q), mul(p, q)
            lhs = f"({name} + {gaussian(p)}) * ({name} + {gaussian(q)})"
            rhs = f"{name} * {name} + {gaussian(middle)} * {name} + {gaussian(constant)}"
        return Draft(((name, "C"),), (), f"{lhs} = {rhs}", f"{BY_COMPONENTS}; ring.")
    if kind == 3:                                   # a 2x2 system in x, e with a unique solution
        x, e = _draw(rng, 9, 0.6), _draw(rng, 9, 0.6)
        while True:
            a1, b1, a2, b2 = (nonzero(rng, -4, 4) for _ in range(4))
            if a1 * b2 - a2 * b1:
                break
        rows = []
        for a, b in ((a1, b1), (a2, b2)):
            rhs = add(mul((a, 0), x), mul((b, 0), e))
            left = ("x" if a == 1 else "-x" if a == -1 else f"{a} * x")
            right = ("e" if abs(b) == 1 else f"{abs(b)} * e")
            rows.append(f"{left} {'+' if b > 0 else '-'} {right} = {unwrapped(rhs)}")
        conclusion = f"x = {unwrapped(x)} /\\ e = {unwrapped(e)}"
        return Draft((("x", "C"), ("e", "C")), tuple(rows), conclusion,
                     "destruct x as [x1 x2], e as [e1 e2]. injection h0. injection h1. simpl. intros. "
                     f"split; {BY_COMPONENTS}; lra.")
    # a + b = m c, c = k Ci -> a c + b c = m c c = -m k^2
    m, k = nonzero(rng, -6, 6), nonzero(rng, -4, 4)
    return Draft((("a", "C"), ("b", "C"), ("c", "C")),
                 (f"a + b = {m} * c" if m > 0 else f"a + b = ({m}) * c", f"c = {unwrapped((0, k))}"),
                 f"a * c + b * c = {unwrapped((-m * k * k, 0))}",
                 f"subst. destruct a as [a1 a2], b as [b1 b2]. injection h0. simpl. intros. {BY_COMPONENTS}; nra.")


FAMILIES = (
    Family("complex_arith", "complex numbers by components", "C", 700, complex_arith),
)


__all__ = ["FAMILIES", "complex_arith", "gaussian"]
