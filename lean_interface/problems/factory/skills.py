"""Skill families over R: the steps the miniF2F-rocq train problems that the automation portfolio
does not prove need, each drilled on statements a short script (2–6 tactics) proves
(docs/factory_skills.md has the classification these come from).

Why: every older family is closed by one decision procedure or by a handful of tactic heads and ten
lemma names, so a policy trained on them never sees `sqrt_lem_1`, `field_simplify_eq in h`,
`ln_mult`, `Rpower_mult`, `rewrite (h 4%nat) by lia`, `plus_INR` or `eq_IZR` — the steps those train
problems are missing. Each family here picks the answer first (Fractions, ints) and writes a TRUE
statement around it, with the script a person writes:

  sqrt_eval        √ of squares, products and quotients of surds, s·√m, √(x²+y²) from x±y and xy,
                   √(c x + a) = k solved for x (sqrt_lem_1, sqrt_lem_0, sqrt_mult, sqrt_div_alt,
                   sqrt_square, sqrt_pow2)
  field_nonzero    rational equations and identities under `x <> p` hypotheses: solved for x, a
                   ratio carried to another ratio, monomial quotients simplified
                   (`field_simplify_eq in h; lra`, `field_simplify_eq; lra`, `field; lra`)
  log_exp          ln of products and powers, ln x = ln a + ln b, exp of sums of logs, Rpower
                   compositions and sums, Rpower of a numeral (ln_mult, ln_pow, ln_inv, exp_plus,
                   exp_ln, ln_exp, Rpower_mult, Rpower_plus, Rpower_pow)
  guarded_rewrite  hypotheses with guards — piecewise functions, recurrences valid from n = 2,
                   f (x y) = f x / y for positive x y, an inverse pair — used by
                   `rewrite (h t) by lra/lia`, `replace … with … by …`
  cast_numerals    INR and IZR: nat/Z equations carried to R and back (f_equal INR, plus_INR,
                   mult_INR, minus_INR, S_INR, INR_eq, plus_IZR, mult_IZR, minus_IZR, eq_IZR)
  identity_points  an identity `forall x, …` instantiated at points to read off coefficients,
                   partial fractions, f (x + c) against f's general form (pose proof, then lra)
Number-theory skills (residues, witnesses, induction) are in skills_numbers.py.

Measured (tests/test_factory_skills.py keeps checking a sample on real Coq): after `intros`, none of
lra, nra, lia, nia, field, ring, intuition or psatz closes a statement of these families — lra and
nra treat `sqrt t`, `ln t`, `Rpower x a`, `INR n`, `f t` and `a n` as atoms and never instantiate a
`forall` or clear a symbolic denominator. Every family's script was proved in both renderings on
seeds 0–259 (0–399 for the first three) and 90000–90029, with the number-theory families too.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

from lean_interface.problems.factory.family import Draft, Family, nonzero
from lean_interface.problems.factory.render import join_terms, linear, literal, polynomial, polynomial_value, standalone
from lean_interface.problems.factory.skills_numbers import FAMILIES as NUMBER_FAMILIES

#: square-free m for surds s·√m
_SQUARE_FREE = (2, 3, 5, 6, 7, 10, 11, 13, 14, 15, 17, 19, 21, 22)


def _positive(rng: random.Random, top: int = 12, denominators: tuple[int, ...] = (1, 1, 1, 2, 3, 4)) -> Fraction:
    return Fraction(rng.randint(1, top), rng.choice(denominators))


# ---- sqrt_eval ---------------------------------------------------------------------------------------

def sqrt_eval(rng: random.Random) -> Draft:
    """A square root evaluated: the answer k (or s·√m) is drawn, the radicand is k² (or s² m)."""
    kind = rng.randrange(6)
    if kind == 0:                                   # sqrt (k^2) = k, or two of them added
        k, j = _positive(rng, 40), _positive(rng, 20)
        while j == k:
            j = _positive(rng, 20)
        if rng.random() < 0.5:
            return Draft((), (), f"sqrt {literal(k * k)} = {standalone(k)}", "apply sqrt_lem_1; lra.")
        return Draft((), (), f"sqrt {literal(k * k)} + sqrt {literal(j * j)} = {standalone(k + j)}",
                     f"rewrite (sqrt_lem_1 {literal(k * k)} {literal(k)}), (sqrt_lem_1 {literal(j * j)} {literal(j)})"
                     " by lra. lra.")
    m, s, t = rng.choice(_SQUARE_FREE), rng.randint(1, 6), rng.randint(1, 6)
    if kind == 1:                                   # sqrt (m s^2) * sqrt (m t^2) = m s t
        return Draft((), (), f"sqrt {m * s * s} * sqrt {m * t * t} = {m * s * t}",
                     "rewrite <- sqrt_mult by lra. apply sqrt_lem_1; lra.")
    if kind == 2:                                   # sqrt (m s^2) / sqrt (m t^2) = s / t
        while t == s:
            t = rng.randint(1, 6)
        return Draft((), (), f"sqrt {m * s * s} / sqrt {m * t * t} = {standalone(Fraction(s, t))}",
                     "rewrite <- sqrt_div_alt by lra. apply sqrt_lem_1; lra.")
    if kind == 3:                                   # sqrt (s^2 m) = s * sqrt m
        s = rng.randint(2, 12)
        return Draft((), (), f"sqrt {s * s * m} = {s} * sqrt {m}",
                     f"replace {s * s * m} with ({s} * {s} * {m}) by lra. "
                     "rewrite sqrt_mult, sqrt_square by lra. reflexivity.")
    binders = (("x", "R"), ("y", "R"))
    if kind == 4:                                   # x ± y and x y given: sqrt (x^2 + y^2)
        r = rng.randint(3, 25)
        if rng.random() < 0.5:                      # (x + y)^2 - 2xy = r^2 with real x, y: r < s <= r √2
            total = rng.choice([s for s in range(r + 1, 2 * r) if s * s <= 2 * r * r])
            product = Fraction(total * total - r * r, 2)
            form, sign = f"x + y = {total}", "(x + y)^2 - 2 * (x * y)"
        else:                                       # (x - y)^2 + 2xy = r^2
            total = rng.randint(1, r - 1)
            product = Fraction(r * r - total * total, 2)
            form, sign = f"x - y = {total}", "(x - y)^2 + 2 * (x * y)"
        return Draft(binders, (form, f"x * y = {standalone(product)}"), f"sqrt (x^2 + y^2) = {r}",
                     f"replace (x^2 + y^2) with ({sign}) by ring. rewrite h0, h1. apply sqrt_lem_1; lra.")
    c, k = rng.randint(1, 9), _positive(rng, 15, (1, 1, 2))
    a = rng.randint(0, min(20, int(k * k)))          # a <= k^2, so the x it gives is >= 0
    if rng.random() < 0.5:                          # sqrt (c x + a) = k  ->  x = (k^2 - a) / c
        return Draft((("x", "R"),), ("0 <= x", f"sqrt ({linear([c], ['x'], a)}) = {standalone(k)}"),
                     f"x = {standalone((k * k - a) / c)}", "apply sqrt_lem_0 in h1; lra.")
    c = rng.randint(2, 15)                          # sqrt (c^2 x^2) = c x for x >= 0
    return Draft((("x", "R"),), ("0 <= x",), f"sqrt ({c * c} * x^2) = {c} * x",
                 f"replace ({c * c} * x^2) with (({c} * x)^2) by ring. apply sqrt_pow2. lra.")


# ---- field_nonzero ------------------------------------------------------------------------------------

def field_nonzero(rng: random.Random) -> Draft:
    """Rational equations and identities whose denominators are nonzero by hypothesis."""
    kind = rng.randrange(5)
    x = (("x", "R"),)
    if kind == 0:                                   # (a x + b) / (x - p) = c  ->  x = r
        r, p = rng.sample(range(-12, 13), 2)
        a, c = rng.sample([n for n in range(-6, 7) if n], 2)
        b = c * (r - p) - a * r
        equation = f"({linear([a], ['x'], b)}) / ({linear([1], ['x'], -p)}) = {standalone(c)}"
        return Draft(x, (f"x <> {standalone(p)}", equation), f"x = {standalone(r)}", "field_simplify_eq in h1; lra.")
    if kind == 1:                                   # a + b / x = c / x  ->  x = (c - b) / a
        r = Fraction(nonzero(rng, -12, 12), rng.choice((1, 1, 2)))
        a, b = nonzero(rng, -9, 9), nonzero(rng, -15, 15)
        c = a * r + b
        return Draft(x, ("x <> 0", f"{standalone(a)} + {literal(b)} / x = {literal(c)} / x"),
                     f"x = {standalone(r)}", "field_simplify_eq in h1; lra.")
    if kind == 2:                                   # a x + b y = k x y  ->  a / y + b / x = k
        a, b, k = nonzero(rng, -9, 9), nonzero(rng, -9, 9), nonzero(rng, -12, 12)
        hypotheses = ("x <> 0", "y <> 0", f"{linear([a, b], ['x', 'y'])} = {literal(k)} * (x * y)")
        return Draft((("x", "R"), ("y", "R")), hypotheses, f"{literal(a)} / y + {literal(b)} / x = {standalone(k)}",
                     "field_simplify_eq; lra.")
    if kind == 3:                                   # (a x^m)^p / (b x^n)^q = (a^p / b^q) x^(mp - nq)
        a, b, p, q = rng.randint(1, 9), rng.randint(2, 9), rng.randint(1, 3), rng.randint(1, 3)
        m, n = rng.randint(1, 5), rng.randint(1, 4)
        if m * p < n * q:
            m = -(-n * q // p)                      # the smallest m with m p >= n q
        power, value = m * p - n * q, Fraction(a ** p, b ** q)
        right = standalone(value) if power == 0 else f"{literal(value)} * x^{power}"
        left = f"({a} * x^{m})^{p} / ({b} * x^{n})^{q}" if a != 1 else f"(x^{m})^{p} / ({b} * x^{n})^{q}"
        return Draft(x, ("x <> 0",), f"{left} = {right}", "field; lra.")
    # (a + u b) / (a - v b) = m from (p a + q b) / (a - s b) = k: the first fixes a = t b
    t = Fraction(nonzero(rng, -6, 6), rng.choice((1, 1, 2)))
    s, v = rng.sample([n for n in range(-5, 6) if n != t], 2)
    while True:
        p, q = nonzero(rng, -6, 6), rng.randint(-9, 9)
        k = (p * t + q) / (t - s)
        if p * t + q and k != p:
            break
    u = rng.choice([n for n in range(-6, 7) if n and t + n])
    a_b = (("a", "R"), ("b", "R"))
    return Draft(a_b, (f"a <> {literal(s)} * b" if s else "a <> 0", f"a <> {literal(v)} * b" if v else "a <> 0",
                       f"({linear([p, q], ['a', 'b'])}) / ({linear([1, -s], ['a', 'b'])}) = {standalone(k)}"),
                 f"({linear([1, u], ['a', 'b'])}) / ({linear([1, -v], ['a', 'b'])}) = {standalone((t + u) / (t - v))}",
                 f"assert (h3 : a = {literal(t)} * b) by (field_simplify_eq in h2; lra). field_simplify_eq; lra.")


# ---- log_exp --------------------------------------------------------------------------------------------

def _rpower_power(rng: random.Random) -> Draft:
    """Rpower (Rpower x a) b = x^n with a b = n, or Rpower x a * Rpower x b = x^n with a + b = n."""
    n = rng.randint(2, 6)
    x = (("x", "R"),)
    if rng.random() < 0.5:
        a = Fraction(rng.randint(1, 9), rng.randint(2, 5))
        b = n / a
        return Draft(x, ("0 < x",), f"Rpower (Rpower x {literal(a)}) {literal(b)} = x ^ {n}",
                     f"rewrite Rpower_mult. replace ({literal(a)} * {literal(b)}) with (INR {n}) by (simpl; lra). "
                     "apply Rpower_pow. lra.")
    a = Fraction(rng.randint(1, 4 * n - 1), 4) if rng.random() < 0.5 else Fraction(rng.randint(1, 3 * n - 1), 3)
    b = n - a
    return Draft(x, ("0 < x",), f"Rpower x {literal(a)} * Rpower x {literal(b)} = x ^ {n}",
                 f"rewrite <- Rpower_plus. replace ({literal(a)} + {literal(b)}) with (INR {n}) by (simpl; lra). "
                 "apply Rpower_pow. lra.")


def _rpower_numeral(rng: random.Random) -> Draft:
    """Rpower (b^k) (m/k) = b^m: write the base as a power, fold it into Rpower, multiply exponents."""
    while True:
        b, k, m = rng.randint(2, 9), rng.randint(2, 4), rng.randint(1, 7)
        if math.gcd(m, k) == 1 and b ** k <= 1000 and b ** k not in (m, k) and b ** m <= 10 ** 5:
            break
    exponent = literal(Fraction(m, k))
    return Draft((), (), f"Rpower {b ** k} {exponent} = {b ** m}",
                 f"replace {b ** k} with ({b} ^ {k}) by lra. rewrite <- Rpower_pow by lra. rewrite Rpower_mult. "
                 f"replace (INR {k} * {exponent}) with (INR {m}) by (simpl; lra). rewrite Rpower_pow by lra. lra.")


def log_exp(rng: random.Random) -> Draft:
    """ln and exp rules and Rpower arithmetic on statements whose values are drawn first."""
    kind = rng.randrange(6)
    a_b = (("a", "R"), ("b", "R"))
    if kind == 0:                                   # ln a = p, ln b = q: ln (a^m * b^n) or ln (a^m) - ln (b^n)
        p, q = Fraction(nonzero(rng, -9, 9), rng.choice((1, 1, 2))), Fraction(nonzero(rng, -9, 9))
        m, n = rng.randint(2, 5), rng.randint(2, 5)
        given = ("0 < a", "0 < b", f"ln a = {standalone(p)}", f"ln b = {standalone(q)}")
        if rng.random() < 0.5:
            return Draft(a_b, given, f"ln (a ^ {m} * b ^ {n}) = {standalone(m * p + n * q)}",
                         "rewrite ln_mult by (apply pow_lt; lra). rewrite !ln_pow by lra. simpl. lra.")
        return Draft(a_b, given, f"ln (a ^ {m}) - ln (b ^ {n}) = {standalone(m * p - n * q)}",
                     "rewrite !ln_pow by lra. simpl. lra.")
    if kind == 1:                                   # ln x = ln c + ln d  ->  x = c d
        c, d = _positive(rng, 15, (1, 1, 2, 3)), _positive(rng, 15, (1, 1, 2, 3))
        return Draft((("x", "R"),), ("0 < x", f"ln x = ln {literal(c)} + ln {literal(d)}"), f"x = {standalone(c * d)}",
                     "rewrite <- ln_mult in h1 by lra. apply ln_inv in h1; lra.")
    if kind == 2:                                   # exp (ln c + ln d [+ ln e]) = c d [e]
        values = [_positive(rng, 12, (1, 1, 2)) for _ in range(rng.choice((2, 2, 3)))]
        product = Fraction(1)
        for value in values:
            product *= value
        logs = " + ".join(f"ln {literal(value)}" for value in values)
        return Draft((), (), f"exp ({logs}) = {standalone(product)}", "rewrite !exp_plus, !exp_ln by lra. lra.")
    if kind == 3:                                   # ln (exp a * exp b) = a + b, ln (exp a ^ n) = n a
        a, b = Fraction(rng.randint(-9, 9), rng.choice((1, 1, 2))), Fraction(rng.randint(-9, 9))
        if rng.random() < 0.5:
            return Draft((), (), f"ln (exp {literal(a)} * exp {literal(b)}) = {standalone(a + b)}",
                         "rewrite <- exp_plus, ln_exp. lra.")
        n = rng.randint(2, 6)
        return Draft((), (), f"ln (exp {literal(a)} ^ {n}) = {standalone(n * a)}",
                     "rewrite ln_pow, ln_exp by apply exp_pos. simpl. lra.")
    return _rpower_power(rng) if kind == 4 else _rpower_numeral(rng)
# ---- guarded_rewrite ---------------------------------------------------------------------------------

def _quadratic(rng: random.Random) -> dict[int, int]:
    """Coefficients (power → int) of a small linear or quadratic polynomial in x."""
    return {2: rng.choice((0, 0, nonzero(rng, -3, 3))), 1: nonzero(rng, -6, 6), 0: rng.randint(-12, 12)}


def _text(coefficients: dict[int, int]) -> str:
    return polynomial({(p,): c for p, c in coefficients.items() if c}, ("x",))


def _piecewise(rng: random.Random) -> Draft:
    """f given on x < c and on c <= x: f at a point of each piece (`rewrite (h t) by lra`)."""
    c = rng.randint(-8, 8)
    left, right = _quadratic(rng), _quadratic(rng)
    below, above = Fraction(rng.randint(c - 9, c - 1)), Fraction(rng.randint(c, c + 9))
    m = nonzero(rng, -3, 3)
    value = polynomial_value(left, below) + m * polynomial_value(right, above)
    guard = rng.choice((f"{standalone(c)} <= x", f"x >= {standalone(c)}"))
    hypotheses = (f"forall x, x < {standalone(c)} -> f x = {_text(left)}", f"forall x, {guard} -> f x = {_text(right)}")
    return Draft((("f", "R -> R"),), hypotheses,
                 f"{join_terms([(1, f'f {literal(below)}'), (m, f'f {literal(above)}')])} = {standalone(value)}",
                 f"rewrite (h0 {literal(below)}) by lra. rewrite (h1 {literal(above)}) by lra. lra.")


def _guarded_recurrence(rng: random.Random) -> Draft:
    """a n = p a (n-1) + q a (n-2) for n >= 2 and a 0, a 1: a 3 or a 4, one `rewrite … by lia` a term."""
    p, q = nonzero(rng, -3, 3), nonzero(rng, -3, 3)
    values = [Fraction(rng.randint(-6, 6)), Fraction(rng.randint(-6, 6))]
    target = rng.choice((3, 4))
    while len(values) <= target:
        values.append(p * values[-1] + q * values[-2])
    recurrence = f"forall n, (2 <= n)%nat -> a n = {join_terms([(p, 'a (n - 1)%nat'), (q, 'a (n - 2)%nat')])}"
    steps = [f"rewrite (h2 {k}%nat) by lia; simpl." for k in range(target, 1, -1)]
    initial = (f"a 0%nat = {standalone(values[0])}", f"a 1%nat = {standalone(values[1])}")
    return Draft((("a", "nat -> R"),), (*initial, recurrence), f"a {target}%nat = {standalone(values[target])}",
                 " ".join([*steps, "lra."]))


def _scaling(rng: random.Random) -> Draft:
    """f (x y) = f x / y or f (x y) = f x + f y for positive x, y: f at another point (amc12 2001 p9's step).

    The quotient rule's script writes the new point as `a * (point / a)`: the numbers are copied
    from the statement and lra does the arithmetic, so the step is one a policy can read off the
    goal (`replace 600 with (500 * (600 / 500)) by lra.`) rather than a ratio it must compute. The
    sum rule needs `f r` for the ratio r its hypothesis names, so there r is written as given."""
    a = rng.randint(2, 60) if rng.random() < 0.7 else rng.randint(100, 900)
    r = Fraction(rng.randint(2, 9), rng.randint(1, 5))
    while r in (1, a):
        r = Fraction(rng.randint(2, 9), rng.randint(1, 5))
    v = Fraction(nonzero(rng, -12, 12), rng.choice((1, 1, 2)))
    point = a * r
    guard = "forall x y, 0 < x -> 0 < y -> "
    if rng.random() < 0.5:
        equation, value = f"{guard}f (x * y) = f x / y", v / r
        proof = (f"replace {literal(point)} with ({a} * ({literal(point)} / {a})) by lra. rewrite h0 by lra. "
                 "rewrite h1. lra.")
        given = (f"f {a} = {standalone(v)}",)
    else:
        w = Fraction(rng.randint(-12, 12))
        equation, value = f"{guard}f (x * y) = f x + f y", v + w
        proof = f"replace {literal(point)} with ({a} * {literal(r)}) by lra. rewrite h0 by lra. lra."
        given = (f"f {a} = {standalone(v)}", f"f {literal(r)} = {standalone(w)}")
    return Draft((("f", "R -> R"),), (equation, *given), f"f {literal(point)} = {standalone(value)}", proof)


#: names an inverse pair goes by in competition statements (mathd_algebra_323 writes sigma, sigma_inv)
_INVERSE_NAMES = (("s", "t"), ("f", "g"), ("sigma", "sigma_inv"), ("f", "finv"), ("g", "ginv"), ("f", "f_inv"))


def _inverse_pair(rng: random.Random) -> Draft:
    """s x = a x + b (or x^3 + b) with t its inverse on both sides: t (s (t v)) = w where s w = v;
    the pair's names drawn from `_INVERSE_NAMES`, so the script's names are the statement's."""
    s, t = rng.choice(_INVERSE_NAMES)
    a, b = nonzero(rng, -5, 5), nonzero(rng, -15, 15)    # b != 0: s is not the identity
    cube = rng.random() < 0.35
    rule = f"x ^ 3 + {b}" if cube and b > 0 else f"x ^ 3 - {-b}" if cube and b < 0 else "x ^ 3" if cube \
        else linear([a], ["x"], b)
    while True:
        w = rng.randint(-4, 4) if cube else rng.randint(-9, 9)
        v = w ** 3 + b if cube else a * w + b
        if v != w:
            break
    hypotheses = (f"forall x, {s} x = {rule}", f"forall x, {t} ({s} x) = x", f"forall x, {s} ({t} x) = x")
    return Draft(((s, "R -> R"), (t, "R -> R")), hypotheses, f"{t} ({s} ({t} {literal(v)})) = {standalone(w)}",
                 f"rewrite h2. replace {literal(v)} with ({s} {literal(w)}) by (rewrite h0; lra). apply h1.")


def guarded_rewrite(rng: random.Random) -> Draft:
    """Hypotheses that hold under a guard, used by rewriting at a point and discharging the guard."""
    return rng.choice((_piecewise, _guarded_recurrence, _scaling, _inverse_pair))(rng)


# ---- cast_numerals -----------------------------------------------------------------------------------

def cast_numerals(rng: random.Random) -> Draft:
    """nat and Z equations carried into R (INR, IZR) and back, numerals small enough for `simpl`."""
    kind = rng.randrange(6)
    if kind == 0:                                   # (a n + b = c)%nat  ->  INR n * d + e = V
        a, n, b = rng.randint(1, 6), rng.randint(0, 9), rng.randint(0, 12)
        d, e = nonzero(rng, -5, 5), rng.randint(-9, 9)
        return Draft((("n", "nat"),), (f"({a} * n + {b} = {a * n + b})%nat",),
                     f"{join_terms([(d, 'INR n'), (e, '')])} = {standalone(d * n + e)}",
                     "apply (f_equal INR) in h0. rewrite plus_INR, mult_INR in h0. simpl in h0. lra.")
    if kind == 1:                                   # (p a ± q = c)%Z  ->  IZR a = r
        p, r, q = nonzero(rng, -9, 9), rng.randint(-30, 30), rng.randint(1, 40)
        minus = rng.random() < 0.5
        c = p * r - q if minus else p * r + q
        sign, lemma = ("-", "minus_IZR") if minus else ("+", "plus_IZR")
        hypothesis = f"({literal(p, 'Z')} * a {sign} {q} = {literal(c, 'Z')})%Z"
        return Draft((("a", "Z"),), (hypothesis,), f"IZR a = {standalone(r)}",
                     f"apply (f_equal IZR) in h0. rewrite {lemma}, mult_IZR in h0. lra.")
    if kind == 2:                                   # p IZR a + q = c  ->  a = r
        p, r, q = nonzero(rng, -9, 9), rng.randint(-30, 30), Fraction(rng.randint(-20, 20), rng.choice((1, 1, 2)))
        return Draft((("a", "Z"),), (f"{join_terms([(p, 'IZR a'), (q, '')])} = {standalone(p * r + q)}",),
                     f"a = {literal(r, 'Z')}%Z", "apply eq_IZR. lra.")
    if kind == 3:                                   # INR n + b = c  ->  n = r
        r, b = rng.randint(0, 25), Fraction(rng.randint(-20, 20), rng.choice((1, 1, 2)))
        return Draft((("n", "nat"),), (f"{join_terms([(1, 'INR n'), (b, '')])} = {standalone(r + b)}",),
                     f"n = {r}%nat", "apply INR_eq. simpl. lra.")
    if kind == 4:                                   # m = a, n = b  ->  INR (m * n + c) = a b + c
        a, b, c = rng.randint(0, 9), rng.randint(0, 9), rng.randint(1, 12)
        return Draft((("m", "nat"), ("n", "nat")), (f"m = {a}%nat", f"n = {b}%nat"),
                     f"INR (m * n + {c}) = {a * b + c}", "rewrite plus_INR, mult_INR, h0, h1. simpl. lra.")
    a, b = rng.randint(2, 9), rng.randint(1, 12)    # identities: INR (a n + b), INR (n - k) with k <= n, S
    shape = rng.randrange(3)
    if shape == 0:
        return Draft((("n", "nat"),), (), f"INR ({a} * n + {b}) = {a} * INR n + {b}",
                     "rewrite plus_INR, mult_INR. simpl. lra.")
    if shape == 1:
        return Draft((("n", "nat"),), (f"({b} <= n)%nat",), f"INR (n - {b}) + {b} = INR n",
                     "rewrite minus_INR by lia. simpl. lra.")
    successors = "S (" * (a - 1) + "S n" + ")" * (a - 1)
    return Draft((("n", "nat"),), (), f"INR ({successors}) = INR n + {a}", "rewrite !S_INR. lra.")


# ---- identity_points ---------------------------------------------------------------------------------

def _signs(values: dict[str, int]) -> tuple[str, ...]:
    """Sign hypotheses true of the answer (`0 < a`, `b < 0`), set before an identity as competition
    statements set them (mathd_algebra_140), so the identity is not always the first hypothesis."""
    return tuple(f"0 < {name}" if value > 0 else f"{name} < 0" for name, value in values.items() if value)


def identity_points(rng: random.Random) -> Draft:
    """An identity in x with unknown coefficients, read off by instantiating it at points."""
    kind = rng.randrange(4)
    if kind == 0:                                   # c x^2 + a x + b = (p x + q)(u x + w) for all x
        p, q, u, w = nonzero(rng, -4, 4), rng.randint(-9, 9), nonzero(rng, -4, 4), rng.randint(-9, 9)
        c, a, b = p * u, p * w + q * u, q * w
        left = join_terms([(c, "x^2"), (1, "a * x"), (1, "b")])
        right = f"({linear([p], ['x'], q)}) * ({linear([u], ['x'], w)})"
        signs = _signs({"a": a, "b": b}) if rng.random() < 0.4 else ()
        k, n = len(signs), len(signs) + 1
        return Draft((("a", "R"), ("b", "R")), (*signs, f"forall x, {left} = {right}"),
                     f"a = {standalone(a)} /\\ b = {standalone(b)}",
                     f"pose proof (h{k} 0) as h{n}. pose proof (h{k} 1) as h{n + 1}. lra.")
    if kind == 3:                                   # mathd_algebra_140's shape: (a x + q)(m (b x) + c), a b c > 0
        a, b, c = rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 9)
        q, m = nonzero(rng, -9, 9), rng.choice((1, 1, 2, 3))
        left = join_terms([(m * a * b, "x^2"), (a * c + q * m * b, "x"), (q * c, "")])
        scaled = f"{m} * (b * x)" if m != 1 else "b * x"
        right = f"({linear([1], ['a * x'], q)}) * ({scaled} + c)"
        k = rng.choice((-3, -2, -1, 1, 2, 3))
        points = ("0", "1", "(-1)")
        return Draft((("a", "R"), ("b", "R"), ("c", "R")),
                     ("0 < a", "0 < b", "0 < c", f"forall x : R, {left} = {right}"),
                     f"{join_terms([(1, 'a * b'), (k, 'c')])} = {standalone(a * b + k * c)}",
                     " ".join(f"pose proof (h3 {t}) as h{4 + i}." for i, t in enumerate(points)) + " nra.")
    if kind == 1:                                   # f (x + c) = P(x), f x = a x^2 + b x + d: a t^2 + b t + d
        c, t = nonzero(rng, -5, 5), rng.choice((1, 1, 2, -1))
        shifted = _quadratic(rng)
        value = polynomial_value(shifted, Fraction(t - c))
        hypotheses = (f"forall x, f ({linear([1], ['x'], c)}) = {_text(shifted)}",
                      "forall x, f x = a * x^2 + b * x + d")
        conclusion = f"{join_terms([(t * t, 'a'), (t, 'b'), (1, 'd')])} = {standalone(value)}"
        return Draft((("a", "R"), ("b", "R"), ("d", "R"), ("f", "R -> R")), hypotheses, conclusion,
                     f"pose proof (h0 {literal(t - c)}) as h2. rewrite h1 in h2. lra.")
    while True:                                     # partial fractions: (α x + β) / ((x-p)(x-q)) = A/(x-p) + B/(x-q)
        p, q = sorted(rng.sample(range(-6, 7), 2))
        big_a, big_b = nonzero(rng, -9, 9), nonzero(rng, -9, 9)
        alpha, beta = big_a + big_b, -(big_a * q + big_b * p)
        points = [z for z in range(-3, 8) if z not in (p, q)][:2]
        if alpha or beta:
            break
    first, second = linear([1], ["x"], -p), linear([1], ["x"], -q)
    fraction = f"({linear([alpha], ['x'], beta)}) / (({first}) * ({second}))"
    hypothesis = f"forall x, {first} <> 0 /\\ {second} <> 0 -> {fraction} = A / ({first}) + B / ({second})"
    poses = [f"pose proof (h0 {literal(z)} ltac:(lra)) as h{i + 1}." for i, z in enumerate(points)]
    return Draft((("A", "R"), ("B", "R")), (hypothesis,), f"A = {standalone(big_a)} /\\ B = {standalone(big_b)}",
                 " ".join([*poses, "lra."]))


REAL_FAMILIES = (
    Family("sqrt_eval", "square roots evaluated", "R", 800, sqrt_eval),
    Family("field_nonzero", "rational equations with nonzero denominators", "R", 1000, field_nonzero),
    Family("log_exp", "logarithms, exponentials and real powers", "R", 800, log_exp),
    Family("guarded_rewrite", "guarded hypotheses rewritten at points", "R", 1000, guarded_rewrite),
    Family("cast_numerals", "INR and IZR casts", "R", 900, cast_numerals),
    Family("identity_points", "identities instantiated at points", "R", 900, identity_points),
)

#: every skill family, the number-theory ones (skills_numbers.py) after the real ones
FAMILIES = (*REAL_FAMILIES, *NUMBER_FAMILIES)
