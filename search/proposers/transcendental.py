"""sqrt / ln / exp / Rpower chains: the rewrites that turn these atoms into arithmetic lra can read.

Shape: real goals whose sqrt, ln, exp or Rpower terms block the decision procedures — lra and nra
treat `sqrt 9`, `ln (a ^ 2 * b)`, `Rpower 2 y` as atoms (docs/factory_skills.md, classes *square
roots* and *ln, exp, Rpower*). The factory's `sqrt_eval` and `log_exp` families drill the routes;
this proposer writes them for the goal at hand (each lemma's Coq 8.16.1 statement checked):
  * `sqrt N` of a numeral expression whose value is a rational square r²: `rewrite (sqrt_lem_1 N r)
    by lra` (sqrt_lem_1 : 0 <= x -> 0 <= y -> y * y = x -> sqrt x = y), in the goal or everywhere;
  * a conclusion `sqrt e = c` (or `c = sqrt e`): `apply sqrt_lem_1`, the three side goals by nra
    (after `subst` when the hypotheses give values);
  * a hypothesis `sqrt e = c`: `apply sqrt_lem_0 in H` (it becomes `c * c = e`), then nra;
  * ln / exp: `ln_mult`, `ln_pow`, `ln_Rinv`, `exp_ln` (side conditions `0 < x` by lra, nra or
    `pow_lt`), `ln_exp`, `exp_plus`, repeated in the goal or everywhere, then `simpl` (INR of a
    numeral) and lra/nra/field;
  * a hypothesis `ln x = ln y` (after the rewrites): `ln_inv` gives `x = y`;
  * `Rpower b c` with c a nonnegative integer numeral: replaced by `b ^ c` (`Rpower_pow`, the
    exponent read as `INR c`).
Numerals are computed exactly (Fractions) from the parsed tree and printed by `expr.coq`.

Cost: ~0.5 ms of Python per goal (the facts parsed once; no CAS); at most 8 tactics, each under
`timeout 3`.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from search.proposers.base import GoalContext, Proposer, ProposerSkipped
from search.proposers.expr import (App, Bin, Conn, Expr, Neg, Not, Num, Rel, Unsupported, Var, coq, parse_prop, substitute,
                                   variables)

#: a positivity side condition (`0 < x`, `0 < x ^ n`)
POSITIVE = "first [lra | nra | (apply pow_lt; lra) | (apply exp_pos)]"
#: how a goal is closed once the atoms are rewritten
CLOSE = "first [lra | nra | (simpl; lra) | field | (simpl; nra)]"
#: the ln/exp rules, each repeated while its side condition holds
LOG_RULES = (f"repeat rewrite ln_mult by {POSITIVE}", f"repeat rewrite ln_pow by {POSITIVE}",
             f"repeat rewrite ln_Rinv by {POSITIVE}", f"repeat rewrite exp_ln by {POSITIVE}",
             "repeat rewrite ln_exp", "repeat rewrite exp_plus")


def exact(node: Expr) -> Fraction:
    """The exact value of a closed numeral expression (+ - * /, nat powers); `Unsupported` otherwise."""
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Neg):
        return -exact(node.arg)
    if isinstance(node, Bin):
        a, b = exact(node.left), exact(node.right)
        if node.op == "^":
            if b.denominator != 1 or not 0 <= b <= 64:
                raise Unsupported("power")
            return a ** int(b)
        if node.op == "/" and b == 0:
            raise Unsupported("division by zero")
        return {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else a}[node.op]
    raise Unsupported("not a numeral expression")


def _root(value: Fraction) -> Fraction | None:
    if value < 0:
        return None
    p, q = math.isqrt(value.numerator), math.isqrt(value.denominator)
    return Fraction(p, q) if p * p == value.numerator and q * q == value.denominator else None


def subterms(node) -> list[Expr]:
    """Every subexpression of an expression or relation, outermost first."""
    if isinstance(node, Rel):
        return subterms(node.left) + subterms(node.right)
    if isinstance(node, (Neg,)):
        return [node] + subterms(node.arg)
    if isinstance(node, Bin):
        return [node] + subterms(node.left) + subterms(node.right)
    if isinstance(node, App):
        return [node] + [s for a in node.args for s in subterms(a)]
    if hasattr(node, "left"):  # a connective
        return subterms(node.left) + subterms(node.right)
    if hasattr(node, "arg") and not isinstance(node, Neg):
        return subterms(node.arg)
    return [node]


def _props(context: GoalContext) -> tuple[object | None, list[tuple[str, object]]]:
    def parse(text: str):
        try:
            return parse_prop(text)
        except (Unsupported, ValueError, RecursionError):
            return None
    hyps = [(name, p) for name, text in context.facts_after_intros() if (p := parse(text)) is not None]
    return parse(context.conclusion), hyps


def _wrap(node: Expr) -> str:
    text = coq(node)
    return text if re.fullmatch(r"[\w.']+", text) else f"({text})"


def transcendental(context: GoalContext) -> list[str]:
    """The rewrite chains for the goal's sqrt, ln, exp and Rpower terms."""
    text = context.text
    if not re.search(r"\b(sqrt|ln|exp|Rpower)\b", text):
        raise ProposerSkipped("no sqrt, ln, exp or Rpower")
    conclusion, hyps = _props(context)
    prefix = "" if context.introduced else "intros; "
    out: list[str] = []
    values = {h.left.name: h.right for _, h in hyps if isinstance(h, Rel) and h.op == "=" and isinstance(h.left, Var)
              and not variables(h.right)}
    if values and conclusion is not None:  # subst the given values, then the chain on the numerals
        steps = _numeral_steps([substitute(conclusion, values)])
        if steps:
            out.append(f"{prefix}subst; " + "; ".join(steps) + f"; {CLOSE}")
    props = [p for p in [conclusion, *(h for _, h in hyps)] if p is not None]
    steps = _numeral_steps(props)
    if steps:
        out.append(f"{prefix}" + "; ".join(steps) + f"; {CLOSE}")
        if hyps and steps[-1].startswith("rewrite"):
            out.append(f"{prefix}" + "; ".join(steps[:-1] + [steps[-1].replace(" by lra", " in * by lra")])
                       + f"; {CLOSE}")
    if isinstance(conclusion, Rel) and conclusion.op == "=":
        sides = (conclusion.left, conclusion.right)
        for i, side in enumerate(sides):
            if isinstance(side, App) and side.func == "sqrt":
                flip = "symmetry; " if i == 1 else ""
                out.append(f"{prefix}{flip}apply sqrt_lem_1; first [nra | (simpl; nra)]")
                if not context.introduced or hyps:
                    out.append(f"{prefix}subst; {flip}apply sqrt_lem_1; first [nra | (simpl; nra)]")
    for name, hyp in hyps:
        if isinstance(hyp, Rel) and hyp.op == "=" and isinstance(hyp.left, App) and hyp.left.func == "sqrt":
            out.append(f"{prefix}apply sqrt_lem_0 in {name}; nra")
    if re.search(r"\b(ln|exp)\b", text):
        chain = "; ".join(LOG_RULES)
        out.append(f"{prefix}{chain}; simpl; {CLOSE}")
        if hyps:
            everywhere = "; ".join(rule.replace(" by ", " in * by ") if " by " in rule else rule + " in *"
                                   for rule in LOG_RULES)
            out.append(f"{prefix}{everywhere}; simpl in *; {CLOSE}")
        for name, hyp in hyps:
            if isinstance(hyp, Rel) and hyp.op == "=" and all(isinstance(s, App) and s.func == "ln"
                                                              for s in (hyp.left, hyp.right)):
                out.append(f"{prefix}apply ln_inv in {name}; {CLOSE}")
    if not out:
        raise ProposerSkipped("no rewrite applies")
    return out[:8]


def _replace_powers(node):
    """The tree with every `Rpower b n` (n a small integer numeral) as `b ^ n`."""
    if isinstance(node, App) and node.func == "Rpower" and len(node.args) == 2 and _integral(node.args[1]):
        return Bin("^", _replace_powers(node.args[0]), Num(exact(node.args[1])))
    if isinstance(node, (Neg, Not)):
        return type(node)(_replace_powers(node.arg))
    if isinstance(node, (Bin, Rel, Conn)):
        return type(node)(node.op, _replace_powers(node.left), _replace_powers(node.right))
    if isinstance(node, App):
        return App(node.func, tuple(_replace_powers(a) for a in node.args))
    return node


def _numeral_steps(props: list) -> list[str]:
    """`replace` steps for the numeral Rpowers, then `rewrite` steps for the numeral square roots."""
    steps = []
    for term in dict.fromkeys(t for p in props for t in subterms(p)):
        if isinstance(term, App) and term.func == "Rpower" and len(term.args) == 2 and _integral(term.args[1]):
            steps.append(f"replace ({coq(term)}) with ({_wrap(term.args[0])} ^ {int(exact(term.args[1]))}) by "
                         "(rewrite <- Rpower_pow by lra; f_equal; simpl; lra)")
    roots = []
    for term in dict.fromkeys(t for p in props for t in subterms(_replace_powers(p))):
        if isinstance(term, App) and term.func == "sqrt" and not variables(term):
            try:
                root = _root(exact(term.args[0]))
            except Unsupported:
                continue
            if root is not None:
                roots.append(f"(sqrt_lem_1 {_wrap(term.args[0])} {_wrap(Num(root))})")
    if roots:
        steps.append("rewrite " + ", ".join(roots) + " by lra")
    return steps


def _integral(node: Expr) -> bool:
    try:
        value = exact(node)
    except Unsupported:
        return False
    return value.denominator == 1 and 0 <= value <= 12


PROPOSERS = (Proposer("transcendental", 3, transcendental, computed=True,
                      marker=re.compile(r"\b(?:sqrt_lem_[01]|ln_mult|ln_pow|exp_ln|ln_inv|Rpower_pow)\b")),)

__all__ = ["PROPOSERS", "exact", "subterms", "transcendental"]
