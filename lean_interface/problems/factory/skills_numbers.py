"""Skill families over nat and Z: residues by rewriting and by case splits, witnesses checked by
computation, and witnesses carried through an induction (docs/factory_skills.md says which
miniF2F-rocq train problems need each; skills.py has the real-number skills).

  nat_residue        remainders of products from the remainders of the factors (Nat.add_mod,
                     Nat.mul_mod, then the hypotheses, then computation), and the residues a square,
                     a cube or n (n + c) can have or miss (the same rewrites, then a case split over
                     n mod k); the rewriting share is often closed by lia alone, the case splits never
  z_residue          the same over Z (Z.add_mod, Zminus_mod, Z.mul_mod, Z.pow_2_r), negative
                     constants included, and powers: x^e from x mod m, and b^e mod m for b^e far
                     too large to compute, the base reduced first (Zpow_facts.Zpower_mod)
  witness_compute    existentials and divisibility with a numeral witness that `reflexivity`
                     checks: d | b^e ± c, a root of n^2 + b n = c, an exponent, a number with a
                     given quotient and remainder or two given remainders; and d | b^n for every
                     n > 0 (a case on n, then the witness k b^m: numbertheory_2dvd4expn's proof)
  induction_witness  for every n, m | a^n b + d with a ≡ 1 and b + d ≡ 0 (mod m): induction whose
                     step names the new witness from the old (k + t b a^n) and lets lia check it
  bounded_cases      two nat unknowns pinned by an equation and an order: one bounded by the
                     equation's constant (lia), then enumerated, each case closed by lia
                     (amc12a_2015_p10's proof: x + y + x y = 80, 0 < y < x ⊢ x = 26)

Values are computed with Python integers; every number a script makes Coq compute in unary nat is
kept under 5000 (Coq's own limit for unary nat numerals), so `reflexivity` stays fast.
"""

from __future__ import annotations

import math
import random

from lean_interface.problems.factory.family import Draft, Family, nonzero
from lean_interface.problems.factory.render import join_terms

#: the largest number a nat script computes by `reflexivity`
NAT_LIMIT = 5000


def _cases(name: str, modulus: int, finisher: str) -> str:
    """Assert the residue of `name` is one of 0 … modulus-1 (lia), then rewrite each case and compute."""
    options = " \\/ ".join(f"{name} mod {modulus} = {r}" for r in range(modulus))
    branches = "[h0|" * (modulus - 1) + "h0" + "]" * (modulus - 1)
    return f"assert (h0 : {options}) by lia. destruct h0 as {branches}; rewrite h0; {finisher}"


def _residue_shape(rng: random.Random, name: str, domain: str) -> tuple[str, str, int]:
    """(expression in `name`, rewrite that leaves only `name mod k`, k) for a square, a cube,
    n (n + c) or n n + c."""
    k = rng.randint(3, 12)
    lemma = "Nat" if domain == "nat" else "Z"
    shape = rng.randrange(4)
    if shape == 0:
        if domain == "Z" and rng.random() < 0.5:
            return f"{name}^2", "rewrite Z.pow_2_r, Z.mul_mod by lia.", k
        return f"{name} * {name}", f"rewrite {lemma}.mul_mod by lia.", k
    if shape == 1:
        return f"{name} * {name} * {name}", f"rewrite {lemma}.mul_mod, ({lemma}.mul_mod {name} {name}) by lia.", k
    c = rng.randint(1, k - 1)
    if shape == 2:
        return f"{name} * ({name} + {c})", f"rewrite {lemma}.mul_mod, ({lemma}.add_mod {name} {c}) by lia.", k
    return f"{name} * {name} + {c}", f"rewrite {lemma}.add_mod, {lemma}.mul_mod by lia.", k


def _value(expression: str, name: str, n: int) -> int:
    return eval(expression.replace("^", "**"), {name: n})  # noqa: S307 - the family's own arithmetic text


def _residue_cases(rng: random.Random, name: str, domain: str) -> Draft:
    """The residues `expression mod k` takes, when it misses some: all it takes as a disjunction,
    or one it never takes."""
    while True:
        expression, rewrite, k = _residue_shape(rng, name, domain)
        residues = sorted({_value(expression, name, n) % k for n in range(k)})
        missing = [r for r in range(k) if r not in residues]
        if missing:
            break
    if rng.random() < 0.5:
        conclusion = f"({expression}) mod {k} <> {rng.choice(missing)}"
    else:
        conclusion = " \\/ ".join(f"({expression}) mod {k} = {r}" for r in residues)
    return Draft(((name, domain),), (), conclusion, f"{rewrite} {_cases(name, k, 'simpl; lia.')}")


def _residue_rewrite(rng: random.Random, domain: str) -> Draft:
    """x mod m = r (and y mod m = s): the remainder of x y + c, a x + b y, x x + c, or over Z x^e + c;
    or over Z the remainder of a closed power too large to compute, base reduced first."""
    m = rng.randint(3, 40)
    r, s = rng.randrange(m), rng.randrange(m)
    lemma = "Nat" if domain == "nat" else "Z"
    shape = rng.randrange(3 if domain == "nat" else 5)
    c = rng.randint(1, 60) if domain == "nat" else nonzero(rng, -60, 60)
    add = f"{lemma}.add_mod" if c > 0 else "Zminus_mod"
    constant = f"+ {c}" if c > 0 else f"- {-c}"
    one = (f"x mod {m} = {r}",)
    two = (f"x mod {m} = {r}", f"y mod {m} = {s}")
    if shape == 0:
        expression, value, hypotheses = f"x * y {constant}", r * s + c, two
        steps = f"{add}, ({lemma}.mul_mod x y), h0, h1"
    elif shape == 1:
        a, b = rng.randint(2, 12), rng.randint(2, 12)
        expression, value, hypotheses = f"{a} * x + {b} * y", a * r + b * s, two
        steps = f"{lemma}.add_mod, ({lemma}.mul_mod {a} x), ({lemma}.mul_mod {b} y), h0, h1"
    elif shape == 2:
        expression, value, hypotheses = f"x * x {constant}", r * r + c, one
        steps = f"{add}, ({lemma}.mul_mod x x), h0"
    elif shape == 3:                                # Z: x^e + c, the power reduced by Zpower_mod
        e = rng.randint(3, 12)
        expression, value, hypotheses = f"x ^ {e} {constant}", r ** e + c, one
        steps = f"{add}, Zpow_facts.Zpower_mod, h0"
    else:                                           # Z: b^e mod m for b^e far too large to compute
        b, e, m = rng.randint(100, 9999), rng.randint(50, 500), rng.randint(3, 12)
        return Draft((), (), f"({b} ^ {e}) mod {m} = {pow(b, e, m)}",
                     "rewrite Zpow_facts.Zpower_mod by lia. reflexivity.")
    binders = (("x", domain), ("y", domain))[:len(hypotheses)]
    return Draft(binders, hypotheses, f"({expression}) mod {m} = {value % m}", f"rewrite {steps} by lia. reflexivity.")


#: share of the residue families' items carried through by rewriting (lia or nia often closes those
#: in one call; the case splits it never closes are the rest)
REWRITE_SHARE = 0.35


def nat_residue(rng: random.Random) -> Draft:
    """Remainders over nat: carried through products by rewriting, or split into cases."""
    return _residue_rewrite(rng, "nat") if rng.random() < REWRITE_SHARE else _residue_cases(rng, "n", "nat")


def z_residue(rng: random.Random) -> Draft:
    """Remainders over Z: carried through products and powers by rewriting, or split into cases."""
    return _residue_rewrite(rng, "Z") if rng.random() < REWRITE_SHARE else _residue_cases(rng, "a", "Z")


# ---- witness_compute ------------------------------------------------------------------------------------

def _power_below(rng: random.Random, limit: int = NAT_LIMIT // 2) -> tuple[int, int]:
    """(b, e) with 2 <= b, 2 <= e and b^e <= limit."""
    b = rng.randint(2, 12)
    e = rng.randint(2, max(2, int(math.log(limit, b))))
    while b ** e > limit:
        e -= 1
    return b, e


def witness_compute(rng: random.Random) -> Draft:
    """An existential or a divisibility whose witness is a numeral `reflexivity` checks, or d | b^n
    for n > 0, whose witness is a term after a case on n."""
    kind = rng.randrange(6)
    if kind == 5:                                   # d | b^n for every n > 0: case on n, then the witness
        d, k = rng.randint(2, 9), rng.randint(1, 3)
        b = d * k
        if rng.random() < 0.5:
            guard, empty = "n <> 0", "contradiction."
        else:
            guard, empty = "0 < n", "lia."
        return Draft((("n", "nat"),), (guard,), f"Nat.divide {d} ({b} ^ n)",
                     f"destruct n as [|m]. {empty} exists ({k} * {b} ^ m). simpl. lia.")
    if kind == 0:                                   # d | b^e + c  or  d | b^e - c
        b, e = _power_below(rng)
        d = rng.randint(3, 30)
        if rng.random() < 0.5:
            c = (-b ** e) % d + d * rng.randint(0, 3) or d
            expression, value = f"{b} ^ {e} + {c}", b ** e + c
        else:
            c = (b ** e) % d + d * rng.randint(0, 2) or d
            c = c if c <= b ** e else (b ** e) % d
            expression, value = f"{b} ^ {e} - {c}", b ** e - c
        return Draft((), (), f"Nat.divide {d} ({expression})", f"exists {value // d}. reflexivity.")
    if kind == 1:                                   # a root of n^2 + b n = c
        r, b = rng.randint(1, 40), rng.randint(0, 30)
        return Draft((), (), f"exists n : nat, n * n + {b} * n = {r * r + b * r}" if b else
                     f"exists n : nat, n * n = {r * r}", f"exists {r}. reflexivity.")
    if kind == 2:                                   # an exponent
        b, e = _power_below(rng, NAT_LIMIT)
        return Draft((), (), f"exists n : nat, {b} ^ n = {b ** e}", f"exists {e}. reflexivity.")
    if kind == 3:                                   # a quotient and a remainder
        d = rng.randint(2, 40)
        q, r = rng.randint(1, NAT_LIMIT // (2 * d)), rng.randrange(d)
        return Draft((), (), f"exists n : nat, n / {d} = {q} /\\ n mod {d} = {r}",
                     f"exists {d * q + r}. split; reflexivity.")
    while True:                                     # two remainders (the smallest solution)
        p, q = rng.randint(2, 15), rng.randint(2, 15)
        if math.gcd(p, q) == 1:
            break
    r, s = rng.randrange(p), rng.randrange(q)
    n = next(n for n in range(p * q) if n % p == r and n % q == s)
    return Draft((), (), f"exists n : nat, n mod {p} = {r} /\\ n mod {q} = {s}", f"exists {n}. split; reflexivity.")


# ---- induction_witness ----------------------------------------------------------------------------------

def induction_witness(rng: random.Random) -> Draft:
    """m | a^n b + d for every n, where a = 1 + m t and m | b + d: the witness of n + 1 is k + t b a^n."""
    m, t = rng.randint(2, 9), rng.randint(1, 3)
    a, b = 1 + m * t, rng.choice([b for b in range(1, 10) if b % m])   # m does not divide b: d > 0
    d = m * rng.randint(-(-b // m), -(-b // m) + 3) - b
    base = (b + d) // m
    term = rng.choice((f"{a} ^ n * {b}", f"{b} * {a} ^ n")) if b != 1 else f"{a} ^ n"
    body = f"{term} + {d}" if d else term
    if rng.random() < 0.5:
        conclusion = f"exists k : nat, {body} = {m} * k"
    else:
        conclusion = f"Nat.divide {m} ({body})"
    step = f"exists (k + {t * b} * {a} ^ n); simpl; lia"
    return Draft((("n", "nat"),), (), conclusion,
                 f"induction n as [|n [k IH]]; [exists {base}; reflexivity | {step}].")


# ---- bounded_cases -------------------------------------------------------------------------------------

def bounded_cases(rng: random.Random) -> Draft:
    """x y + a x + b y = n with 0 < y < x, the solution unique: `assert (y <= n) by lia.` — the
    bound copied from the equation, as a policy can — then `repeat (destruct y as [|y]; try lia).`
    enumerates y; with y fixed the equation is linear in x. (x + y = s with x y = p, and n < 40,
    were tried and dropped: nia alone closes those.)"""
    while True:
        a, b = rng.randint(0, 3), rng.randint(1, 3)
        y0 = rng.randint(1, 9)
        x0 = y0 + rng.randint(1, 20)
        n = x0 * y0 + a * x0 + b * y0
        if 40 <= n <= 160 and [(x0, y0)] == [(x, y) for y in range(1, n + 1) for x in range(y + 1, n + 1)
                                              if x * y + a * x + b * y == n]:
            break
    equation = "x + y + x * y" if (a, b) == (1, 1) and rng.random() < 0.5 \
        else join_terms([(1, "x * y"), (a, "x"), (b, "y")], "nat")
    conclusion = rng.choice((f"x = {x0}", f"x = {x0}", f"y = {y0}", f"x + y = {x0 + y0}"))
    return Draft((("x", "nat"), ("y", "nat")), ("0 < y", "y < x", f"{equation} = {n}"), conclusion,
                 f"assert (y <= {n}) by lia. repeat (destruct y as [|y]; try lia).")


FAMILIES = (
    Family("nat_residue", "modular arithmetic: residues by rewriting and cases", "nat", 500, nat_residue),
    Family("z_residue", "modular arithmetic: residues by rewriting and cases", "Z", 700, z_residue),
    Family("witness_compute", "existence by a computed witness", "nat", 800, witness_compute),
    Family("induction_witness", "divisibility by induction with a witness", "nat", 600, induction_witness),
    Family("bounded_cases", "nat equations: bound an unknown, then enumerate it", "nat", 600, bounded_cases),
)


__all__ = ["FAMILIES", "NAT_LIMIT", "bounded_cases", "induction_witness", "nat_residue", "witness_compute", "z_residue"]
