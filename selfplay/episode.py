"""What an actor emits and the replay buffer stores: episodes of training records.

A `TrainingRecord` is one example for the learner, in the same shape as the supervised data
(`networks.dataset`): a goal, the tactic to learn (or None for a value-only record) and the
value target in steps (`search.value_units`). An `Episode` is one search attempt at one problem
(prove or disprove), its outcome, its verified proof if any, and its records, stamped with the
weights version the actor searched with. Both round-trip through JSON (one line per episode in
the replay shards).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from search.outcome import Outcome


@dataclass(frozen=True)
class TrainingRecord:
    """One learner example.

    Fields:
      goal:   the goal text (the network's input).
      tactic: the tactic to imitate, or None: a value-only record (a goal the search visited but
              did not prove, or a proof goal whose tactic is already recorded elsewhere).
      steps:  value target, tactics still needed (≥ 1), `UNPROVED_STEPS` for "not proved".
      source: where the problem came from (`minif2f-rocq-train`, `stdlib`, `generated`, ...).
    """

    goal: str
    tactic: str | None
    steps: int
    source: str = ""

    @property
    def key(self) -> tuple[str, str]:
        """The dedup key: (goal, tactic); value-only records use an empty tactic."""
        return (self.goal, self.tactic or "")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TrainingRecord":
        tactic = data.get("tactic")
        return cls(str(data["goal"]), None if tactic is None else str(tactic), int(data["steps"]),
                   str(data.get("source", "")))


@dataclass(frozen=True)
class Episode:
    """One attempt by an actor.

    Fields:
      problem:         problem id (`source/name`), the matchmaker's key.
      source:          the problem source.
      disprove:        True when the attempt searched the negated statement.
      outcome:         PROVED / FAILED / ERROR.
      proof:           the verified script (PROVED only).
      records:         training records (policy targets on the proof, value targets on visited goals).
      weights_version: version of the weights the actor searched with (0 = the starting checkpoint).
      simulations:     search simulations spent.
      seconds:         wall-clock seconds of the attempt (start + search + verify).
      actor:           which actor ran it.
      error:           why, for ERROR.
      open_leads:      a failed search's most promising open goals (`selfplay.targets.open_leads`).
    """

    problem: str
    source: str
    disprove: bool
    outcome: Outcome
    proof: str | None = None
    records: tuple[TrainingRecord, ...] = field(default_factory=tuple)
    weights_version: int = 0
    simulations: int = 0
    seconds: float = 0.0
    actor: str = ""
    error: str = ""
    open_leads: tuple[str, ...] = ()

    @property
    def proved(self) -> bool:
        return self.outcome is Outcome.PROVED

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["outcome"] = self.outcome.value
        data["records"] = [r.to_dict() for r in self.records]
        data["open_leads"] = list(self.open_leads)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Episode":
        return cls(
            problem=str(data["problem"]), source=str(data.get("source", "")), disprove=bool(data["disprove"]),
            outcome=Outcome(data["outcome"]), proof=data.get("proof"),
            records=tuple(TrainingRecord.from_dict(r) for r in data.get("records", ())),
            weights_version=int(data.get("weights_version", 0)), simulations=int(data.get("simulations", 0)),
            seconds=float(data.get("seconds", 0.0)), actor=str(data.get("actor", "")), error=str(data.get("error", "")),
            open_leads=tuple(str(text) for text in data.get("open_leads", ())),
        )
