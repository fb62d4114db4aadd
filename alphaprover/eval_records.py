"""The evaluation results file: one JSON line per (method, problem), appended as soon as known.

Appending one complete line per finished problem, flushed and fsynced (`lean_interface.durable`),
is what makes `eval` resumable: a killed run loses at most the problems that were in flight, and a
rerun skips every (method, problem) already on file for the same budget.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterator

from lean_interface.durable import Appender, read_jsonl, skip_torn
from search.outcome import Outcome


@dataclass(frozen=True)
class ProblemRecord:
    """One line of the results file."""

    problem: str
    method: str
    status: Outcome
    seconds: float
    prover_calls: int
    budget_seconds: float
    budget_simulations: int
    simulations: int = 0
    evaluator_calls: int = 0
    proof: str | None = None
    message: str = ""
    families: tuple[str, ...] = ()
    max_depth: int = 0  # the deepest goal the search reached (tactics from the root; MCTS/BFS)
    prover_seconds: float = 0.0  # of `seconds`, the time spent in prover calls

    def key(self) -> tuple[str, str, float, int]:
        return (self.method, self.problem, self.budget_seconds, self.budget_simulations)

    def to_json(self) -> str:
        data = asdict(self)
        data["status"] = self.status.value
        return json.dumps(data, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ProblemRecord":
        data = dict(data)
        data["status"] = Outcome(data["status"])
        data["families"] = tuple(data.get("families", ()))
        return cls(**data)


def read_records(path: Path) -> list[ProblemRecord]:
    """All complete records in `path`; a half-written line from a killed run is skipped (`skip_torn`:
    `RecordWriter` ends it and appends after it), and that problem is redone."""
    if not path.exists():
        return []
    return read_jsonl(path, ProblemRecord.from_dict, skip_torn, "an eval record")


class RecordWriter:
    """Appends records durably: one line, flushed and fsynced, per finished problem (`Appender`,
    which first ends a line a killed run left partial, so the next record starts cleanly)."""

    def __init__(self, path: Path) -> None:
        self._appender = Appender(path)

    def write(self, record: ProblemRecord) -> None:
        self._appender.write(record.to_json())

    def close(self) -> None:
        self._appender.close()

    def __enter__(self) -> "RecordWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def iter_done_keys(path: Path) -> Iterator[tuple[str, str, float, int]]:
    for record in read_records(path):
        yield record.key()
