"""Network throughput: goals/s when sampling K=8 tactics, at batch sizes 1 / 8 / 32, and the
effect of the evaluator's cache, measured side by side in one run.

    python benchmarks/network_throughput.py [--checkpoint DIR] [--goals 64] [--threads 2]

Without a checkpoint a randomly initialised model of the default size is used (same cost).
Goals are real ones from the extracted dataset when present, else from bundled problems.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

from networks.checkpoint import load_checkpoint
from networks.evaluator import NetworkEvaluator
from networks.model import ProverModel, ProverModelConfig
from networks.sampling import evaluate_goals
from networks.tokenizer import ProofTokenizer
from search.evaluator import EvalRequest

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "checkpoints" / "alphaprover-coq-small"


def sample_goals(count: int) -> list[str]:
    valid = ROOT / "data" / "extracted" / "valid.jsonl"
    if valid.exists():
        goals = [json.loads(line)["goal"] for line in valid.open(encoding="utf-8")]
        step = max(1, len(goals) // count)
        return goals[::step][:count]
    from alphaprover.problems import load_benchmark

    texts = [p.theorem.statement for p in load_benchmark("minif2f-rocq-valid") if p.theorem]
    return [f"⊢ {t}" for t in texts[:count]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED) if SHIPPED.exists() else None)
    parser.add_argument("--goals", type=int, default=64)
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    goals = sample_goals(args.goals)
    if args.checkpoint:
        model, tokenizer, _ = load_checkpoint(args.checkpoint)
        source = args.checkpoint
    else:
        tokenizer = ProofTokenizer.train(goals * 4, vocab_size=4000)
        model = ProverModel(ProverModelConfig(vocab_size=tokenizer.vocab_size)).eval()
        source = "random init, default config"
    print(f"model: {source} · {model.num_parameters() / 1e6:.1f}M parameters · {len(goals)} goals · "
          f"K={args.samples} · {args.threads} threads")
    print(f"{'setting':28} {'goals/s':>8} {'ms/goal':>8}")
    evaluate_goals(model, tokenizer, goals[:2], args.samples)  # warm up
    for batch in (1, 8, 32):
        started = time.perf_counter()
        for start in range(0, len(goals), batch):
            evaluate_goals(model, tokenizer, goals[start : start + batch], args.samples, seed=start)
        seconds = time.perf_counter() - started
        print(f"{'batch ' + str(batch):28} {len(goals) / seconds:8.1f} {1000 * seconds / len(goals):8.1f}")
    evaluator = NetworkEvaluator(model, tokenizer, max_batch=32)
    requests = [EvalRequest(g, args.samples) for g in goals]
    started = time.perf_counter()
    evaluator.evaluate(requests)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    evaluator.evaluate(requests)
    warm = time.perf_counter() - started
    print(f"{'evaluator, cold cache (b32)':28} {len(goals) / cold:8.1f} {1000 * cold / len(goals):8.1f}")
    print(f"{'evaluator, warm cache':28} {len(goals) / warm:8.0f} {1000 * warm / len(goals):8.3f}")
    print(f"cache speed-up: {cold / warm:.0f}x")


if __name__ == "__main__":
    main()
