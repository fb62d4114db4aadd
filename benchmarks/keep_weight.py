"""The learner's KL term to its starting weights (`learner.keep_weight`): what it keeps and what it
costs, side by side in one run, on an expert-iteration run's own batches.

    python benchmarks/keep_weight.py --run-dir RUN [--weights 0,0.3,1] [--steps 60] [--threads 2]

One `selfplay.learner.Learner` per weight starts from the run's version 0 (`RUN/weights/v000000`:
the weights the run started from), each in its own temporary run directory, and all take the same
`--steps` batches: drawn once per step by a `MixedSampler` over the run's replay buffer, its
supervised files and the stdlib library at the run's own fractions and hold-out (read from
`RUN/config.yaml`), and fed to every learner in turn with dropout seeded alike. Before and after,
teacher-forced policy loss (nats per tactic token, float32) of each learner on:

- `stdlib`: records of `data/extracted/valid.jsonl` under the run's `library_roots` (the library the
  pretraining taught; never trained on by the run);
- `factory slice`: the steps of the run's held-out factory items' reference scripts
  (`RUN/script_references.jsonl`; the factory skills, on items the run never trains on);
- `held-out competition`: the loop-proof ledger's steps of the problems the run holds out
  (`iteration.hold_out`, e.g. the tune slice): transfer to competition proofs it never saw;
- `replay`: records of the run's buffer (what the run trains on: the learning the term may slow).

Printed: one row per weight with the four losses after the steps, each beside the starting loss,
and the final KL to the start on the training batches. Lower is better everywhere; the question
is how much of the stdlib/factory drift a weight removes for how much replay and competition loss.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

import torch
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from alphaprover.train_inputs import load_library, read_records  # noqa: E402
from alphaprover.train_setup import load_supervised  # noqa: E402
from networks.model import ProverModel  # noqa: E402
from networks.tokenizer import ProofTokenizer  # noqa: E402
from selfplay.episode import TrainingRecord  # noqa: E402
from selfplay.hold_out import HoldOut  # noqa: E402
from networks.dataset import Example, encode_examples  # noqa: E402
from networks.train_eval import ValueBaseline, teacher_forced_metrics  # noqa: E402
from selfplay.learner import Learner, LearnerConfig  # noqa: E402
from selfplay.replay_buffer import MixedSampler, ReplayBuffer  # noqa: E402

LEDGER_RECORDS = ROOT / "data" / "loop-proofs" / "records.jsonl"
STDLIB_VALID = ROOT / "data" / "extracted" / "valid.jsonl"


def policy_loss(model: ProverModel, tokenizer: ProofTokenizer, records: list[TrainingRecord]) -> float:
    """Mean teacher-forced cross-entropy per tactic token over `records`: the model card's stdlib
    policy loss (`networks.train_eval.teacher_forced_metrics`), on these records."""
    cfg = model.config
    encoded = encode_examples([Example(r.goal, r.tactic or "", r.steps) for r in records if r.tactic], tokenizer,
                              cfg.max_goal_tokens, cfg.max_tactic_tokens)
    baseline = ValueBaseline.fit([r.steps for r in records], cfg.num_value_bins)
    return teacher_forced_metrics(model, encoded, tokenizer.pad_id, baseline)["policy_loss"]


def probe_sets(run_dir: Path, config: dict, hold_out: HoldOut, limit: int, rng: random.Random,
               buffer: ReplayBuffer) -> dict[str, list[TrainingRecord]]:
    """The four record sets the losses are measured on (each at most `limit`, drawn at random)."""
    def draw(records: list[TrainingRecord]) -> list[TrainingRecord]:
        return rng.sample(records, min(limit, len(records)))

    stdlib = load_library(str(STDLIB_VALID), list(config.get("library_roots") or []))
    factory = [TrainingRecord(row["goal"], row["tactic"], int(row["steps"]), "factory")
               for row in map(json.loads, (run_dir / "script_references.jsonl").read_text().splitlines())]
    competition = read_records(LEDGER_RECORDS, "ledger", keep_lemma=lambda lemma: bool(lemma) and not hold_out.keeps_lemma(lemma))
    replay = [r for r in buffer.records() if r.tactic]
    return {"stdlib": draw(stdlib), "factory slice": draw(factory), "held-out competition": draw(competition),
            "replay": draw(replay)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-dir", type=Path, required=True)
    parser.add_argument("--weights", default="0,0.3,1", help="comma-separated keep_weight values, one learner each")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--limit", type=int, default=256, help="records per probe set")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    config = yaml.safe_load((args.run_dir / "config.yaml").read_text())
    learner_keys = config.get("learner") or {}
    weights = [float(w) for w in args.weights.split(",")]
    hold_out = HoldOut.of(list((config.get("iteration") or {}).get("hold_out") or []))
    start = args.run_dir / "weights" / "v000000"
    supervised = load_supervised(str(config.get("supervised_file") or ""), hold_out)
    library = load_library(str(config.get("library_file") or ""), list(config.get("library_roots") or []))
    rng = random.Random(args.seed)
    with ReplayBuffer(args.run_dir / "buffer", capacity=10 ** 7) as buffer, tempfile.TemporaryDirectory() as tmp:
        probes = probe_sets(args.run_dir, config, hold_out, args.limit, rng, buffer)
        print("probe sets: " + ", ".join(f"{name} {len(records)}" for name, records in probes.items()))
        sampler = MixedSampler(buffer, supervised, float(learner_keys.get("replay_fraction", 0.5)), rng, library,
                               float(learner_keys.get("library_fraction", 0.2)))
        learners = [Learner(Path(tmp) / f"keep{i}", start, LearnerConfig(
            batch_size=int(learner_keys.get("batch_size", 32)), lr=float(learner_keys.get("lr", 3e-4)),
            precision=str(learner_keys.get("precision", "fp32")), quantization="", checkpoint_every=10 ** 9,
            keep_weight=weight)) for i, weight in enumerate(weights)]
        before = {name: policy_loss(learners[0].model, learners[0].tokenizer, records) for name, records in probes.items()}
        last_kl = [float("nan")] * len(learners)
        for step in range(args.steps):
            batch = sampler.sample(learners[0].config.batch_size)
            for index, learner in enumerate(learners):
                torch.manual_seed(args.seed * 100_003 + step)
                last_kl[index] = learner.train_batch(batch).get("keep_kl", float("nan"))
            print(f"step {step + 1}/{args.steps}", end="\r", file=sys.stderr, flush=True)
        print(f"\n{args.steps} steps of batch {learners[0].config.batch_size}, lr {learners[0].config.lr}, "
              f"from {start}; nats per tactic token (start → after)")
        print("| keep_weight | " + " | ".join(probes) + " | KL to start, last batch |")
        print("|---:|" + "---:|" * (len(probes) + 1))
        for weight, learner, kl in zip(weights, learners, last_kl):
            cells = [f"{before[name]:.3f} → {policy_loss(learner.model, learner.tokenizer, records):.3f}"
                     for name, records in probes.items()]
            print(f"| {weight:g} | " + " | ".join(cells) + f" | {kl:.4f} |")


if __name__ == "__main__":
    main()
