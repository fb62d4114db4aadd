"""The evaluation results file: one JSON line per (method, problem), appended as soon as known.

Appending one complete line per finished problem (flushed and fsynced) is what makes `eval`
resumable: a killed run loses at most the problems that were in flight, and a rerun skips every
(method, problem) already on file for the same budget.
"""

from __future__ import annotations

import enum
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator


class Status(str, enum.Enum):
    PROVED = "proved"            # a proof was found AND verified from scratch
    FAILED = "failed"            # budget spent without a verified proof
    BAD_STATEMENT = "bad_statement"  # the statement does not elaborate: not attempted
    ERROR = "error"              # the attempt itself broke (reported, never silently dropped)


@dataclass(frozen=True)
class ProblemRecord:
    """One line of the results file."""

    problem: str
    method: str
    status: Status
    seconds: float
    prover_calls: int
    budget_seconds: float
    budget_simulations: int
    simulations: int = 0
    evaluator_calls: int = 0
    proof: str | None = None
    message: str = ""
    families: tuple[str, ...] = ()

    def key(self) -> tuple[str, str, float, int]:
        return (self.method, self.problem, self.budget_seconds, self.budget_simulations)

    def to_json(self) -> str:
        data = asdict(self)
        data["status"] = self.status.value
        return json.dumps(data, ensure_ascii=False)

    @classmethod
    def from_json(cls, line: str) -> "ProblemRecord":
        data = json.loads(line)
        data["status"] = Status(data["status"])
        data["families"] = tuple(data.get("families", ()))
        return cls(**data)


def read_records(path: Path) -> list[ProblemRecord]:
    """All complete records in `path` (a truncated last line from a killed run is ignored)."""
    if not path.exists():
        return []
    records = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if not line:
                continue
            try:
                records.append(ProblemRecord.from_json(line))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                continue  # a half-written line from an interrupted run: that problem is redone
    return records


class RecordWriter:
    """Appends records durably: one line, flushed and fsynced, per finished problem."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._path = path
        self._ensure_line_boundary()
        self._handle = path.open("a", encoding="utf-8")

    def _ensure_line_boundary(self) -> None:
        """If a killed run left a partial last line, end it so the next record starts cleanly."""
        if self._path.exists() and self._path.stat().st_size > 0:
            with self._path.open("rb") as handle:
                handle.seek(-1, os.SEEK_END)
                last = handle.read(1)
            if last != b"\n":
                with self._path.open("a", encoding="utf-8") as handle:
                    handle.write("\n")

    def write(self, record: ProblemRecord) -> None:
        self._handle.write(record.to_json() + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> "RecordWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def iter_done_keys(path: Path) -> Iterator[tuple[str, str, float, int]]:
    for record in read_records(path):
        yield record.key()
