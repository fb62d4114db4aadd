"""What a TTRL target's directory holds beside self-play's buffer and learner (docs/ARCHITECTURE.md
§Test-time RL): its variants, kept across slices in `variants.json` (`VariantStore`), and the
closing tactics of its proved subgoal and bridged variants in `lemmas.json` (`ttrl.lemmas`).
`reconcile` brings a target's state up to date with its buffer after a crash.

Self-play sees the target and its variants as problems `target/<name>` (source `target`) and
`variants/<variant name>` (source `variant`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from lean_interface.api import Theorem
from lean_interface.durable import write_atomic
from selfplay.actor import SourceProblem
from ttrl.lemmas import LemmaTable, record_lemma
from ttrl.report import TARGET_PREFIX, VARIANT_PREFIX, EpisodeSummary, TargetState
from ttrl.statement import normalise
from ttrl.variants import Variant

VARIANTS_FILE = "variants.json"
LEMMAS_FILE = "lemmas.json"


def target_problem(name: str, theorem: Theorem) -> SourceProblem:
    return SourceProblem(f"{TARGET_PREFIX}{name}", "target", theorem)


def variant_problem(variant: Variant) -> SourceProblem:
    return SourceProblem(f"{VARIANT_PREFIX}{variant.theorem.name}", "variant", variant.theorem)


class VariantStore:
    """`<target dir>/variants.json`: the target's variants (structural ones made once, subgoal ones
    appended), the goal texts already turned into variants, and the subgoal rounds so far."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.generated = False
        self.variants: list[Variant] = []
        self.used_goals: list[str] = []
        self.rounds = 0
        if self.path.exists():
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.generated = bool(data.get("generated", True))
            self.variants = [Variant.from_dict(v) for v in data.get("variants", [])]
            self.used_goals = list(data.get("used_goals", []))
            self.rounds = int(data.get("rounds", 0))

    def save(self) -> None:
        write_atomic(self.path, json.dumps({"generated": self.generated, "rounds": self.rounds,
                                            "variants": [v.to_dict() for v in self.variants],
                                            "used_goals": self.used_goals}, indent=1, ensure_ascii=False))

    def add(self, variants: Sequence[Variant]) -> list[Variant]:
        """Append the variants whose name and statement are new; return those."""
        names = {v.theorem.name for v in self.variants}
        props = {normalise(v.proposition) for v in self.variants}
        added = []
        for variant in variants:
            prop = normalise(variant.proposition)
            if variant.theorem.name in names or prop in props:
                continue
            names.add(variant.theorem.name)
            props.add(prop)
            added.append(variant)
        self.variants.extend(added)
        return added

    def statements(self) -> dict[str, str]:
        return {v.theorem.name: v.proposition for v in self.variants}

    def by_kind(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for variant in self.variants:
            counts[variant.kind] = counts.get(variant.kind, 0) + 1
        return counts

    def subgoal_count(self) -> int:
        return sum(v.kind == "subgoal" for v in self.variants)


def reconcile(target_dir: str | Path, state: TargetState, buffer_capacity: int = 200_000) -> None:
    """Bring `state` up to date with what the target's replay buffer holds (after a crash the buffer
    may hold a proof that state.json had not recorded yet, and proved subgoal variants lemmas.json
    had not). Nothing is written to the buffer."""
    from selfplay.replay_buffer import ReplayBuffer

    buffer_dir = Path(target_dir) / "buffer"
    if not buffer_dir.is_dir():
        return
    store = VariantStore(Path(target_dir) / VARIANTS_FILE)
    lemmas = LemmaTable(Path(target_dir) / LEMMAS_FILE)
    summary = EpisodeSummary(f"{TARGET_PREFIX}{state.name}")
    with ReplayBuffer(buffer_dir, buffer_capacity) as buffer:
        for episode in buffer.episodes_iter():
            summary.add(episode)
            record_lemma(lemmas, store.variants, episode)      # lemmas.json may lag the buffer too
    summary.apply(state, store.statements())
    if summary.proof is not None:
        state.lemmas_used = lemmas.used_in(summary.proof)
    state.variants_generated, state.variants_by_kind = len(store.variants), store.by_kind()


__all__ = ["LEMMAS_FILE", "VARIANTS_FILE", "VariantStore", "reconcile", "target_problem", "variant_problem"]
