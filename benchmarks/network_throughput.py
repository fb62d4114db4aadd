"""Network throughput: goals/s when sampling K=16 tactics (plus the value), with HF generate, the
CTranslate2 engine in float32 and in int8, side by side in one run on the same checkpoint and
goals; the cost of scoring 40 candidate tactics per goal teacher-forced (HF forward, the shared-
encoder scorer the evaluator uses, CTranslate2 `score_batch`); full requests; the evaluator's cache.

    python benchmarks/network_throughput.py [--checkpoint DIR] [--goals 64] [--samples 16]
                                            [--candidates 40] [--batch 32] [--threads 2] [--repeats 3]

Goals are real ones from the extracted dataset when present, else the bundled miniF2F-rocq
statements as goals (`⊢ <statement>`). Candidates are the fixed evaluator's tactic list for each
goal (the automation list search would hand the network), cut or cycled to 40. Each figure is the
best of --repeats rounds that interleave the settings (the machine may be shared). The CTranslate2
models are converted into a temporary directory (conversion time printed), so the run leaves
nothing beside the checkpoint.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

from networks.checkpoint import load_checkpoint
from networks.engine import CT2Policy
from networks.evaluator import NetworkEvaluator
from networks.sampling import goal_values, score_tactics
from search.evaluator import EvalRequest
from search.fixed_evaluator import FixedTacticEvaluator

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "checkpoints" / "alphaprover-coq-small"
_HEAD = re.compile(r"^\s*(Theorem|Lemma|Example|Corollary|Proposition|Fact|Remark)\s+[\w'.]+\s*(\([^)]*\)\s*)*:\s*")


def sample_goals(count: int) -> tuple[list[str], str]:
    """`count` real goal texts, and where they came from."""
    valid = ROOT / "data" / "extracted" / "valid.jsonl"
    if valid.exists():
        goals = [json.loads(line)["goal"] for line in valid.open(encoding="utf-8")]
        step = max(1, len(goals) // count)
        return goals[::step][:count], "data/extracted/valid.jsonl"
    from lean_interface.problems.benchmarks import load_benchmark

    texts = [p.theorem.statement for p in load_benchmark("minif2f-rocq-valid") if p.theorem]
    goals = [f"⊢ {_HEAD.sub('', t).strip().removesuffix('.').strip()}" for t in texts]
    return goals[:count], "miniF2F-rocq valid statements"


def candidate_lists(goals: list[str], count: int) -> list[tuple[str, ...]]:
    fixed = FixedTacticEvaluator()
    out = []
    for goal in goals:
        tactics = fixed.tactics_for(goal)
        out.append(tuple((tactics * (count // max(1, len(tactics)) + 1))[:count]) if count else ())
    return out


def best_times(runs: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Seconds per run, the best of `repeats` rounds; rounds interleave the runs so that load from
    other processes hits every setting alike."""
    best = {name: float("inf") for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - started)
    return best


def table(title: str, seconds: dict[str, float], goals: int, base: str) -> None:
    print(f"\n{title:46} {'goals/s':>8} {'ms/goal':>8} {'vs ' + base.split()[0]:>9}")
    for name, value in seconds.items():
        print(f"{name:46} {goals / value:8.1f} {1000 * value / goals:8.1f} {seconds[base] / value:8.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED))
    parser.add_argument("--goals", type=int, default=64)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--candidates", type=int, default=40)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3, help="rounds per measurement (best is kept)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    goals, origin = sample_goals(args.goals)
    candidates = candidate_lists(goals, args.candidates)
    model, tokenizer, _ = load_checkpoint(args.checkpoint)
    n, k, b = len(goals), args.samples, args.batch
    print(f"model: {args.checkpoint} · {model.num_parameters() / 1e6:.1f}M parameters · {n} goals ({origin}) · "
          f"K={k} · batch {b} · {args.threads} threads · best of {args.repeats}")
    with tempfile.TemporaryDirectory(prefix="ct2-bench-") as cache:
        policies = {}
        for quantization in ("float32", "int8"):
            policy = CT2Policy.load(args.checkpoint, quantization, threads=args.threads, cache_dir=cache)
            print(f"conversion to CTranslate2 {quantization}: {policy.conversion_seconds:.1f} s")
            policies[quantization] = policy
        evaluators = {"HF generate (torch)": NetworkEvaluator(model, tokenizer, max_batch=b)}
        for quantization, policy in policies.items():
            evaluators[f"engine {quantization}"] = NetworkEvaluator(model, tokenizer, max_batch=b, policy=policy)

        def cold(evaluator: NetworkEvaluator, samples: int, with_candidates: bool) -> Callable[[], object]:
            requests = [EvalRequest(g, samples, 0, c if with_candidates else ()) for g, c in zip(goals, candidates)]

            def run() -> object:
                evaluator._cache.clear()
                return evaluator.evaluate(requests)
            return run

        def batched(score: Callable[[list[str], list[tuple[str, ...]]], object]) -> Callable[[], object]:
            return lambda: [score(goals[s : s + b], candidates[s : s + b]) for s in range(0, n, b)]

        for evaluator in evaluators.values():  # warm up
            evaluator.evaluate([EvalRequest(g, k, 99, c) for g, c in zip(goals[:2], candidates[:2])])
        sampling = best_times({name: cold(e, k, False) for name, e in evaluators.items()}, args.repeats)
        table(f"sampling K={k} + value (evaluator, cold cache)", sampling, n, "HF generate (torch)")
        scoring = best_times({
            "torch HF forward with labels (reference)": batched(lambda g, c: score_tactics(model, tokenizer, g, c)),
            "torch shared-encoder scorer (+ value)": cold(evaluators["HF generate (torch)"], 0, True),
            **{f"engine {q} score_batch": batched(p.score) for q, p in policies.items()},
            "value head only (torch encoder)": batched(lambda g, c: goal_values(model, tokenizer, g)),
        }, args.repeats)
        table(f"scoring {args.candidates} candidates/goal (no sampling)", scoring, n,
              "torch HF forward with labels (reference)")
        full = best_times({name: cold(e, k, True) for name, e in evaluators.items()}, args.repeats)
        table(f"full request: K={k} + {args.candidates} candidates + value", full, n, "HF generate (torch)")
        evaluator = evaluators["engine int8"]
        requests = [EvalRequest(g, k, 0, c) for g, c in zip(goals, candidates)]
        evaluator.evaluate(requests)
        warm = best_times({"engine int8, warm cache": lambda: evaluator.evaluate(requests)}, args.repeats)
        print(f"{'engine int8, warm cache':46} {n / warm['engine int8, warm cache']:8.0f} "
              f"{1000 * warm['engine int8, warm cache'] / n:8.3f}")
        print(f"\nratios (sampling K={k}): engine int8 {sampling['HF generate (torch)'] / sampling['engine int8']:.1f}x "
              f"HF generate, engine float32 {sampling['HF generate (torch)'] / sampling['engine float32']:.1f}x, "
              f"int8/float32 {sampling['engine float32'] / sampling['engine int8']:.1f}x; full request: int8 "
              f"{full['HF generate (torch)'] / full['engine int8']:.1f}x HF generate")


if __name__ == "__main__":
    main()
