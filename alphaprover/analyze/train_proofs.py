"""`alphaprover analyze RUN_DIR export-train-proofs LEDGER.jsonl`: the competition problems a run's
loop proved, one line per (problem, run) with its shortest verified script, merged into a ledger
that outlives the run.

Why: a run directory is regenerable only by hours of search, and twice a machine was replaced
under a running loop (runs 16 and 17, BENCHMARKS.md): its proofs went with it. The ledger is small
enough to commit (`data/loop-proofs/minif2f-rocq-train.jsonl`): it keeps the issue's list of train
problems the loop proved "with their scripts" across machines, and its lines are `alphaprover
probe` references as they are (`problem`, `script`). Every script is one the actors reported after
the kernel checked it with the axiom audit (`selfplay.actor`); nothing is re-checked here. A
ledger line is evidence of a proof; `alphaprover eval-proofs LEDGER OUT.jsonl` replays the ledger
in Coq into supervised records, so a fresh run can start from what earlier loops proved.

Rows: `{"problem", "script", "run", "first_version", "proofs"}`. Existing rows of other runs are
kept; this run's rows are replaced by what its buffer holds now; the file is sorted by problem and
run and written atomically. A dev-subset or test-split problem in the buffer is a usage error
(the loop never searches one: finding one means something upstream is broken).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from alphaprover.analyze.ledger import ledger_rows
from alphaprover.analyze.proofs_beyond import loop_proofs
from alphaprover.config import UsageError


def merged_ledger(existing: list[dict], run_name: str, proofs: dict) -> list[dict]:
    """`existing` without `run_name`'s rows, plus one row per problem in `proofs` (`LoopProof`s)."""
    from lean_interface.problems.benchmarks import held_out_problem_of

    for name in proofs:
        refused = held_out_problem_of(name)
        if refused is not None:
            raise UsageError(f"the run's buffer holds a proof of {refused}: refusing to export it")
    rows = [row for row in existing if row["run"] != run_name]
    rows += [{"problem": proof.name, "script": " ".join(proof.shortest.split()), "run": run_name,
              "first_version": proof.first_version, "proofs": len(proof.scripts)} for proof in proofs.values()]
    return sorted(rows, key=lambda row: (row["problem"], row["run"]))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ledger", type=Path, help="the ledger JSONL (created, or merged into when it exists)")
    parser.add_argument("--source", default="minif2f-rocq-train", help="the loop's problem source to read")
    parser.add_argument("--run-name", default=None, help="the run's name in the ledger (default: RUN_DIR's name)")


def run(run_dir: Path, args: argparse.Namespace) -> int:
    from lean_interface.durable import write_atomic

    if not (run_dir / "buffer").is_dir():
        raise UsageError(f"{run_dir} has no replay buffer (buffer/)")
    run_name = args.run_name or run_dir.resolve().name
    existing = ledger_rows(args.ledger)
    rows = merged_ledger(existing, run_name, loop_proofs(run_dir, args.source))
    args.ledger.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(args.ledger, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    mine = sum(row["run"] == run_name for row in rows)
    print(f"{args.ledger}: {mine} problems of {run_name}, {len({row['problem'] for row in rows})} problems "
          f"over {len({row['run'] for row in rows})} runs")
    return 0
