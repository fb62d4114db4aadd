"""Learning rate × batch size for the expert-iteration learner, by held-out loss per CPU-second.

    PYTHONPATH=. .venv/bin/python benchmarks/learner_sweep.py runs/expert-2 \\
        [--checkpoint checkpoints/alphaprover-coq-small] [--configs 1e-4x32,3e-4x32,1e-3x32,3e-4x16,3e-4x64] \\
        [--cpu-seconds 240] [--evals 4] [--supervised data/extracted/train.jsonl] [--heldout-percent 15] \\
        [--demonstrations data/factory/scripts.jsonl]

Issue #19 asks that batch size and learning rate be chosen for held-out loss per CPU-hour, since
on two CPU cores the learner's time is what a run spends. Every configuration starts from the same
checkpoint, trains on the same records (a run's replay buffer, optionally half supervised stdlib
records as the learner mixes them) for the same CPU time (`time.process_time`, one torch thread,
evaluation excluded), and is scored at `--evals` points on records it never trains on: the
buffer's episodes of problems held out by a hash of the problem name (so no goal of a held-out
problem is seen in training). Printed per configuration and checkpoint: learner steps, examples
seen, held-out tactic loss (nats/token over the held-out tactic records) and value loss.
With `--demonstrations` (the factory's script demonstrations), the items whose name hashes into
the same held-out share are taken out of the supervised stream too, and their steps (up to 1,024)
are a second held-out set: the loss on new seeds of the train families' scripts, which is what
an expert-iteration learner fed demonstrations is learning. Nothing here writes into the run:
learners work in temporary directories.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from selfplay.episode import TrainingRecord  # noqa: E402
from selfplay.learner import Learner, LearnerConfig, collate_records  # noqa: E402
from selfplay.replay_buffer import ReplayBuffer  # noqa: E402

DEFAULT_CHECKPOINT = ROOT / "checkpoints" / "alphaprover-coq-small"


@dataclass(frozen=True)
class SweepConfig:
    lr: float
    batch_size: int

    @classmethod
    def parse(cls, text: str) -> "SweepConfig":
        """`<lr>x<batch>`, e.g. `3e-4x32`."""
        lr, _, batch = text.partition("x")
        try:
            config = cls(float(lr), int(batch))
        except ValueError:
            raise SystemExit(f"learner_sweep: error: bad config {text!r} (want <lr>x<batch>, e.g. 3e-4x32)") from None
        if config.lr <= 0 or config.batch_size < 1:
            raise SystemExit(f"learner_sweep: error: bad config {text!r} (lr > 0, batch >= 1)")
        return config


def is_heldout(problem: str, percent: int) -> bool:
    """Whether `problem`'s episodes are held out: a stable hash of its name, so a problem is wholly
    in or wholly out."""
    return zlib.crc32(problem.encode()) % 100 < percent


def split_buffer(run_dir: Path, percent: int) -> tuple[list[TrainingRecord], list[TrainingRecord]]:
    """(train, held-out) records of the run's replay buffer, split by problem."""
    buffer = ReplayBuffer(run_dir / "buffer", capacity=10**9)
    train: list[TrainingRecord] = []
    heldout: list[TrainingRecord] = []
    for episode in buffer.episodes_iter():
        (heldout if is_heldout(episode.problem, percent) else train).extend(episode.records)
    buffer.close()
    return train, heldout


@torch.no_grad()
def heldout_losses(learner: Learner, records: Sequence[TrainingRecord], batch_size: int = 64) -> tuple[float, float]:
    """(tactic loss in nats/token over the tactic records, mean value loss over all records)."""
    model = learner.model
    model.eval()
    token_loss = tokens = value_loss = 0.0
    ordered = sorted(records, key=lambda r: len(r.goal))
    for start in range(0, len(ordered), batch_size):
        batch = collate_records(ordered[start : start + batch_size], learner.tokenizer, model)
        out = model(batch["input_ids"], batch["attention_mask"], batch["labels"], batch["steps"], 0.0)
        count = int((batch["labels"] != -100).sum())
        token_loss += float(out["policy_loss"]) * count
        tokens += count
        value_loss += float(out["value_loss"]) * batch["input_ids"].shape[0]
    model.train()
    return token_loss / max(1.0, tokens), value_loss / max(1, len(ordered))


def split_demonstrations(path: Path, percent: int, limit: int = 1024, seed: int = 0) -> tuple[set[tuple[str, str]], list[TrainingRecord]]:
    """((goal, tactic) of every held-out item's steps, up to `limit` of those steps as records):
    items held out by the same hash of their name as the buffer's problems."""
    import json

    held: list[TrainingRecord] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if is_heldout(str(row.get("lemma", "")), percent):
                held.append(TrainingRecord(row["goal"], row["tactic"], max(1, int(row["steps"])), "supervised"))
    pairs = {(r.goal, r.tactic) for r in held}
    return pairs, random.Random(seed).sample(held, min(limit, len(held)))


def run_config(config: SweepConfig, checkpoint: Path, train: list[TrainingRecord],
               supervised: list[TrainingRecord], heldout: list[TrainingRecord], cpu_seconds: float, evals: int,
               seed: int, second: Sequence[TrainingRecord] = ()) -> list[tuple[float, ...]]:
    """(CPU seconds, steps, examples, held-out tactic loss, held-out value loss[, the second held-out
    set's tactic loss]) at each checkpoint, the first one before any step."""
    rng = random.Random(seed)
    rows = []
    with tempfile.TemporaryDirectory(prefix="learner-sweep-") as tmp:
        learner = Learner(tmp, checkpoint, LearnerConfig(lr=config.lr, batch_size=config.batch_size, threads=1,
                                                         quantization="", checkpoint_every=10**9), seed=seed)
        def losses() -> tuple[float, ...]:
            return (*heldout_losses(learner, heldout), *(heldout_losses(learner, second)[:1] if second else ()))

        rows.append((0.0, 0, 0, *losses()))
        spent = 0.0
        for point in range(1, evals + 1):
            target = cpu_seconds * point / evals
            while spent < target:
                half = config.batch_size // 2 if supervised else 0
                batch = rng.sample(train, min(len(train), config.batch_size - half))
                batch += rng.sample(supervised, min(len(supervised), half)) if half else []
                started = time.process_time()
                learner.train_batch(batch)
                spent += time.process_time() - started
            rows.append((spent, learner.step, learner.step * config.batch_size, *losses()))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path, help="a run directory with a replay buffer (buffer/)")
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    parser.add_argument("--configs", default="1e-4x32,3e-4x32,1e-3x32,3e-4x16,3e-4x64")
    parser.add_argument("--cpu-seconds", type=float, default=240.0)
    parser.add_argument("--evals", type=int, default=4)
    parser.add_argument("--supervised", default="", help="a supervised JSONL mixed in as half of each batch")
    parser.add_argument("--heldout-percent", type=int, default=15)
    parser.add_argument("--demonstrations", type=Path, default=None,
                        help="script demonstrations (JSONL with lemma names): hold out items by the same hash")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not (args.run_dir / "buffer").is_dir():
        raise SystemExit(f"learner_sweep: error: {args.run_dir} has no buffer/ (run alphaprover train first)")
    if args.cpu_seconds <= 0 or args.evals < 1 or not 0 < args.heldout_percent < 100:
        raise SystemExit("learner_sweep: error: need --cpu-seconds > 0, --evals >= 1, 0 < --heldout-percent < 100")
    configs = [SweepConfig.parse(text) for text in args.configs.split(",") if text.strip()]
    torch.set_num_threads(1)
    train, heldout = split_buffer(args.run_dir, args.heldout_percent)
    heldout_tactics = sum(1 for r in heldout if r.tactic)
    if not train or not heldout_tactics:
        raise SystemExit(f"learner_sweep: error: {len(train)} train records, {heldout_tactics} held-out tactic records")
    supervised: list[TrainingRecord] = []
    if args.supervised:
        from alphaprover.train_cmd import load_supervised

        supervised = load_supervised(args.supervised)
    second: list[TrainingRecord] = []
    if args.demonstrations is not None:
        if not args.demonstrations.is_file():
            raise SystemExit(f"learner_sweep: error: {args.demonstrations} not found")
        held_pairs, second = split_demonstrations(args.demonstrations, args.heldout_percent, seed=args.seed)
        supervised = [r for r in supervised if (r.goal, r.tactic) not in held_pairs]
    print(f"{len(train)} train records ({sum(1 for r in train if r.tactic)} with a tactic), {len(heldout)} held out "
          f"({heldout_tactics} with a tactic), {len(supervised)} supervised, {len(second)} held-out demonstration "
          f"steps; {args.cpu_seconds:g} CPU s per config")
    print(f"{'lr':>8} {'batch':>5} {'cpu_s':>7} {'steps':>6} {'examples':>8} {'tactic_loss':>11} {'value_loss':>10}"
          + (f" {'demo_loss':>9}" if second else ""))
    for config in configs:
        for cpu, steps, examples, tactic_loss, value_loss, *demo in run_config(
                config, args.checkpoint, train, supervised, heldout, args.cpu_seconds, args.evals, args.seed, second):
            print(f"{config.lr:>8g} {config.batch_size:>5} {cpu:>7.0f} {steps:>6} {examples:>8} "
                  f"{tactic_loss:>11.4f} {value_loss:>10.4f}" + (f" {demo[0]:>9.4f}" if demo else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
