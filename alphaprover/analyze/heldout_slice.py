"""`alphaprover analyze RUN_DIR export-heldout-slice OUT_DIR`: a run's held-out slice written as a
directory of `.v` files, one per item, so `alphaprover eval OUT_DIR` can search it under any
setting (decoding, budget, checkpoint) beside the curve's own evaluation:

    alphaprover analyze runs/expert-2 export-heldout-slice /tmp/heldout-slice
    alphaprover eval /tmp/heldout-slice --methods "mcts-network@runs/expert-2/weights/v000005" \\
        --simulations 32 --seconds 20 decoding=both

The slice is the run's `heldout_slice.json` (or the items its round 0 evaluated), read from the
run's factory sources (held-out split only). Evaluation only: never a training source.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from alphaprover.analyze.run_files import slice_problems, yaml_sources
from alphaprover.config import UsageError


def write_slice(run_dir: Path, out_dir: Path) -> tuple[int, int]:
    """Write the run's slice items as `.v` files under `out_dir`; (written, slice size)."""
    from lean_interface.problems.factory.build import read_items
    from lean_interface.problems.factory.family import HELDOUT

    names = {problem.rsplit("/", 1)[-1] for problem in slice_problems(run_dir)}
    items = [item for path in yaml_sources(run_dir) for item in read_items(path, split=HELDOUT)
             if item.name in names] if names else []
    out_dir.mkdir(parents=True, exist_ok=True)
    for item in items:
        (out_dir / f"{item.name}.v").write_text(f"{item.header}\n\n{item.statement}\nProof.\nAdmitted.\n",
                                                encoding="utf-8")
    return len(items), len(names)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out_dir", type=Path, help="the directory of .v files to write")


def run(run_dir: Path, args: argparse.Namespace) -> int:
    if not (run_dir / "config.yaml").is_file():
        raise UsageError(f"{run_dir} has no config.yaml")
    written, size = write_slice(run_dir, args.out_dir)
    if not size:
        raise UsageError(f"{run_dir} has no held-out slice (heldout_slice.json or an evaluated round 0)")
    if written != size:
        raise UsageError(f"{written} of {size} slice items of {run_dir} found in its factory sources")
    print(f"{written} of {size} slice items written to {args.out_dir}")
    return 0
