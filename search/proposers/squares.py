"""*Completed squares*: nra's square hints computed by completing the square of the goal's quadratics
(Coq's counterpart of `nlinarith [sq_nonneg (x + 5 / 4)]`).

Shape: a real goal whose hypotheses or conclusion hold a polynomial of degree 2 in some variable with
a numeral leading coefficient and a nonzero linear part: `2 * x ^ 2 + 5 * x + c <= 0 ⊢ c <= 25 / 8`,
`⊢ a ^ 2 + b ^ 2 + 1 >= a * b + a + b`.

Why: the classic `hints` family offers `x ^ 2`, `(x - y) ^ 2` and `(x + y) ^ 2` for the goal's
variables; the square that proves a bound on a quadratic is its vertex form `(x + b / (2 a)) ^ 2`,
whose shift is a number (or a term in the other variables) to compute, which neither the family
nor the policy does.

The computed argument: for every relation `l ⋈ r` of the goal (hypotheses and conclusion) that
parses as a polynomial over the reals, `p = l - r` is completed variable by variable (Lagrange's
reduction of a quadratic form): with `a x² + b x` the part of p in x, a a nonzero number and b ≠ 0,
the hint is `x + b / (2 a)` and `p - a (x + b / (2 a))²`, free of x's linear part, is completed in
the next variable. Every hint is a true fact (`pow2_ge_0`), so a useless one only costs nra time;
the terms are printed by our own printer from sympy's exact rationals.

Coq route: `intros; pose proof (pow2_ge_0 (x + 5 / 4)); …; nra`, and the same with `psatz R 2`
(CSDP) when nra alone fails.

Cost: one sympy expansion per relation, ~2–10 ms a goal; two tactics, under `timeout 3`.
"""

from __future__ import annotations

import re

from search.proposers.base import GoalContext, Proposer, ProposerSkipped
from search.proposers.cas import CAS_SECONDS, bounded, per_goal, read_goal
from search.proposers.expr import Rel, Unsupported, coq, from_sympy

SECONDS = 3
#: the most hints one tactic poses
MAX_HINTS = 6


def completions(polynomial, order: list) -> list:
    """The linear forms `x + b / (2 a)` of completing `polynomial`'s square in the variables of
    `order`, one after another (sympy expressions); [] where no variable has a numeral leading
    coefficient and a linear part."""
    import sympy

    found = []
    rest = sympy.expand(polynomial)
    for x in order:
        if sympy.degree(rest, x) != 2:
            continue
        a, b = rest.coeff(x, 2), rest.coeff(x, 1)
        if not a.is_Rational or a == 0 or b == 0:
            continue
        term = sympy.expand(x + b / (2 * a))
        found.append(term)
        rest = sympy.expand(rest - a * term ** 2)
    return found


@per_goal()
def propose(context: GoalContext) -> list[str]:
    goal = read_goal(context)
    reals = [name for name, kind in goal.types.items() if kind == "R"]
    if not reals:
        raise ProposerSkipped("no real variable")
    symbols = goal.symbols()
    order = [symbols[name] for name in reals]
    facts = [*goal.hypotheses, *([goal.conclusion] if goal.conclusion else [])]
    hints: list = []
    for fact in facts:
        if not isinstance(fact.prop, Rel) or fact.prop.op == "<>":
            continue
        difference = fact.sym.lhs - fact.sym.rhs
        if not difference.is_polynomial(*order) or difference.free_symbols - set(order):
            continue
        hints += bounded(completions, CAS_SECONDS, difference, order)
    hints = list(dict.fromkeys(hints))[:MAX_HINTS]
    if not hints:
        raise ProposerSkipped("no quadratic to complete")
    try:
        terms = [coq(from_sympy(term)) for term in hints]
    except Unsupported as error:
        raise ProposerSkipped(str(error)) from None
    poses = "; ".join(f"pose proof (pow2_ge_0 ({term}))" for term in terms)
    return [f"{goal.prefix}{poses}; nra", f"{goal.prefix}{poses}; psatz R 2"]


PROPOSERS = (Proposer("squares", SECONDS, propose, computed=True,
                      marker=re.compile(r"\bpow2_ge_0 \((?:- )?\(?\d")),)  # a shift first: hints start with a variable

__all__ = ["PROPOSERS", "completions", "propose"]
