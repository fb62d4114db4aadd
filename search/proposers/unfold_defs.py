"""Definitions unfolded: a header's own function, or the stdlib's `Nat.lcm`/`Z.lcm`/`Nat.divide`,
unfolded where the goal applies it, the known values rewritten in, then the decision procedures.

Shape: (1) a goal applying a name that is neither one of its own variables nor a known stdlib/R
function — a file's `Definition logb a x := ln x / ln a` or `Fixpoint sum_f …` shows in the goal
only as `logb 2 x`, `sum_f g 5` (a proposer sees the goal, not the header); (2) `Nat.lcm a b`
(or `Z.lcm`) in a hypothesis or the target beside a hypothesis `Nat.gcd a b = v`: the 8.16 stdlib
has no `gcd * lcm = a * b` for nat, so unfolding `Nat.lcm a b = a * (b / Nat.gcd a b)` and
rewriting the gcd's value is the route (issue 74); (3) `Nat.divide`/`Z.divide` in a hypothesis:
unfolded and its witness destructed, so lia/nia see `b = k * a`.

Why: lia/lra/nra treat an applied definition as an opaque atom; `unfold` is one word the policy
could write but the name is the header's, and the lcm route is three computed steps (which
hypothesis holds the gcd, which the lcm) the policy does not compose.

Coq route, one sentence each: `intros; unfold NAME in *; CLOSE`, `intros; unfold NAME in *;
simpl in *; CLOSE` and the progress step `intros; unfold NAME in *` for (1); `intros; unfold
Nat.lcm in HL; rewrite HG in HL; simpl in HL; CLOSE` (in the goal: `unfold Nat.lcm; rewrite HG;
simpl`) for (2); `intros; unfold Nat.divide in *; repeat match goal with h : exists _, _ |- _ =>
destruct h end; CLOSE` for (3). CLOSE is `first [lia | lra | nra | nia]` (the proposer cannot
tell a header function's type from the goal). At most 8 tactics per goal, each under `timeout 3`.

Cost: a regex pass over the goal text, ~0.1 ms; no CAS call. Train split (353 goals): proposes on
63, 236 tactics, 72 prover-seconds (the `simpl in *` variants run to their timeout on big
computations); closes 2 problems, both also closed by the fixed list: a step for the search.
"""

from __future__ import annotations

import re

from search.proposers.base import GoalContext, Proposer, ProposerSkipped

SECONDS = 3
CLOSE = "first [ lia | lra | nra | nia ]"
#: names the stdlib, Reals, Coquelicot or the logic already give meaning to: not a header definition
KNOWN = frozenset("""
    forall exists fun let in if then else match with end as return mod div S O
    sqrt exp ln Rabs INR IZR Rpower sin cos tan atan asin acos PI Rsqr Rmin Rmax Rinv Ropp Rplus Rmult Rminus
    Rdiv pow Z.pow Nat.pow fact up Int_part frac_part floor ceil IZR Z.of_nat Z_of_nat Z.to_nat Z.abs Z.sgn
    Nat.gcd Nat.lcm Z.gcd Z.lcm gcd lcm Nat.divide Z.divide Nat.modulo Z.modulo Nat.div Z.div Nat.even Nat.odd
    Z.even Z.odd Nat.eqb Nat.leb Nat.ltb Z.eqb Z.leb Z.ltb negb andb orb Nat.sqrt Z.sqrt Nat.log2 Z.log2
    prime Znumtheory.prime In NoDup length map seq fold_left fold_right list_sum filter count_occ nth rev app
    sum_f_R0 prod_f_R0 Q2R inject_Z Qnum Qden Qred Qmake Qdiv Qmult Qplus Qminus Qlt Qle Qeq
    Z.pos Z.neg Zpos Zneg pred Nat.pred Nat.sub Nat.add Nat.mul not True False and or iff eq
    Finite cardinal Ensemble Im Rbar Rbar_finite real Finite_sets
""".split())
_APPLIED = re.compile(r"(?<![\w'.])([A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*)\s+(?=[\w(])")
_LCM = re.compile(r"\b(Nat\.lcm|Z\.lcm|lcm)\s+(\w+|\([^()]*\))\s+(\w+|\([^()]*\))")


def header_names(context: GoalContext) -> list[str]:
    """Applied names in the goal that are not its variables nor known functions, first appearance
    first: the candidates for a header's `Definition`/`Fixpoint`."""
    local = {name for name, _ in context.hypotheses} | {name for name, _ in context.binders}
    texts = [context.target] + [type_ for _, type_ in context.hypotheses]
    bound = set()
    for text in texts:  # names bound inside the text (`forall x`, `fun k =>`, `exists z`)
        for binder in re.finditer(r"\b(?:forall|fun|exists)\s+([^,=]*?)(?:,|=>)", text):
            bound.update(re.findall(r"[A-Za-z_][\w']*", binder.group(1)))
    out: dict[str, None] = {}
    for text in texts:
        for match in _APPLIED.finditer(text):
            name = match.group(1)
            if name in KNOWN or name in local or name in bound or "." in name:  # a header's names are unqualified
                continue
            out.setdefault(name)
    return list(out)


def _lcm_tactics(context: GoalContext, prefix: list[str]) -> list[str]:
    """The issue-74 route for each `lcm a b` with a hypothesis `gcd a b = v` (or `v = gcd a b`)."""
    facts = context.facts_after_intros()
    out = []
    places = [(name, text) for name, text in facts] + [(None, context.conclusion)]
    for where, text in places:
        for match in _LCM.finditer(text):
            func, a, b = match.groups()
            unit = "Z" if func.startswith("Z") else "Nat"
            gcd = re.compile(rf"(?:\b{unit}\.)?gcd\s+{re.escape(a)}\s+{re.escape(b)}\b")
            for gname, gtext in facts:
                if gname == where or not gcd.search(gtext) or "=" not in gtext:
                    continue
                arrow = "" if gcd.search(gtext.split("=", 1)[0]) else "<- "
                lcm_name = f"{unit}.lcm"
                if where is None:
                    steps = [f"unfold {lcm_name}", f"rewrite {arrow}{gname}", "simpl"]
                else:
                    steps = [f"unfold {lcm_name} in {where}", f"rewrite {arrow}{gname} in {where}", f"simpl in {where}"]
                out.append("; ".join(prefix + steps + [CLOSE]))
                out.append("; ".join(prefix + steps[:2] + ["first [ lia | nia ]"]))
    return out


def unfold_tactics(context: GoalContext) -> list[str]:
    """The unfolding sentences for a goal (see the module docstring)."""
    prefix = [] if context.introduced else ["intros"]
    out = _lcm_tactics(context, prefix)
    facts_text = " ".join(text for _, text in context.facts_after_intros())
    for divide in ("Nat.divide", "Z.divide"):
        if divide in facts_text:
            out.append("; ".join(prefix + [f"unfold {divide} in *",
                                           "repeat match goal with h : exists _, _ |- _ => destruct h end", CLOSE]))
    for name in header_names(context)[:2]:
        out.append("; ".join(prefix + [f"unfold {name} in *", CLOSE]))
        out.append("; ".join(prefix + [f"unfold {name} in *", "simpl in *", CLOSE]))
        out.append("(" + "; ".join(prefix + [f"unfold {name} in * )"]))  # `* )`: `*)` would read as a comment
    if not out:
        raise ProposerSkipped("no definition to unfold")
    return list(dict.fromkeys(out))[:8]


PROPOSERS: tuple[Proposer, ...] = (
    Proposer("unfold_defs", SECONDS, unfold_tactics, computed=False,
             marker=re.compile(r"\bunfold [\w.']+ in\b")),
)

__all__ = ["KNOWN", "PROPOSERS", "header_names", "unfold_tactics"]
