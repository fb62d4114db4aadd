"""Number-theory families over Z and nat: powers modulo m and last digits, congruences carried
through linear expressions, gcd and lcm, divisibility, floor and truncated division, and small
linear word problems over nat.

Values are computed with Python integers, whose `//` and `%` round toward minus infinity exactly as
Coq's `Z.div` and `Z.modulo` do (the remainder takes the divisor's sign); `Z.quot`/`Z.rem`
truncate toward zero and are computed as such.
"""

from __future__ import annotations

import math
import random

from lean_interface.problems.factory.family import Draft, Family, nonzero
from lean_interface.problems.factory.render import join_terms, linear, literal, standalone


def power_mod(rng: random.Random) -> Draft:
    """The last digit(s) of a power or a sum of powers, or a power modulo a small number."""
    base, exponent = rng.randint(2, 99), rng.randint(2, 60)
    kind = rng.randrange(3)
    if kind == 0:
        modulus = rng.choice((10, 10, 100))
        expression, value = f"{base} ^ {exponent}", base ** exponent
    elif kind == 1:
        modulus = rng.randint(3, 50)
        expression, value = f"{base} ^ {exponent}", base ** exponent
    else:
        modulus = 10
        other, power = rng.randint(2, 30), rng.randint(2, 40)
        expression, value = f"{base} ^ {exponent} + {other} ^ {power}", base ** exponent + other ** power
    return Draft((), (), f"({expression}) mod {modulus} = {value % modulus}", "reflexivity.")


#: every `mod` by a constant becomes a quotient and a bounded remainder; then linear integer arithmetic
_MOD_PROOF = "Z.div_mod_to_equations. lia."


def mod_linear(rng: random.Random) -> Draft:
    """Remainders carried through a linear expression: x mod m = r (and y mod m = s) give the
    remainder of a*x + b (or a*x + b*y + c)."""
    modulus = rng.randint(3, 13)
    a, c = nonzero(rng, -12, 12), rng.randint(-20, 20)
    r = rng.randrange(modulus)
    if rng.random() < 0.6:
        return Draft((("x", "Z"),), (f"x mod {modulus} = {r}",),
                     f"({linear([a], ['x'], c, 'Z')}) mod {modulus} = {(a * r + c) % modulus}", _MOD_PROOF)
    b, s = nonzero(rng, -12, 12), rng.randrange(modulus)
    return Draft((("x", "Z"), ("y", "Z")), (f"x mod {modulus} = {r}", f"y mod {modulus} = {s}"),
                 f"({linear([a, b], ['x', 'y'], c, 'Z')}) mod {modulus} = {(a * r + b * s + c) % modulus}", _MOD_PROOF)


def gcd_lcm(rng: random.Random) -> Draft:
    """gcd and lcm of two numbers built as g*u and g*v, or their product identity's value."""
    g, u, v = rng.randint(1, 60), rng.randint(1, 80), rng.randint(1, 80)
    a, b = g * u, g * v
    kind = rng.randrange(3)
    if kind == 0:
        conclusion = f"Z.gcd {a} {b} = {math.gcd(a, b)}"
    elif kind == 1:
        conclusion = f"Z.lcm {a} {b} = {math.lcm(a, b)}"
    else:
        conclusion = f"Z.gcd {a} {b} + Z.lcm {a} {b} = {math.gcd(a, b) + math.lcm(a, b)}"
    return Draft((), (), conclusion, "reflexivity.")


def _coefficient(rng: random.Random) -> int:
    """A coefficient of absolute value 2..9, so every term is a product `c * …` (Coq reads `-n`
    as `Z.opp n`, not as a product, and `Z.divide_mul_r` needs a product)."""
    return rng.choice((-1, 1)) * rng.randint(2, 9)


def divides(rng: random.Random) -> Draft:
    """d | n (and d | m) give d | a combination of them; or d | N for a multiple N of d."""
    d = rng.randint(2, 30)
    kind = rng.randrange(3)
    if kind == 0:
        quotient = nonzero(rng, -999, 999)
        return Draft((), (), f"({d} | {d * quotient})", f"exists {literal(quotient, 'Z')}. reflexivity.")
    a, b = _coefficient(rng), _coefficient(rng)
    if kind == 1:
        terms = [(a, "n * n"), (b, "n")]
        hypotheses: tuple[str, ...] = (f"({d} | n)",)
        binders: tuple[tuple[str, str], ...] = (("n", "Z"),)
    else:
        terms = [(a, "n"), (b, "m")]
        hypotheses, binders = (f"({d} | n)", f"({d} | m)"), (("n", "Z"), ("m", "Z"))
    combine = "Z.divide_sub_r" if b < 0 else "Z.divide_add_r"
    return Draft(binders, hypotheses, f"({d} | {join_terms(terms, 'Z')})",
                 f"apply {combine}; apply Z.divide_mul_r; assumption.")


def floor_div(rng: random.Random) -> Draft:
    """Floor division and remainder (Z.div, Z.modulo) or truncated ones (Z.quot, Z.rem) of signed numbers."""
    a, b = rng.randint(-500, 500), nonzero(rng, -40, 40)
    while b in (1, -1):
        b = nonzero(rng, -40, 40)
    kind = rng.randrange(4)
    if kind == 0:
        conclusion = f"{literal(a, 'Z')} / {literal(b, 'Z')} = {standalone(a // b, 'Z')}"
    elif kind == 1:
        conclusion = f"{literal(a, 'Z')} mod {literal(b, 'Z')} = {standalone(a % b, 'Z')}"
    elif kind == 2:
        conclusion = (f"{literal(a, 'Z')} / {literal(b, 'Z')} = {standalone(a // b, 'Z')} /\\ "
                      f"{literal(a, 'Z')} mod {literal(b, 'Z')} = {standalone(a % b, 'Z')}")
    else:
        quotient = abs(a) // abs(b) * (1 if (a >= 0) == (b > 0) else -1)
        conclusion = (f"Z.quot {literal(a, 'Z')} {literal(b, 'Z')} = {standalone(quotient, 'Z')} /\\ "
                      f"Z.rem {literal(a, 'Z')} {literal(b, 'Z')} = {standalone(a - b * quotient, 'Z')}")
    return Draft((), (), conclusion, "repeat split; reflexivity." if "/\\" in conclusion else "reflexivity.")


def nat_linear(rng: random.Random) -> Draft:
    """Age-problem style systems over nat: a sum with a ratio, a difference or another sum."""
    b, k = rng.randint(1, 60), rng.randint(2, 9)
    kind = rng.randrange(3)
    if kind == 0:                                   # a = k * b, a + b = s
        a = k * b
        hypotheses = (f"a + b = {a + b}", f"a = {k} * b")
    elif kind == 1:                                 # a = b + d, a + b = s
        a = b + rng.randint(1, 40)
        hypotheses = (f"a + b = {a + b}", f"a = b + {a - b}")
    else:                                           # p*a + q*b = s, a = b + d
        a = b + rng.randint(0, 30)
        p, q = rng.randint(1, 9), rng.randint(1, 9)
        hypotheses = (f"{linear([p, q], ['a', 'b'], 0, 'nat')} = {p * a + q * b}", f"a = b + {a - b}")
    conclusion = rng.choice((f"a = {a}", f"b = {b}", f"a * b = {a * b}"))
    proof = (f"assert (e : a = {a} /\\ b = {b}) by lia. destruct e as [ea eb]. subst. reflexivity."
             if conclusion.startswith("a * b") else "lia.")
    return Draft((("a", "nat"), ("b", "nat")), hypotheses, conclusion, proof)


FAMILIES = (
    Family("power_mod", "modular arithmetic and last digits", "Z", 1200, power_mod),
    Family("mod_linear", "modular arithmetic and last digits", "Z", 1200, mod_linear),
    Family("gcd_lcm", "gcd/lcm and divisibility", "Z", 1200, gcd_lcm),
    Family("divides", "gcd/lcm and divisibility", "Z", 1200, divides),
    Family("floor_div", "floor and absolute value", "Z", 1200, floor_div),
    Family("nat_linear", "linear systems", "nat", 1000, nat_linear),
)
