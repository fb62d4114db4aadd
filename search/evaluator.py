"""The interface between the search and whatever proposes tactics and judges goals.

The search never imports torch or a network: it is handed an `Evaluator`. `networks` provides
an adapter for the trained model; `search.fixed_evaluator` provides a no-network baseline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Protocol, Sequence

#: a tactic's canonical form in the proof language (`lean_interface.tactic_form`; `ProofEnv.canonical_tactic`),
#: or None when the text is no tactic of that language
TacticForm = Callable[[str], str | None]


@dataclass(frozen=True)
class EvalRequest:
    """One goal to evaluate.

    Fields:
      goal:        the goal's canonical text (`lean_interface.Goal.text`).
      num_samples: how many tactics to propose (duplicates are merged, so fewer may come back).
      round:       progressive-sampling round for this goal (0 = first expansion). Different
                   rounds must be allowed to return different samples; caches key on it.
      candidates:  tactics proposed by someone else (the automation list, hypothesis-instantiated
                   tactics) that the evaluator must also return, each with its own log-probability
                   (a network scores them teacher-forced), so one ranking covers the samples and
                   the candidates. A network answers and scores each in its language's canonical
                   form (`lean_interface.tactic_form`: Coq's `lra.` for `lra`), the form its
                   training data has. Empty for a pure policy.
      glance:      the search would take a cheap first answer for this goal (`mcts.expansion =
                   "glance"`): a mixed evaluator answers with its candidate list at uniform priors
                   and the network's value alone, no sampling or scoring (`MixedEvaluator`); the
                   goal's next request is the policy's round 0 (`Evaluation.glance` says it was
                   honoured). Other evaluators ignore it.
      list_candidates: False: a mixed evaluator adds its candidate list to this round 0 neither
                   to the answer nor to the scoring (the goal's glance offered the list already;
                   `MCTSConfig.glance_prices_list`). Only the policy's samples come back.
    """

    goal: str
    num_samples: int
    round: int = 0
    candidates: tuple[str, ...] = ()
    glance: bool = False
    list_candidates: bool = True


@dataclass(frozen=True)
class Evaluation:
    """The evaluator's answer for one goal.

    Fields:
      tactics: distinct (tactic, log-probability) pairs, most likely first: the samples and every
               requested candidate. Log-probs are the policy's summed token log-probabilities
               (<= 0); a tactic both sampled and listed appears once. The search puts every
               tactic into the env's canonical form before it uses it (`rank_tactics`).
      value:   predicted value of the goal: −(expected tactics still needed), so <= 0.
      glance:  this answer is a glance (`EvalRequest.glance` honoured): placeholder priors, the
               policy not asked yet. An evaluator that ignores the hint answers False.
    """

    tactics: tuple[tuple[str, float], ...]
    value: float
    glance: bool = False


class Evaluator(Protocol):
    """Batched policy + value. One call serves many leaves (parallel simulations)."""

    def evaluate(self, requests: Sequence[EvalRequest]) -> list[Evaluation]:
        """One `Evaluation` per request, in order."""
        ...


def rank_tactics(tactics: Iterable[tuple[str, float]], form: TacticForm | None = None) -> list[tuple[str, float]]:
    """Each tactic once with its best log-prob, most likely first (ties keep the order given).
    With `form`, tactics are first put into their canonical form, so two spellings of one tactic
    (`lra`, `lra.`) count as one; a text with no canonical form (the guard refuses it) is dropped."""
    best: dict[str, float] = {}
    for text, logprob in tactics:
        canonical = form(text) if form is not None else text
        if canonical is not None and (canonical not in best or logprob > best[canonical]):
            best[canonical] = logprob
    return sorted(best.items(), key=lambda item: -item[1])
