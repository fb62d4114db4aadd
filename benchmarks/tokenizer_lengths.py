"""Tokenizer lengths: GPT-2's byte-level split vs identifiers kept whole, side by side in one run.

    python benchmarks/tokenizer_lengths.py [--train data/extracted/train.jsonl,data/factory/scripts.jsonl]
                                           [--valid data/extracted/valid.jsonl] [--vocab 4000,8000]
                                           [--sample 40000] [--max-goal-tokens 160]

Both tokenizers are trained by `ProofTokenizer.train` on the same sample of training records
(`--sample` goal+tactic pairs from the comma-separated --train files, seeded) at each vocabulary
size, then measured on the validation file (stdlib lemmas the tokenizers never saw): tokens per
goal (mean and 90th percentile), the share of goals longer than the network's input
(`--max-goal-tokens`, where truncation starts dropping hypotheses), the same share on Reals goals
(the issue's 34%), tokens per tactic, and how many pieces the identifiers that tactics name take.
Fewer tokens per goal means more context fits and each training step costs less; identifiers in
one piece mean the decoder names a lemma in one step instead of seven.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import time
from pathlib import Path

from networks.dataset import Example, read_examples
from networks.tokenizer import ProofTokenizer

ROOT = Path(__file__).resolve().parent.parent
IDENTIFIER = re.compile(r"[A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*")
SPLITS = {"gpt2-split": False, "whole-identifiers": True}


def _examples(paths: str) -> list[Example]:
    examples: list[Example] = []
    for path in paths.split(","):
        if Path(path).is_file():
            examples.extend(read_examples(path))
        else:
            print(f"warning: {path} not found, skipped")
    return examples


def _lengths(tokenizer: ProofTokenizer, examples: list[Example], max_goal_tokens: int) -> dict[str, float]:
    goals = [len(tokenizer.pieces(e.goal)) for e in examples]
    reals = [n for n, e in zip(goals, examples) if "/Reals/" in e.source]
    tactics = [len(tokenizer.pieces(e.tactic)) for e in examples]
    names = [name for e in examples for name in IDENTIFIER.findall(e.tactic) if len(name) > 3]
    pieces = [len(tokenizer.pieces(" " + name)) for name in names]
    return {
        "goal_mean": statistics.mean(goals),
        "goal_p90": sorted(goals)[len(goals) * 9 // 10],
        "over_input": sum(n >= max_goal_tokens for n in goals) / len(goals),
        "reals_over_input": sum(n >= max_goal_tokens for n in reals) / max(1, len(reals)),
        "tactic_mean": statistics.mean(tactics),
        "identifier_pieces": statistics.mean(pieces) if pieces else float("nan"),
        "identifiers_whole": sum(p == 1 for p in pieces) / max(1, len(pieces)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", default="data/extracted/train.jsonl,data/factory/scripts.jsonl")
    parser.add_argument("--valid", default="data/extracted/valid.jsonl")
    parser.add_argument("--vocab", default="4000,8000")
    parser.add_argument("--sample", type=int, default=40000)
    parser.add_argument("--max-goal-tokens", type=int, default=160)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    train = _examples(args.train)
    valid = _examples(args.valid)
    if not train or not valid:
        raise SystemExit("error: no training or validation records (run `alphaprover extract` first)")
    rng = random.Random(args.seed)
    sample = rng.sample(train, min(args.sample, len(train)))
    texts = [t for e in sample for t in (e.goal, e.tactic)]
    print(f"trained on {len(sample)} records of {args.train}; measured on {len(valid)} records of {args.valid} "
          f"({sum('/Reals/' in e.source for e in valid)} from Reals)")
    header = ("vocab", "split", "goal tokens", "p90", f">={args.max_goal_tokens}", "Reals >=", "tactic tokens",
              "pieces/identifier", "whole identifiers", "train s")
    print(" | ".join(header))
    for vocab in (int(v) for v in args.vocab.split(",")):
        rows = {}
        for name, whole in SPLITS.items():
            start = time.perf_counter()
            tokenizer = ProofTokenizer.train(texts, vocab, whole_identifiers=whole)
            seconds = time.perf_counter() - start
            rows[name] = m = _lengths(tokenizer, valid, args.max_goal_tokens)
            print(f"{vocab} | {name} | {m['goal_mean']:.1f} | {m['goal_p90']} | {m['over_input']:.1%} | "
                  f"{m['reals_over_input']:.1%} | {m['tactic_mean']:.2f} | {m['identifier_pieces']:.2f} | "
                  f"{m['identifiers_whole']:.1%} | {seconds:.0f}")
        old, new = rows["gpt2-split"], rows["whole-identifiers"]
        print(f"{vocab} | ratio whole/gpt2 | {new['goal_mean'] / old['goal_mean']:.2f} | | "
              f"{new['over_input'] / max(old['over_input'], 1e-9):.2f} | | {new['tactic_mean'] / old['tactic_mean']:.2f} | "
              f"{new['identifier_pieces'] / old['identifier_pieces']:.2f} |")


if __name__ == "__main__":
    main()
