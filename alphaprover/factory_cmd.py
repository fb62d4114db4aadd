"""`alphaprover factory`: build the problem factory and write it as JSONL (configs/factory.yaml).

The factory itself lives in the problem layer (`lean_interface.problems.factory`); this module only
turns the composed config into a `FactoryConfig`, runs the build with one coqtop, writes the
items and prints what happened; with `scripts=<jsonl>` it also replays the train items' proof
scripts as demonstrations (`factory.scripts`; `reuse=true` skips a build already on disk, and then
`families=[…]` keeps the scripts of those families only). Bad
input is a UsageError (one line, exit code 2).
"""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from omegaconf import DictConfig
from tqdm import tqdm

from alphaprover.config import UsageError, to_plain
from lean_interface.problems.factory import FAMILIES, family_named
from lean_interface.coq.proof_replay import ProofReplayer, TacticRecord
from lean_interface.problems.factory.build import FactoryConfig, build, read_items, write_items
from lean_interface.problems.factory.elaborate import CoqElaborator
from lean_interface.problems.factory.family import TRAIN, Item
from lean_interface.problems.factory.scripts import ScriptReport, script_records, write_records


def run_factory(cfg: DictConfig) -> int:
    try:
        config = FactoryConfig.from_dict(to_plain(cfg))
        families = [family_named(name) for name in config.families] or list(FAMILIES)
    except (TypeError, ValueError) as error:
        raise UsageError(f"bad factory config: {error}") from None
    out = Path(config.out)
    for key, path in (("out", out), ("scripts", Path(config.scripts) if config.scripts else None)):
        if path is not None and path.is_dir():
            raise UsageError(f"{key}={path} is a directory; name a .jsonl file")
    if config.reuse and out.is_file():
        try:
            items = read_items(out, split=None)
        except ValueError as error:
            raise UsageError(str(error)) from None
        print(f"factory: {len(items)} items read from {out} (reuse=true)")
        if config.families:  # the scripts of these families only (e.g. a supervised file that upweights them)
            kept = set(config.families)
            items = [item for item in items if item.family in kept]
            print(f"factory: {len(items)} items of {', '.join(config.families)}")
    else:
        with CoqElaborator(chunk=config.chunk) as elaborator:
            items, report = build(families, config, elaborator)
        summary = write_items(items, out, report)
        print(f"factory: {report.items} items ({report.splits.get('train', 0)} train, "
              f"{report.splits.get('heldout', 0)} held out) from {report.candidates} drawn in {len(families)} "
              f"families; dropped {report.duplicates} duplicates, {report.not_elaborating} not elaborating, "
              f"{report.dev_refused} dev-subset; generation {report.generate_seconds} s, "
              f"elaboration {report.elaborate_seconds} s")
        print(f"written to {out} and {summary}")
        print(json.dumps({name: counts for name, counts in report.families.items()}))
    if config.scripts:
        write_scripts(items, Path(config.scripts), config.workers)
    return 0


def _replay_shard(items: list[Item]) -> tuple[list[TacticRecord], ScriptReport]:
    with ProofReplayer() as replayer:
        return script_records(items, replayer)


def write_scripts(items: list[Item], path: Path, workers: int) -> None:
    """The train items' proof scripts, replayed in Coq (`workers` processes, each with its own
    coqtop, 500 items at a time), as demonstrations in `path` (JSONL)."""
    train = [item for item in items if item.split == TRAIN]
    jobs = [train[start : start + 500] for start in range(0, len(train), 500)]
    records: list[TacticRecord] = []
    report = ScriptReport()
    with ProcessPoolExecutor(max_workers=workers) as pool, \
            tqdm(total=len(train), desc="factory scripts", unit="item") as bar:
        for found, part in pool.map(_replay_shard, jobs):
            records += found
            report.add(part)
            bar.update(part.items)
    write_records(records, path)
    print(f"scripts: {report.records} records from {report.replayed} of {report.items} train items "
          f"({report.dropped} dropped by the replay, {report.drifted} whose generator changed) → {path}")
