"""Positivity (Lean's `positivity`): a real goal `0 < e`, `0 <= e`, `e > 0`, `e >= 0`, `e <> 0` (or a
conjunction of them) closed by the prelude's `positivity` Ltac.

Shape: the conclusion compares a real expression with 0 — `0 < x * y + x / y + sqrt x`
under `0 < x`, `0 < y`; `0 <= x ^ 4 + Rabs x + 1`; `INR n + 1 <> 0`.

Why: lra treats `x * y`, `sqrt x`, `x ^ 4` as opaque atoms and nra's products rarely reach a
positive sum of such terms, while the proof is a walk down the expression applying one stdlib
lemma per operator (`Rplus_lt_0_compat`, `Rmult_lt_0_compat`, `pow_lt`, `sqrt_lt_R0`,
`lt_0_INR`, …) with `assumption`/lra at the leaves. That walk is the Ltac `positivity` in
`lean_interface.coq.prelude.POSITIVITY_LTAC`: one short name the policy can propose. (exp, Rpower
and PI are leaves there — their lemmas' modules cannot be in the prelude — so `0 < exp x` needs a
hypothesis; see the prelude's docstring.)

Coq route: `intros; positivity` (`repeat split; positivity` for a conjunction). The real check
reads the expression's names: a goal over nat or Z (where lia is the tool) gets no proposal.

Cost: parsing the conclusion, ~0.03 ms per goal; one tactic, under `timeout 2`. On the train split's
root goals no conclusion has this shape (0 of 353): its use there is as field_side's discharger
and as a step inside a search.
"""

from __future__ import annotations

import re

from search.proposers.base import GoalContext, Proposer, ProposerSkipped
from search.proposers.expr import Conn, Num, Prop, Rel, Unsupported, parse_prop
from search.proposers.field_side import is_real

SECONDS = 2
_ZERO = Num(0)


def positivity_shape(prop: Prop) -> bool:
    """Whether a proposition is `0 < e`, `0 <= e`, `e > 0`, `e >= 0`, `e <> 0`, `0 <> e` (e not a
    numeral), or a conjunction of such."""
    if isinstance(prop, Conn):
        return prop.op == "/\\" and positivity_shape(prop.left) and positivity_shape(prop.right)
    if not isinstance(prop, Rel):
        return False
    if prop.op in ("<", "<=") and prop.left == _ZERO:
        return not isinstance(prop.right, Num)
    if prop.op in (">", ">=") and prop.right == _ZERO:
        return not isinstance(prop.left, Num)
    if prop.op == "<>":
        return (prop.right == _ZERO and not isinstance(prop.left, Num)) or \
               (prop.left == _ZERO and not isinstance(prop.right, Num))
    return False


def positivity_tactics(context: GoalContext) -> list[str]:
    """`positivity` for a real goal of its shape (see the module docstring)."""
    try:
        conclusion = parse_prop(context.conclusion)
    except (Unsupported, ValueError, RecursionError) as error:
        raise ProposerSkipped(str(error)) from None
    if not positivity_shape(conclusion) or not is_real(conclusion, context):
        raise ProposerSkipped("not a real positivity goal")
    prefix = "" if context.introduced else "intros; "
    body = "repeat split; positivity" if isinstance(conclusion, Conn) else "positivity"
    return [prefix + body]


PROPOSERS: tuple[Proposer, ...] = (
    Proposer("positivity", SECONDS, positivity_tactics, computed=False,
             marker=re.compile(r"\bpositivity\b")),
)

__all__ = ["PROPOSERS", "positivity_shape", "positivity_tactics"]
