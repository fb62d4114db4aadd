"""`alphaprover factory`: build the problem factory and write it as JSONL (configs/factory.yaml).

The factory itself lives in the problem layer (`lean_interface.problems.factory`); this module only
turns the composed config into a `FactoryConfig`, runs the build with one coqtop, writes the
items and prints what happened. Bad input is a UsageError (one line, exit code 2).
"""

from __future__ import annotations

import json
from pathlib import Path

from omegaconf import DictConfig

from alphaprover.config import UsageError, to_plain
from lean_interface.problems.factory import FAMILIES, family_named
from lean_interface.problems.factory.build import FactoryConfig, build, write_items
from lean_interface.problems.factory.elaborate import CoqElaborator


def run_factory(cfg: DictConfig) -> int:
    try:
        config = FactoryConfig.from_dict(to_plain(cfg))
        families = [family_named(name) for name in config.families] or list(FAMILIES)
    except (TypeError, ValueError) as error:
        raise UsageError(f"bad factory config: {error}") from None
    out = Path(config.out)
    if out.exists() and out.is_dir():
        raise UsageError(f"out={out} is a directory; name a .jsonl file")
    with CoqElaborator(chunk=config.chunk) as elaborator:
        items, report = build(families, config, elaborator)
    summary = write_items(items, out, report)
    print(f"factory: {report.items} items ({report.splits.get('train', 0)} train, "
          f"{report.splits.get('heldout', 0)} held out) from {report.candidates} drawn in {len(families)} families; "
          f"dropped {report.duplicates} duplicates, {report.not_elaborating} not elaborating, "
          f"{report.dev_refused} dev-subset; generation {report.generate_seconds} s, "
          f"elaboration {report.elaborate_seconds} s")
    print(f"written to {out} and {summary}")
    print(json.dumps({name: counts for name, counts in report.families.items()}))
    return 0
