"""A run's own held-out benchmarks (`iteration.hold_out`, docs/ARCHITECTURE.md §Data).

The dev subset and the test split are held out of every run by `held_out_problem_of`. A run may
hold out more: a benchmark it never trains on, so that its versions can be compared on
competition problems none of them saw — `minif2f-rocq-tune`, the slice of the train split that
settings are chosen on (the dev subset may only be measured). `HoldOut` is that set and the
filters that keep it out of each training input:

* problems (the train split, its variants, subgoals of its targets): a problem is held out when
  its base name (`base_problem_name`: prefixes and variant suffixes stripped) is a held-out
  problem's, or its statement (without its name) is one — a variant of a fitted problem that
  happens to state a held-out one is held out too;
* supervised records (the loop-proof ledger replayed, `alphaprover eval-proofs`): a record whose
  `lemma` has a held-out base name.

Sources and records are filtered (the ledger legitimately lists held-out problems: earlier runs
proved them); the driver then refuses any held-out problem that still reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from lean_interface.api import Theorem
from lean_interface.problems.benchmarks import base_problem_name, load_benchmark, statement_without_name
from selfplay.actor import SourceProblem


@dataclass(frozen=True)
class HoldOut:
    """The problems of some benchmarks, by base name and by statement; empty = nothing held out."""

    benchmarks: tuple[str, ...] = ()
    names: frozenset[str] = frozenset()
    statements: frozenset[str] = frozenset()

    @classmethod
    def of(cls, benchmarks: Sequence[str]) -> "HoldOut":
        """The problems of each named benchmark (a bundled name such as `minif2f-rocq-tune`, a .v
        directory or a .jsonl file); ValueError (one line) for one that names nothing loadable
        or has no problem."""
        names: set[str] = set()
        statements: set[str] = set()
        for spec in benchmarks:
            problems = load_benchmark(spec)
            if not problems:
                raise ValueError(f"hold_out benchmark {spec!r} has no problems")
            names.update(problem.name for problem in problems)
            statements.update(statement_without_name(problem.theorem.statement) for problem in problems
                              if problem.theorem is not None)
        return cls(tuple(benchmarks), frozenset(names), frozenset(statements))

    def __bool__(self) -> bool:
        return bool(self.names)

    def reason(self, name: str, theorem: Theorem | None = None) -> str | None:
        """Why the problem `name` (a problem id or a record's lemma) is held out, else None."""
        base = base_problem_name(name)
        if base in self.names:
            return f"{base} (hold_out: {', '.join(self.benchmarks)})"
        if theorem is not None and statement_without_name(theorem.statement) in self.statements:
            return f"{name} (states a hold_out problem of {', '.join(self.benchmarks)})"
        return None

    def split(self, problems: Iterable[SourceProblem]) -> tuple[list[SourceProblem], list[SourceProblem]]:
        """(kept, held out) of `problems`, each in order."""
        kept: list[SourceProblem] = []
        held: list[SourceProblem] = []
        for problem in problems:
            (held if self.reason(problem.id, problem.theorem) else kept).append(problem)
        return kept, held

    def keeps_lemma(self, lemma: str) -> bool:
        """Whether a supervised record of `lemma` (a problem name, "" for none) may be trained on."""
        return not lemma or self.reason(lemma) is None


__all__ = ["HoldOut"]
