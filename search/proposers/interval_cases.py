"""Interval cases: a nat/Z variable the hypotheses bound is split into one goal per value.

Shape: an integer unknown pinned to a small range by the hypotheses — `0 < x`, `x < 10`,
`2 <= x <= 9`, `x * y + x + y = 80` with x, y nonnegative (so x <= 80), `x ^ 2 < 50` — where the
conclusion follows value by value but not from the bounds at once (Lean's `interval_cases`; the
factory's `bounded_cases`, amc12a_2015_p10's proof). Micromega does not enumerate: nia closes the
sum-and-product systems, not a nonlinear equation whose solutions are isolated integers.

Bounds are computed in Python from the parsed hypotheses (`search.proposers.expr`), never trusted:
  * a relation in one variable is evaluated on a window of integers (-200 … 200, nat from 0); the
    least and greatest values where it holds, when strictly inside the window, bound it;
  * a relation `L op R` between monotone expressions (+, *, ^ over nonnegative numerals and
    variables with nonnegative lower bounds, no `-` or `/`) bounds each variable of L from above by
    R's largest value (its variables at their upper bounds) with L's other variables at their lower
    bounds, and a lone variable R from below by L's least value (so `y < x` carries bounds across;
    lower bounds through products are carried only in a second, tighter set of proposals: they are
    true of the solutions but nia may not check them in one call); three rounds of propagation.
Coq checks what Python guessed: `assert (lo <= v <= hi)` by nia, the disjunction of the values by
lia, `destruct` into one goal per value, `subst v`, then each case closed by the decision procedures
(`lia`, `nia`, `simpl in *` then lia, `reflexivity`, `discriminate`) — one guard-accepted sentence,
no bullets. A range past 40 values (two variables: 100 cases) is not proposed.

Cost: ~1–5 ms of Python per goal (reading the facts is cached); at most 5 tactics, each under
`timeout 3`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable

from search.proposers.base import GoalContext, Proposer, ProposerSkipped, or_pattern
from search.proposers.cas import INTEGRAL, ArithGoal, evaluate, holds_numerically, read_goal
from search.proposers.expr import Bin, Conn, Expr, Num, Prop, Rel, Unsupported, Var, coq, number, variables

#: the most values one split enumerates, and the most cases of a two-variable split
MAX_VALUES = 40
MAX_PAIR_CASES = 100
#: the integers a one-variable relation is evaluated on
WINDOW = 200
#: how each case is closed after `subst` (the first that works)
CLOSE = "first [lia | nia | (simpl in *; lia) | reflexivity | discriminate | (simpl in *; nia)]"

Bounds = dict[str, tuple[float | None, float | None]]


def relations(props: Iterable[Prop]) -> list[Rel]:
    """The relations of a list of propositions, conjunctions flattened, `>`/`>=` turned around."""
    out: list[Rel] = []
    for prop in props:
        if isinstance(prop, Conn) and prop.op == "/\\":
            out.extend(relations([prop.left, prop.right]))
        elif isinstance(prop, Rel):
            flip = {">": "<", ">=": "<="}
            out.append(Rel(flip[prop.op], prop.right, prop.left) if prop.op in flip else prop)
    return out


def _monotone(node: Expr) -> bool:
    """Whether an expression is nondecreasing in every variable on nonnegative values: +, * and
    numeral powers of nonnegative integer numerals and variables (a variable exponent is left out:
    nia cannot prove the bound it gives)."""
    if isinstance(node, Num):
        return node.value >= 0 and node.value.denominator == 1
    if isinstance(node, Var):
        return True
    if isinstance(node, Bin) and node.op == "^":
        return _monotone(node.left) and isinstance(node.right, Num)
    if isinstance(node, Bin) and node.op in "+*":
        return _monotone(node.left) and _monotone(node.right)
    return False


def _scan(fits, start: int, step: int, limit: int) -> int | None:
    """The last value from `start` (moving by `step`) for which `fits` holds before it first fails,
    None when it never fails within `limit` steps (no bound) or fails at once."""
    value = start
    if not fits(value):
        return None
    for _ in range(limit):
        if not fits(value + step):
            return value
        value += step
    return None


def _one_variable(rel: Rel, name: str, types: dict[str, str], bounds: Bounds) -> None:
    low = 0 if types[name] == "nat" else -WINDOW
    holds = [v for v in range(low, WINDOW + 1) if holds_numerically(rel, {name: v}, types, tolerance=0) is True]
    if holds:
        _tighten(bounds, name, holds[0] if holds[0] > low or low == 0 else None,
                 holds[-1] if holds[-1] < WINDOW else None)


def _tighten(bounds: Bounds, name: str, lo: float | None, hi: float | None) -> None:
    old_lo, old_hi = bounds.get(name, (None, None))
    if lo is not None and (old_lo is None or lo > old_lo):
        old_lo = lo
    if hi is not None and (old_hi is None or hi < old_hi):
        old_hi = hi
    bounds[name] = (old_lo, old_hi)


def _side_bound(side: Expr, bounds: Bounds, which: int) -> float | None:
    """The least (which=0) or greatest (which=1) value of a monotone side over the known bounds."""
    point = {}
    for name in variables(side):
        value = bounds.get(name, (None, None))[which]
        if value is None:
            return None
        point[name] = value
    try:
        return evaluate(side, point)
    except (Unsupported, OverflowError):
        return None


def _monotone_step(rel: Rel, types: dict[str, str], bounds: Bounds, products: bool) -> None:
    """Bounds carried across one relation between monotone sides (see the module docstring)."""
    pairs = [(rel.left, rel.right, rel.op == "<")]
    if rel.op == "=":
        pairs.append((rel.right, rel.left, False))
    for small, big, strict in pairs:
        names = variables(small) + variables(big)
        lows = [bounds.get(n, (None, None))[0] for n in names]
        if not (_monotone(small) and _monotone(big)) or any(types.get(n) not in INTEGRAL for n in names) \
                or any(lo is None or lo < 0 for lo in lows):
            continue
        top = _side_bound(big, bounds, 1)
        if top is not None:
            for name in variables(small):
                others = {n: bounds[n][0] for n in variables(small) if n != name}
                fits = (lambda v, name=name, others=others: evaluate(small, {**others, name: v}) < top
                        if strict else evaluate(small, {**others, name: v}) <= top)
                _tighten(bounds, name, None, _scan(fits, bounds[name][0], 1, 4 * WINDOW))
        bottom = _side_bound(small, bounds, 0)
        if bottom is None or not (products or isinstance(big, Var)):  # see integer_bounds
            continue
        for name in variables(big):
            others = {n: bounds.get(n, (None, None))[1] for n in variables(big) if n != name}
            if any(v is None for v in others.values()):
                continue
            lo = bounds[name][0]
            while lo is not None and lo < WINDOW and not (
                    evaluate(big, {**others, name: lo}) > bottom if strict else evaluate(big, {**others, name: lo}) >= bottom):
                lo += 1
            _tighten(bounds, name, lo, None)


def integer_bounds(goal: ArithGoal, products: bool = False) -> Bounds:
    """name → (lo, hi) of every integer variable, None where no bound was found. With `products`,
    lower bounds are carried through products too (tighter, but true only of the solutions, so
    nia may fail to check them in one call: aime_1991_p1-like systems need them)."""
    types = {n: t for n, t in goal.types.items() if t in INTEGRAL}
    bounds: Bounds = {n: (0 if t == "nat" else None, None) for n, t in types.items()}
    rels = relations(f.prop for f in goal.hypotheses)
    for rel in rels:
        names = variables(rel)
        if rel.op == "<>" and len(names) == 1 and isinstance(rel.right, Num) and isinstance(rel.left, Var) \
                and rel.right.value == 0 and types.get(names[0]) == "nat":
            _tighten(bounds, names[0], 1, None)
        elif len(names) == 1 and names[0] in types and rel.op != "<>":
            _one_variable(rel, names[0], types, bounds)
    for _ in range(3):
        for rel in rels:
            if rel.op in ("<", "<=", "=") and len(variables(rel)) > 1:
                try:
                    _monotone_step(rel, types, bounds, products)
                except (Unsupported, OverflowError, ValueError):
                    continue
    return bounds


def _split(name: str, lo: int, hi: int, scope: str) -> str:
    """Assert the range by nia, its values by lia, and destruct into one goal per value."""
    values = range(lo, hi + 1)
    return (f"assert (hbound_{name} : ({coq(number(lo))} <= {name} <= {coq(number(hi))})%{scope}) by nia; "
            f"assert (hcase : (" + " \\/ ".join(f"{name} = {coq(number(v))}" for v in values) + f")%{scope}) by lia; "
            f"destruct hcase as {or_pattern('hcase', len(values))}; subst {name}")


def interval_cases(context: GoalContext) -> list[str]:
    """The split tactics for the goal's bounded integer variables, smallest range first."""
    goal = read_goal(context)
    out = _tactics(goal, integer_bounds(goal))
    tight = _tactics(goal, integer_bounds(goal, products=True))
    out = out[:3] + [t for t in tight[:2] if t not in out]
    if not out:
        raise ProposerSkipped("no bounded integer variable")
    return out[:5]


def _tactics(goal: ArithGoal, bounds: Bounds) -> list[str]:
    ranged = sorted(((int(hi) - int(lo) + 1, name, int(lo), int(hi)) for name, (lo, hi) in bounds.items()
                     if lo is not None and hi is not None and 2 <= hi - lo + 1 <= MAX_VALUES
                     and Fraction(lo).denominator == 1),
                    key=lambda item: (item[0], item[1]))
    if not ranged:
        return []
    out = []
    for size, name, lo, hi in ranged[:2]:
        scope = "nat" if goal.types[name] == "nat" else "Z"
        out.append(f"{goal.prefix}{_split(name, lo, hi, scope)}; {CLOSE}")
    for i, (size_a, a, lo_a, hi_a) in enumerate(ranged[:3]):
        for size_b, b, lo_b, hi_b in ranged[i + 1:3]:
            if size_a * size_b <= MAX_PAIR_CASES:
                scope_a = "nat" if goal.types[a] == "nat" else "Z"
                scope_b = "nat" if goal.types[b] == "nat" else "Z"
                out.append(f"{goal.prefix}{_split(a, lo_a, hi_a, scope_a)}; "
                           f"{_split(b, lo_b, hi_b, scope_b).replace('hcase', 'hcase2')}; {CLOSE}")
    size, name, lo, hi = ranged[0]  # the split alone, the impossible cases dropped by lia: the rest
    scope = "nat" if goal.types[name] == "nat" else "Z"  # (one case, often) is left to the search
    out.append(f"{goal.prefix}{_split(name, lo, hi, scope)}; try lia")
    return out


PROPOSERS = (Proposer("interval_cases", 3, interval_cases, computed=True),)

__all__ = ["PROPOSERS", "integer_bounds", "interval_cases", "relations"]
