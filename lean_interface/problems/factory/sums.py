"""Sums and products: closed forms proved by induction over R (`sum_f_R0`, Coq's sum of f 0 … f n),
and concrete sums and products of lists over nat.

The closed forms are computed exactly: a polynomial summand's sum is expanded with Faulhaber's
formulas for i, i^2, i^3 (as Fractions), a geometric sum is c (r^(n+1) - 1) / (r - 1). The proof is
the induction a person writes: the base case by computation, the step by `tech5` (peel the last
term), the induction hypothesis, `S_INR` (INR (S n) = INR n + 1), then `field`.
"""

from __future__ import annotations

import random
from fractions import Fraction

from lean_interface.problems.factory.family import Draft, Family, nonzero
from lean_interface.problems.factory.render import linear, literal, polynomial, standalone

#: sum_{i=0}^{n} i^k as a polynomial in n (exponent → coefficient), k = 0 … 3
_FAULHABER: dict[int, dict[int, Fraction]] = {
    0: {1: Fraction(1), 0: Fraction(1)},
    1: {2: Fraction(1, 2), 1: Fraction(1, 2)},
    2: {3: Fraction(1, 3), 2: Fraction(1, 2), 1: Fraction(1, 6)},
    3: {4: Fraction(1, 4), 3: Fraction(1, 2), 2: Fraction(1, 4)},
}


def sum_poly_induction(rng: random.Random) -> Draft:
    """sum_{i=0}^{n} p(i) for a polynomial p of degree ≤ 3 equals its closed form, for every n."""
    degree = rng.choice((1, 2, 2, 3))
    coefficients = {k: rng.randint(-4, 4) for k in range(degree + 1)}
    coefficients[degree] = nonzero(rng, -4, 4)
    closed: dict[tuple[int, ...], Fraction] = {}
    for k, c in coefficients.items():
        for power, weight in _FAULHABER[k].items():
            closed[(power,)] = closed.get((power,), Fraction(0)) + c * weight
    summand = polynomial({(k,): c for k, c in coefficients.items()}, ("INR i",))
    value = polynomial({e: c for e, c in closed.items() if c}, ("INR n",))
    return Draft((("n", "nat"),), (), f"sum_f_R0 (fun i => {summand}) n = {value}",
                 "induction n as [|n IH]; [simpl; field | rewrite tech5, IH; cbv beta; rewrite S_INR; field].")


_RATIOS = tuple(Fraction(n, d) for n in range(-6, 7) for d in (1, 2, 3)
                if Fraction(n, d) not in (0, 1) and Fraction(n, d).denominator == d)


def geometric_induction(rng: random.Random) -> Draft:
    """sum_{i=0}^{n} c r^i = c (r^(n+1) - 1) / (r - 1), for every n; or the value at a given n."""
    r, c = rng.choice(_RATIOS), nonzero(rng, -9, 9)
    summand = f"{literal(c)} * {literal(r)} ^ i"
    if rng.random() < 0.6:
        return Draft((("n", "nat"),), (), f"sum_f_R0 (fun i => {summand}) n = "
                     f"{literal(c)} * ({literal(r)} ^ (S n) - 1) / ({literal(r)} - 1)",
                     "induction n as [|n IH]; [simpl; field | rewrite tech5, IH; simpl; field].")
    n = rng.randint(1, 8)
    value = sum(c * r ** i for i in range(n + 1))
    return Draft((), (), f"sum_f_R0 (fun i => {summand}) {n} = {standalone(value)}", "simpl. field.")


def list_sum_product(rng: random.Random) -> Draft:
    """A concrete sum or product over a range of naturals, `seq s k` = s, s+1, …, s+k-1."""
    start, count = rng.randint(0, 12), rng.randint(2, 12)
    numbers = range(start, start + count)
    if rng.random() < 0.6:
        a, b, q = rng.randint(0, 6), rng.randint(0, 9), rng.choice((0, 0, 1, 2))
        if a == q == 0:
            a = 1
        terms = [(q, "i * i"), (a, "i")] if q else [(a, "i")]
        body = linear([c for c, _ in terms], [t for _, t in terms], b, "nat")
        value = sum(q * i * i + a * i + b for i in numbers)
        return Draft((), (), f"fold_right plus 0 (map (fun i => {body}) (seq {start} {count})) = {value}",
                     "reflexivity.")
    while True:
        c, d = rng.randint(1, 4), rng.randint(0, 5)
        count = min(count, 5)
        value = 1
        for i in range(start, start + count):
            value *= c * i + d
        if value <= 50_000:
            break
        start, count = rng.randint(0, 6), rng.randint(2, 5)
    body = linear([c], ["i"], d, "nat")
    return Draft((), (), f"fold_right mult 1 (map (fun i => {body}) (seq {start} {count})) = {value}",
                 "reflexivity.")


FAMILIES = (
    Family("sum_poly_induction", "sums and products by induction", "R", 800, sum_poly_induction),
    Family("geometric_induction", "sums and products by induction", "R", 600, geometric_induction),
    Family("list_sum_product", "sums and products", "nat_list", 1200, list_sum_product),
)
