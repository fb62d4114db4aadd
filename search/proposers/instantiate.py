"""Instantiation: `forall` hypotheses (and premises) specialised at points chosen from the goal, then
the decision procedures.

Shape: a goal with a hypothesis `H : forall x : R, …` (or over nat/Z, one or two binders) whose
instances at a few points decide the goal — `f (x + 3) = 3 * x ^ 2 + 7 * x + 4` with `f x = a *
x ^ 2 + b * x + c` for `a + b + c = 2` (points −2 and 1), `forall x, x ^ 2 + a * x + b = (x - a)
* (x - b)` (the factor zeros a, b and 0, 1), `s (S (S n)) = s (S n) + s n` with `s 9 = 110`
(n = 0 … 9), `forall a b, 0 < a -> 0 < b -> s a b = a ^ b + b ^ a` for `s 2 6 = 100`.

Why: the policy cannot compute which points to instantiate at, and lra/lia never instantiate a
quantifier. The points: (1) *matched* — for `f (t(x))` in the hypothesis and a closed `f (v)`
elsewhere in the goal, the x with t(x) = v (t linear in x; sympy's degree-1 `Poly`, no solving);
(2) *small* — 0, 1, −1, 2 and the goal's own integer constants, pushed through `t` the same way;
(3) *factor zeros* — the roots of the hypothesis's linear factors in x; (4) *recurrence* — every
n from 0 to the largest index at which the goal applies the sequence (at most 30). A point that
falsifies the hypothesis's own premises numerically is dropped before it reaches Coq.

Coq route, one sentence: `intros; pose proof (H (v)%R ltac:(PREMISE)) as i0; …; CLOSE`, each
point printed by `expr.coq_scoped`; a premise (`0 < x`, `(n >= 3)%nat`) proved inline by
`first [lia | lra | (repeat split; first [lia | lra | reflexivity])]`. A compound argument is
folded back to the goal's own term (`match type of i0 with context [f ?t] => replace t with (v)%R
in i0 by lra end`) so lra sees one atom `f 1`, not `f (-2 + 3)`; nat indices are normalised by
`cbn [Nat.add Nat.sub Nat.mul] in i0 …`. CLOSE is `first [lra | nra]` over R, `first [lia | nia]`
over nat/Z. Proposals, most specific first: matched points; all points; the recurrence range;
all points without the close (a progress step). At most 4, each under `timeout 3`.

Cost: ~1–5 ms per goal with a forall hypothesis (sympy's `Poly` for each compound argument,
bounded by `search.proposers.cas.bounded`); nothing otherwise. Train split (353 goals): proposes
on 76, 206 tactics, 8.3 prover-seconds in all; closes 13 problems, 5 not closed by the fixed
list's one-step automation.
"""

from __future__ import annotations

import re
from fractions import Fraction

import sympy  # imported here, not inside the bounded call: the first import alone takes ~0.5 s

from search.proposers.base import GoalContext, Proposer, ProposerSkipped, goal_context
from search.proposers.cas import bounded, holds_numerically
from search.proposers.expr import (App, Bin, Conn, Expr, Neg, Not, Num, Prop, Rel, Var, coq_scoped, from_sympy,
                                   number, substitute, to_sympy, variables)
from search.proposers.field_side import REAL_FUNCTIONS, parse_or_none

SECONDS = 3
NUMERIC = ("R", "nat", "Z")
PREMISE = "first [ lia | lra | (repeat split; first [ lia | lra | reflexivity ]) ]"
MAX_POINTS, MAX_RECURRENCE = 8, 30


def unparen(text: str) -> str:
    """A text without the parentheses that enclose all of it (`(forall x, …)` → `forall x, …`)."""
    text = text.strip()
    while text.startswith("(") and text.endswith(")"):
        depth = 0
        for i, char in enumerate(text):
            depth += (char == "(") - (char == ")")
            if depth == 0 and i < len(text) - 1:
                return text
        text = text[1:-1].strip()
    return text


def _succ(node):
    """`S t` read as `t + 1` (Coq prints small nat successors that way in recurrences)."""
    if isinstance(node, App) and node.func == "S" and len(node.args) == 1:
        return Bin("+", _succ(node.args[0]), Num(Fraction(1)))
    if isinstance(node, Bin):
        return Bin(node.op, _succ(node.left), _succ(node.right))
    if isinstance(node, Neg):
        return Neg(_succ(node.arg))
    if isinstance(node, App):
        return App(node.func, tuple(_succ(a) for a in node.args))
    return node


def applications(node) -> list[App]:
    """Every application of a goal's own function (not sqrt, INR, S, …) in a tree."""
    out: list[App] = []

    def walk(n) -> None:
        if isinstance(n, App):
            if n.func not in REAL_FUNCTIONS and n.func != "S":
                out.append(n)
            for a in n.args:
                walk(a)
        elif isinstance(n, (Bin, Rel, Conn)):
            walk(n.left)
            walk(n.right)
        elif isinstance(n, (Neg, Not)):
            walk(n.arg)

    walk(node)
    return out


def solve_linear(term: Expr, binder: str, value: Expr, types: dict[str, str]) -> Expr | None:
    """The x with term(x) = value when term is linear in x (else None), as an `Expr`."""
    term, value = _succ(term), _succ(value)
    if term == Var(binder):
        return value
    if binder not in variables(term) or binder in variables(value):
        return None

    def solve():
        symbol = to_sympy(Var(binder), types)
        poly = sympy.Poly(sympy.expand(to_sympy(term, types) - to_sympy(value, types)), symbol)
        if poly.degree() != 1:
            return None
        return from_sympy(sympy.nsimplify(-poly.coeff_monomial(1) / poly.coeff_monomial(symbol)))

    try:
        return bounded(solve, 0.3)
    except Exception:  # an odd tree sympy cannot read: no point from it
        return None


def _numerals(node, out: set[int]) -> None:
    if isinstance(node, Num) and node.value.denominator == 1 and abs(node.value) <= 1000:
        out.add(int(node.value))
    for child in (getattr(node, "left", None), getattr(node, "right", None), getattr(node, "arg", None)):
        if child is not None:
            _numerals(child, out)
    for child in getattr(node, "args", ()):
        _numerals(child, out)


def _factor_roots(node, binder: str, types: dict[str, str]) -> list[Expr]:
    """Roots of the linear factors in `binder` of the products in a tree (`(x - a) * (x - b)`: a, b)."""
    roots: list[Expr] = []
    if isinstance(node, Bin) and node.op == "*":
        for side in (node.left, node.right):
            if isinstance(side, Bin) and side.op in "+-" and binder in variables(side):
                root = solve_linear(side, binder, Num(Fraction(0)), types)
                if root is not None:
                    roots.append(root)
    for child in (getattr(node, "left", None), getattr(node, "right", None), getattr(node, "arg", None)):
        if child is not None:
            roots.extend(_factor_roots(child, binder, types))
    return roots


def _instance(hyp: str, values: tuple[Expr, ...], binders, premises: int, index: int,
              folds: list[tuple[Expr, Expr]]) -> str:
    """`pose proof (H v… ltac:(…)…) as iK` and its fold-back steps, for one point: `replace (t[x:=v])
    with (target)` — the instance's argument text, printed as Coq will print the instance's own,
    since both are Coq's reading of the same printed point."""
    args = " ".join(coq_scoped(v, "nat" if t == "nat" else t) for v, (_, t) in zip(values, binders))
    proofs = "".join(f" ltac:({PREMISE})" for _ in range(premises))
    name = f"i{index}"
    steps = [f"pose proof ({hyp} {args}{proofs}) as {name}"]
    for term, target in folds:
        instance = term
        for value, (binder, _) in zip(values, binders):
            instance = substitute(instance, {binder: value})
        steps.append(f"try (replace {coq_scoped(instance, 'R')} with {coq_scoped(target, 'R')} in {name} by lra)")
    return "; ".join(steps)


def instantiate_tactics(context: GoalContext) -> list[str]:
    """The instantiation sentences for a goal (see the module docstring)."""
    types = {n: t for n, t in context.variables.items() if t in NUMERIC}
    facts = context.facts_after_intros()
    foralls, others = [], []
    for name, text in facts:
        text = unparen(text)
        if text.startswith("forall"):
            inner = goal_context("⊢ " + text)
            if inner.binders and len(inner.binders) <= 2 and all(t in NUMERIC for _, t in inner.binders):
                foralls.append((name, inner))
                continue
        if (prop := parse_or_none(text)) is not None:
            others.append(prop)
    if not foralls:
        raise ProposerSkipped("no forall hypothesis over R, nat or Z")
    conclusion = parse_or_none(context.conclusion)
    if conclusion is not None:
        others.append(conclusion)
    closed_apps = [a for o in others for a in applications(o)]
    constants: set[int] = set()
    for o in others:
        _numerals(o, constants)
    small = [0, 1, -1, 2] + sorted(c for c in constants if c not in (0, 1, -1, 2))[:4]

    sets: dict[str, list[tuple]] = {"matched": [], "all": [], "recurrence": []}
    for hyp, inner in foralls:
        local = dict(types, **dict(inner.binders))
        body = parse_or_none(inner.conclusion)
        if body is None:
            continue
        premises = [p for p in (parse_or_none(t) for t in inner.premises)]
        binders = inner.binders
        own = applications(body)
        candidates: dict[str, list[tuple[tuple[Expr, ...], list]]] = {"matched": [], "all": [], "recurrence": []}
        # (1) matched: f (t(x)) here, f (v) closed elsewhere
        for app in own:
            for other in closed_apps:
                if other.func != app.func or len(other.args) != len(app.args):
                    continue
                if any(b in variables(a) for a in other.args for b, _ in binders):
                    continue
                point, folds = {}, []
                for term, value in zip(app.args, other.args):
                    bound = [b for b, _ in binders if b in variables(term)]
                    if len(bound) != 1:
                        continue
                    solved = solve_linear(term, bound[0], value, local)
                    if solved is not None:
                        point[bound[0]] = solved
                        if _succ(term) != Var(bound[0]) and local.get(bound[0]) == "R":
                            folds.append((term, value))
                if len(point) == len(binders):
                    candidates["matched"].append((tuple(point[b] for b, _ in binders), folds))
        if len(binders) == 1:
            binder, kind = binders[0]
            # (2) small points, through the function's argument when it is compound
            compound = [a for a in own if len(a.args) == 1 and binder in variables(a.args[0])
                        and _succ(a.args[0]) != Var(binder)]
            for s in small:
                if kind == "nat" and s < 0:
                    continue
                target = number(s)
                if compound and kind == "R":
                    solved = solve_linear(compound[0].args[0], binder, target, local)
                    if solved is not None:
                        candidates["all"].append(((solved,), [(compound[0].args[0], target)]))
                candidates["all"].append(((target,), []))
            # (3) factor zeros
            for root in _factor_roots(body, binder, local):
                candidates["all"].insert(0, ((root,), []))
            # (4) recurrence over nat
            indices = [int(a.args[0].value) for a in closed_apps if len(a.args) == 1 and isinstance(a.args[0], Num)
                       and any(o.func == a.func for o in own)]
            if kind == "nat" and indices and any(o.func for o in own):
                top = min(max(indices), MAX_RECURRENCE)
                candidates["recurrence"] = [((number(n),), []) for n in range(top + 1)]
        candidates["all"] = candidates["matched"] + candidates["all"]
        for kind_name, points in candidates.items():
            seen, kept = set(), []
            for values, folds in points:
                key = tuple(map(repr, values))
                if key in seen or not _premises_hold(premises, binders, values, local):
                    continue
                seen.add(key)
                kept.append((values, folds))
            limit = MAX_RECURRENCE + 1 if kind_name == "recurrence" else MAX_POINTS
            sets[kind_name].extend((hyp, values, binders, len(inner.premises), folds) for values, folds in kept[:limit])
    nat_args = any(t == "nat" for _, inner in foralls for _, t in inner.binders)
    real_goal = conclusion is not None and any(types.get(v) == "R" for v in variables(conclusion)) or \
        bool(re.search(r"\bR\b", " ".join(t for _, t in context.hypotheses + context.binders)))
    close = "first [ lra | nra ]" if real_goal else "first [ lia | nia ]"
    prefix = [] if context.introduced else ["intros"]
    out = []
    for kind_name, closing in (("matched", True), ("all", True), ("recurrence", True), ("all", False)):
        if not sets[kind_name]:
            continue
        steps = [_instance(hyp, values, binders, premises, index, folds)
                 for index, (hyp, values, binders, premises, folds) in enumerate(sets[kind_name])]
        names = ", ".join(f"i{index}" for index in range(len(steps)))
        normalise = [f"cbn [Nat.add Nat.sub Nat.mul] in {names}"] if nat_args else []
        out.append("; ".join(prefix + steps + normalise + ([close] if closing else [])))
    return list(dict.fromkeys(out))


def _premises_hold(premises: list[Prop | None], binders, values: tuple[Expr, ...], types: dict[str, str]) -> bool:
    """False only when a premise is definitely false at the point (numbers only; other names unknown)."""
    point = {}
    for (name, _), value in zip(binders, values):
        if isinstance(value, Num):
            point[name] = value.value
        elif isinstance(value, Neg) and isinstance(value.arg, Num):
            point[name] = -value.arg.value
    return all(p is None or holds_numerically(p, point, types) is not False for p in premises)


PROPOSERS: tuple[Proposer, ...] = (
    Proposer("instantiate", SECONDS, instantiate_tactics, computed=True,
             marker=re.compile(r"pose proof \(\S+ [^)]*\) as i\d")),
)

__all__ = ["PROPOSERS", "applications", "instantiate_tactics", "solve_linear"]
