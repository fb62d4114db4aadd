"""The actor: searches one attempt with the latest published weights and returns an Episode.

A plain class (`selfplay.ray_workers` wraps it for Ray). Before each attempt it asks its weights
source (`selfplay.weights_store`: the run's `weights/` directory in-process, a Ray weights holder
on a cluster) for the newest version and reloads the evaluator when a newer one was published, so
every episode says which weights found it. The attempt runs the same `search.solve.solve` as
`alphaprover solve`: a proof counts only once the backend's kernel check and axiom audit accept
it. A disproof attempt searches the negated statement (`selfplay.negation.negate`).

Failures are values: a statement that does not elaborate, or anything else that goes wrong in one
attempt, becomes an ERROR episode (the run goes on); a crashed prover process costs one failed
tactic inside the env and never an episode.
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from lean_interface.api import EnvError, ProofEnv, Theorem
from search.config import Budget, config_from_dict
from search.evaluator import Evaluator
from search.outcome import Outcome
from search.solve import Method, SearchSettings, solve
from selfplay.episode import Episode
from selfplay.matchmaker import Attempt
from selfplay.negation import negate
from selfplay.targets import UNPROVED_RULES, episode_records, open_leads
from selfplay.weights_store import DirectoryWeights, WeightsSource

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SourceProblem:
    """A self-play problem: its id (`source/name`), source and theorem."""

    id: str
    source: str
    theorem: Theorem


@dataclass(frozen=True)
class ActorConfig:
    """Hydra `train.actor`: which goals get value targets, and whether proofs are pruned.

    `unproved_targets` says which goals a search did not prove get the "not proved" value target
    (`selfplay.targets.UNPROVED_RULES`: `none`, the default, no goal; `root`, only a failed search's
    root; `tree`, every goal visited `min_visits_for_value` times).

    With `prune_proofs` (expert iteration), a verified proof is pruned in the prover
    (`selfplay.prune`: steps that can be left out go, the shortest closing tactic is kept) and
    its steps become the episode's policy records; the search's unproved goals stay as
    value-only records. Without it every proved goal of the search graph is a policy record
    (`selfplay.targets.episode_records`)."""

    min_visits_for_value: int = 2
    prune_proofs: bool = False
    unproved_targets: str = "none"

    def __post_init__(self) -> None:
        if self.unproved_targets not in UNPROVED_RULES:
            raise ValueError(f"actor.unproved_targets must be one of {', '.join(UNPROVED_RULES)}, "
                             f"not {self.unproved_targets!r}")

    @classmethod
    def from_dict(cls, data: dict) -> "ActorConfig":
        return config_from_dict(cls, data, "actor config")


EvaluatorFactory = Callable[[Path], Evaluator]


class Actor:
    """Runs attempts; owns one env and one evaluator (rebuilt when new weights appear)."""

    def __init__(self, name: str, problems: Mapping[str, SourceProblem], env_factory: Callable[[], ProofEnv],
                 evaluator_factory: EvaluatorFactory, settings: SearchSettings, weights: WeightsSource | str | Path,
                 config: ActorConfig | None = None, seed: int = 0) -> None:
        self.name = name
        self.problems = problems
        self.env = env_factory()
        self.evaluator_factory = evaluator_factory
        self.settings = settings
        self.weights: WeightsSource = DirectoryWeights(weights) if isinstance(weights, (str, Path)) else weights
        self.config = config or ActorConfig()
        self.rng = random.Random(seed)
        self.version = -1
        self.evaluator: Evaluator | None = None

    def refresh_weights(self) -> int:
        """Load the newest published weights if they are newer than ours; return our version."""
        latest = self.weights.latest()
        if latest is None:
            raise RuntimeError(f"no published weights in {self.weights}")
        version, path = latest
        if version != self.version:
            self.evaluator = self.evaluator_factory(path)
            self.version = version
            log.info("%s: weights version %d", self.name, version)
        return self.version

    def play(self, attempt: Attempt) -> Episode:
        """One attempt → one Episode (never raises for a problem's sake)."""
        problem = self.problems.get(attempt.problem)
        if problem is None:
            return self._error(attempt, "", f"unknown problem {attempt.problem}", 0.0)
        started = time.monotonic()
        try:
            self.refresh_weights()
            theorem = negate(problem.theorem) if attempt.disprove else problem.theorem
            budget = Budget(max_simulations=attempt.max_simulations, max_seconds=attempt.max_seconds)
            outcome = solve(theorem, self.env, self.evaluator, Method.MCTS, self.settings, budget, self.rng)
        except (EnvError, ValueError) as error:
            return self._error(attempt, problem.source, str(error).splitlines()[0] if str(error) else "error",
                               time.monotonic() - started)
        except Exception as error:  # noqa: BLE001 - one bad attempt must not end a run
            log.exception("%s: attempt on %s failed", self.name, attempt.problem)
            return self._error(attempt, problem.source, f"{type(error).__name__}: {error}", time.monotonic() - started)
        records = episode_records(outcome.tree, problem.source, self.config.min_visits_for_value,
                                  self.config.unproved_targets) if outcome.tree is not None else []
        if outcome.proved and outcome.tree is not None and self.config.prune_proofs and not outcome.incident:
            records = self._pruned_records(theorem, outcome.tree, problem.source, records)
        leads = open_leads(outcome.tree, min_visits=self.config.min_visits_for_value) \
            if outcome.tree is not None and not outcome.proved else []
        if outcome.incident:  # the search believed in a proof the kernel rejected: trust nothing of this tree
            log.error("%s: proof rejected on %s: %s", self.name, attempt.problem, outcome.incident)
            records, leads = [], []
        return Episode(
            problem=attempt.problem, source=problem.source, disprove=attempt.disprove,
            outcome=Outcome.PROVED if outcome.proved else Outcome.FAILED, proof=outcome.script,
            records=tuple(records), weights_version=self.version, simulations=outcome.stats.simulations,
            seconds=time.monotonic() - started, actor=self.name, error=outcome.incident, open_leads=tuple(leads),
        )

    def _pruned_records(self, theorem: Theorem, tree, source: str, records: list) -> list:
        """The pruned proof's step records + the search's value-only records; the search's own
        records when the prover cannot replay the proof now (a restart, a flaky time limit)."""
        from search.tree import extract_proof
        from selfplay.prune import prefer_short_closers, proof_records, prune_proof, replays, value_only

        try:
            proof = prefer_short_closers(tree, 0, extract_proof(tree))
            root = self.env.start(theorem)
            if not replays(self.env, root, proof):
                proof = extract_proof(tree)
            pruned = prune_proof(self.env, root, proof)
            steps = proof_records(self.env, root, pruned, source)
        except (EnvError, ValueError) as error:
            log.warning("%s: pruning failed (%s); keeping the search's records", self.name, error)
            return records
        return [*steps, *value_only(records)]

    def _error(self, attempt: Attempt, source: str, message: str, seconds: float) -> Episode:
        return Episode(problem=attempt.problem, source=source, disprove=attempt.disprove, outcome=Outcome.ERROR,
                       weights_version=self.version, seconds=seconds, actor=self.name, error=message)

    def close(self) -> None:
        close = getattr(self.env, "close", None)
        if callable(close):
            close()
        self.weights.close()
