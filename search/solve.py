"""Solve one theorem: start the env, search, extract the smallest proof, render it, verify it.

A proof is reported only when the backend's independent `verify` (kernel + axiom audit on a
fresh file) accepts it. A search-proved tree whose script fails verification is a soundness
incident: it is counted as not proved and reported loudly in `SolveOutcome.incident`.
"""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass

from lean_interface.api import EnvError, ProofEnv, Theorem, Verdict
from search.best_first import run_best_first, run_portfolio
from search.config import BestFirstConfig, Budget, MCTSConfig, PortfolioConfig
from search.evaluator import Evaluator
from search.expansion import SearchStats
from search.mcts import SearchResult, run_mcts
from search.tree import SearchTree


class Method(str, enum.Enum):
    MCTS = "mcts"
    BEST_FIRST = "bfs"
    PORTFOLIO = "portfolio"

    @classmethod
    def parse(cls, name: str) -> "Method":
        try:
            return cls(name)
        except ValueError:
            raise ValueError(f"unknown method {name!r} (choose from {', '.join(m.value for m in cls)})") from None


@dataclass(frozen=True)
class SearchSettings:
    """Everything a method may need; each uses its own part."""

    mcts: MCTSConfig = MCTSConfig()
    best_first: BestFirstConfig = BestFirstConfig()
    portfolio: PortfolioConfig = PortfolioConfig()


@dataclass
class SolveOutcome:
    """The result of one solve.

    Fields:
      proved:    True only when the verifier accepted the script.
      script:    the verified tactic script (None unless proved).
      verdict:   the verifier's answer (None when the search found nothing to verify).
      stats:     search statistics; `verify_seconds` and `start_seconds` add the rest of the time.
      tree:      the search graph (for the HTML view).
      incident:  set when the search believed in a proof the verifier rejected.
    """

    proved: bool
    script: str | None
    verdict: Verdict | None
    stats: SearchStats
    tree: SearchTree | None
    start_seconds: float = 0.0
    verify_seconds: float = 0.0
    incident: str = ""

    @property
    def total_seconds(self) -> float:
        return self.start_seconds + self.stats.total_seconds + self.verify_seconds


def solve(theorem: Theorem, env: ProofEnv, evaluator: Evaluator | None, method: Method, settings: SearchSettings,
          budget: Budget) -> SolveOutcome:
    """Search for a proof of `theorem` and verify it. Raises EnvError if the statement is bad."""
    started = time.monotonic()
    root = env.start(theorem)
    start_seconds = time.monotonic() - started
    if method is Method.PORTFOLIO:
        result: SearchResult = run_portfolio(root, env, settings.portfolio, budget)
    else:
        if evaluator is None:
            raise EnvError(f"method {method.value} needs an evaluator")
        if method is Method.MCTS:
            result = run_mcts(root, env, evaluator, settings.mcts, budget)
        else:
            result = run_best_first(root, env, evaluator, settings.best_first, budget)
    if result.proof is None:
        return SolveOutcome(False, None, None, result.stats, result.tree, start_seconds)
    script = env.render(theorem, result.proof)
    verify_started = time.monotonic()
    verdict = env.verify(theorem, script)
    verify_seconds = time.monotonic() - verify_started
    if not verdict.ok:
        incident = f"search proof rejected by the verifier: {verdict.message}"
        return SolveOutcome(False, None, verdict, result.stats, result.tree, start_seconds, verify_seconds, incident)
    return SolveOutcome(True, script, verdict, result.stats, result.tree, start_seconds, verify_seconds)
