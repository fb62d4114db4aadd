"""Learner precision: seconds per learner step in float32 and under bfloat16 autocast, side by side
in one run, and what each learns from the same batches.

    python benchmarks/learner_precision.py [--checkpoint DIR] [--batch 32] [--steps 12] [--threads 2]

Two `selfplay.learner.Learner`s start from the same checkpoint (`learner.precision=fp32` and
`bf16`), each in its own temporary run directory, and take the same `--steps` batches of real
records (the stdlib records of `data/extracted/train.jsonl`, with the factory's script
demonstrations when built), alternating step by step so a shared machine slows both alike; dropout
is seeded the same for both. Printed: the median seconds a step for each and their ratio, and the
teacher-forced policy and value loss of both learners' weights (float32 evaluation) on 256 records
of `data/extracted/valid.jsonl` before and after. bfloat16 autocast pays on a CPU with
AVX512-BF16 or AMX (`lscpu`); elsewhere it is emulated and slower, which this run also shows.
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

from alphaprover.train_inputs import read_records  # noqa: E402
from selfplay.episode import TrainingRecord  # noqa: E402
from selfplay.learner import Learner, LearnerConfig  # noqa: E402

SHIPPED = ROOT / "checkpoints" / "alphaprover-coq-small"


def sample_records(path: Path, source: str, limit: int, seed: int) -> list[TrainingRecord]:
    """`limit` records of an `alphaprover extract`-format JSONL file, drawn at random (read as a
    run reads its inputs: `alphaprover.train_inputs.read_records`)."""
    records = read_records(path, source)
    random.Random(seed).shuffle(records)
    return records[:limit]


def cpu_bf16_flags() -> str:
    """Which bfloat16 instructions the CPU reports (from /proc/cpuinfo)."""
    try:
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags"))
    except (OSError, StopIteration):
        return "unknown"
    found = [flag for flag in ("avx512_bf16", "amx_bf16") if f" {flag}" in flags]
    return ", ".join(found) or "none"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED))
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    train_file, valid_file = ROOT / "data/extracted/train.jsonl", ROOT / "data/extracted/valid.jsonl"
    if not train_file.is_file() or not valid_file.is_file():
        print("needs data/extracted/{train,valid}.jsonl: run `alphaprover extract` first", file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads)
    pool = sample_records(train_file, "library", args.batch * args.steps, seed=0)
    scripts = ROOT / "data/factory/scripts.jsonl"
    if scripts.is_file():
        pool = pool[: len(pool) // 2] + sample_records(scripts, "factory-script", len(pool) - len(pool) // 2, seed=0)
        random.Random(1).shuffle(pool)
    batches = [pool[i * args.batch:(i + 1) * args.batch] for i in range(args.steps)]
    valid = sample_records(valid_file, "library", 256, seed=0)
    print(f"checkpoint {args.checkpoint}; {args.steps} steps of batch {args.batch}; {args.threads} threads; "
          f"CPU bfloat16 instructions: {cpu_bf16_flags()}")
    with tempfile.TemporaryDirectory() as tmp:
        learners = {precision: Learner(Path(tmp) / precision, args.checkpoint,
                                       LearnerConfig(precision=precision, quantization="", lr=2e-4, threads=args.threads))
                    for precision in ("fp32", "bf16")}
        before = learners["fp32"].losses(valid)
        seconds: dict[str, list[float]] = {precision: [] for precision in learners}
        for index, batch in enumerate(batches):
            for precision, learner in learners.items():
                torch.manual_seed(index)  # the same dropout masks for both
                started = time.perf_counter()
                learner.train_batch(batch)
                seconds[precision].append(time.perf_counter() - started)
        after = {precision: learner.losses(valid) for precision, learner in learners.items()}
    fp32, bf16 = (statistics.median(seconds[p]) for p in ("fp32", "bf16"))
    print("| precision | s / step (median) | valid policy loss after | valid value loss after |")
    print("|---|---:|---:|---:|")
    print(f"| (start) | | {before['policy_loss']:.4f} | {before['value_loss']:.4f} |")
    for precision, median in (("fp32", fp32), ("bf16", bf16)):
        print(f"| {precision} | {median:.2f} | {after[precision]['policy_loss']:.4f} | {after[precision]['value_loss']:.4f} |")
    print(f"bf16 / fp32 time per step: {bf16 / fp32:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
