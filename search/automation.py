"""Competition automation: families of concrete Coq tactics generated from a goal's own text.

Every proof the project found before these families was one decision-procedure call (`intros;
lra.`, `lia.`, …) and the no-network search ran out of ideas, not time. Coq can do more
(docs/ARCHITECTURE.md §Proposers), but most of it needs arguments a fixed list cannot
hold: the goal's variables for square hints and case splits, the hypotheses that define a function.
Coq-Interval's `interval` is not among them: loading it puts the kernel's primitive integers and
floats into every audited environment (lean_interface/coq/prelude.py says more). Each
family here is a generator from `GoalFacts` to tactic strings — nothing is written per problem.

Families (name: what it adds; `decide`, the argument-free decision procedures lia, nra, field, …,
is the fixed list's own core and the portfolio's list, and is not generated here):
  psatz      Positivstellensatz with the CSDP oracle, degree 2 and 3 (`csdp` must be on PATH).
  hints      nra/psatz after `pose proof (pow2_ge_0 e)` for the goal's real variables, their
             differences and sums, and (v^(p/2) ± 1) for even powers v^p: the products nra's own
             preprocessing does not try.
  rewrite    functions given by their values (`forall x, f x = …`): every such hypothesis is
             rewritten everywhere, then lra/nra/field (reals) or lia/nia.
  cases      case splits: `split_Rabs`, disjunctive hypotheses, `Rle_dec` on pairs of variables.

Measured and dropped (benchmarks/automation_families.py on the train split, BENCHMARKS.md): an
`integer` family (closed nat computations moved to binary N, `zify; nia`) and a `modular` family
(`zify; Z.div_mod_to_equations; lia/nia`) closed 28 and 18 train problems, every one of which
the decision procedures close too once the prelude Requires zify's Nat.div/Nat.modulo instances
(`Coq.micromega.ZifyNat`): plain `lia` then does what they did.

Each tactic carries its own time limit as an Ltac `timeout N (…)` wrapper (below the env's
limit), so an expensive family costs at most its limit per goal; the wrapper stays in the proof
script, which is exactly what was searched and what `verify` compiles. Every tactic is in the one
canonical form (`lean_interface.coq.guard.normalise_tactic`: one line, one final `.`).

`classic_family_of` (and `search.proposers.family_of`, which knows the computed proposers too) names the family of any Coq tactic, so solve/eval reports and the tree view can say
which family closed each goal, whoever proposed the tactic (the list, or the network).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Callable

from lean_interface.coq.guard import normalise_tactic
from search.goal_facts import GoalFacts, goal_facts

#: at most this many variables get square hints (the published finisher's choice: 4)
MAX_HINT_VARIABLES = 4
#: Rle_dec case splits are offered for at most this many pairs of real variables
MAX_CASE_PAIRS = 3

#: rewrite with every `forall x, f x = …` (one or two binders) hypothesis until none applies: an Ltac
#: of the tactic prelude (`lean_interface.coq.prelude.REWRITE_FUNCTIONS_LTAC`), a name the policy can emit
_REWRITE_FUNCTIONS = "rewrite_functions"


@dataclass(frozen=True)
class Family:
    """A generator of tactics for one kind of automation.

    Fields:
      name:     short label shown in reports and the tree view.
      seconds:  time limit of each of its tactics (Ltac `timeout`); 0 = the env's own limit only.
      generate: the family's tactics for a goal, most promising first (before wrapping).
    """

    name: str
    seconds: int
    generate: Callable[[GoalFacts], list[str]]

    def tactics(self, facts: GoalFacts) -> list[str]:
        """The family's tactics for a goal in canonical form, each under its time limit."""
        out = []
        for tactic in self.generate(facts):
            body = tactic.rstrip(".")
            out.append(normalise_tactic(f"timeout {self.seconds} ({body})" if self.seconds else body))
        return list(dict.fromkeys(out))


def _psatz(facts: GoalFacts) -> list[str]:
    if facts.has_real:
        return ["intros; psatz R 2", "intros; psatz R 3"]
    return ["intros; psatz Z 2"]


def square_hints(facts: GoalFacts) -> list[list[str]]:
    """Hint groups, each a list of terms e with `0 <= e ^ 2`: differences, variables, sums, powers."""
    variables = facts.reals[:MAX_HINT_VARIABLES]
    pairs = list(itertools.combinations(variables, 2))
    groups = [[f"{x} - {y}" for x, y in pairs], list(variables), [f"{x} + {y}" for x, y in pairs]]
    groups.append([f"{v} ^ {p // 2} {sign} 1" for v, p in facts.even_powers if v in variables for sign in "-+"])
    return [group for group in groups if group]


def _poses(terms: list[str]) -> str:
    return "; ".join(f"pose proof (pow2_ge_0 ({term}))" for term in terms)


def _hints(facts: GoalFacts) -> list[str]:
    groups = square_hints(facts)
    if not groups:
        return []
    everything = [term for group in groups for term in group]
    tactics = [f"intros; {_poses(group)}; nra" for group in groups]
    tactics.append(f"intros; {_poses(everything)}; nra")
    tactics.append(f"intros; {_poses(everything)}; psatz R 2")
    return tactics


def _rewrite(facts: GoalFacts) -> list[str]:
    if not facts.function_equations:
        return []
    finishers = ("lra", "nra", "field") if facts.has_real else ("lia", "nia")
    return [f"intros; {_REWRITE_FUNCTIONS}; {finisher}" for finisher in finishers]


def _cases(facts: GoalFacts) -> list[str]:
    tactics = []
    if facts.uses_rabs:
        tactics += ["intros; split_Rabs; lra", "intros; split_Rabs; nra"]
    for name in facts.disjunctions:
        finisher = "lra" if facts.has_real else "lia"
        tactics.append(f"destruct {name}; {finisher}")
    for x, y in list(itertools.combinations(facts.reals, 2))[:MAX_CASE_PAIRS]:
        tactics.append(f"intros; destruct (Rle_dec {x} {y}); nra")
    return tactics


#: the families in the order the search and the portfolio try them, most problems added beyond the
#: decision procedures per prover second first; each limit is at least twice the slowest closing call
#: measured on the train split (rewrite 0.01 s, cases 0.11 s, hints 0.52 s, psatz 1.38 s), so it
#: bounds what a failing call costs without cutting off a proof (BENCHMARKS.md has the table)
FAMILIES: tuple[Family, ...] = (
    Family("hints", 2, _hints),      # 8 added in 8.8 prover s
    Family("rewrite", 1, _rewrite),  # 8 in 9.2 s
    Family("cases", 1, _cases),      # 4 in 7.9 s
    Family("psatz", 3, _psatz),      # 7 in 22.1 s
)


def family_tactics(goal_text: str, families: tuple[Family, ...] = FAMILIES) -> list[tuple[str, str]]:
    """(tactic, family name) for every family's tactics on this goal, in family order, deduplicated."""
    facts = goal_facts(goal_text)
    seen: dict[str, str] = {}
    for family in families:
        for tactic in family.tactics(facts):
            seen.setdefault(tactic, family.name)
    return list(seen.items())


_FAMILY_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("hints", re.compile(r"\bpow2_ge_0\b")),
    ("psatz", re.compile(r"\bpsatz\b")),
    ("rewrite", re.compile(r"\bprogress rewrite \?H in \*|\brewrite_functions\b")),
    ("cases", re.compile(r"\bsplit_Rabs\b|\bRle_dec\b|\bdestruct\b.*;\s*(lra|lia|nra|nia)")),
    ("decide", re.compile(r"\b(lia|nia|lra|nra|field|ring|ring_simplify|field_simplify|reflexivity|tauto|"
                          r"intuition|firstorder|congruence|easy|auto|trivial|discriminate)\b")),
)


def classic_family_of(tactic: str) -> str:
    """The classic automation family a tactic belongs to (by its marker), or "tactic" for a plain
    proof step. `search.proposers.family_of` asks the computed proposers first, then this."""
    return next((name for name, marker in _FAMILY_MARKERS if marker.search(tactic)), "tactic")
