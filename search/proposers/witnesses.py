"""*Witnesses*: values for an `exists x, P x` conclusion (or `exists x y, …`), then close.

Shape: a conclusion `exists (x : T) …, P` with T among R, Z, nat and P an arithmetic proposition
(relations joined by `/\\`, `\\/`, `~`) over the witnesses and the goal's variables, e.g.
`exists x : R, 2 * x + 1 = 7 /\\ 0 < x`, `exists n : nat, n * n = 49`, `forall a, exists x, x + a = 2 * a`.

Why: a witness is a number (or a term) to compute; the policy writes `exists 3` only when it has
seen that very number, and no decision procedure instantiates an existential.

Where the values come from, most promising first:
  1. sympy solves P's equations for the witnesses (a value may be a term in the goal's other
     variables: `exists x, x + a = 2 * a` gets `a`);
  2. a bounded search: small integers (0..50 for nat, -50..50 for Z, -20..20 for R), simple
     fractions p/q (q ≤ 4) for R, and the goal's own numerals; fewer per witness for two or three.
The numeric check: a candidate is kept only when P holds at it — at the goal's other variables'
sampled values satisfying the hypotheses when P mentions them — so a false witness never reaches Coq.

Coq route: `exists (v)%R; lra` (nra; lia/nia for nat/Z), and `exists v, w; …` for several, the
numerals scoped; plus the bare `exists v` as a progress step for the first candidate.

Cost: one `sympy.solve` under `CAS_SECONDS` and ≤ ~2,000 tree evaluations; typically 5–40 ms.
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction
from typing import Any

from search.proposers.base import GoalContext, Proposer, ProposerSkipped
from search.proposers.cas import (CAS_SECONDS, INTEGRAL, ArithGoal, bounded, evaluate, holds_numerically, per_goal,
                                  read_goal, sample_points)
from search.proposers.expr import (App, Expr, Neg, Num, Prop, Rel, Unsupported, coq_scoped, from_sympy, number, parse_prop,
                                   to_sympy, variables)
from search.proposers.solve_assert import conjuncts

_EXISTS = re.compile(r"^exists\s+")
_GROUP = re.compile(r"\(\s*([A-Za-z_][\w']*(?:\s+[A-Za-z_][\w']*)*)\s*:\s*([A-Za-z_][\w.]*)\s*\)")
_BARE = re.compile(r"^([A-Za-z_][\w']*(?:\s+[A-Za-z_][\w']*)*)\s*:\s*([A-Za-z_][\w.]*)\s*,")
WITNESS_TYPES = ("R", "Z", "nat")
#: the most candidates offered, and the search ranges by type (per witness, for one witness)
MAX_CANDIDATES = 3


def split_exists(conclusion: str) -> tuple[list[tuple[str, str]], str] | None:
    """`exists (x : R) (y : R), P` / `exists x y : nat, P` → ([(x, R), (y, R)], P); None otherwise.
    Nested `exists` are merged (`exists x, exists y, P`)."""
    rest, binders = conclusion.strip(), []
    while _EXISTS.match(rest):
        rest = _EXISTS.sub("", rest, count=1)
        if rest.startswith("("):
            while (match := _GROUP.match(rest)):
                binders += [(name, match.group(2)) for name in match.group(1).split()]
                rest = rest[match.end():].lstrip()
            if not rest.startswith(","):
                return None
            rest = rest[1:].strip()
        else:
            match = _BARE.match(rest)
            if not match:
                return None
            binders += [(name, match.group(2)) for name in match.group(1).split()]
            rest = rest[match.end():].strip()
    return (binders, rest) if binders else None


def _small_values(kind: str, count: int, constants: list[Fraction]) -> list[Fraction]:
    """The search's candidates for one witness of a type, most plausible first."""
    span = {1: 50, 2: 20}.get(count, 8)
    if kind == "nat":
        values = [Fraction(n) for n in range(0, span + 1)]
    elif kind in INTEGRAL:
        values = [Fraction(sign * n) for n in range(0, span + 1) for sign in (1, -1)]
    else:
        span = min(span, 20)
        values = [Fraction(sign * n) for n in range(0, span + 1) for sign in (1, -1)]
        values += [Fraction(sign * p, q) for q in (2, 3, 4) for p in range(1, 4 * q) for sign in (1, -1)
                   if Fraction(p, q).denominator == q]
    extra = [c for c in constants if kind not in INTEGRAL or c.denominator == 1 and (kind != "nat" or c >= 0)]
    return list(dict.fromkeys(extra + values))


def _constants(prop: Prop) -> list[Fraction]:
    found: list[Fraction] = []

    def walk(node: Any) -> None:
        if isinstance(node, Num):
            found.append(node.value)
        for child in getattr(node, "__dict__", {}).values():
            if isinstance(child, tuple):
                for item in child:
                    walk(item)
            elif hasattr(child, "__dict__"):
                walk(child)

    walk(prop)
    return list(dict.fromkeys(found))[:12]


def _holds_everywhere(body: Prop, assignment: dict[str, Any], points: list[dict[str, Any]],
                      types: dict[str, str]) -> bool:
    """Whether the body holds with the witnesses' values at every sampled point (a term witness is
    evaluated at the point)."""
    for point in points:
        try:
            values = {name: evaluate(expr, point, types) for name, expr in assignment.items()}
        except Unsupported:
            return False
        if holds_numerically(body, {**point, **values}, types) is not True:
            return False
    return True


def _solved(goal: ArithGoal, body: Prop, witnesses: list[str], types: dict[str, str]) -> list[dict[str, Expr]]:
    import sympy
    rels = [r for r in conjuncts(body) if isinstance(r, Rel) and r.op == "="]
    if not rels:
        return []
    real = {name: "R" for name in types}
    system = [to_sympy(r.left, real) - to_sympy(r.right, real) for r in rels]
    symbols = [sympy.Symbol(name, real=True) for name in witnesses]
    out = []
    for solution in bounded(sympy.solve, CAS_SECONDS, system, symbols, dict=True):
        if set(solution) != set(symbols):
            continue
        try:
            out.append({s.name: from_sympy(v) for s, v in solution.items()})
        except Unsupported:
            continue
    return out


@per_goal()
def _proposals(context: GoalContext) -> list[str]:
    split = split_exists(context.conclusion)
    if split is None:
        raise ProposerSkipped("the conclusion is not an existential")
    binders, body_text = split
    if not all(kind in WITNESS_TYPES for _, kind in binders) or len(binders) > 3:
        raise ProposerSkipped("a witness of another type")
    goal = read_goal(context)
    body = parse_prop(body_text)
    witnesses = [name for name, _ in binders]
    types = {**goal.types, **dict(binders)}
    others = [n for n in variables(body) if n not in witnesses]
    if any(n not in goal.types for n in others):
        raise ProposerSkipped("the body names an untyped variable")
    points = sample_points([f.prop for f in goal.hypotheses], goal.types, others, count=6) if others else [{}]
    if not points:
        raise ProposerSkipped("no sampled point satisfies the hypotheses")
    candidates: list[dict[str, Expr]] = []
    for assignment in _solved(goal, body, witnesses, types):
        if _holds_everywhere(body, assignment, points, types) and _admissible(assignment, types, points):
            candidates.append(assignment)
    constants = _constants(body)
    ranges = [_small_values(kind, len(binders), constants) for _, kind in binders]
    for combo in itertools.islice(itertools.product(*ranges), 4000):
        if len(candidates) >= MAX_CANDIDATES:
            break
        assignment = {name: number(value) for name, value in zip(witnesses, combo)}
        if assignment not in candidates and _holds_everywhere(body, assignment, points, types):
            candidates.append(assignment)
    if not candidates:
        raise ProposerSkipped("no witness found")
    scope = "R" if any(kind == "R" for _, kind in binders) else "Z" if any(k == "Z" for _, k in binders) else "nat"
    finishers = ("lia", "nia") if scope != "R" else ("lra", "nra")
    p = goal.prefix
    out = []
    candidates.sort(key=lambda a: any(isinstance(e, Neg) for e in a.values()))  # positive roots first
    for assignment in candidates[:MAX_CANDIDATES]:
        terms = ", ".join(coq_scoped(assignment[name], kind) for name, kind in binders)
        hints = "".join(f"pose proof (sqrt_sqrt {a} ltac:(lra)); pose proof (sqrt_pos {a}); "
                        for a in (coq_scoped(arg, "R") for arg in _sqrt_arguments(assignment.values())))
        out += [f"{p}exists {terms}; {hints}{finisher}" for finisher in finishers]
    first = ", ".join(coq_scoped(candidates[0][name], kind) for name, kind in binders)
    return out[:7] + [f"{p}exists {first}"]


def _sqrt_arguments(exprs: Any) -> list[Expr]:
    """The arguments of the `sqrt` applications in the witnesses (each gets its `sqrt_sqrt` fact)."""
    found: list[Expr] = []

    def walk(node: Any) -> None:
        if isinstance(node, App) and node.func == "sqrt" and node.args[0] not in found:
            found.append(node.args[0])
        for child in (getattr(node, "args", ()) if isinstance(node, App) else
                      [getattr(node, a) for a in ("arg", "left", "right") if hasattr(node, a)]):
            walk(child)

    for expr in exprs:
        walk(expr)
    return found


def _admissible(assignment: dict[str, Expr], types: dict[str, str], points: list[dict[str, Any]]) -> bool:
    """Whether a solved witness has its type's values (integral for Z, non-negative too for nat) at
    every sampled point."""
    for point in points:
        for name, expr in assignment.items():
            kind = types.get(name, "R")
            if kind == "R":
                continue
            try:
                value = evaluate(expr, point, types)
            except Unsupported:
                return False
            if not isinstance(value, Fraction) or value.denominator != 1 or (kind == "nat" and value < 0):
                return False
    return True



WITNESSES = Proposer(name="witnesses", seconds=3, generate=_proposals, computed=True)
PROPOSERS: tuple[Proposer, ...] = (WITNESSES,)

__all__ = ["PROPOSERS", "WITNESSES", "split_exists"]
