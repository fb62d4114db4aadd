"""Learner batches drawn at random against the same records grouped by length: seconds per learner
step side by side in one run, and what each learns.

    python benchmarks/learner_batching.py [--checkpoint DIR] [--batch 32] [--steps 24] [--window 8] [--threads 2]

Why: `alphaprover pretrain` groups its batches by goal length within windows (`networks.dataset.batches`)
and takes 1.3–2 s a step on 2 cores; the expert-iteration learner draws each batch at random from
its mix (`selfplay.replay_buffer.MixedSampler`), so a batch pads to its longest goal, and its steps
were timed at 9–14 s on the same network. This measures how much of that is padding.

One pool of real records in a run's proportions — a fifth stdlib records (`data/extracted/train.jsonl`),
up to a fifth the loop-proof ledger's replayed records (`data/loop-proofs/records.jsonl`), the rest
the factory's script demonstrations (`data/factory/scripts.jsonl`) — is cut into `--steps`
batches two ways: in random order (as the learner draws them), and sorted by goal length within
windows of `--window` batches, the batches then shuffled. Two `selfplay.learner.Learner`s from the same
checkpoint (bf16, as runs train) take their batches alternately, so a shared machine slows both
alike. Printed: median seconds a step and mean padded goal width for each, the ratio, and both
learners' teacher-forced losses on 256 held-aside records of the same pool before and after (the same
records, in another grouping, should teach about the same).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.learner_precision import SHIPPED, sample_records  # noqa: E402
from selfplay.episode import TrainingRecord  # noqa: E402
from selfplay.learner import Learner, LearnerConfig  # noqa: E402
from selfplay.replay_buffer import length_grouped  # noqa: E402


def mixed_pool(size: int, seed: int) -> list[TrainingRecord]:
    """`size` records: a fifth stdlib, up to a fifth the ledger's replayed records (when built), the
    rest the factory's script demonstrations."""
    library = sample_records(ROOT / "data/extracted/train.jsonl", "library", size // 5, seed)
    ledger_file, scripts_file = ROOT / "data/loop-proofs/records.jsonl", ROOT / "data/factory/scripts.jsonl"
    ledger = sample_records(ledger_file, "supervised", size // 5, seed) if ledger_file.is_file() else []
    rest = size - len(library) - len(ledger)
    scripts = sample_records(scripts_file, "supervised", rest, seed) if scripts_file.is_file() else \
        sample_records(ROOT / "data/extracted/train.jsonl", "library", rest, seed + 1)
    pool = library + ledger + scripts
    random.Random(seed).shuffle(pool)
    return pool


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED))
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--steps", type=int, default=24)
    parser.add_argument("--window", type=int, default=8, help="batches grouped by length together")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if not (ROOT / "data/extracted/train.jsonl").is_file():
        print("needs data/extracted/train.jsonl: run `alphaprover extract` first", file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads)
    pool = mixed_pool(args.batch * args.steps + 256, seed=0)
    held, pool = pool[:256], pool[256:]
    args.steps = min(args.steps, len(pool) // args.batch)  # a file smaller than asked for: fewer steps
    pool = pool[:args.steps * args.batch]
    shuffled = [pool[i * args.batch:(i + 1) * args.batch] for i in range(args.steps)]
    grouped = length_grouped(pool, args.batch, args.window, random.Random(0))
    arms = {"random": shuffled, "grouped": grouped}
    print(f"checkpoint {args.checkpoint}; {args.steps} steps of batch {args.batch}; window {args.window}; "
          f"{args.threads} threads; bf16")
    with tempfile.TemporaryDirectory() as tmp:
        learners = {arm: Learner(Path(tmp) / arm, args.checkpoint,
                                 LearnerConfig(precision="bf16", quantization="", lr=2e-4, threads=args.threads))
                    for arm in arms}
        before = learners["random"].losses(held)
        seconds: dict[str, list[float]] = {arm: [] for arm in arms}
        width: dict[str, list[int]] = {arm: [] for arm in arms}
        for index in range(args.steps):
            for arm, learner in learners.items():
                batch = arms[arm][index]
                width[arm].append(max(len(learner.tokenizer.encode_goal(r.goal, learner.model.config.max_goal_tokens))
                                      for r in batch))
                torch.manual_seed(index)
                started = time.perf_counter()
                learner.train_batch(batch)
                seconds[arm].append(time.perf_counter() - started)
        after = {arm: learner.losses(held) for arm, learner in learners.items()}
    print("| batches | s / step (median) | padded goal width (mean tokens) | policy loss after | value loss after |")
    print("|---|---:|---:|---:|---:|")
    print(f"| (start) | | | {before['policy_loss']:.4f} | {before['value_loss']:.4f} |")
    for arm in arms:
        print(f"| {arm} | {statistics.median(seconds[arm]):.2f} | {statistics.mean(width[arm]):.1f} | "
              f"{after[arm]['policy_loss']:.4f} | {after[arm]['value_loss']:.4f} |")
    ratio = statistics.median(seconds["grouped"]) / statistics.median(seconds["random"])
    print(f"grouped / random time per step: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
