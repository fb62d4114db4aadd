"""Residues: a split over `n mod k`, each case with n written as `k * (n / k) + r`, closed by lia.

Shape: a nat/Z goal about remainders or divisibility by a numeral k (`(n * n) mod 4 = …`,
`(a ^ 2 + b ^ 2) mod 4 <> 3`, `n * (n + 1) mod 2 = 0`, `~ Nat.divide 4 (n ^ 2 + 2)`) whose
variable occurs nonlinearly. Plain lia already proves the linear remainder goals under the
prelude's ZifyNat (tests/integration/test_automation_coq.py), but it treats `n * n` as an atom
unrelated to `n mod k`: the step it misses is to substitute n by its division by k.

Coq route (checked in Coq 8.16.1 under the prelude; the factory's `nat_residue`/`z_residue` reach
the same cases through Nat.mul_mod/Nat.add_mod rewrites chosen per shape, this one works for any
polynomial): `rewrite <- Nat.mod_divide by lia` turns a divisibility into a remainder, then
`rewrite (Nat.div_mod_eq n k)` (Z: `Z_div_mod_eq_full`) writes every n of the goal (or, in the
second variant, of every hypothesis too) as `k * (n / k) + n mod k`, `assert` the k residues by
lia, `destruct` them and `rewrite` each in: the goal becomes a polynomial in the atom `n / k`
with numeral residue, whose remainder lia computes (it normalises the polynomial and reasons
linearly over its monomials). One or two variables (k² cases), k from the goal's own `mod k` and
divisibility constants, 2 ≤ k ≤ 12.

Cost: ~0.2 ms of Python per goal (regexes over the goal text, no CAS); at most 6 tactics, each
under `timeout 3`; they close in 0.05–0.9 s.
"""

from __future__ import annotations

import re

from search.proposers.base import GoalContext, Proposer, ProposerSkipped, or_pattern

#: the largest modulus split over (k cases per variable)
MAX_MODULUS = 12
_MODULI = (re.compile(r"\bmod\s+\(?(\d+)\b"), re.compile(r"\b(?:Nat|Z)\.divide\s+\(?(\d+)\b"),
           re.compile(r"\bNat\.modulo\s+.*?\s(\d+)\s*\)?\s*(?:=|<>|$)"), re.compile(r"\(\s*(\d+)\s*\|"))
_DIVIDES = re.compile(r"\b(Nat|Z)\.divide\b|\(\s*\d+\s*\|")


def moduli(text: str) -> list[int]:
    """The numeral moduli and divisors the text names, in order of appearance, 2 ≤ k ≤ MAX_MODULUS."""
    found: list[tuple[int, int]] = []
    for pattern in _MODULI:
        found.extend((m.start(), int(m.group(1))) for m in pattern.finditer(text))
    return list(dict.fromkeys(k for _, k in sorted(found) if 2 <= k <= MAX_MODULUS))


def _nonlinear(name: str, text: str) -> bool:
    """Whether a variable occurs in a product or power in the text (`n * n`, `n ^ 2`, `a * n`,
    `n * (n + 1)`): the occurrences lia cannot relate to `n mod k` by itself."""
    word = rf"\b{re.escape(name)}\b"
    return bool(re.search(rf"{word}\s*[*^]|\*\s*\(?[^()]*{word}", text))


def _only_exponent(name: str, text: str) -> bool:
    """Whether every occurrence of a variable is in an exponent (`2 ^ n`, `4 ^ (n + 1)`): a split
    over n mod k does not reduce a power with n in its exponent (that needs induction)."""
    word = rf"\b{re.escape(name)}\b"
    exponents = " ".join(re.findall(r"\^\s*(\([^()]*\)|[\w']+)", text))
    return len(re.findall(word, text)) == len(re.findall(word, exponents))


def _split(names: list[str], k: int, scope: str, everywhere: bool) -> str:
    """The rewrite of each name by its division, the residue cases, and the close by lia."""
    lemma = "Nat.div_mod_eq" if scope == "nat" else "Z_div_mod_eq_full"
    where = " in *" if everywhere else ""
    steps = ["rewrite " + ", ".join(f"({lemma} {n} {k})" for n in names) + where]
    labels = [f"hres{i or ''}" for i in range(len(names))]
    for name, label in zip(names, labels):
        cases = " \\/ ".join(f"{name} mod {k} = {r}" for r in range(k))
        steps.append(f"assert ({label} : ({cases})%{scope}) by lia")
    for label in labels:
        steps.append(f"destruct {label} as {or_pattern(label, k)}")
    steps.append("rewrite " + ", ".join(labels) + " in *")
    steps.append("lia")
    return "; ".join(steps)


def residue_cases(context: GoalContext) -> list[str]:
    """Splits over `n mod k` for the goal's integer variables that occur nonlinearly."""
    ks = moduli(context.text)
    if not ks:
        raise ProposerSkipped("no numeral modulus")
    body = context.conclusion + "\n" + "\n".join(p for _, p in context.facts_after_intros())
    integral = {n: t for n, t in context.variables.items() if t in ("nat", "Z")}
    names = [n for n in integral if re.search(rf"\b{re.escape(n)}\b", body) and not _only_exponent(n, body)]
    chosen = [n for n in names if _nonlinear(n, body)] or names
    if not chosen:
        raise ProposerSkipped("no integer variable")
    scope = integral[chosen[0]]
    chosen = [n for n in chosen if integral[n] == scope]
    prefix = "" if context.introduced else "intros; "
    if _DIVIDES.search(context.conclusion):
        lemma = "Nat.mod_divide" if scope == "nat" else "Z.mod_divide"
        prefix += f"rewrite <- {lemma} by lia; "
    out = []
    for k in ks[:2]:
        groups = [[n] for n in chosen[:2]] + ([chosen[:2]] if len(chosen) >= 2 and k <= 6 else [])
        for group in groups:
            out.append(prefix + _split(group, k, scope, everywhere=False))
        out.append(prefix + _split(chosen[:1], k, scope, everywhere=True))
    return out[:6]


PROPOSERS = (Proposer("residues", 3, residue_cases, computed=True,
                      marker=re.compile(r"\b(?:Nat\.div_mod_eq|Z_div_mod_eq_full)\b")),)

__all__ = ["PROPOSERS", "moduli", "residue_cases"]
