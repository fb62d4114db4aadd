"""Write an expert-iteration run's held-out slice as a directory of `.v` files, one per item, so
`alphaprover eval <dir>` can search it under any setting (decoding, budget, checkpoint) beside the
curve's own evaluation:

    PYTHONPATH=. .venv/bin/python benchmarks/export_heldout_slice.py runs/expert-2 /tmp/heldout-slice
    alphaprover eval /tmp/heldout-slice --methods "mcts-network@runs/expert-2/weights/v000005" \\
        --simulations 32 --seconds 20 decoding=both

The slice is the items the run's round 0 evaluated (`rounds/r000/heldout.jsonl`), read from the
run's factory sources (held-out split only). Evaluation only: never a training source.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.policy_baselines import slice_problems, yaml_sources  # noqa: E402
from lean_interface.problems.factory.build import read_items  # noqa: E402
from lean_interface.problems.factory.family import HELDOUT  # noqa: E402


def write_slice(run_dir: Path, out_dir: Path) -> tuple[int, int]:
    """Write the run's slice items as `.v` files under `out_dir`; (written, slice size)."""
    names = {problem.rsplit("/", 1)[-1] for problem in slice_problems(run_dir)}
    items = [item for path in yaml_sources(run_dir) for item in read_items(path, split=HELDOUT)
             if item.name in names] if names else []
    out_dir.mkdir(parents=True, exist_ok=True)
    for item in items:
        (out_dir / f"{item.name}.v").write_text(f"{item.header}\n\n{item.statement}\nProof.\nAdmitted.\n",
                                                encoding="utf-8")
    return len(items), len(names)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("out_dir", type=Path)
    args = parser.parse_args()
    written, size = write_slice(args.run_dir, args.out_dir)
    if not size:
        print(f"export_heldout_slice: error: {args.run_dir} has no evaluated round 0", file=sys.stderr)
        return 2
    print(f"{written} of {size} slice items written to {args.out_dir}")
    return 0 if written == size else 2


if __name__ == "__main__":
    sys.exit(main())
