"""*Linear combination*: Coq's counterpart of Lean's `linear_combination` with `polyrith` computing
the coefficients.

Shape: a goal equation `lhs = rhs` over R or Z implied by polynomial equation hypotheses
`h_i : l_i = r_i` (constant denominators allowed), e.g. `a + b = 5`, `a * b = 6` ⊢ `a ^ 2 + b ^ 2 = 13`.

Why: nra looks for products of hypotheses itself but gives up on degree ≥ 3 or many variables, and
the policy cannot compute coefficients. The CAS finds polynomials c_i with
`lhs - rhs = Σ c_i * (l_i - r_i)` exactly: constant c_i first, then c_i of degree ≤ 1, then ≤ 2
(linear algebra over the monomials: an exact certificate, so no numeric check is needed — Coq's
`field`/`ring` re-checks it).

Coq route (one sentence):
  `assert (hlc : (lhs - rhs = c1 * (l1 - r1) + …)%R) by field;
   assert (e1 : (l1 - r1 = 0)%R) by lra; …; rewrite e1, … in hlc; lra`
(`ring` for Z; over R `field`, since ring refuses the constant divisions of `x / 12`.)
Each `e_i` has the very text the identity has, so the rewrite matches whatever the hypothesis
looked like; lra (lia for Z) then closes `lhs - rhs = c1 * 0 + …`. The identity alone is proposed
too, as a progress step.

Cost: one sympy linear solve per degree tried, ≤ 3, under `CAS_SECONDS`; typically 10–80 ms.
"""

from __future__ import annotations

import itertools
from typing import Any

from search.proposers.base import GoalContext, Proposer, ProposerSkipped
from search.proposers.cas import CAS_SECONDS, ArithGoal, bounded, per_goal, read_goal
from search.proposers.expr import Bin, Expr, Rel, Unsupported, coq, from_sympy, to_sympy
from search.proposers.solve_assert import equations

#: the multipliers' degrees tried, in order, and the most unknowns a linear system may have
DEGREES = (0, 1, 2)
MAX_UNKNOWNS = 240


def _poly(rel: Rel, goal: ArithGoal) -> Any:
    """`left - right` as an expanded sympy polynomial over real symbols; `Unsupported` otherwise."""
    import sympy
    real = {name: "R" for name in goal.types}
    difference = sympy.expand(to_sympy(rel.left, real) - to_sympy(rel.right, real))
    symbols = sorted(difference.free_symbols, key=lambda s: s.name)
    if not difference.is_polynomial(*symbols):
        raise Unsupported("not a polynomial")
    return difference


def certificate(target: Any, generators: list[Any], degree: int) -> list[Any] | None:
    """Polynomials c_i of degree ≤ `degree` with `target = Σ c_i * generators[i]` exactly, or None."""
    import sympy
    symbols = sorted(set().union(target.free_symbols, *(g.free_symbols for g in generators)), key=lambda s: s.name)
    monomials = [sympy.Integer(1)]
    for d in range(1, degree + 1):
        monomials += [sympy.Mul(*combo) for combo in itertools.combinations_with_replacement(symbols, d)]
    if len(monomials) * len(generators) > MAX_UNKNOWNS:
        return None
    unknowns = sympy.symbols(f"k0:{len(monomials) * len(generators)}")
    multipliers = [sum(unknowns[i * len(monomials) + j] * m for j, m in enumerate(monomials))
                   for i in range(len(generators))]
    residual = sympy.expand(target - sum(c * g for c, g in zip(multipliers, generators)))
    conditions = sympy.Poly(residual, *symbols).coeffs() if symbols else [residual]
    solution = sympy.linsolve(conditions, unknowns)
    if not solution:
        return None
    values = dict(zip(unknowns, next(iter(solution))))
    free = {u: 0 for u in unknowns}  # a free unknown (several certificates): take 0
    return [sympy.expand(c.subs(values).subs(free)) for c in multipliers]


def _term(coefficient: Any, rel: Rel) -> Expr | None:
    difference = Bin("-", rel.left, rel.right)
    if coefficient == 0:
        return None
    if coefficient == 1:
        return difference
    return Bin("*", from_sympy(coefficient), difference)


@per_goal()
def _proposals(context: GoalContext) -> list[str]:
    goal = read_goal(context)
    conclusion = goal.conclusion
    if conclusion is None or not isinstance(conclusion.prop, Rel) or conclusion.prop.op != "=":
        raise ProposerSkipped("the conclusion is not an equation")
    scope = goal.scope(goal.types)
    if scope == "nat":
        raise ProposerSkipped("nat subtraction: no linear combination")
    rels = [r for r in equations(goal) if r != conclusion.prop]
    if not rels:
        raise ProposerSkipped("no equation hypothesis")
    target = _poly(conclusion.prop, goal)
    generators = [_poly(r, goal) for r in rels]
    for degree in DEGREES:
        coefficients = bounded(certificate, CAS_SECONDS, target, generators, degree)
        if coefficients is not None:
            break
    else:
        raise ProposerSkipped("no certificate of degree ≤ 2")
    terms = [(t, r) for t, r in ((_term(c, r), r) for c, r in zip(coefficients, rels)) if t is not None]
    if not terms:
        raise ProposerSkipped("the conclusion is an identity: ring's business")
    combination = terms[0][0]
    for term, _ in terms[1:]:
        combination = Bin("+", combination, term)
    goal_difference = Bin("-", conclusion.prop.left, conclusion.prop.right)
    # R: `field`, since ring rejects the constant divisions of `x / 12` ("not a valid ring equation")
    prover = "ring" if scope == "Z" else "field"
    identity = f"assert (hlc : ({coq(goal_difference)} = {coq(combination)})%{scope}) by {prover}"
    finisher = "lia" if scope == "Z" else "lra"
    zeros = [f"assert (e{i} : ({coq(Bin('-', r.left, r.right))} = 0)%{scope}) by {finisher}"
             for i, (_, r) in enumerate(terms)]
    rewrite = f"rewrite {', '.join(f'e{i}' for i in range(len(terms)))} in hlc"
    p = goal.prefix
    return [f"{p}{identity}; {'; '.join(zeros)}; {rewrite}; {finisher}",
            f"{p}{identity}; {'; '.join(zeros)}; {rewrite}; {'nia' if scope == 'Z' else 'nra'}",
            f"{p}{identity}"]



LINEAR_COMBINATION = Proposer(name="linear_combination", seconds=3, generate=_proposals, computed=True)
PROPOSERS: tuple[Proposer, ...] = (LINEAR_COMBINATION,)

__all__ = ["LINEAR_COMBINATION", "PROPOSERS", "certificate"]
