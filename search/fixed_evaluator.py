"""A no-network evaluator: a fixed tactic list, instantiated with the goal's own hypothesis names.

The baseline the network must beat, and the fallback when no checkpoint is given. Round 0
proposes every argument-free tactic of a `TacticVocabulary` plus tactics built from the goal's
hypotheses (parsed from the canonical goal text: lines `h : T` or `a, b : T` before `⊢ target`):
`destruct h`, `induction n` for a nat or list variable, `rewrite h`, `rewrite <- h`, `apply h`,
`exact h`, `inversion h`, `rewrite h in g`, …, and (Coq) the automation families' tactics built
from the goal's variables (`search.automation`: psatz, square hints for nra, case splits,
closed computations), all with the same prior and in the language's one canonical form. A measured fact (docs/ARCHITECTURE.md §Measured facts):
without such arguments a search runs out of ideas long before it runs out of time.

Later rounds propose nothing (the list is fixed), so progressive sampling ends and a goal on
which nothing works can fail. `EvalRequest.num_samples` is ignored: the whole list comes at once.
The value is −(number of goals in the node): a weak signal, so MCTS spreads its visits roughly
breadth-first, guided by where the prover succeeds.
"""

from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass
from typing import Sequence

from lean_interface.tactic_form import tactic_form
from search.evaluator import EvalRequest, Evaluation
from search.goal_facts import hypotheses
from search.proposers import CLASSIC, Proposer, goal_context

_EQUATION = re.compile(r"(?<![<>:!/\\])=(?!>)|<->|↔")


@dataclass(frozen=True)
class TacticVocabulary:
    """What the fixed evaluator may propose, for one proof language.

    Fields:
      generic:         argument-free tactics, proposed for every goal.
      inductive:       templates ({h}) for a variable whose type's head is in `inductive_types`.
      case_only:       templates ({h}) for a variable whose type's head is in `case_types`.
      hypothesis:      templates ({h}) for a hypothesis that looks like a proposition.
      equation:        extra templates ({h}) when that hypothesis is an equation or iff.
      rewrite_in:      template to rewrite an equation {h} inside another hypothesis {g}.
      inductive_types: type heads that get `inductive` (nat, list, …).
      case_types:      type heads that get `case_only` (bool, option, …).
      data_types:      type names of plain data variables (no templates for them).
      families:        proposers whose tactics are generated from the goal's text (`search.proposers`:
                       the classic automation families, and the computed ones when configured;
                       Coq only).
      language:        the proof language ("coq" | "lean"): every proposed tactic is put in its
                       one canonical form (`lean_interface.tactic_form`), so lists, samples and
                       data never differ.
    """

    generic: tuple[str, ...]
    inductive: tuple[str, ...]
    case_only: tuple[str, ...]
    hypothesis: tuple[str, ...]
    equation: tuple[str, ...]
    rewrite_in: str
    inductive_types: tuple[str, ...]
    case_types: tuple[str, ...]
    data_types: tuple[str, ...]
    families: tuple[Proposer, ...] = ()
    language: str = "coq"


COQ_VOCABULARY = TacticVocabulary(
    generic=(
        "intros", "split", "reflexivity", "lia", "nia", "lra", "nra", "ring", "field", "auto", "simpl",
        "intuition", "tauto", "congruence", "constructor", "left", "right", "eexists", "easy", "trivial",
        "firstorder", "subst", "symmetry", "discriminate", "exfalso", "f_equal", "ring_simplify", "field_simplify",
        "unfold not", "exists 0", "exists 1", "intros; lia", "intros; nia", "intros; lra", "intros; nra",
        "simpl; lia", "simpl; ring", "intros; subst; lia", "intros; subst; nra", "intros; field_simplify; lra",
        "intros; intuition lia", "intros; compute; lia", "intros; repeat split; lra", "simpl; auto",
    ),
    inductive=("induction {h}", "destruct {h}"),
    case_only=("destruct {h}",),
    hypothesis=("apply {h}", "exact {h}", "destruct {h}", "inversion {h}", "eapply {h}"),
    equation=("rewrite {h}", "rewrite <- {h}"),
    rewrite_in="rewrite {h} in {g}",
    inductive_types=("nat", "list"),
    case_types=("bool", "option", "prod", "sum"),
    data_types=("nat", "Z", "N", "positive", "R", "Q", "bool", "Prop", "Set", "Type", "list", "option",
                "prod", "sum"),
    families=CLASSIC,
    language="coq",
)

LEAN_VOCABULARY = TacticVocabulary(
    generic=(
        "intro", "intros", "constructor", "rfl", "omega", "linarith", "nlinarith", "positivity", "norm_num",
        "simp", "simp_all", "ring", "field_simp", "decide", "tauto", "trivial", "left", "right", "exfalso",
        "push_neg", "ring_nf", "norm_num at *", "intros; omega", "intros; linarith", "intros; nlinarith",
        "intros; simp", "use 0", "use 1",
    ),
    inductive=("induction {h}", "cases {h}"),
    case_only=("cases {h}",),
    hypothesis=("apply {h}", "exact {h}", "cases {h}", "subst {h}", "linarith [{h}]"),
    equation=("rw [{h}]", "rw [← {h}]"),
    rewrite_in="rw [{h}] at {g}",
    inductive_types=("ℕ", "Nat", "List"),
    case_types=("Bool", "Option"),
    data_types=("ℕ", "Nat", "ℤ", "Int", "ℝ", "Real", "ℚ", "Rat", "ℂ", "Bool", "Prop", "Type", "List", "Option",
                "Finset", "Set"),
    language="lean",
)

#: cap on `rewrite h in g` tactics per goal (they grow quadratically with the hypotheses)
MAX_REWRITE_IN = 12


class HypothesisKind(enum.Enum):
    INDUCTIVE = "a variable of an inductive type (induction, case analysis)"
    CASES = "a variable of a finite type (case analysis)"
    DATA = "another data or type variable (nothing to propose)"
    PROPOSITION = "a proof of a proposition (apply, exact, destruct, rewrite, ...)"


def classify(type_text: str, local_props: set[str], vocabulary: TacticVocabulary) -> HypothesisKind:
    """What a hypothesis of this type is. A proposition declared in the goal itself (`P, Q : Prop`)
    makes its proofs propositions even when its name is also a library type (Coq's `Q`)."""
    head = type_text.split()[0] if type_text.split() else ""
    if head in local_props:
        return HypothesisKind.PROPOSITION
    if head in vocabulary.inductive_types:
        return HypothesisKind.INDUCTIVE
    if head in vocabulary.case_types:
        return HypothesisKind.CASES
    if head in vocabulary.data_types or type_text in vocabulary.data_types:
        return HypothesisKind.DATA
    return HypothesisKind.PROPOSITION


def instantiated_tactics(goal_text: str, vocabulary: TacticVocabulary = COQ_VOCABULARY) -> list[str]:
    """Tactics that name the goal's hypotheses: the arguments a fixed list cannot guess."""
    found = hypotheses(goal_text)
    local_props = {name for name, type_text in found if type_text == "Prop"}
    tactics: list[str] = []
    equations: list[str] = []
    propositions: list[str] = []
    for name, type_text in found:
        kind = classify(type_text, local_props, vocabulary)
        if kind is HypothesisKind.INDUCTIVE:
            tactics += [t.format(h=name) for t in vocabulary.inductive]
        elif kind is HypothesisKind.CASES:
            tactics += [t.format(h=name) for t in vocabulary.case_only]
        elif kind is HypothesisKind.PROPOSITION:
            propositions.append(name)
            tactics += [t.format(h=name) for t in vocabulary.hypothesis]
            if _EQUATION.search(type_text):
                equations.append(name)
                tactics += [t.format(h=name) for t in vocabulary.equation]
    rewrites = [vocabulary.rewrite_in.format(h=h, g=g) for h in equations for g in propositions if g != h]
    return tactics + rewrites[:MAX_REWRITE_IN]


def goal_count(goal_text: str) -> int:
    """How many prover goals a node holds (coupled goals each have their own `⊢` line)."""
    return max(1, sum(1 for line in goal_text.splitlines() if line.startswith("⊢")))


class FixedTacticEvaluator:
    """Uniform priors over a fixed, goal-instantiated tactic list; value −(number of goals)."""

    def __init__(self, vocabulary: TacticVocabulary = COQ_VOCABULARY, extra_tactics: Sequence[str] = ()) -> None:
        self.vocabulary = vocabulary
        self.extra_tactics = tuple(extra_tactics)
        self.calls = 0

    def tactics_for(self, goal_text: str) -> list[str]:
        """The distinct tactics proposed for a goal at round 0, in a fixed order."""
        vocabulary = self.vocabulary
        context = goal_context(goal_text) if vocabulary.families else None
        generated = [t for proposer in vocabulary.families for t in proposer.tactics(context)] if context else []
        names = [*vocabulary.generic, *self.extra_tactics, *generated, *instantiated_tactics(goal_text, vocabulary)]
        canonical = tactic_form(vocabulary.language)
        return list(dict.fromkeys(form for form in map(canonical, names) if form is not None))

    def evaluate(self, requests: Sequence[EvalRequest]) -> list[Evaluation]:
        self.calls += 1
        out = []
        for request in requests:
            value = -float(goal_count(request.goal))
            if request.round > 0:
                out.append(Evaluation((), value))
                continue
            tactics = self.tactics_for(request.goal)
            logprob = -math.log(len(tactics))
            out.append(Evaluation(tuple((t, logprob) for t in tactics), value))
        return out
