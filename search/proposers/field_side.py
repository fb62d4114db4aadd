"""Field with side conditions (Lean's `field_simp`): clear the denominators of a real goal and its
hypotheses once each denominator is shown nonzero, then close the polynomial goal.

Shape: a real goal whose target (an equation) or whose equational hypotheses contain a division
`a / d` or an inverse `/ d` with `d` not a nonzero numeral — `a <> 0 -> b <> 0 -> a * b = a - b ->
a / b + b / a - a * b = 2`, `a <> 2 * b -> (4 * a + 3 * b) / (a - 2 * b) = 5 -> …`.

Why: `field_simplify_eq` needs every denominator's `d <> 0`, and Coq's version leaves them as
goals instead of finding them; the policy never writes the `assert`s, and lra/nra cannot see past
a division by a variable. Here each denominator is printed (by `expr.coq`, never from a CAS
string) into `assert (hd0 : (d <> 0)%R) by (first [lra | positivity | nra])` — lra for `d - 1`
under `d <> 1`, the prelude's `positivity` for `x ^ 2 + 1`, `INR n + 1`, `sqrt x` under `0 < x`.

Coq route, one sentence: `intros; assert (hd0 : …) by …; …; (field_simplify_eq in H1; SIDE);
(field_simplify_eq; SIDE); first [lra | nra]`, where SIDE = `try solve [repeat split; first
[assumption | lra | positivity]]` closes the side goals `field_simplify_eq` leaves (`a <> 0 /\\
b <> 0`; after `in H` the side goal comes first) whatever their number and order — a `[ … | … ]`
dispatch would depend on it. Variants: everything simplified then closed; the goal only; the
hypotheses only; and the progress step (asserts and simplifications, no close) for the search to
finish. At most 4 tactics per goal, each under `timeout 3`.

Cost: parsing the goal's facts, ~0.3 ms per goal (no CAS call). Train split (root and after `intros`,
353 goals): proposes on 47, 86 tactics, 5.5 prover-seconds in all; closes 10 problems, 7 of them
not closed by the fixed list's one-step automation.
"""

from __future__ import annotations

import re

from search.proposers.base import GoalContext, Proposer, ProposerSkipped
from search.proposers.expr import (App, Bin, Conn, Expr, Neg, Not, Num, Prop, Rel, Unsupported, Var, coq_prop,
                                   functions, parse_prop, variables)

#: the types whose `/` is integer division (Nat.div, Z.div): never a field
INTEGRAL = frozenset({"nat", "Z", "N", "positive"})
#: functions whose value is real whatever their argument
REAL_FUNCTIONS = frozenset({"sqrt", "exp", "ln", "Rabs", "INR", "IZR", "Rpower", "sin", "cos", "tan", "PI"})
#: how one denominator's `d <> 0` is proved
NONZERO = "first [ lra | positivity | nra ]"
#: closes the side goals `field_simplify_eq` leaves, whatever their number and order
SIDE = "try solve [ repeat split; first [ assumption | lra | positivity ] ]"
CLOSE = "first [ lra | nra ]"
SECONDS = 3


def real_names(context: GoalContext) -> set[str]:
    """Names whose value is real: R variables, and functions into R (`f : R -> R`, `a : nat -> R`)."""
    typed = list(context.hypotheses) + list(context.binders)
    return {name for name, type_ in typed if type_ == "R" or re.search(r"->\s*R\s*$", type_)}


def is_real(node: Expr | Prop, context: GoalContext) -> bool:
    """Whether a parsed fact is about reals: it mentions a real name or a real-valued function, and
    no variable of an integral type outside a cast (a mixed fact gives no proposal)."""
    names = set(variables(node)) | set(functions(node))
    reals = real_names(context)
    integral = {name for name, type_ in context.variables.items() if type_ in INTEGRAL}
    if names & reals or set(functions(node)) & REAL_FUNCTIONS:
        return not (_uncast(node) & integral)
    return False


def _uncast(node: Expr | Prop) -> set[str]:
    """Variables of a tree outside any INR/IZR/Z.of_nat cast or function application."""
    if isinstance(node, Var):
        return {node.name}
    if isinstance(node, App):
        return set()
    if isinstance(node, (Neg, Not)):
        return _uncast(node.arg)
    if isinstance(node, (Bin, Rel, Conn)):
        return _uncast(node.left) | _uncast(node.right)
    return set()


def denominators(node: Expr | Prop) -> list[Expr]:
    """Every divisor `d` of `a / d` (and `/ d`) in a tree that is not a nonzero numeral, outermost first."""
    found: list[Expr] = []

    def walk(n) -> None:
        if isinstance(n, Bin):
            if n.op == "/" and not (isinstance(n.right, Num) and n.right.value != 0):
                if n.right not in found:
                    found.append(n.right)
            walk(n.left)
            walk(n.right)
        elif isinstance(n, (Rel, Conn)):
            walk(n.left)
            walk(n.right)
        elif isinstance(n, (Neg, Not)):
            walk(n.arg)
        elif isinstance(n, App):
            for arg in n.args:
                walk(arg)

    walk(node)
    return found


def parse_or_none(text: str) -> Prop | None:
    """A proposition parsed by `expr.parse_prop`, or None where it is outside its shapes."""
    try:
        return parse_prop(text)
    except (Unsupported, ValueError, RecursionError):
        return None


def _fresh(stem: str, taken: set[str]) -> str:
    index = 0
    while f"{stem}{index}" in taken:
        index += 1
    taken.add(f"{stem}{index}")
    return f"{stem}{index}"


def field_tactics(context: GoalContext) -> list[str]:
    """The field-with-side-conditions sentences for a goal (see the module docstring)."""
    conclusion = parse_or_none(context.conclusion)
    hyps = [(name, prop) for name, text in context.facts_after_intros() if (prop := parse_or_none(text)) is not None]
    goal_dens = denominators(conclusion) if conclusion is not None and is_real(conclusion, context) else []
    hyp_dens = [(name, prop, denominators(prop)) for name, prop in hyps if is_real(prop, context)]
    hyp_dens = [(name, prop, dens) for name, prop, dens in hyp_dens if dens]
    if not goal_dens and not hyp_dens:
        raise ProposerSkipped("no denominator in a real fact")
    all_dens: list[Expr] = []
    for den in goal_dens + [d for _, _, dens in hyp_dens for d in dens]:
        if den not in all_dens and variables(den) + functions(den):
            all_dens.append(den)
    taken = {name for name, _ in context.hypotheses} | {name for name, _ in context.binders} | \
            {name for name, _ in context.facts_after_intros()}
    asserts = [f"assert ({_fresh('hd', taken)} : {coq_prop(Rel('<>', den, Num(0)), 'R')}) by ({NONZERO})"
               for den in all_dens[:6]]
    in_hyps = [f"(field_simplify_eq in {name}; {SIDE})" for name, prop, _ in hyp_dens
               if isinstance(prop, Rel) and prop.op == "="]
    goal_eq = isinstance(conclusion, Rel) and conclusion.op == "=" and bool(goal_dens)
    in_goal = [f"(field_simplify_eq; {SIDE})"] if goal_eq else []
    prefix = [] if context.introduced else ["intros"]
    out = []
    for steps, close in ((in_hyps + in_goal, True), (in_goal, True), (in_hyps, True), (in_hyps + in_goal, False)):
        if not steps:
            continue
        out.append("; ".join(prefix + asserts + steps + ([CLOSE] if close else [])))
    if asserts and not out:
        out.append("; ".join(prefix + asserts))  # an inequality over fractions: the nonzero facts for nra
    return list(dict.fromkeys(out))


PROPOSERS: tuple[Proposer, ...] = (
    Proposer("field_side", SECONDS, field_tactics, computed=True,
             marker=re.compile(r"field_simplify_eq")),
)

__all__ = ["PROPOSERS", "denominators", "field_tactics", "is_real", "parse_or_none", "real_names"]
