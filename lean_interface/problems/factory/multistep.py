"""Multi-step families: statements no single decision procedure closes, whose proofs take two to
five tactic steps of the kinds the held-out families and competition problems need.

Why: nearly every other train family is closed by one call to lra, lia, nra, field or ring, so a policy
learns the train distribution in one round and nothing teaches the skills of the held-out families
(`fe_symmetric`: instantiate a `forall` hypothesis at points, normalise the arguments, lra;
`sum_poly_induction`: induction, then arithmetic on each case). Each family here drills one such
skill, on statements that differ in shape from the held-out families:

  fe_instantiate     f (x + c) = f x + d, f (x + c) = m * f x, or Cauchy's f (x + y) = f x + f y,
                     one or two values given: f at a point one to three instantiations away
                     (instantiate, chain, normalise the last argument with `replace … by ring`, lra)
  fe_two_points      a f x + b f (-x) = p(x), or f x + k f (1/x) = p x + q for x <> 0: f at a
                     point, from the equation at the point and at its mirror (two instantiations,
                     normalise `- - t` or `1 / (1 / t)`, lra)
  recurrence_unroll  a (n + 1) = p a n + q or a (n + 2) = p a (n + 1) + q a n over R with the
                     first values given: a k for a small k (instantiate at 0, 1, …, simpl the
                     nat indices, lra)
  iter_induction     closed forms of Nat.iter of k + d, c * k, c * k + d over nat, for every n
                     (induction, simpl in both cases, lia)
  abs_cases          two or three absolute values: a lower bound of a sum of distances, the
                     interval where it is attained, equal distances, the triangle inequality
                     (unfold Rabs, one Rcase_abs case split per absolute value, lra)
  exists_witness     ∃ over Z: a root of a linear equation, of a quadratic on one side, a solution
                     of a 2×2 system (give the witness, then lia)

Nothing here is closed by one of lra, nra, lia, nia, field, ring, psatz or intuition: lra and nra
treat `f t`, `a k`, `Rabs e` and `Nat.iter n g a` as atoms and never instantiate a `forall`, and no
decision procedure proves an existential (measured: 0 of 10 seeds per family closed by any one of
them, each under `Timeout 5`; tests/integration/test_factory.py keeps checking a sample). A
substitution-chain family (y = 2 x + 1, z = y * y - 3 * y ⊢ z = 4 x^2 - 2 x - 2) was tried and
dropped: lia and nia substitute defining equations themselves and closed it in one call. One
caveat seen in expert iteration: the search's `cases` automation family (`split_Rabs; lra`, one
tactic with its own case split) closes `abs_cases`; it stays, since the policy alone must still
learn to propose that split.
"""

from __future__ import annotations

import random
from fractions import Fraction

from lean_interface.problems.factory.family import Draft, Family, nonzero
from lean_interface.problems.factory.render import (conjunction, join_terms, linear, literal, polynomial,
                                                   polynomial_value, standalone)


def _parenthesised(value: Fraction | int) -> str:
    """`value` in parentheses even when it is a bare positive integer: `(3)`, `(-3)`, `(3/4)`.
    `- (3)` is Coq's negation of 3 (what instantiating `- x` at 3 gives); `- 3` would be the
    numeral -3, another term."""
    text = literal(value)
    return text if text.startswith("(") else f"({text})"


def _substitute(template: str, argument: str) -> str:
    """`template` (a term in the one variable x) with `argument` for x."""
    return template.replace("x", argument)


# ---- fe_instantiate --------------------------------------------------------------------------------

def _chain(shift: str, start: Fraction, steps: int, point: Fraction) -> str:
    """The proof that walks `forall x, f (<shift>) = …` (h0) from `start` by `steps` steps: h0 at
    start, at shift(start), at shift(shift(start)), …; the last argument is replaced by the literal
    `point` the conclusion names; then lra."""
    arguments = [literal(start)]
    for _ in range(steps - 1):
        arguments.append(f"({_substitute(shift, arguments[-1])})")
    poses = [f"pose proof (h0 {a}) as h{2 + i}." for i, a in enumerate(arguments)]
    last = _substitute(shift, arguments[-1])
    return " ".join([*poses, f"replace ({last}) with {literal(point)} in h{1 + steps} by ring.", "lra."])


def _step_equation(rng: random.Random) -> Draft:
    """f (x + c) = f x + d (additive) or f (x + c) = m * f x (multiplicative), f t0 = v0: f (t0 + n c)."""
    c, t0, v0 = nonzero(rng, -5, 5), Fraction(rng.randint(-9, 9)), Fraction(rng.randint(-20, 20))
    steps = rng.choice((2, 2, 3))
    shift = linear([1], ["x"], c)
    if rng.random() < 0.5:
        d = Fraction(nonzero(rng, -12, 12), rng.choice((1, 1, 2)))
        equation, value = f"forall x, f ({shift}) = {join_terms([(1, 'f x'), (d, '')])}", v0 + steps * d
    else:
        m = rng.choice((-3, -2, 2, 3, Fraction(1, 2), Fraction(-1, 2), Fraction(3, 2)))
        equation, value = f"forall x, f ({shift}) = {literal(m)} * f x", v0 * m ** steps
    point = t0 + steps * c
    return Draft((("f", "R -> R"),), (equation, f"f {literal(t0)} = {standalone(v0)}"),
                 f"f {literal(point)} = {standalone(value)}", _chain(shift, t0, steps, point))


def _cauchy(rng: random.Random) -> Draft:
    """f (x + y) = f x + f y and f at one or two points: f (2a), f (3a) or f (a + b)."""
    a, v = nonzero(rng, -9, 9), Fraction(rng.randint(-30, 30), rng.choice((1, 1, 2)))
    equation, given = "forall x y, f (x + y) = f x + f y", f"f {literal(a)} = {standalone(v)}"
    kind = rng.randrange(3)
    binders = (("f", "R -> R"),)
    if kind == 0:                                   # f (2a) from h0 a a
        return Draft(binders, (equation, given), f"f {literal(2 * a)} = {standalone(2 * v)}",
                     f"pose proof (h0 {literal(a)} {literal(a)}) as h2. "
                     f"replace ({literal(a)} + {literal(a)}) with {literal(2 * a)} in h2 by ring. lra.")
    if kind == 1:                                   # f (3a) from h0 a a and h0 (a + a) a
        twice = f"{literal(a)} + {literal(a)}"
        return Draft(binders, (equation, given), f"f {literal(3 * a)} = {standalone(3 * v)}",
                     f"pose proof (h0 {literal(a)} {literal(a)}) as h2. pose proof (h0 ({twice}) {literal(a)}) as h3. "
                     f"replace ({twice} + {literal(a)}) with {literal(3 * a)} in h3 by ring. lra.")
    b = nonzero(rng, -9, 9)
    while b == a:
        b = nonzero(rng, -9, 9)
    w = v * b / a                                   # additivity forces f (q a) = q f a for rational q
    return Draft(binders, (equation, given, f"f {literal(b)} = {standalone(w)}"),
                 f"f {literal(a + b)} = {standalone(v + w)}",
                 f"pose proof (h0 {literal(a)} {literal(b)}) as h3. "
                 f"replace ({literal(a)} + {literal(b)}) with {literal(a + b)} in h3 by ring. lra.")


def fe_instantiate(rng: random.Random) -> Draft:
    """A functional equation and a value: f at a point reached by instantiating it one to three times."""
    return _step_equation(rng) if rng.random() < 0.65 else _cauchy(rng)


# ---- fe_two_points ---------------------------------------------------------------------------------

def _reflection(rng: random.Random) -> Draft:
    """a f x + b f (-x) = p(x) (|a| ≠ |b|, p of degree ≤ 2): f t from the equation at t and at -t."""
    a, b = nonzero(rng, -5, 5), nonzero(rng, -5, 5)
    while abs(a) == abs(b):
        b = nonzero(rng, -5, 5)
    right = {2: Fraction(rng.choice((0, 0, rng.randint(-4, 4)))), 1: Fraction(nonzero(rng, -9, 9)),
             0: Fraction(rng.randint(-12, 12))}
    t = Fraction(nonzero(rng, -9, 9), rng.choice((1, 1, 1, 2)))
    at_t, at_minus_t = polynomial_value(right, t), polynomial_value(right, -t)
    value = (a * at_t - b * at_minus_t) / (a * a - b * b)
    left = join_terms([(a, "f x"), (b, "f (- x)")])
    equation = f"forall x, {left} = {polynomial({(p,): c for p, c in right.items() if c}, ('x',))}"
    proof = (f"pose proof (h0 {literal(t)}) as h1. pose proof (h0 (- {_parenthesised(t)})) as h2. "
             "rewrite Ropp_involutive in h2. lra.")
    return Draft((("f", "R -> R"),), (equation,), f"f {literal(t)} = {standalone(value)}", proof)


def _reciprocal(rng: random.Random) -> Draft:
    """f x + k f (1 / x) = p x + q for x <> 0 (k ≠ ±1): f t from the equation at t and at 1 / t."""
    k = rng.choice([Fraction(n, d) for n in range(-5, 6) for d in (1, 2) if abs(Fraction(n, d)) not in (0, 1)])
    p, q = nonzero(rng, -9, 9), rng.randint(-12, 12)
    t = Fraction(rng.choice([n for n in range(-9, 10) if abs(n) >= 2]))
    at_t, at_inverse = p * t + q, p / t + q
    value = (at_t - k * at_inverse) / (1 - k * k)
    inverse = f"1 / {literal(t)}"
    proof = (f"pose proof (h0 {literal(t)} ltac:(lra)) as h1. pose proof (h0 ({inverse}) ltac:(lra)) as h2. "
             f"replace (1 / ({inverse})) with {literal(t)} in h2 by field. lra.")
    equation = f"forall x, x <> 0 -> f x + {literal(k)} * f (1 / x) = {linear([p], ['x'], q)}"
    return Draft((("f", "R -> R"),), (equation,), f"f {literal(t)} = {standalone(value)}", proof)


def fe_two_points(rng: random.Random) -> Draft:
    """A functional equation linking f at x and at a mirror of x (-x or 1/x): f at a point."""
    return _reflection(rng) if rng.random() < 0.55 else _reciprocal(rng)


# ---- recurrence_unroll -----------------------------------------------------------------------------

def recurrence_unroll(rng: random.Random) -> Draft:
    """A first- or second-order linear recurrence over R with its first values: the k-th term."""
    binders = (("a", "nat -> R"),)
    if rng.random() < 0.5:                          # a (n + 1) = p a n + q
        p, q = rng.choice((-3, -2, 2, 3, 4, Fraction(1, 2))), rng.randint(-9, 9)
        values = [Fraction(rng.randint(-9, 9))]
        target = rng.choice((2, 3))
        for _ in range(target):
            values.append(p * values[-1] + q)
        hypotheses = (f"a 0%nat = {standalone(values[0])}",
                      f"forall n, a (n + 1)%nat = {join_terms([(p, 'a n'), (q, '')])}")
        used = range(target)                        # instantiate at 0 … target-1
    else:                                           # a (n + 2) = p a (n + 1) + q a n
        p, q = nonzero(rng, -3, 3), nonzero(rng, -3, 3)
        values = [Fraction(rng.randint(-5, 5)), Fraction(rng.randint(-5, 5))]
        target = rng.choice((3, 3, 4))
        for _ in range(target - 1):
            values.append(p * values[-1] + q * values[-2])
        hypotheses = (f"a 0%nat = {standalone(values[0])}", f"a 1%nat = {standalone(values[1])}",
                      f"forall n, a (n + 2)%nat = {join_terms([(p, 'a (n + 1)%nat'), (q, 'a n')])}")
        used = range(target - 1)
    recurrence, first = len(hypotheses) - 1, len(hypotheses)
    names = [f"h{first + i}" for i in range(len(used))]
    poses = [f"pose proof (h{recurrence} {n}%nat) as {name}." for n, name in zip(used, names)]
    proof = " ".join([*poses, f"simpl in {', '.join(names)}.", "lra."])
    return Draft(binders, hypotheses, f"a {target}%nat = {standalone(values[target])}", proof)


# ---- iter_induction --------------------------------------------------------------------------------

def iter_induction(rng: random.Random) -> Draft:
    """Nat.iter n g a in closed form for every n: g k = k + d (a + d n), c * k (a c^n), or c * k + d
    ((c - 1) · iterate + d = ((c - 1) a + d) c^n, an identity over nat without division)."""
    kind = rng.randrange(3)
    a = rng.randint(0, 20)
    if kind == 0:
        d = rng.randint(1, 15)
        step = rng.choice((f"k + {d}", f"{d} + k"))
        left, right = f"Nat.iter n (fun k => {step}) {a}", linear([d], ["n"], a, "nat")
    elif kind == 1:
        c, a = rng.randint(2, 9), rng.randint(1, 30)
        left, right = f"Nat.iter n (fun k => {c} * k) {a}", f"{a} * {c} ^ n" if a != 1 else f"{c} ^ n"
    else:
        c, d = rng.randint(2, 6), rng.randint(1, 12)
        scale = "" if c == 2 else f"{c - 1} * "
        left = f"{scale}Nat.iter n (fun k => {c} * k + {d}) {a} + {d}"
        right = f"{(c - 1) * a + d} * {c} ^ n"
    if rng.random() < 0.3:
        left, right = right, left
    return Draft((("n", "nat"),), (), f"{left} = {right}", "induction n as [|n IH]; simpl in *; lia.")


# ---- abs_cases ---------------------------------------------------------------------------------------

def _distance(name: str, centre: Fraction) -> str:
    """`name - centre` as the argument of Rabs: `x - 3`, `x + 2`, `x`."""
    return linear([1], [name], -centre)


def _abs_proof(arguments: list[str]) -> str:
    cases = "; ".join(f"destruct (Rcase_abs ({argument}))" for argument in arguments)
    return f"unfold Rabs in *. {cases}; lra."


def abs_cases(rng: random.Random) -> Draft:
    """Two or three absolute values, so a case split per value: sum of distances ≥ its minimum,
    where that minimum is attained, equal distances to two points, the triangle inequality."""
    a, b = sorted(rng.sample(range(-15, 16), 2))
    a, b = Fraction(a), Fraction(b)
    first, second = _distance("x", a), _distance("x", b)
    binders = (("x", "R"),)
    kind = rng.randrange(4)
    if kind == 0:                                   # |x - a| + |x - b| >= m for m <= b - a
        bound = b - a - rng.choice((0, 0, 1, Fraction(1, 2)))
        if bound <= 0:
            bound = b - a
        first, second = rng.sample([first, second], 2)
        return Draft(binders, (), f"{standalone(bound)} <= Rabs ({first}) + Rabs ({second})",
                     _abs_proof([first, second]))
    if kind == 1:                                   # |x - a| + |x - b| = b - a  ->  a <= x <= b
        return Draft(binders, (f"Rabs ({first}) + Rabs ({second}) = {standalone(b - a)}",),
                     f"{standalone(a)} <= x /\\ x <= {standalone(b)}", _abs_proof([first, second]))
    if kind == 2:                                   # |x - a| = |x - b|  ->  x = (a + b) / 2
        return Draft(binders, (f"Rabs ({first}) = Rabs ({second})",), f"x = {standalone((a + b) / 2)}",
                     _abs_proof([first, second]))
    r, s = rng.randint(1, 9), rng.randint(1, 9)     # |x - a| < r, |y - b| < s  ->  |x + y - (a + b)| < r + s
    total = linear([1, 1], ["x", "y"], -(a + b))
    return Draft((("x", "R"), ("y", "R")), (f"Rabs ({first}) < {r}", f"Rabs ({_distance('y', b)}) < {s}"),
                 f"Rabs ({total}) < {r + s}", _abs_proof([first, _distance("y", b), total]))


# ---- exists_witness ----------------------------------------------------------------------------------

def exists_witness(rng: random.Random) -> Draft:
    """An existential over Z: a root of a x + b = c, the root of a quadratic on one side of a
    bound, or the solution of a 2×2 system; the proof names the witness and lets lia check it."""
    kind = rng.randrange(3)
    if kind == 0:
        a, x0, b = nonzero(rng, -12, 12), rng.randint(-30, 30), rng.randint(-40, 40)
        return Draft((), (), f"exists x : Z, {linear([a], ['x'], b, 'Z')} = {standalone(a * x0 + b, 'Z')}",
                     f"exists {literal(x0, 'Z')}. lia.")
    if kind == 1:
        r1, r2 = sorted(rng.sample(range(-12, 13), 2))
        pick_large = rng.random() < 0.5
        root = r2 if pick_large else r1
        side = f"{standalone(r1, 'Z')} < x" if pick_large else f"x < {standalone(r2, 'Z')}"
        quadratic = polynomial({(2,): 1, (1,): -(r1 + r2), (0,): r1 * r2}, ("x",), "Z")
        return Draft((), (), f"exists x : Z, {conjunction([f'{quadratic} = 0', side])}",
                     f"exists {literal(root, 'Z')}. lia.")
    while True:
        rows = [[nonzero(rng, -6, 6), nonzero(rng, -6, 6)] for _ in range(2)]
        if rows[0][0] * rows[1][1] != rows[0][1] * rows[1][0]:
            break
    solution = [rng.randint(-12, 12), rng.randint(-12, 12)]
    equations = [f"{linear(row, ['x', 'y'], 0, 'Z')} = {standalone(row[0] * solution[0] + row[1] * solution[1], 'Z')}"
                 for row in rows]
    return Draft((), (), f"exists x y : Z, {conjunction(equations)}",
                 f"exists {literal(solution[0], 'Z')}, {literal(solution[1], 'Z')}. lia.")


FAMILIES = (
    Family("fe_instantiate", "functional equations: instantiating at points", "R", 1000, fe_instantiate),
    Family("fe_two_points", "functional equations: instantiating at points", "R", 1000, fe_two_points),
    Family("recurrence_unroll", "recurrences unrolled to a term", "R", 800, recurrence_unroll),
    Family("iter_induction", "closed forms by induction", "nat", 400, iter_induction),
    Family("abs_cases", "absolute value by cases", "R", 700, abs_cases),
    Family("exists_witness", "existence by a witness", "Z", 900, exists_witness),
)
