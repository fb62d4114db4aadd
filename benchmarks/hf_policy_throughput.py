"""hf policy throughput: goals/s of `checkpoint=hf:DIR` against the native evaluator, same weights.

The shipped checkpoint is exported to a temporary transformers directory (`networks.export_hf`),
then the same goals get the same full requests (K samples plus the automation list's candidates
scored teacher-forced, the value; what a mixed search's first expansion asks) from

* the native `NetworkEvaluator` with the torch engine (HF `generate` + the shared-encoder scorer),
* the native evaluator with the default CTranslate2 float32 engine (converted into a temp dir),
* `HFEvaluator` on the exported directory (HF `generate`, every proposal rescored teacher-forced
  by a plain transformers forward, the exported value head),

in one run, rounds interleaved, each figure the best of --repeats (the machine may be shared:
say so when quoting). Each round asks a new progressive-sampling round, so no answer is cached.

    python benchmarks/hf_policy_throughput.py [--goals 32] [--samples 16] [--candidates 40] [--threads 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.network_throughput import SHIPPED, best_times, candidate_lists, sample_goals, table  # noqa: E402
from networks.engine import ctranslate2_available  # noqa: E402
from networks.evaluator import NetworkEvaluator  # noqa: E402
from networks.export_hf import export_hf  # noqa: E402
from networks.hf_evaluator import HFEvaluator  # noqa: E402
from search.evaluator import EvalRequest, Evaluator  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=str(SHIPPED))
    parser.add_argument("--goals", type=int, default=32)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--candidates", type=int, default=40)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--no-ct2", action="store_true", help="leave out the CTranslate2 engine")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    goals, source = sample_goals(args.goals)
    candidates = candidate_lists(goals, args.candidates)
    with tempfile.TemporaryDirectory(prefix="alphaprover-hf-bench-") as scratch:
        exported = export_hf(args.checkpoint, Path(scratch) / "hf")
        evaluators: dict[str, Evaluator] = {
            "native-torch": NetworkEvaluator.from_checkpoint(args.checkpoint, engine="torch", threads=args.threads),
            "hf-exported (transformers)": HFEvaluator.from_directory(exported, device="cpu", threads=args.threads),
        }
        if ctranslate2_available() and not args.no_ct2:
            evaluators["native-ct2-float32 (default)"] = NetworkEvaluator.from_checkpoint(
                args.checkpoint, engine="ct2-float32", threads=args.threads, cache_dir=Path(scratch) / "ct2")
        rounds = {name: 0 for name in evaluators}

        def run(name: str) -> None:
            rounds[name] += 1  # a new round: a cache miss, same K and temperature (temperature_step 0)
            requests = [EvalRequest(g, args.samples, rounds[name], c) for g, c in zip(goals, candidates)]
            evaluators[name].evaluate(requests)

        seconds = best_times({name: (lambda n=name: run(n)) for name in evaluators}, args.repeats)
    print(f"{len(goals)} goals ({source}), K={args.samples} samples + {args.candidates} candidates each, "
          f"{args.threads} threads, CPU, best of {args.repeats}")
    table("full requests (samples + scored candidates + value)", seconds, len(goals), "native-torch")
    hf = seconds["hf-exported (transformers)"]
    print(f"\nhf / native torch: {seconds['native-torch'] / hf:.2f}x the goals/s")
    for name in evaluators:
        if name.startswith("native-ct2"):
            print(f"hf / {name}: {seconds[name] / hf:.2f}x the goals/s")


if __name__ == "__main__":
    main()
