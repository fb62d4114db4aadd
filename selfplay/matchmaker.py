"""Which problem an actor attempts next, which way, and with what budget (AlphaProof's matchmaker).

A problem is sampled with probability proportional to its weight, from what the attempts so far
say about it:

  never attempted                                         weight_untried     1.0
  ever disproved (a verified proof of its negation)       weight_disproved   0.0   never again
  fewer than `min_attempts` attempts                      weight_few         1.0
  neither proved nor disproved after `min_attempts`       weight_undecided   0.1   hard, keep a little
  the last `recent_window` attempts all proved            weight_mastered    1e-3  nothing left to learn
  otherwise (proved sometimes)                            weight_default     1.0   the learning frontier

The rules are checked in that order. "The last `recent_window` attempts all proved" needs at least
`recent_window` attempts. An *undecided* problem (never proved, never disproved) is attempted as
its negation (`selfplay.negation`, `Attempt.disprove`) with probability `disprove_fraction`; once
proved it is only attempted as a proof. The budget grows with failure: base × `budget_growth` **
(consecutive most recent failed attempts on this problem, prove or disprove alike), capped at
`max_budget_factor` × base, for seconds and simulations alike.

The dev subset (docs/ARCHITECTURE.md §Data) is for measuring only and the test split is held out:
the constructor refuses any problem `lean_interface.problems.benchmarks.held_out_problem_of` names
(a variant of one too), so neither can reach self-play.

When every weight is 0 (every problem disproved), `next_attempt` raises `NoProblemsLeft`.
State is JSON-able (`state_dict` / `load_state_dict`, including the random generator), and can be
rebuilt from the replay buffer's episodes (`replay`), so a resumed run continues where it stopped.
Not thread-safe: one owner calls it.
"""

from __future__ import annotations

import math
import random
from collections import Counter, deque
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Iterable, Sequence

from lean_interface.problems.benchmarks import held_out_problem_of
from search.config import config_from_dict
from selfplay.episode import Episode

STATE_VERSION = 1


@dataclass(frozen=True)
class MatchmakerConfig:
    """Sampling weights, the disprove share and the attempt budget (see the module docstring)."""

    base_seconds: float = 20.0
    base_simulations: int = 200
    budget_growth: float = 1.17
    max_budget_factor: float = 4.0
    recent_window: int = 12
    min_attempts: int = 8
    disprove_fraction: float = 0.5
    weight_untried: float = 1.0
    weight_disproved: float = 0.0
    weight_few: float = 1.0
    weight_undecided: float = 0.1
    weight_mastered: float = 1e-3
    weight_default: float = 1.0

    def __post_init__(self) -> None:
        checks = [
            (self.base_seconds > 0, "base_seconds must be > 0"),
            (self.base_simulations >= 1, "base_simulations must be >= 1"),
            (self.budget_growth >= 1, "budget_growth must be >= 1"),
            (self.max_budget_factor >= 1, "max_budget_factor must be >= 1"),
            (self.recent_window >= 1, "recent_window must be >= 1"),
            (self.min_attempts >= 0, "min_attempts must be >= 0"),
            (0 <= self.disprove_fraction <= 1, "disprove_fraction must be in [0, 1]"),
        ]
        checks += [(getattr(self, f.name) >= 0, f"{f.name} must be >= 0") for f in fields(self)
                   if f.name.startswith("weight_")]
        for ok, message in checks:
            if not ok:
                raise ValueError(f"MatchmakerConfig: {message}")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "MatchmakerConfig":
        return config_from_dict(cls, data)


@dataclass(frozen=True)
class Attempt:
    """One assignment for an actor: prove `problem` (or its negation when `disprove`) within
    `max_seconds` wall-clock seconds and `max_simulations` search simulations."""

    problem: str
    disprove: bool
    max_seconds: float
    max_simulations: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Attempt":
        attempt = config_from_dict(cls, data)
        return cls(str(attempt.problem), bool(attempt.disprove), float(attempt.max_seconds),
                   int(attempt.max_simulations))


class NoProblemsLeft(RuntimeError):
    """Every problem has weight 0 (all disproved): there is nothing left to attempt."""


@dataclass
class ProblemRecord:
    """What the matchmaker knows about one problem.

    Fields:
      attempts:     reported attempts (prove and disprove).
      proofs:       attempts that proved the statement.
      disproofs:    attempts that proved the negation.
      failures:     consecutive most recent attempts that proved nothing (drives the budget).
      recent:       for the last `recent_window` attempts, whether each proved the statement.
    """

    attempts: int = 0
    proofs: int = 0
    disproofs: int = 0
    failures: int = 0
    recent: deque[bool] = field(default_factory=deque)

    def to_dict(self) -> dict[str, Any]:
        return {"attempts": self.attempts, "proofs": self.proofs, "disproofs": self.disproofs,
                "failures": self.failures, "recent": list(self.recent)}


class Matchmaker:
    """Samples the next `Attempt` over `problem_ids` by the weights above; `report` each result."""

    def __init__(self, problem_ids: Sequence[str], config: MatchmakerConfig | None = None, seed: int = 0) -> None:
        ids = list(problem_ids)
        if not ids:
            raise ValueError("Matchmaker needs at least one problem")
        duplicates = sorted(p for p, count in Counter(ids).items() if count > 1)
        if duplicates:
            raise ValueError(f"duplicate problem ids: {', '.join(duplicates[:5])}")
        dev = [p for p in ids if held_out_problem_of(p)]
        if dev:
            raise ValueError(f"dev-subset and test-split problems are held out and may not be used in self-play: "
                             f"{', '.join(dev[:5])}{' …' if len(dev) > 5 else ''}")
        self.config = config or MatchmakerConfig()
        self.problem_ids: tuple[str, ...] = tuple(ids)
        self._rng = random.Random(seed)
        self._records = {p: self._new_record() for p in ids}

    def _new_record(self) -> ProblemRecord:
        return ProblemRecord(recent=deque(maxlen=self.config.recent_window))

    # -- choosing --------------------------------------------------------------------------

    def weight(self, problem: str) -> float:
        """The sampling weight of `problem` now (the first rule of the table that applies)."""
        record, config = self._record(problem), self.config
        if record.attempts == 0:
            return config.weight_untried
        if record.disproofs:
            return config.weight_disproved
        if record.attempts < config.min_attempts:
            return config.weight_few
        if not record.proofs:
            return config.weight_undecided
        if len(record.recent) >= config.recent_window and all(record.recent):
            return config.weight_mastered
        return config.weight_default

    def budget(self, problem: str) -> tuple[float, int]:
        """(max_seconds, max_simulations) for the next attempt at `problem`."""
        config = self.config
        exponent = self._record(problem).failures
        if config.budget_growth > 1:   # clamp the exponent: the factor is capped anyway, and a float overflows
            exponent = min(exponent, math.ceil(math.log(config.max_budget_factor) / math.log(config.budget_growth)))
        factor = min(config.budget_growth ** exponent, config.max_budget_factor)
        return config.base_seconds * factor, max(1, round(config.base_simulations * factor))

    def next_attempt(self) -> Attempt:
        """The next attempt, sampled by weight. Raises `NoProblemsLeft` when every weight is 0."""
        weights = [self.weight(p) for p in self.problem_ids]
        if not any(w > 0 for w in weights):
            raise NoProblemsLeft(f"all {len(weights)} problems have weight 0 (disproved): nothing left to attempt")
        problem = self._rng.choices(self.problem_ids, weights=weights)[0]
        record = self._record(problem)
        undecided = record.proofs == 0 and record.disproofs == 0
        disprove = undecided and self._rng.random() < self.config.disprove_fraction
        seconds, simulations = self.budget(problem)
        return Attempt(problem, disprove, seconds, simulations)

    # -- learning the results --------------------------------------------------------------

    def report(self, attempt: Attempt, proved: bool) -> None:
        """Record the result of `attempt`: `proved` means a verified proof of what was attempted
        (of the negation when `attempt.disprove`: the problem is then disproved)."""
        self._update(attempt.problem, attempt.disprove, proved)

    def _update(self, problem: str, disprove: bool, proved: bool) -> None:
        record = self._record(problem)
        record.attempts += 1
        if proved and disprove:
            record.disproofs += 1
        elif proved:
            record.proofs += 1
        record.failures = 0 if proved else record.failures + 1
        record.recent.append(proved and not disprove)

    def replay(self, episodes: Iterable[Episode]) -> int:
        """Rebuild state from stored episodes (`ReplayBuffer.episodes_iter()`), in order, as if each
        had been reported. Episodes of problems not in this matchmaker are ignored. Returns how many
        were applied."""
        applied = 0
        for episode in episodes:
            if episode.problem in self._records:
                self._update(episode.problem, episode.disprove, episode.proved)
                applied += 1
        return applied

    def attempts(self, problem: str) -> int:
        """Attempts reported for `problem` so far (0 for one never tried)."""
        return self._record(problem).attempts

    def _record(self, problem: str) -> ProblemRecord:
        try:
            return self._records[problem]
        except KeyError:
            raise ValueError(f"unknown problem {problem!r}") from None

    def stats(self, problem: str) -> dict[str, Any]:
        """A copy of what is known about `problem` (attempts, proofs, disproofs, failures, recent)."""
        return self._record(problem).to_dict()

    # -- persistence -----------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """JSON-able state: per-problem records and the random generator."""
        version, internal, gauss = self._rng.getstate()
        return {"version": STATE_VERSION, "rng": [version, list(internal), gauss],
                "problems": {p: r.to_dict() for p, r in self._records.items() if r.attempts}}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore `state_dict()` output. Problems it names that are not in this matchmaker are
        ignored (the problem set may have shrunk); problems it lacks start untried."""
        if state.get("version") != STATE_VERSION:
            raise ValueError(f"unsupported matchmaker state version {state.get('version')!r}")
        version, internal, gauss = state["rng"]
        self._rng.setstate((version, tuple(internal), gauss))
        self._records = {p: self._new_record() for p in self.problem_ids}
        for problem, data in state["problems"].items():
            if problem not in self._records:
                continue
            record = self._records[problem]
            record.attempts, record.proofs = int(data["attempts"]), int(data["proofs"])
            record.disproofs, record.failures = int(data["disproofs"]), int(data["failures"])
            record.recent.extend(bool(x) for x in data["recent"])
