"""*Induction*: a statement about one nat variable proved by induction on it, with the witness of an
`exists` (or of `Nat.divide`) computed for the step.

Shapes (the variable `n : nat`, introduced or not; at most one premise, a lower bound on `n`):
  * a divisibility written as an existential or as `Nat.divide`:
    `forall n, exists k, n ^ 3 + 2 * n = 3 * k`, `forall n, 0 < n -> Nat.divide 9 (10 ^ n - 1)`;
  * any other nat relation in `n` (sums over a header `Fixpoint`, `fact`, powers):
    `forall n, n > 0 -> sum_n (fun k => 2 * k + 1) n = n * n`, `forall n, 4 <= n -> n ^ 2 <= fact n`.

Why: the step of a divisibility needs the next witness as a function of the previous one —
`exists (4 * k - 1)` after `2 ^ (2 * n + 1) + 1 = 3 * k` — a number the policy cannot compute; and
a lower bound `c <= n` calls for induction on the bound's proof (base `c`), which no family offers.

The computed argument: with E the side without the witness and m its multiplier, sympy looks for
a ratio `a` (1, or `b ^ e` for each power `b ^ (e * n + …)` of E) such that
`P(n) = (E(n + 1) - a * E(n)) / m` is a polynomial with integer coefficients; the step's witness is
then `a * k + P(n)`, printed by our own printer (positive terms minus negative ones: nat
subtraction), and the base's is `E(c) / m`. An integer-valued step with fractional coefficients
(`n ^ 3 + 5 * n = 6 * k` steps by `(n ^ 2 + n) / 2 + 1`) is not offered: nia does not reason about
nat division. The numeric check: `m` divides E(n) for n = c … c + 9, and the witness equals
`E(n + 1) / m` with no truncated subtraction there; otherwise nothing is proposed (a false
statement never reaches Coq).

Coq route (checked in Coq 8.16.1 on the train split's induction problems):
`intros n Hb; induction Hb as [|n Hb IH]; [exists 1; simpl; lia | destruct IH as [k Hk];
exists (10 * k + 1)%nat; rewrite ?Nat.pow_add_r, ?Nat.pow_mul_r, ?Nat.pow_succ_r' in *;
simpl in *; assert ((0 < 10 ^ n)%nat) by (apply Nat.neq_0_lt_0, Nat.pow_nonzero; lia); nia]`: the rewrites turn
every `b ^ (e * n + c)` into products of `(b ^ e) ^ n`, `simpl` computes `b ^ e`, and the
positivity facts of those atoms let `nia` reason about the truncated subtraction.

Cost: one sympy simplification per ratio (≤ 4), ~10–30 ms.
"""

from __future__ import annotations

import re

from search.proposers.base import GoalContext, Proposer, ProposerSkipped
from search.proposers.cas import CAS_SECONDS, bounded, evaluate, per_goal
from search.proposers.expr import Bin, Expr, Num, Rel, Var, coq_scoped, from_sympy, parse_expr, parse_prop, to_sympy

SECONDS = 5
#: how far the numeric check looks past the base
CHECKED = 10
_NAME = r"[A-Za-z_][\w']*"
_NUMERAL = r"\d+"
_BOUNDS = [(re.compile(rf"^({_NUMERAL})\s*<=\s*({_NAME})$"), 0), (re.compile(rf"^({_NAME})\s*>=\s*({_NUMERAL})$"), 0),
           (re.compile(rf"^({_NUMERAL})\s*<\s*({_NAME})$"), 1), (re.compile(rf"^({_NAME})\s*>\s*({_NUMERAL})$"), 1)]
_EXISTS = re.compile(rf"^exists\s+(?:\(\s*)?({_NAME})(?:\s*:\s*nat)?\s*\)?\s*,\s*(.*)$", re.DOTALL)
_DIVIDE = re.compile(r"^Nat\.divide\s+(\d+)\s+(.*)$", re.DOTALL)
_NAT_RELATION = re.compile(r"<=|>=|<|>|=")
_REWRITES = "rewrite ?Nat.pow_add_r, ?Nat.pow_mul_r, ?Nat.pow_succ_r' in *; simpl in *"


def _unscoped(text: str) -> str:
    """The text without `%nat` delimiters (the shape is nat throughout)."""
    return re.sub(r"\)%nat\b", ")", text).replace("%nat", "")


def _lower_bound(premise: str, variable: str) -> int | None:
    """c for a premise `c <= n`, `n >= c`, `c < n` (c + 1), `n > c` (c + 1); None otherwise."""
    premise = _unscoped(premise).strip()
    for pattern, shift in _BOUNDS:
        match = pattern.match(premise)
        if match:
            left, right = match.groups()
            number, name = (left, right) if left.isdigit() else (right, left)
            if name == variable:
                return int(number) + shift
    return None


def _setup(context: GoalContext) -> tuple[str, str, int, bool, str]:
    """(variable, the text that brings the goal to `forall n, [bound ->] conclusion`, the base,
    whether there is a bound, the conclusion)."""
    if context.introduced:
        nats = [name for name, kind in context.variables.items() if kind == "nat"]
        if len(nats) != 1:
            raise ProposerSkipped("not one nat variable")
        variable = nats[0]
        facts = [(name, prop) for name, prop in context.facts_after_intros()
                 if re.search(rf"\b{re.escape(variable)}\b", prop)]
        if len(facts) > 1:
            raise ProposerSkipped("more than one hypothesis on the variable")
        premises = [prop for _, prop in facts]
        revert = f"generalize dependent {variable}; "  # the variable, then its one hypothesis
        conclusion = context.conclusion
    else:
        if len(context.binders) != 1 or context.binders[0][1] != "nat":
            raise ProposerSkipped("not a statement over one nat variable")
        variable = context.binders[0][0]
        premises, revert, conclusion = list(context.premises), "", context.conclusion
    if len(premises) > 1:
        raise ProposerSkipped("more than one premise")
    base = 0
    if premises:
        bound = _lower_bound(premises[0], variable)
        if bound is None:
            raise ProposerSkipped("a premise that is not a lower bound on the variable")
        base = bound
    if not re.search(rf"\b{re.escape(variable)}\b", conclusion):
        raise ProposerSkipped("the conclusion does not mention the variable")
    return variable, revert, base, bool(premises), _unscoped(conclusion).strip()


def _divisibility(conclusion: str) -> tuple[str, str, Expr, int] | None:
    """(unfold prefix, witness name, E, m) for `exists k, E = m * k` (either side, either factor
    order) or `Nat.divide m E`; None for another conclusion."""
    divide = _DIVIDE.match(conclusion)
    if divide:
        return "unfold Nat.divide; ", "z", parse_expr(divide.group(2)), int(divide.group(1))
    match = _EXISTS.match(conclusion)
    if not match:
        return None
    witness, body = match.groups()
    relation = parse_prop(body)
    if not isinstance(relation, Rel) or relation.op != "=":
        raise ProposerSkipped("the existential is not one equation")
    for side, other in ((relation.right, relation.left), (relation.left, relation.right)):
        if isinstance(side, Bin) and side.op == "*":
            factors = (side.left, side.right)
            for multiple, name in (factors, factors[::-1]):
                if isinstance(multiple, Num) and multiple.value.denominator == 1 and name == Var(witness):
                    return "", witness, other, int(multiple.value)
    raise ProposerSkipped("the existential is not a multiple of its witness")


def _ratios(e_sym, n) -> list:
    """1, then `b ** c` for each power `b ** (c * n + …)` in E: the factors its terms grow by."""
    import sympy

    found = [sympy.Integer(1)]
    for power in e_sym.atoms(sympy.Pow):
        base, exponent = power.as_base_exp()
        coefficient = sympy.expand(exponent).coeff(n)
        if base.is_Integer and coefficient.is_Integer and coefficient > 0:
            found.append(base ** coefficient)
    return list(dict.fromkeys(found))


def _nat_text(value, names: dict[str, str]) -> tuple[str, Expr, Expr | None]:
    """`value` (a sympy polynomial) as nat text: positive terms minus negative ones."""
    import sympy

    terms = sympy.Add.make_args(sympy.expand(value))
    positive = sympy.Add(*(t for t in terms if t.as_coeff_Mul()[0] > 0))
    negative = -sympy.Add(*(t for t in terms if t.as_coeff_Mul()[0] < 0))
    plus = from_sympy(positive, names)
    if negative == 0:
        return coq_scoped(plus, "nat"), plus, None
    minus = from_sympy(negative, names)
    return coq_scoped(Bin("-", plus, minus), "nat"), plus, minus


def step_witness(expression: Expr, multiple: int, variable: str, base: int) -> tuple[int, str] | None:
    """(the base's witness, the step's witness as nat text over `variable` and `k`) for
    `exists k, E = multiple * k` proved by induction from `base`; None when no ratio gives a
    polynomial step or the numeric check fails."""
    import sympy

    types = {variable: "nat"}
    values = []
    for point in range(base, base + CHECKED + 1):
        value = evaluate(expression, {variable: point}, types)
        if value != int(value) or int(value) % multiple:
            return None  # not a multiple there: the statement is false (or not over nat)
        values.append(int(value) // multiple)
    e_sym = to_sympy(expression, types)
    n, k = to_sympy(Var(variable), types), sympy.Symbol("k", integer=True, nonnegative=True)
    for ratio in _ratios(e_sym, n):
        step = bounded(lambda: sympy.simplify(sympy.expand((e_sym.subs(n, n + 1) - ratio * e_sym) / multiple,
                                                           power_exp=True)), CAS_SECONDS)
        if not step.is_polynomial(n) or not all(c.is_Integer for c in sympy.Poly(step, n).all_coeffs()):
            continue
        text, plus, minus = _nat_text(ratio * k + step, {"k": "k", variable: variable})
        if all(_witness_holds(plus, minus, variable, point, values[i], values[i + 1])
               for i, point in enumerate(range(base, base + CHECKED))):
            return values[0], text
    return None


def _witness_holds(plus: Expr, minus: Expr | None, variable: str, point: int, previous: int, following: int) -> bool:
    at = {variable: point, "k": previous}
    positive = evaluate(plus, at)
    negative = evaluate(minus, at) if minus is not None else 0
    return positive >= negative and positive - negative == following


def _positivity(expression: Expr, variable: str) -> list[str]:
    """`assert (0 < c ^ n) …` for each power `b ^ (e * n + …)` of E, c = b ^ e: the atoms the
    rewrites leave, whose positivity nia needs past a truncated subtraction."""
    types = {variable: "nat"}
    return [f"assert ((0 < {int(c)} ^ {variable})%nat) by (apply Nat.neq_0_lt_0, Nat.pow_nonzero; lia)"
            for c in _ratios(to_sympy(expression, types), to_sympy(Var(variable), types))[1:]]


#: words that take the variable as an argument without being a function that unfolds at `S n`
_NOT_RECURSIVE = frozenset({"fun", "forall", "exists", "mod", "div", "Nat.modulo", "Nat.div", "Nat.gcd", "Nat.lcm",
                            "Nat.sqrt", "Nat.log2", "Nat.eqb", "Nat.leb", "Nat.ltb", "S", "Z.of_nat", "INR"})


def unfolds_at_successor(conclusion: str, variable: str) -> bool:
    """Whether the conclusion has a term that `simpl` unfolds at `S n`: `fact n`, a header function
    applied to the variable last (`sum_n (fun k => 2 * k + 1) n`), or a power whose exponent names
    it. A plain polynomial in n is left to lia/nia: induction would only cost time there."""
    name = re.escape(variable)
    if re.search(rf"\^\s*(?:\([^()]*\b{name}\b[^()]*\)|{name}\b)", conclusion):
        return True
    for match in re.finditer(rf"([A-Za-z_][\w'.]*)\s+(?:(?:\([^()]*\)|[\w']+)\s+)*{name}\b", conclusion):
        if match.group(1) not in _NOT_RECURSIVE and match.group(1) != variable:
            return True
    return False


@per_goal()
def propose(context: GoalContext) -> list[str]:
    variable, revert, base, bounded_below, conclusion = _setup(context)
    intro = f"{revert}intros {variable}{' Hb' if bounded_below else ''}; "
    induct = (f"induction Hb as [|{variable} Hb IH]" if bounded_below else f"induction {variable} as [|{variable} IH]")
    shape = _divisibility(conclusion)
    if shape is None:
        if not _NAT_RELATION.search(conclusion) or not unfolds_at_successor(conclusion, variable):
            raise ProposerSkipped("not a relation over a recursive function of the variable")
        return [f"{intro}{induct}; simpl in *; nia", f"{intro}{induct}; {_REWRITES}; nia"]
    unfold, _, expression, multiple = shape
    found = step_witness(expression, multiple, variable, base)
    if found is None:
        raise ProposerSkipped("no polynomial step for the witness")
    first, step = found
    positive = "".join(f"{fact}; " for fact in _positivity(expression, variable))
    return [f"{intro}{induct}; {unfold}[exists {first}%nat; simpl; lia | destruct IH as [k Hk]; exists {step}; "
            f"{_REWRITES}; {positive}nia]"]


PROPOSERS = (Proposer("induction", SECONDS, propose, computed=True,
                      marker=re.compile(r"\binduction\s+\w+\s+as\s+\[\|")),)

__all__ = ["PROPOSERS", "propose", "step_witness", "unfolds_at_successor"]
