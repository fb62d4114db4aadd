"""Distinct roots: two different values satisfy one equation; cancel their nonzero difference.

Shape (docs/factory_skills.md, *two distinct values of one equation*; the factory's
`distinct_roots`): a hypothesis `u <> v` and either one equation `E(u) = E(v)` (amc12a_2013_p8's
`x + 2/x = y + 2/y`), or two `P(u) = c`, `P(v) = c` — written out or through a function defined by
`forall x, f x = …` — with a conclusion about u and v (their sum, product, a quotient of them).
Micromega reads `<>` but does not divide by `u - v`: the step it misses is the difference quotient.

The CAS (sympy, bounded, cached per goal) computes q = (E(u) - E(v)) / (u - v) (`cancel`), its
numerator N printed through `expr.coq`; for a quadratic P also Vieta's u + v = -B/A and
u v = C/A. Coq route (the factory's, checked in Coq 8.16.1): `rewrite_functions` (the prelude's
loop) when a function is defined, `assert (hdr : ((u - v) * N = 0)%R)` by nra (or after
`field_simplify_eq` of the equation where it has denominators), `apply Rmult_integral in hdr;
destruct hdr as [hdr|hdr]; [exfalso; apply H; lra | …]`, then the sum and product asserted by nra
and the goal closed by lra, nra or `field_simplify_eq` with its side conditions by `intro; nra`.
The factor is exact by construction (N (u - v) / D is E(u) - E(v) as rational functions), so no
numeric check is needed; a goal whose equations are not of the shape gives no proposal.

Cost: ~5–30 ms of Python per goal with a `<>` (sympy cancel/Poly, bounded at 0.5 s); at most 4
tactics, each under `timeout 3`.
"""

from __future__ import annotations

import re

from search.proposers.base import GoalContext, Proposer, ProposerSkipped
from search.proposers.cas import bounded, per_goal
from search.proposers.expr import (App, Bin, Expr, Neg, Rel, Unsupported, coq, from_sympy, parse_expr, parse_prop,
                                   substitute, to_sympy)

_DEFINITION = re.compile(r"^forall\s*\(?\s*(\w+)\s*(?::\s*R\s*)?\)?\s*,\s*(\w+)\s+\1\s*=\s*(.+)$")
CLOSE = ("first [lra | nra | (field_simplify_eq; first [nra | (intro; nra)]) "
         "| (field_simplify_eq; auto; nra)]")


def _expand(node, definitions: dict[str, tuple[str, Expr]]):
    """A tree with every application of a defined function replaced by its body at the argument."""
    if isinstance(node, App):
        args = tuple(_expand(a, definitions) for a in node.args)
        if node.func in definitions and len(args) == 1:
            var, body = definitions[node.func]
            return substitute(body, {var: args[0]})
        return App(node.func, args)
    if isinstance(node, Neg):
        return Neg(_expand(node.arg, definitions))
    if isinstance(node, (Bin, Rel)):
        return type(node)(node.op, _expand(node.left, definitions), _expand(node.right, definitions))
    return node


@per_goal()
def _plan(context: GoalContext) -> tuple[list[tuple[str, str, str, list[str], bool]], bool]:
    """(neq name, u, v text, factor text, side asserts, has denominators) plans, and whether
    functions were defined."""
    import sympy

    types = {n: t for n, t in context.variables.items() if t == "R"}
    definitions: dict[str, tuple[str, Expr]] = {}
    equations: list[tuple[str, Rel]] = []
    neqs: list[tuple[str, Rel]] = []
    for name, text in context.facts_after_intros():
        text = text.strip()
        while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
            text = text[1:-1].strip()
        match = _DEFINITION.match(text)
        if match:
            try:
                definitions[match.group(2)] = (match.group(1), parse_expr(match.group(3)))
            except Unsupported:
                pass
            continue
        try:
            prop = parse_prop(text)
        except Unsupported:
            continue
        if isinstance(prop, Rel) and prop.op == "=":
            equations.append((name, prop))
        elif isinstance(prop, Rel) and prop.op == "<>":
            neqs.append((name, prop))
    if not neqs or not equations:
        raise ProposerSkipped("no <> and equation")
    sym = lambda node: to_sympy(_expand(node, definitions), types)  # noqa: E731
    s, t = sympy.Symbol("s_", real=True), sympy.Symbol("t_", real=True)
    plans = []
    for neq_name, neq in neqs:
        u, v = sym(neq.left), sym(neq.right)
        found = []
        for name, eq in equations:  # one equation E(u) = E(v), u and v variables
            g = sym(eq.left) - sym(eq.right)
            if u.is_Symbol and v.is_Symbol and sympy.expand(g + g.xreplace({u: v, v: u})) == 0 and g != 0:
                found.append((name, sympy.cancel(g / (u - v)), None))
        for i, (n1, e1) in enumerate(equations):  # P(u) = c and P(v) = c
            for n2, e2 in equations[i + 1:]:
                p1, p2 = _at(e1, neq.left, definitions, types, s), _at(e2, neq.right, definitions, types, s)
                if p1 is not None and p2 is not None and sympy.expand(p1 - p2) == 0 and p1.has(s):
                    found.append((n1, sympy.cancel((p1 - p1.xreplace({s: t})) / (s - t)).xreplace({s: u, t: v}), p1))
        for name, q, poly in found:
            numerator, denominator = sympy.fraction(sympy.together(q))
            factor = coq(from_sympy(sympy.expand(numerator)))
            sides = []
            if poly is not None and sympy.degree(poly, s) == 2:
                a, b, c = sympy.Poly(poly, s).all_coeffs()
                sides = [f"(({coq(neq.left)}) + ({coq(neq.right)}) = {coq(from_sympy(sympy.cancel(-b / a)))})%R",
                         f"(({coq(neq.left)}) * ({coq(neq.right)}) = {coq(from_sympy(sympy.cancel(c / a)))})%R"]
            plans.append((neq_name, f"({coq(neq.left)} - {coq(neq.right)}) * ({factor})", name, sides,
                          denominator != 1))
    return plans, bool(definitions)


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        if depth < 0:
            return False
    return depth == 0


def _at(eq: Rel, point: Expr, definitions, types, s):
    """P(s) when the equation reads P(point) = c with `point` a term of it (a function's argument or
    the unknown itself): the equation with `point` replaced by s, right side moved left."""
    import sympy

    target = to_sympy(_expand(point, definitions), types)
    g = to_sympy(_expand(eq.left, definitions), types) - to_sympy(_expand(eq.right, definitions), types)
    if not target.free_symbols:
        return None
    for fname, (var, body) in definitions.items():  # f (2 * a) = 0: P(s) = body(s) - c
        if isinstance(eq.left, App) and eq.left.func == fname and to_sympy(eq.left.args[0], types) == target:
            return sympy.expand(to_sympy(body, {**types, var: "R"}).xreplace(
                {sympy.Symbol(var, real=True): s}) - to_sympy(eq.right, types))
    if target.is_Symbol:
        return sympy.expand(g.xreplace({target: s})) if g.has(target) else None
    return None


def distinct_roots(context: GoalContext) -> list[str]:
    """The cancellation tactics for the goal's distinct values."""
    if "<>" not in context.text:
        raise ProposerSkipped("no <>")
    import sympy  # noqa: F401 - the first import (~1 s) is not the CAS call the bound is for
    plans, functions = bounded(_plan, 0.5, context)
    if not plans:
        raise ProposerSkipped("no equation in two distinct values")
    prefix = ("" if context.introduced else "intros; ") + ("rewrite_functions; " if functions else "")
    out, alone = [], ""
    for neq, factor, equation, sides, fractional in plans[:2]:
        proof = (f"first [nra | (field_simplify_eq in {equation}; auto; nra) | (field_simplify_eq in {equation}; nra)]"
                 if fractional else "nra")
        cancel = (f"assert (hdr : ({factor} = 0)%R) by ({proof}); apply Rmult_integral in hdr; "
                  f"destruct hdr as [hdr|hdr]; [exfalso; apply {neq}; lra | ")
        vieta = vieta_text(sides)
        out.append(f"{prefix}{cancel}{vieta}{CLOSE}]")
        if vieta:
            out.append(f"{prefix}{cancel}{CLOSE}]")
        if not alone:
            alone = f"{prefix}{cancel}]"  # the cancellation alone: the value is left to the search
    return out[:3] + [alone]


def vieta_text(sides: list[str]) -> str:
    return "".join(f"assert (hvieta{i} : {side}) by nra; " for i, side in enumerate(sides))


PROPOSERS = (Proposer("distinct_roots", 3, distinct_roots, computed=True, marker=re.compile(r"\bRmult_integral\b")),)

__all__ = ["PROPOSERS", "distinct_roots"]
