"""Solve one theorem: start the env, search, extract the smallest proof, render, verify.

A proof is reported only when the backend's independent `verify` (kernel + axiom audit on a
fresh file) accepts it. A search-proved tree whose script the verifier rejects is a soundness
incident: it is logged at ERROR level, counted as not proved, and described in
`SolveOutcome.incident`.

One rejection is not a soundness alarm: a `timeout N (…)` step (the automation wraps its heavier
calls so: `timeout 3 (intros; psatz R 3)`) that ran out in the replay. Whether it does depends on
the machine's load, not on the proof, so such a script is verified once more from scratch; if it
runs out again the outcome is a replay timeout (`VERIFY TIMEOUT: …`, logged at WARNING), still
not proved.
"""

from __future__ import annotations

import enum
import logging
import random
import time
from dataclasses import dataclass, field
from typing import Callable

from lean_interface.api import EnvError, Goal, ProofEnv, ProofStep, Theorem, Verdict
from search.best_first import run_best_first
from search.config import BestFirstConfig, Budget, MCTSConfig, PortfolioConfig
from search.evaluator import Evaluator
from search.expansion import SearchResult, SearchStats
from search.mcts import run_mcts
from search.proposers import family_of
from search.portfolio import run_portfolio
from search.tree import SearchTree

log = logging.getLogger(__name__)


class Method(str, enum.Enum):
    """The search methods `solve` can run."""

    MCTS = "mcts"
    BEST_FIRST = "bfs"
    PORTFOLIO = "portfolio"

    @property
    def needs_evaluator(self) -> bool:
        return self is not Method.PORTFOLIO

    @classmethod
    def parse(cls, name: str) -> "Method":
        """The method called `name`; a one-line ValueError naming the choices otherwise."""
        try:
            return cls(name)
        except ValueError:
            raise ValueError(f"unknown method {name!r} (choose from {', '.join(m.value for m in cls)})") from None


@dataclass(frozen=True)
class SearchSettings:
    """Every method's configuration; each method reads its own part."""

    mcts: MCTSConfig = field(default_factory=MCTSConfig)
    best_first: BestFirstConfig = field(default_factory=BestFirstConfig)
    portfolio: PortfolioConfig = field(default_factory=PortfolioConfig)


@dataclass(frozen=True)
class SearchCall:
    """Everything a method's runner may use (the evaluator is checked present when needed)."""

    theorem: Theorem
    root: Goal
    env: ProofEnv
    evaluator: Evaluator | None
    settings: SearchSettings
    budget: Budget
    rng: random.Random | None

    def need_evaluator(self) -> Evaluator:
        if self.evaluator is None:
            raise ValueError("this method needs an evaluator")
        return self.evaluator


#: the registry: one runner per method
RUNNERS: dict[Method, Callable[[SearchCall], SearchResult]] = {
    Method.MCTS: lambda c: run_mcts(c.root, c.env, c.need_evaluator(), c.settings.mcts, c.budget, c.rng),
    Method.BEST_FIRST: lambda c: run_best_first(c.root, c.env, c.need_evaluator(), c.settings.best_first, c.budget),
    Method.PORTFOLIO: lambda c: run_portfolio(c.root, c.env, c.settings.portfolio, c.budget, c.theorem.header),
}


@dataclass
class SolveOutcome:
    """The result of one solve.

    Fields:
      proved:         True only when the verifier accepted the script.
      script:         the verified proof script (None unless proved).
      verdict:        the verifier's answer (None when the search found nothing to verify).
      stats:          search statistics (the search only; start and verify are timed separately).
      tree:           the search graph (for the HTML view).
      start_seconds:  time to start the env on the theorem.
      verify_seconds: time to render and independently check the proof.
      incident:       set when the search believed in a proof that was rejected: a soundness alarm
                      (`SOUNDNESS INCIDENT: …`), or a replay timeout (`VERIFY TIMEOUT: …`).
      method:         the method that ran.
      closed_by:      (tactic, automation family) for every step of the verified proof that
                      closed its goal, in proof order (`search.proposers.family_of`).
    """

    proved: bool
    script: str | None
    verdict: Verdict | None
    stats: SearchStats
    tree: SearchTree | None
    start_seconds: float = 0.0
    verify_seconds: float = 0.0
    incident: str = ""
    method: Method = Method.MCTS
    closed_by: tuple[tuple[str, str], ...] = ()

    @property
    def total_seconds(self) -> float:
        return self.start_seconds + self.stats.total_seconds + self.verify_seconds


def solve(theorem: Theorem, env: ProofEnv, evaluator: Evaluator | None, method: Method,
          settings: SearchSettings | None = None, budget: Budget | None = None,
          rng: random.Random | None = None) -> SolveOutcome:
    """Search for a proof of `theorem` with `method` and verify it.

    Raises EnvError if the statement does not elaborate, ValueError if the method needs an
    evaluator and none is given."""
    if method.needs_evaluator and evaluator is None:
        raise ValueError(f"method {method.value} needs an evaluator")
    started = time.monotonic()
    root = env.start(theorem)
    start_seconds = time.monotonic() - started
    call = SearchCall(theorem, root, env, evaluator, settings or SearchSettings(), budget or Budget(), rng)
    result = RUNNERS[method](call)
    outcome = SolveOutcome(False, None, None, result.stats, result.tree, start_seconds, method=method)
    if result.proof is None:
        return outcome
    verify_started = time.monotonic()
    script = ""
    try:
        script = env.render(theorem, result.proof)
        verdict = env.verify(theorem, script)
    except EnvError as error:
        verdict = Verdict(False, f"could not render or verify the proof: {error}", (), script)
    if replay_timed_out(verdict):
        verdict = _verify_again(env, theorem, script, verdict)
    outcome.verify_seconds = time.monotonic() - verify_started
    outcome.verdict = verdict
    if replay_timed_out(verdict):
        outcome.incident = (f"VERIFY TIMEOUT: a timeout step of the search proof of {theorem.name} ran out "
                            f"in two replays from scratch (machine load), so it is not counted as proved: "
                            f"{verdict.message}")
        log.warning("%s", outcome.incident)
        return outcome
    if not verdict.ok:
        outcome.incident = (f"SOUNDNESS INCIDENT: search proof of {theorem.name} rejected by the verifier: "
                            f"{verdict.message}")
        log.error("%s (proof tree: %s)", outcome.incident, result.proof)
        return outcome
    outcome.proved = True
    outcome.script = script
    outcome.closed_by = tuple((tactic, family_of(tactic)) for tactic in closing_tactics(result.proof))
    return outcome


#: how coqc reports a `timeout N (…)` step that ran out (Coq 8.16's `Proofview.tclTIMEOUT`)
REPLAY_TIMEOUT_ERROR = "coqc rejected the proof: Error: Tactic failure: [Proofview.tclTIMEOUT] Tactic timeout!"


def replay_timed_out(verdict: Verdict) -> bool:
    """Whether the verifier rejected a script only because one of its `timeout` steps ran out."""
    return not verdict.ok and verdict.message.startswith(REPLAY_TIMEOUT_ERROR)


def _verify_again(env: ProofEnv, theorem: Theorem, script: str, first: Verdict) -> Verdict:
    try:
        return env.verify(theorem, script)
    except EnvError:
        return first


def closing_tactics(proof: ProofStep) -> list[str]:
    """The tactics of a proof that close their goal (the leaves of the proof tree), in order."""
    if not proof.children:
        return [proof.tactic]
    return [tactic for child in proof.children for tactic in closing_tactics(child)]
