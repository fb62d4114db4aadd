"""Build the factory: draw every family's seeds, refuse dev-subset statements, elaborate in Coq,
deduplicate by Coq's printed statement, and write one JSON line per item.

Order matters for the held-out slice: held-out candidates are deduplicated first, so when a train
draw prints like a held-out one it is the train copy that is dropped, and no statement is both
trained on and held out. Within a split, families in catalogue order, seeds ascending: the same
configuration always yields the same items.

The dev subset (`lean_interface.problems.benchmarks.dev_problem_of`) is guarded twice: by text (the
statement without its name equals a dev problem's) and by Coq (its key equals the key of a dev
problem under that problem's own header). The bundled test problems (`minif2f-rocq-test`) are
guarded by text (`held_out_problem_of`: by name and by statement); every family is synthetic: no
item is read from any split.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

from lean_interface.api import EnvError
from lean_interface.durable import read_jsonl, write_atomic
from lean_interface.problems.benchmarks import held_out_problem_of, load_benchmark
from lean_interface.problems.factory.elaborate import DEFAULT_CHUNK, Elaborator
from lean_interface.problems.factory.family import (HELDOUT, HELDOUT_FAMILIES, HELDOUT_SEED_START, ITEM_FIELDS, TRAIN,
                                                    Candidate, Family, Item, candidate)


@dataclass(frozen=True)
class FactoryConfig:
    """What to build (`alphaprover factory`, configs/factory.yaml).

    Fields:
      out:           the JSONL file (a summary is written next to it as `<stem>.summary.json`).
      scale:         multiplies every family's train seed count (`Family.seeds`); 1.0 is the
                     default build (34,000 drawn, 32,254 distinct).
      heldout_seeds: seeds per (not held-out) family from HELDOUT_SEED_START on: the held-out seed block.
      families:      family names to build (empty: all); with `reuse`, the families whose
                     items' scripts are written (`scripts`).
      chunk:         statements per coqtop alignment check (`elaborate.CoqElaborator`).
      scripts:       a JSONL file for the train items' proof scripts replayed in Coq as (goal,
                     tactic, steps) demonstrations (`factory.scripts`); empty: none.
      reuse:         read an existing `out` instead of building it again (to add `scripts` to a build).
      workers:       coqtop processes replaying the scripts.
    """

    out: str = "data/factory/factory.jsonl"
    scale: float = 1.0
    heldout_seeds: int = 100
    families: tuple[str, ...] = ()
    chunk: int = DEFAULT_CHUNK
    scripts: str = ""
    reuse: bool = False
    workers: int = 2

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> FactoryConfig:
        """A validated config; ValueError (one line) on an unknown key or a bad value."""
        unknown = sorted(set(values) - {f for f in cls.__dataclass_fields__})
        if unknown:
            raise ValueError(f"unknown factory option(s): {', '.join(unknown)}")
        families = values.get("families") or ()
        config = cls(**{**values, "families": (families,) if isinstance(families, str) else tuple(families)})
        if not config.out:
            raise ValueError("out must name a file")
        if not config.scale > 0:
            raise ValueError(f"scale must be positive, not {config.scale}")
        if not 0 <= config.heldout_seeds <= 9_999:
            raise ValueError(f"heldout_seeds must be in 0..9999, not {config.heldout_seeds}")
        if config.workers < 1:
            raise ValueError(f"workers must be at least 1, not {config.workers}")
        if config.chunk < 1:
            raise ValueError(f"chunk must be at least 1, not {config.chunk}")
        return config


@dataclass
class BuildReport:
    """What a build did: counts per stage and per family, and how long generation and elaboration took."""

    candidates: int = 0
    dev_refused: int = 0
    not_elaborating: int = 0
    duplicates: int = 0
    items: int = 0
    splits: dict[str, int] = field(default_factory=dict)
    families: dict[str, dict[str, int]] = field(default_factory=dict)
    generate_seconds: float = 0.0
    elaborate_seconds: float = 0.0


def seeds_of(family: Family, config: FactoryConfig) -> list[int]:
    """The seeds a build draws for `family`: train seeds 0 … round(seeds * scale) - 1, then the
    held-out block (none for a held-out family, which is held out whole). ValueError when the train
    seeds would run into the held-out block."""
    train = range(max(1, round(family.seeds * config.scale)))
    if len(train) > HELDOUT_SEED_START:
        raise ValueError(f"scale {config.scale} gives {family.name} more train seeds than {HELDOUT_SEED_START}, "
                         "where the held-out seed block starts")
    if family.name in HELDOUT_FAMILIES:
        return list(train)
    return [*train, *range(HELDOUT_SEED_START, HELDOUT_SEED_START + config.heldout_seeds)]


def draw(families: Sequence[Family], config: FactoryConfig) -> list[Candidate]:
    """Every candidate of the build, held-out ones first (module docstring)."""
    drawn = [candidate(family, seed) for family in families for seed in seeds_of(family, config)]
    return [c for c in drawn if c.split == HELDOUT] + [c for c in drawn if c.split == TRAIN]


def is_dev_text(item: Candidate) -> bool:
    """Whether the candidate states a held-out problem (dev subset or test split), by name or by text."""
    return held_out_problem_of(item.name, item.theorem()) is not None


def dev_keys(elaborator: Elaborator) -> set[str]:
    """Coq keys of the dev-subset problems that elaborate, each under its own header."""
    by_header: dict[str, list[str]] = {}
    for problem in load_benchmark("minif2f-rocq-dev"):
        if problem.theorem is not None:
            by_header.setdefault(problem.theorem.header, []).append(problem.theorem.statement)
    keys: set[str] = set()
    for header, statements in by_header.items():
        try:
            keys.update(k for k in elaborator.keys(header, statements) if k is not None)
        except EnvError:  # a dev header that does not load: none of its problems elaborates, no key
            continue
    return keys


def build(families: Sequence[Family], config: FactoryConfig, elaborator: Elaborator,
          refused_keys: set[str] | None = None) -> tuple[list[Item], BuildReport]:
    """The factory's items and a report. `refused_keys` are keys no item may have (default: the
    dev subset's, `dev_keys`)."""
    report = BuildReport()
    started = time.monotonic()
    candidates = draw(families, config)
    report.candidates = len(candidates)
    allowed = [c for c in candidates if not is_dev_text(c)]
    report.dev_refused = len(candidates) - len(allowed)
    report.generate_seconds = round(time.monotonic() - started, 2)
    started = time.monotonic()
    refused = dev_keys(elaborator) if refused_keys is None else refused_keys
    keys: dict[str, str | None] = {}
    by_header: dict[str, list[Candidate]] = {}
    for c in allowed:
        by_header.setdefault(c.header, []).append(c)
    for header, group in by_header.items():
        keys.update(zip((c.name for c in group), elaborator.keys(header, [c.statement for c in group])))
    report.elaborate_seconds = round(time.monotonic() - started, 2)
    seen: set[str] = set()
    items: list[Item] = []
    for c in allowed:
        counts = report.families.setdefault(c.family, {"candidates": 0, TRAIN: 0, HELDOUT: 0})
        counts["candidates"] += 1
        key = keys[c.name]
        if key is None:
            report.not_elaborating += 1
        elif key in refused:
            report.dev_refused += 1
        elif key in seen:
            report.duplicates += 1
        else:
            seen.add(key)
            items.append(c.plain())
            counts[c.split] += 1
    report.items = len(items)
    report.splits = {split: sum(1 for i in items if i.split == split) for split in (TRAIN, HELDOUT)}
    return items, report


def write_items(items: Sequence[Item], path: Path, report: BuildReport | None = None) -> Path | None:
    """Write `items` as JSONL to `path` (atomically: `write_atomic`), and the report as
    `<stem>.summary.json` beside it; returns the summary's path (None without a report)."""
    write_atomic(path, "".join(json.dumps({k: getattr(item, k) for k in ITEM_FIELDS}, ensure_ascii=False) + "\n"
                               for item in items))
    if report is None:
        return None
    summary = path.with_name(f"{path.stem}.summary.json")
    summary.write_text(json.dumps(asdict(report), indent=2) + "\n", encoding="utf-8")
    return summary


def read_items(path: Path, split: str | None = TRAIN) -> list[Item]:
    """The items of a factory JSONL file, only those of `split` (default train: what may be
    trained on; None: all). ValueError (one line) on a missing file or a malformed line."""
    if split not in (TRAIN, HELDOUT, None):
        raise ValueError(f"split must be {TRAIN!r}, {HELDOUT!r} or None, not {split!r}")
    if not path.is_file():
        raise ValueError(f"factory file not found: {path}")
    items = read_jsonl(path, lambda row: Item(**{k: row[k] for k in ITEM_FIELDS}),
                       what=f"a factory item {{{', '.join(ITEM_FIELDS)}}}")
    return [item for item in items if split is None or item.split == split]
