"""Complex numbers by components: a goal over Coquelicot's `C` split into real equations.

Shapes: `7 * (3 * y + 2) = 21 * y + 14`; `q = 11 - 5 * Ci -> e = 11 + 5 * Ci -> d = 2 * Ci ->
q * e * d = 292 * Ci`; `x + e = 7 -> 2 * x + e = 3 -> e = 11 /\\ x = -4` (every variable of type `C`).

Why: Coquelicot's `C` is `R * R` with `Cplus`, `Cmult`, … defined componentwise, and its `ring`
and `field` structures read a numeral such as `7` (the coercion `RtoC 7`) as an opaque atom, so
`ring` cannot see `7 * 3 = 21` and lra/nra do not read `C` at all. Taking every `C` variable apart
(`destruct z as [zr zi]`), unfolding the operations, and splitting each equation of pairs
(`injection`, `injective_projections`) leaves equations over R that lra (after `subst`) or nra
decide. The whole route is one sentence of tactic text written here: the tactic prelude loads
before a problem's header, so it cannot name Coquelicot's constants.

Coq route checked in Coq 8.16.1 with Debian's Coquelicot on the train split's problems of the class
"complex numbers" of docs/factory_skills.md (six of them close: mathd_algebra_48, 110, 182, 192 and
two algebra_* systems; no axiom beyond the Reals' own). The factory's `complex_arith` family teaches
the policy the same route step by step; this proposer offers it whole.

Cost: one scan of the goal's types and text; two tactics, each under `timeout 3`.
"""

from __future__ import annotations

import re

from search.proposers.base import GoalContext, Proposer, ProposerSkipped

SECONDS = 3
#: Coquelicot's componentwise definitions of the operations on `C` (Complex.v), unfolded to pairs
C_DEFINITIONS = ("Cminus", "Cdiv", "Cplus", "Copp", "Cmult", "Cinv", "RtoC", "Ci", "Re", "Im", "Cconj")
#: a `C` in a binder or a hypothesis' type, or the imaginary unit in the text
_C_TYPE = re.compile(r"^C$")
_C_TEXT = re.compile(r"\bCi\b|\bRe\b|\bIm\b|\bCconj\b")
#: function-typed hypotheses over C (`f : C -> C`): a component split cannot see inside `f x`
_C_FUNCTION = re.compile(r"\bC\s*->")

SPLIT = ("repeat match goal with z : C |- _ => destruct z as [?zr ?zi] end; "
         f"unfold {', '.join(C_DEFINITIONS)} in *; simpl in *; "
         "repeat match goal with H : (_, _) = (_, _) |- _ => injection H; clear H; intros end; "
         "repeat match goal with |- _ /\\ _ => split end; try apply injective_projections; simpl; subst")


def over_c(context: GoalContext) -> bool:
    """Whether the goal is arithmetic over `C`: a variable of type `C` or the imaginary unit, and no
    function over `C` whose values the split could not read."""
    typed = [type_ for _, type_ in (*context.hypotheses, *context.binders)]
    has_c = any(_C_TYPE.match(type_.strip()) for type_ in typed) or bool(_C_TEXT.search(context.text))
    return has_c and not any(_C_FUNCTION.search(type_) for type_ in typed)


def complex_tactics(context: GoalContext) -> list[str]:
    if not over_c(context):
        raise ProposerSkipped("no arithmetic over C")
    intro = "" if context.introduced else "intros; "
    return [f"{intro}{SPLIT}; lra", f"{intro}{SPLIT}; nra"]


PROPOSERS: tuple[Proposer, ...] = (
    Proposer("complex_parts", SECONDS, complex_tactics, computed=False,
             marker=re.compile(r"destruct z as \[\?zr \?zi\]")),
)

__all__ = ["C_DEFINITIONS", "PROPOSERS", "complex_tactics", "over_c"]
