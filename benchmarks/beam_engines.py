"""CTranslate2's beam search against PyTorch's, in search, on an expert-iteration run's held-out
slice at the curve's budget:

    PYTHONPATH=. .venv/bin/python benchmarks/beam_engines.py runs/expert-5 \\
        --checkpoint checkpoints/alphaprover-coq-small

Why: the two beam searches are not the same algorithm (docs/ARCHITECTURE.md, "Two beam
searches"): on `n + 0 = n` PyTorch's finds a path CTranslate2's misses at every width tried. Every
curve point is measured with CTranslate2, so the question is whether its beam loses proofs. One
`alphaprover eval` per engine over the exported slice (`export_heldout_slice.py`), same checkpoint,
`actions=network` and `decoding=beam` at `eval`'s default beam width (32; the runs' own held-out
searches use 16), the run's held-out budget; the table gives proofs, prover calls per proof,
total seconds, and the items one engine proves and the other does not (with how many
simulations the loser ran: fewer than the budget means its time ran out first). Results
files are kept under `--out`; rerun to resume (`eval` skips what a file holds). Evaluation only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ENGINES = ("torch", "ct2-float32")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="results folder (default: RUN_DIR/beam_engines)")
    args = parser.parse_args()
    if not (args.run_dir / "config.yaml").is_file() or not (args.checkpoint / "config.json").is_file():
        print(f"beam_engines: error: {args.run_dir} has no config.yaml or {args.checkpoint} is no checkpoint",
              file=sys.stderr)
        return 2
    from alphaprover.eval_records import read_records
    from benchmarks.curve_budgets import heldout_setup, run_slice_eval

    out = args.out or args.run_dir / "beam_engines"
    try:
        setup = heldout_setup(args.run_dir, out / "slice")
    except ValueError as error:
        print(f"beam_engines: error: {error}", file=sys.stderr)
        return 2
    records = {}
    for engine in ENGINES:
        if not run_slice_eval(setup.slice_dir, f"mcts-network@{args.checkpoint}", setup.simulations, setup.seconds,
                              args.workers, out / f"{engine}.jsonl", "decoding=beam", f"engine={engine}"):
            return 1
        records[engine] = {record.problem: record for record in read_records(out / f"{engine}.jsonl")}
    print("\t".join(["engine", "proved", "mean prover calls of a proved item", "total seconds"]))
    for engine in ENGINES:
        proved = [r for r in records[engine].values() if r.status.value == "proved"]
        calls = sum(r.prover_calls for r in proved) / max(1, len(proved))
        seconds = sum(r.seconds for r in records[engine].values())
        print(f"{engine}\t{len(proved)}/{len(records[engine])}\t{calls:.0f}\t{seconds:.0f}")
    for problem in sorted(set(records[ENGINES[0]]) & set(records[ENGINES[1]])):
        outcome = {engine: records[engine][problem] for engine in ENGINES}
        winners = [engine for engine in ENGINES if outcome[engine].status.value == "proved"]
        if len(winners) == 1:
            loser = outcome[ENGINES[1 - ENGINES.index(winners[0])]]
            print(f"only {winners[0]}: {problem} (the other: {loser.simulations} simulations, {loser.seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
