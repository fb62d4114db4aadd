"""Where an expert-iteration run stands, and what its run directory holds (docs/ARCHITECTURE.md
§Expert iteration).

`iteration.json` (`IterationState`) names the round, the phase and the learner step the current
learn phase ends at; it moves on only once a phase's work is on disk. `RunFiles` reads that work
back: each round's `rounds/rNNN/heldout.jsonl` and `search.jsonl` (rows fsynced one per problem,
so a resumed phase skips what they hold), the held-out slice chosen once (`heldout_slice.json`)
and the reference steps (`references.jsonl`).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from lean_interface.durable import write_atomic
from selfplay.round_metrics import read_rows, spread, spread_by_family

#: the phases: reference once before round 0, then evaluate, search and learn every round
REFERENCE, EVALUATE, SEARCH, LEARN = "reference", "evaluate", "search", "learn"
#: how a new run picks its held-out slice from the held-out problems (sorted ids, count)
HELDOUT_SELECTIONS: dict[str, Callable[[Sequence[str], int], list[str]]] = {
    "by_family": spread_by_family, "spread": spread}


@dataclass
class IterationState:
    """Where the run is: `round`, `phase`, and the learner step the current learn phase ends at."""

    round: int = 0
    phase: str = REFERENCE
    learn_until: int = -1

    @classmethod
    def load(cls, path: Path) -> "IterationState":
        if not path.is_file():
            return cls()
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(int(data["round"]), str(data["phase"]), int(data.get("learn_until", -1)))

    def save(self, path: Path) -> None:
        write_atomic(path, json.dumps({"round": self.round, "phase": self.phase, "learn_until": self.learn_until}))


def tally(history: Sequence[tuple[str, bool]]) -> tuple[dict[str, int], set[str]]:
    """(attempts per problem, problems proved) of a search history."""
    return dict(Counter(problem for problem, _ in history)), {problem for problem, proved in history if proved}


class RunFiles:
    """The files of one run directory, and what they say so far."""

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.state_path = self.run_dir / "iteration.json"

    def round_dir(self, round_index: int) -> Path:
        return self.run_dir / "rounds" / f"r{round_index:03d}"

    def heldout_path(self, round_index: int) -> Path:
        return self.round_dir(round_index) / "heldout.jsonl"

    def search_path(self, round_index: int) -> Path:
        return self.round_dir(round_index) / "search.jsonl"

    def search_history(self, before_round: int | None = None) -> list[tuple[str, bool]]:
        """(problem, proved) of every train search, in the order they happened (the rounds before
        `before_round` only, when given)."""
        history: list[tuple[str, bool]] = []
        for path in sorted((self.run_dir / "rounds").glob("r*/search.jsonl")):
            if before_round is None or int(path.parent.name[1:]) < before_round:
                history += [(row["problem"], bool(row["proved"])) for row in read_rows(path)]
        return history

    def attempts_so_far(self, before_round: int | None = None) -> tuple[dict[str, int], set[str]]:
        """(attempts per train problem, problems proved) over every round's search file (the
        rounds before `before_round` only, when given)."""
        return tally(self.search_history(before_round))

    def fixed_heldout_slice(self, heldout: Sequence[str], selection: str, count: int) -> list[str]:
        """The run's held-out slice, chosen once and kept in `heldout_slice.json`, so the curve's
        points are the same problems whatever the config says later. A run that began before the
        file existed (it has `iteration.json`) used `spread` and keeps it."""
        path = self.run_dir / "heldout_slice.json"
        if path.is_file():
            chosen = json.loads(path.read_text(encoding="utf-8"))["problems"]
            known = set(heldout)
            missing = [p for p in chosen if p not in known]
            if missing:
                raise ValueError(f"{path} names problems the held-out sources lack: {', '.join(missing[:3])}")
            return chosen
        selection = "spread" if self.state_path.is_file() else selection
        chosen = HELDOUT_SELECTIONS[selection](sorted(heldout), count)
        write_atomic(path, json.dumps({"selection": selection, "problems": chosen}, indent=1))
        return chosen

    def references(self) -> list[tuple[str, str]]:
        """The (goal, tactic) steps of the reference phase's proofs (`references.jsonl`)."""
        return [(goal, tactic) for row in read_rows(self.run_dir / "references.jsonl") for goal, tactic in row["steps"]]


__all__ = ["EVALUATE", "HELDOUT_SELECTIONS", "LEARN", "REFERENCE", "SEARCH", "IterationState", "RunFiles", "tally"]
