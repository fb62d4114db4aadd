"""*Solve and assert*: sympy solves the hypotheses' equations for the goal's variables; where a
variable has finitely many values consistent with every hypothesis, assert them and close.

Shape: hypotheses (or premises) that are polynomial or rational equations over typed variables
(R, Z, nat; `INR`/`IZR` casts transparent; `sqrt` allowed, sympy checks its roots), e.g.
`x + y = 7`, `3 * x + y = 45` ⊢ `x ^ 2 - y ^ 2 = 217`, or `3 * b ^ 2 + 2 * b + 1 = 57`, `0 < b` ⊢ `b = 4`.

Why: the policy cannot compute the value a competition proof turns on (`assert (x = 19)`), and
nra rarely finds it itself when the system is nonlinear; once the values are known, subst and a
decision procedure finish.

Coq route, per goal (at most ~8 sentences, the closing ones first):
  * every variable with one value:  `assert (hx : (x = v)%R) by C; …; subst x …; F` and each assert
    alone (a progress step the search can finish), C = lra/lia for a linear system, nra/nia else;
  * a variable with a few values, or one value beside an irreducible factor with no admissible
    root: the univariate polynomial p(x) of the system (lex Gröbner basis), factored over Q,
    `assert (hf : (((x - v1) * (… * q(x))) = 0)%R) by nra; apply Rmult_integral in hf; …; first [lra | nra]`
    proving `x = v1 \\/ x = v2` (or `x = v` when q = 0 is refuted), with a `destruct …; subst` closer.
The numeric check: a solution is kept only when every hypothesis holds there (Coq's sqrt, nat
subtraction; integrality for nat/Z), and the closing sentences only when the conclusion holds at
every kept solution, so a false value never reaches Coq.

Cost: one `sympy.solve` (+ one Gröbner basis per multi-valued variable) under `CAS_SECONDS`,
cached per goal; typically 5–60 ms.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from search.proposers.base import GoalContext, Proposer, ProposerSkipped, or_pattern
from search.proposers.cas import (CAS_SECONDS, INTEGRAL, ArithGoal, bounded, consistent, holds_numerically, per_goal,
                                  read_goal)
from search.proposers.expr import (Bin, Conn, Expr, Prop, Rel, Var, coq, coq_prop, number, one_of,
                                   from_sympy, functions, to_sympy, variables)

#: the most values a disjunction names
MAX_VALUES = 4
#: functions an equation may apply and still be solved
SOLVABLE_FUNCTIONS = {"sqrt", "INR", "IZR", "Z.of_nat"}


def conjuncts(prop: Prop) -> list[Prop]:
    """The conjuncts of a proposition (`A /\\ B /\\ C` → [A, B, C]; anything else → [itself])."""
    if isinstance(prop, Conn) and prop.op == "/\\":
        return conjuncts(prop.left) + conjuncts(prop.right)
    return [prop]


def equations(goal: ArithGoal) -> list[Rel]:
    """The hypotheses' equations the CAS can solve: over typed variables, no function but sqrt and casts."""
    out = []
    for fact in goal.hypotheses:
        for part in conjuncts(fact.prop):
            if isinstance(part, Rel) and part.op == "=" and _solvable(part, goal.types):
                out.append(part)
    return out


def _solvable(rel: Rel, types: dict[str, str]) -> bool:
    names = variables(rel)
    return bool(names) and all(n in types for n in names) and set(functions(rel)) <= SOLVABLE_FUNCTIONS


def _real(node: Any, types: dict[str, str]) -> Any:
    """The sympy form with every variable real: the solving is over R, the types filter after."""
    return to_sympy(node, {name: "R" for name in types})


#: the largest value asserted: a nat numeral is unary in Coq (5000 is already slow), others in digits
MAX_NAT, MAX_DIGITS = 2000, 24


def _admissible(value: Fraction, kind: str) -> bool:
    if kind == "nat" and value > MAX_NAT or len(str(value)) > MAX_DIGITS:
        return False
    if kind in INTEGRAL:
        return value.denominator == 1 and (kind != "nat" or value >= 0)
    return True


def solutions(goal: ArithGoal) -> list[dict[str, Fraction]]:
    """The solutions of the hypotheses' equations with rational values that are consistent with every
    hypothesis (the numeric check) and the variables' types; a variable a solution leaves free or
    irrational is absent from it. Raises `ProposerSkipped` when there is nothing to solve."""
    import sympy

    rels = equations(goal)
    if not rels:
        raise ProposerSkipped("no solvable equation")
    system = [sympy.together(_real(r.left, goal.types) - _real(r.right, goal.types)) for r in rels]
    unknowns = sorted({s for e in system for s in e.free_symbols}, key=lambda s: s.name)
    raw = bounded(sympy.solve, CAS_SECONDS, system, unknowns, dict=True)
    props = [fact.prop for fact in goal.hypotheses]
    kept = []
    for solution in raw:
        point: dict[str, Fraction] = {}
        for symbol, value in solution.items():
            if value.free_symbols or not value.is_Rational:
                continue
            number = Fraction(int(value.p), int(value.q))
            if not _admissible(number, goal.types.get(symbol.name, "R")):
                break
            point[symbol.name] = number
        else:
            if point and consistent(props, point, goal.types):
                kept.append(point)
    return kept


def _scope(goal: ArithGoal, name: str) -> str:
    return goal.scope([name])


def _linear(goal: ArithGoal) -> bool:
    """Whether every equation is a polynomial of degree ≤ 1 (lra/lia prove the values)."""
    import sympy
    for rel in equations(goal):
        difference = _real(rel.left, goal.types) - _real(rel.right, goal.types)
        symbols = sorted(difference.free_symbols, key=lambda s: s.name)
        if not difference.is_polynomial(*symbols) or sympy.Poly(difference, *symbols).total_degree() > 1:
            return False
    return True


def _eq(name: str, value: Fraction) -> Rel:
    return Rel("=", Var(name), number(value))


def _finishers(scope: str) -> tuple[str, ...]:
    return ("lia", "nia") if scope in ("nat", "Z") else ("lra", "nra")


def factored(goal: ArithGoal, name: str, values: list[Fraction]) -> tuple[Expr, int] | None:
    """(`(x - v1) * ((x - v2) * q(x))`, its number of factors) where `p = lc * product` for the
    univariate polynomial p of the system (lex Gröbner basis, `name` last); None when there is none
    or its rational roots do not include `values` (a root the hypotheses exclude stays a factor: its
    branch is refuted by lra/nra)."""
    import sympy

    system = [sympy.numer(sympy.together(_real(r.left, goal.types) - _real(r.right, goal.types)))
              for r in equations(goal)]
    symbol = sympy.Symbol(name, real=True)
    others = sorted({s for e in system for s in e.free_symbols} - {symbol}, key=lambda s: s.name)
    try:
        basis = bounded(lambda: sympy.groebner(system, *others, symbol, order="lex"), CAS_SECONDS)
    except sympy.PolynomialError:
        return None
    univariate = [g for g in basis.exprs if g.free_symbols == {symbol}]
    if not univariate:
        return None
    _, factors = sympy.factor_list(univariate[-1], symbol)
    pieces: list[Expr] = []
    roots = set()
    for factor, multiplicity in factors:
        poly = sympy.Poly(factor, symbol)
        if poly.degree() == 1:
            root = -poly.all_coeffs()[1] / poly.all_coeffs()[0]
            roots.add(Fraction(int(root.p), int(root.q)))
            piece: Expr = Bin("-", Var(name), number(Fraction(int(root.p), int(root.q)))) if root else Var(name)
        else:
            piece = from_sympy(sympy.expand(factor / poly.LC()), {symbol.name: name})
        pieces.extend([piece] * int(multiplicity))
    if not set(values) <= roots or not 1 < len(pieces) <= 2 * MAX_VALUES:
        return None
    product = pieces[-1]
    for piece in reversed(pieces[:-1]):
        product = Bin("*", piece, product)
    return product, len(pieces)


def _factor_proof(product: Expr, count: int) -> str:
    """The `by (…)` body proving a value or disjunction from `hf : product = 0`: split the product
    with Rmult_integral (a `try` per factor), each branch by lra (a root) or nra (a refuted factor)."""
    split = "try (apply Rmult_integral in hf; destruct hf as [hf | hf])"
    return f"(assert (hf : ({coq(product)} = 0)%R) by nra; " + "; ".join([split] * (count - 1)) + "; first [lra | nra])"


def _divides(goal: ArithGoal) -> bool:
    """Whether the conclusion divides (then `field` is worth a try after the substitution)."""
    return goal.conclusion is not None and "Bin(op='/'" in repr(goal.conclusion.prop)


@per_goal()
def _proposals(context: GoalContext) -> list[str]:
    goal = read_goal(context)
    found = solutions(goal)
    if not found:
        raise ProposerSkipped("no consistent rational solution")
    names = [n for n in goal.types if all(n in s for s in found)]
    values = {n: sorted({s[n] for s in found}) for n in names}
    single = [n for n in names if len(values[n]) == 1]
    multi = [n for n in names if 1 < len(values[n]) <= MAX_VALUES]
    if not single and not multi:
        raise ProposerSkipped("no variable has finitely many values")
    linear = _linear(goal)
    closes = goal.conclusion is not None and all(
        holds_numerically(goal.conclusion.prop, s, goal.types) is not False for s in found)
    p = goal.prefix
    out: list[str] = []
    asserts = [f"assert (h{n}_val : {coq_prop(_eq(n, values[n][0]), _scope(goal, n))}) by "
               f"{_finishers(_scope(goal, n))[0 if linear else 1]}" for n in single]
    if single and closes:
        scope = goal.scope(goal.types)
        for finisher in _finishers(scope) + (("field",) if scope == "R" and _divides(goal) else ()):
            out.append(f"{p}{'; '.join(asserts)}; subst {' '.join(single)}; {finisher}")
    out.extend(f"{p}{a}" for a in asserts[:2])
    for n in (multi + ([] if linear else single))[:2]:
        scope = _scope(goal, n)
        fact = coq_prop(one_of(Var(n), values[n]), scope)
        if scope != "R":
            proof = "nia"
        else:
            product = factored(goal, n, values[n])
            if product is None:
                continue
            proof = _factor_proof(*product)
        step = f"assert (h{n}_val : {fact}) by {proof}"
        out.append(p + step)
        if closes and (n in multi) == (len(multi) == 1):
            split = f"destruct h{n}_val as {or_pattern(f'h{n}_val', len(values[n]))}; " if n in multi else ""
            out.append(f"{p}{step}; {split}subst {n}; {_finishers(scope)[1]}")
    return out[:8]



SOLVE_ASSERT = Proposer(name="solve_assert", seconds=3, generate=_proposals, computed=True)
PROPOSERS: tuple[Proposer, ...] = (SOLVE_ASSERT,)

__all__ = ["PROPOSERS", "SOLVE_ASSERT", "conjuncts", "equations", "factored", "solutions"]
