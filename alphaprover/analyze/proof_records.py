"""`alphaprover analyze RUN_DIR export-proof-records OUT.jsonl`: the tactic records of every proof
a run's actors found, as a supervised dataset (`{goal, tactic, steps, source, lemma}` lines, the
format `alphaprover pretrain train_file=…` and the learner's `supervised_file` read).

Why: a run's replay buffer holds the proofs of the train split, its variants and the factory
that the loop found; training a network elsewhere (a lent GPU, a larger model) on them beside the
library needs them as a file. Only episodes whose outcome is `proved` contribute; value-only
records (no tactic) are dropped; a (goal, tactic) pair seen in several episodes is written once,
with the value target of its most recent proof (the buffer's own rule). `--sources` keeps only
some problem sources (e.g. `minif2f-rocq-train,variants`). Reads the run, never changes it; the
output is written atomically and an existing file is refused unless `--force`.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from alphaprover.config import UsageError


def proof_records(run_dir: Path, sources: frozenset[str] = frozenset()) -> list[dict]:
    """The deduplicated tactic records of the proved episodes in `run_dir/buffer`, oldest first
    (a later duplicate replaces an earlier one in place of the latest)."""
    from selfplay.replay_buffer import read_episodes

    latest: dict[tuple[str, str], dict] = {}
    for episode in read_episodes(run_dir / "buffer"):
        if not episode.proved or (sources and episode.source not in sources):
            continue
        for record in episode.records:
            if not record.tactic:
                continue
            key = (record.goal, record.tactic)
            latest.pop(key, None)
            latest[key] = {"goal": record.goal, "tactic": record.tactic, "steps": record.steps,
                           "source": record.source or episode.source, "lemma": episode.problem}
    return list(latest.values())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out_file", type=Path, help="the JSONL file to write")
    parser.add_argument("--sources", default="", help="comma-separated problem sources to keep (default: all)")
    parser.add_argument("--force", action="store_true", help="replace an existing OUT file")


def run(run_dir: Path, args: argparse.Namespace) -> int:
    from lean_interface.durable import write_atomic

    if not (run_dir / "buffer").is_dir():
        raise UsageError(f"{run_dir} has no replay buffer (buffer/)")
    if args.out_file.exists() and not args.force:
        raise UsageError(f"{args.out_file} exists (pass --force to replace it)")
    sources = frozenset(part.strip() for part in args.sources.split(",") if part.strip())
    records = proof_records(run_dir, sources)
    write_atomic(args.out_file, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    problems = Counter(r["source"] for r in records)
    print(f"{len(records)} records from {len({r['lemma'] for r in records})} proved problems written to "
          f"{args.out_file} (" + ", ".join(f"{s} {n}" for s, n in sorted(problems.items())) + ")")
    return 0
