"""Short names for the computed proposers: the network ranks *which proposer*, the proposer computes
*the arguments* (issue 74 item 4; docs/ARCHITECTURE.md §Proposers).

A computed proposer's tactic carries arguments the policy cannot predict (`assert (x = 19) by …`,
`exists (2 * 4 ^ m)`, a linear combination's coefficients): teacher-forced, its log-probability is
dominated by those argument tokens, so a mixed search prices every such tactic near the bottom of the
list whatever the goal looks like; and the training targets of longer ones do not even fit the
policy's tactic length (`networks.dataset.encode_examples` leaves them out). Under its short name
(`propose field_side.`) the same choice is a few tokens the policy can learn from any goal it closed:

  search    `NamedProposals` wraps the policy inside a mixed search. A computed proposer's candidates
            are scored as its one short name; the name's probability is shared evenly by the
            proposer's tactics for the goal (the mass the policy gives the proposer is kept). A name
            the policy samples (any round) is expanded into that proposer's tactics for the goal. A
            name of a proposer outside the configured set, or one with nothing to offer, is dropped:
            no short name ever reaches the prover.
  training  `training_target(goal, tactic)`: a computed proposer's tactic at that goal becomes its
            short name (recognised exactly: the proposer run on the record's goal proposes it), any
            other tactic stays. The learners apply it when `short_names` is on; stored data keep the
            tactic the prover ran.

The proposer's tactics for a goal are a pure function of the goal's text (cached here), so the name
means the same tactics at training and at search time.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Sequence

from search.evaluator import EvalRequest, Evaluation, Evaluator
from search.proposers import Proposer, computed_proposers

#: the short-name spelling: a sentence no Coq tactic has (the guard accepts it; Coq would reject it)
PREFIX = "propose "
_NAME = re.compile(r"propose (?P<name>\w+)\.?")


def short_name(proposer: str) -> str:
    """`field_side` → `propose field_side.` (canonical Coq form, as the policy sees tactics)."""
    return f"{PREFIX}{proposer}."


def named_proposer(tactic: str) -> str | None:
    """The proposer a short name names (`propose field_side.` → "field_side"), else None."""
    match = _NAME.fullmatch(tactic.strip())
    return match.group("name") if match else None


@functools.lru_cache(maxsize=8192)
def proposals(proposer: Proposer, goal: str) -> tuple[str, ...]:
    """A proposer's tactics for a goal's text, computed once per (proposer, goal) in this process."""
    return tuple(proposer.tactics(goal))


def _wrapped(tactic: str) -> bool:
    """Whether a tactic could be a computed proposer's: each one is under `timeout N (…)` (its
    Ltac time limit), so any other tactic is answered without running a proposer."""
    return tactic.startswith("timeout ")


def proposer_of_step(goal: str, tactic: str, proposers: Sequence[Proposer] | None = None) -> str | None:
    """The computed proposer that proposes `tactic` at `goal` (exactly: it is among the proposer's
    tactics for that goal), else None."""
    if not _wrapped(tactic):
        return None
    for proposer in computed_proposers() if proposers is None else proposers:
        if tactic in proposals(proposer, goal):
            return proposer.name
    return None


def training_target(goal: str, tactic: str) -> str:
    """The policy's target for a proof step: the proposer's short name for a computed proposer's
    tactic at this goal, the tactic itself otherwise."""
    name = proposer_of_step(goal, tactic)
    return short_name(name) if name is not None else tactic


class NamedProposals:
    """The policy with the computed proposers under their short names (a mixed search's inner
    evaluator: `search.action_set.action_evaluator(short_names=True)`).

    Of `proposers` (the configured set's), those of `search.proposers.computed_proposers` go by
    name; the rest of each request (samples, the classic list, lemma candidates) passes through
    unchanged."""

    def __init__(self, policy: Evaluator, proposers: Sequence[Proposer]) -> None:
        self.policy = policy
        named = set(computed_proposers())
        self.proposers = {p.name: p for p in proposers if p in named}

    def _by_name(self, goal: str, candidates: Sequence[str]) -> tuple[list[str], dict[str, tuple[str, ...]]]:
        """(the candidates with each offered proposer's tactics replaced by its short name, each
        named proposer's tactics for the goal)."""
        groups: dict[str, tuple[str, ...]] = {}
        owner: dict[str, str] = {}
        if any(_wrapped(c) for c in candidates):
            for name, proposer in self.proposers.items():
                for tactic in proposals(proposer, goal):
                    owner.setdefault(tactic, name)
        kept: list[str] = []
        for candidate in candidates:
            name = owner.get(candidate)
            if name is None:
                kept.append(candidate)
                continue
            if name not in groups:
                groups[name] = proposals(self.proposers[name], goal)
                kept.append(short_name(name))
        return kept, groups

    def evaluate(self, requests: Sequence[EvalRequest]) -> list[Evaluation]:
        renamed, groups = [], []
        for request in requests:
            kept, group = self._by_name(request.goal, request.candidates)
            renamed.append(EvalRequest(request.goal, request.num_samples, request.round, tuple(kept),
                                       request.glance, request.list_candidates))
            groups.append(group)
        answers = self.policy.evaluate(renamed)
        return [self._expanded(request.goal, answer, group) for request, answer, group in zip(requests, answers, groups)]

    def _expanded(self, goal: str, answer: Evaluation, groups: dict[str, tuple[str, ...]]) -> Evaluation:
        """The answer with every short name replaced by its proposer's tactics, each at the name's
        log-probability minus log(number of them); the best-priced copy of a tactic is kept."""
        best: dict[str, float] = {}
        for tactic, logprob in answer.tactics:
            name = named_proposer(tactic)
            if name is None:
                expanded: Sequence[tuple[str, float]] = ((tactic, logprob),)
            elif name in self.proposers:
                tactics = groups.get(name) or proposals(self.proposers[name], goal)
                expanded = [(t, logprob - math.log(len(tactics))) for t in tactics]
            else:
                expanded = ()  # a name outside the configured set (or no proposer at all): dropped
            for text, price in expanded:
                if text not in best or price > best[text]:
                    best[text] = price
        ranked = tuple(sorted(best.items(), key=lambda item: -item[1]))
        return Evaluation(ranked, answer.value, answer.glance)


__all__ = ["NamedProposals", "PREFIX", "named_proposer", "proposals", "proposer_of_step", "short_name",
           "training_target"]
