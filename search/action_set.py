"""What an expansion may try: the policy's samples, a fixed automation list, or both ranked as one.

Three modes (`ActionMode`):
  network  the policy's K samples only (AlphaProof's action set).
  fixed    the no-network list: generic automation + tactics naming the goal's hypotheses, all
           with the same prior (`FixedTacticEvaluator`).
  mixed    the policy's K samples ∪ that same list, every candidate priced by the policy's own
           log-probability of it (one teacher-forced scoring pass, far cheaper than sampling),
           so the network decides what to try first among its ideas and the decision procedures.

Why mixed is the default (docs/ARCHITECTURE.md §Action set): a small policy samples tactic syntax
well but rarely the exact `intros; nra.` that closes a competition goal, and a fixed list never
guesses arguments; the union, ranked by the network, keeps both. The automation list is offered
at round 0 only; later progressive-sampling rounds ask the policy for new samples.

In mixed mode the candidate list may also carry library lemmas about the goal's functions
(`search.lemma_candidates`, `lemma_candidates=N`): the policy prices them like the rest; with
`short_names` the computed proposers are priced by their names (`search.proposers.short_names`).
"""

from __future__ import annotations

import enum
import math
from typing import Callable, Sequence

from search.evaluator import EvalRequest, Evaluation, Evaluator
from search.fixed_evaluator import COQ_VOCABULARY, FixedTacticEvaluator, TacticVocabulary


class ActionMode(str, enum.Enum):
    NETWORK = "network"
    FIXED = "fixed"
    MIXED = "mixed"

    @classmethod
    def parse(cls, name: str) -> "ActionMode":
        """The mode called `name`; a one-line ValueError naming the choices otherwise."""
        try:
            return cls(name)
        except ValueError:
            raise ValueError(f"unknown action mode {name!r} (choose from {', '.join(m.value for m in cls)})") from None

    @property
    def needs_network(self) -> bool:
        return self is not ActionMode.FIXED


class MixedEvaluator:
    """The policy, asked to also score a candidate list for each goal at its first round.

    `candidates(goal_text)` gives the tactics to add (e.g. `FixedTacticEvaluator.tactics_for`).
    The policy answers with samples ∪ candidates, each with its own log-probability."""

    def __init__(self, policy: Evaluator, candidates: Callable[[str], Sequence[str]]) -> None:
        self.policy = policy
        self.candidates = candidates

    def evaluate(self, requests: Sequence[EvalRequest]) -> list[Evaluation]:
        """Samples ∪ candidates priced by the policy; a glance (`EvalRequest.glance`) gets the
        candidates at uniform priors (as the fixed evaluator gives them) with the network's value
        alone: one value-only call (no samples, nothing to score) for all glances of the batch."""
        widened = [
            EvalRequest(r.goal, r.num_samples, r.round,
                        tuple(dict.fromkeys((*r.candidates, *self.candidates(r.goal))))
                        if r.round == 0 and r.list_candidates else r.candidates)
            for r in requests
        ]
        glances = [i for i, r in enumerate(requests) if r.glance]
        full = [i for i, r in enumerate(requests) if not r.glance]
        answers: list[Evaluation | None] = [None] * len(requests)
        for i, evaluation in zip(full, self.policy.evaluate([widened[i] for i in full]) if full else []):
            answers[i] = evaluation
        values = self.policy.evaluate([EvalRequest(requests[i].goal, 0) for i in glances]) if glances else []
        for i, valued in zip(glances, values):
            tactics = widened[i].candidates
            logprob = -math.log(len(tactics)) if tactics else 0.0
            answers[i] = Evaluation(tuple((t, logprob) for t in tactics), valued.value, glance=True)
        return [a for a in answers if a is not None]


def joined(*sources: Callable[[str], Sequence[str]]) -> Callable[[str], list[str]]:
    """One candidates callable from several: each source's tactics in turn, distinct."""
    def candidates(goal: str) -> list[str]:
        return list(dict.fromkeys(t for source in sources for t in source(goal)))
    return candidates


def action_evaluator(mode: ActionMode, network: Evaluator | None,
                     vocabulary: TacticVocabulary = COQ_VOCABULARY,
                     lemmas: Callable[[str], Sequence[str]] | None = None,
                     short_names: bool = False) -> Evaluator:
    """The evaluator that realises `mode` (a network is required for network and mixed).
    `lemmas` (e.g. `LemmaCandidates.tactics_for`) adds library-lemma tactics to mixed mode's
    candidates; `short_names` prices the vocabulary's computed proposers by their short names and
    expands the names the policy samples (`search.proposers.short_names`). The other modes refuse
    both (ValueError), so no label claims what it does not do."""
    if lemmas is not None and mode is not ActionMode.MIXED:
        raise ValueError(f"lemma candidates are priced by the policy: action mode {mode.value!r} cannot use them "
                         "(use mixed)")
    if short_names and mode is not ActionMode.MIXED:
        raise ValueError(f"short names are priced by the policy: action mode {mode.value!r} cannot use them "
                         "(use mixed)")
    fixed = FixedTacticEvaluator(vocabulary)
    if mode is ActionMode.FIXED:
        return fixed
    if network is None:
        raise ValueError(f"action mode {mode.value!r} needs a network checkpoint")
    if mode is ActionMode.NETWORK:
        return network
    if short_names:
        from search.proposers.short_names import NamedProposals

        network = NamedProposals(network, vocabulary.families)
    return MixedEvaluator(network, fixed.tactics_for if lemmas is None else joined(fixed.tactics_for, lemmas))


class NeutralValue:
    """An evaluator's proposals with the value replaced by the no-network one, −(number of goals).

    Why (issue 74 item 5): whether the value head helps the search is a measurement, not an
    assumption: `mcts-mixed+neutral` runs the same policy and list with a neutral value beside
    `mcts-mixed` in one eval run, and the default is whichever proves more."""

    def __init__(self, inner: Evaluator) -> None:
        self.inner = inner

    def evaluate(self, requests: Sequence[EvalRequest]) -> list[Evaluation]:
        from search.fixed_evaluator import goal_count

        return [Evaluation(answer.tactics, -float(goal_count(request.goal)), answer.glance)
                for request, answer in zip(requests, self.inner.evaluate(requests))]
