"""Numbers past unary nat: a nat goal whose numbers are too large for Coq's unary `nat` moved to Z's
binary numbers through the prelude's bridges (`lean_interface.coq.prelude.NAT_NUMBERS_PRELUDE`).

Shapes:
  * a nat literal of 5000 or more (`123 * n + 17 = 39500 -> n = 321`): Coq builds it as
    `Nat.of_num_uint …`, which lia/nia treat as an unknown atom, so the goal is "Cannot find
    witness" however linear. `nat_literals_Z` adds `Z.of_nat L = v` for each such literal, with v
    its binary value, and lia/nia then close it.
  * a closed power under `mod` (`1999 ^ 2000 mod 5 = 1`): unary evaluation would build a number
    with 6,600 digits out of `S`; the bridge lemma `nat_pow_mod_Z` rewrites every `a ^ b mod n`
    (n a nonzero numeral) into Z's `Zpow_mod` (square-and-multiply, reducing as it goes), then
    `reflexivity` decides the closed goal, or lia/nia finish with the literals known.
  * a closed computation (`Nat.lcm 9999 100001 = 90900909`, `Nat.gcd (fact 20) 200000 = 40000`,
    a sum of `11 ^ k` over `seq 1 9` under `mod`), or one that is closed once the hypotheses'
    values are substituted (`n = length (filter …) -> 3 ^ n mod 8 = 1`): `nat_closed_Z` moves the
    whole relation to Z and decides it in binary; `cbn [fact map seq …]` first unfolds the list and
    factorial functions the goal names, so their large values are built in Z, not in unary nat.

Why a proposer: nothing in the search proposes these bridges, and the policy cannot know that a
literal's size is what defeats lia. Coq route checked in Coq 8.16.1 (no `vm_compute`: the kernel's
own conversion): `intros; nat_literals_Z; lia` on `123 * n + 17 = 39500 -> n = 321` (0.11 s, `Qed`
0.17 s); `rewrite !nat_pow_mod_Z in * by discriminate; reflexivity` on `1999 ^ 2000 mod 5 = 1`
(0.41 s, `Qed` 0.04 s) and on `2 ^ 100000 mod 7 = 2` (0.63 s, `Qed` 0.53 s). The goal's text decides only *whether* to propose (a numeral of 5000 or more, or
`^` under `mod`, in a goal with no real, Z or Q): the Ltac finds the literals itself, so the tactic text holds
no computed number and cannot print a wrong one. Train split (`benchmarks/proposers.py --only
nat_numbers`): mathd_numbertheory_136 and 236 with the first two shapes; in coqc the closed
computations of mathd_numbertheory_24, 37, 169, 461 and 640 close by `nat_closed_Z` (0.01–0.7 s,
`Qed` ≤ 0.11 s, no axiom).

Cost: a few regex scans of the goal text; at most five tactics, each under `timeout 3`.
"""

from __future__ import annotations

import re

from search.proposers.base import GoalContext, Proposer, ProposerSkipped

SECONDS = 3
#: Coq's threshold for building a nat numeral as `Nat.of_num_uint` (the abstract-large-number warning)
LARGE = 5000
_NUMERAL = re.compile(r"(?<![\w.#])\d+(?![\w.#])")
_POW_MOD = re.compile(r"\^[^=<>]*\bmod\b|\bNat\.modulo\b.*\bNat\.pow\b|\bmod\b.*\^")
#: how a goal's text shows such a literal (Coq prints the `Nat.of_num_uint (Number.UIntDecimal …)` term)
_ABSTRACT_LITERAL = re.compile(r"\bNat\.of_num_uint\b")
#: list and factorial functions a closed computation unfolds first (`cbn`), so that their large
#: values are built in Z: `list_sum` is a `fold_right`, which is unfolded with it
UNFOLDED = ("fact", "list_sum", "fold_right", "fold_left", "map", "seq", "length", "filter")
_HEAVY = re.compile(r"\^|\b(?:Nat\.)?(?:gcd|lcm|fact|pow)\b|\b(?:list_sum|fold_right|fold_left|seq)\b")
#: a conclusion `a = b`, `a <= b`, `a < b`, `a >= b`, `a > b` (nat_closed_Z's goals)
_NAT_RELATION = re.compile(r"(?<![<>=])(?:=|<=|<|>=|>)(?![=>])")
#: goals over the reals or Z take no nat bridge (lra/lia read their binary numerals already)
_OTHER_NUMBERS = re.compile(r"\b(?:R|Z|Q)\b|%[RZQ]\b|\bIZR\b|\bINR\b")


def _over_nat(context: GoalContext) -> bool:
    """Whether the goal's arithmetic can be nat's: no real, Z or Q in its text (a closed goal such as
    `1999 ^ 2000 mod 5 = 1` names no type: its numerals are nat's)."""
    return not _OTHER_NUMBERS.search(context.text)


def has_large_literal(text: str) -> bool:
    """Whether `text` holds a nat literal Coq builds as `Nat.of_num_uint` (5000 or more): printed as
    that term, or as digits where a printer shows the number."""
    return bool(_ABSTRACT_LITERAL.search(text)) or any(int(n) >= LARGE for n in _NUMERAL.findall(text))


def closed_after_subst(context: GoalContext) -> bool:
    """Whether every data variable has a value among the hypotheses (`n = …` or `… = n` after
    `intros`), so `subst` leaves a closed goal."""
    equations = [fact for _, fact in context.facts_after_intros()]
    return all(any(re.match(rf"\s*{re.escape(name)}\s*=(?!=)", fact) or re.search(rf"=\s*{re.escape(name)}\s*$", fact)
                   for fact in equations) for name in context.variables)


def _computation(context: GoalContext) -> bool:
    """Whether the goal's arithmetic is worth moving to Z: a large literal, a power, gcd/lcm, a
    factorial or a list function whose value could be large in unary."""
    return has_large_literal(context.text) or bool(_HEAVY.search(context.text))


def closed_tactic(context: GoalContext, intro: str) -> str | None:
    """`nat_closed_Z` for a goal that is a closed computation once its variables' values are
    substituted, after unfolding the list and factorial functions it names."""
    if not _NAT_RELATION.search(context.conclusion) or not closed_after_subst(context):
        return None
    if not _computation(context):
        return None
    named = {name for name in UNFOLDED if re.search(rf"(?<![\w.]){name}(?![\w'.])", context.text)}
    if "list_sum" in named:
        named.add("fold_right")  # list_sum's body: unfolded with it, or its sum stays folded
    unfold = [name for name in UNFOLDED if name in named]
    substitute = "subst; " if context.variables else ""
    cbn = f"cbn [{' '.join(unfold)}]; " if unfold else ""
    return f"{intro}{substitute}{cbn}nat_closed_Z"


def propose(context: GoalContext) -> list[str]:
    if not _over_nat(context):
        raise ProposerSkipped("no goal over nat")
    intro = "" if context.introduced else "intros; "
    tactics: list[str] = []
    closed = closed_tactic(context, intro)
    if closed:
        tactics.append(closed)
    if _POW_MOD.search(context.target) or any(_POW_MOD.search(t) for _, t in context.hypotheses):
        tactics += [f"{intro}rewrite !nat_pow_mod_Z in * by discriminate; reflexivity",
                    f"{intro}rewrite !nat_pow_mod_Z in * by discriminate; nat_literals_Z; lia"]
    if has_large_literal(context.text):
        tactics += [f"{intro}nat_literals_Z; lia", f"{intro}nat_literals_Z; nia"]
    if not tactics:
        raise ProposerSkipped("no large nat literal and no power under mod")
    return tactics


PROPOSERS = (Proposer("nat_numbers", SECONDS, propose, computed=False,
                      marker=re.compile(r"\bnat_literals_Z\b|\bnat_pow_mod_Z\b|\bnat_closed_Z\b")),)

__all__ = ["LARGE", "PROPOSERS", "UNFOLDED", "closed_after_subst", "closed_tactic", "has_large_literal", "propose"]
