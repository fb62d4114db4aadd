"""The interface between the search and whatever proposes tactics and judges goals.

The search never imports torch or a network: it is handed an `Evaluator`. `networks` provides
an adapter for the trained model; `search.fixed_evaluator` provides a no-network baseline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence


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
                   of that exact tactic (a network scores them teacher-forced), so one ranking
                   covers the samples and the candidates. Empty for a pure policy.
    """

    goal: str
    num_samples: int
    round: int = 0
    candidates: tuple[str, ...] = ()


@dataclass(frozen=True)
class Evaluation:
    """The evaluator's answer for one goal.

    Fields:
      tactics: distinct (tactic, log-probability) pairs, most likely first: the samples and every
               requested candidate. Log-probs are the policy's summed token log-probabilities
               (<= 0); a tactic both sampled and listed appears once.
      value:   predicted value of the goal: −(expected tactics still needed), so <= 0.
    """

    tactics: tuple[tuple[str, float], ...]
    value: float


class Evaluator(Protocol):
    """Batched policy + value. One call serves many leaves (parallel simulations)."""

    def evaluate(self, requests: Sequence[EvalRequest]) -> list[Evaluation]:
        """One `Evaluation` per request, in order."""
        ...
