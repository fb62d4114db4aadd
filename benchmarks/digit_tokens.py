"""Does a tokenizer with one token per digit teach a small model to copy numbers? Two arms, side by side.

    PYTHONPATH=. .venv/bin/python benchmarks/digit_tokens.py train runs/digits --arm merged --steps 1500 &
    PYTHONPATH=. .venv/bin/python benchmarks/digit_tokens.py train runs/digits --arm digits --steps 1500 &
    PYTHONPATH=. .venv/bin/python benchmarks/digit_tokens.py report runs/digits \\
        --references runs/expert-2/script_references.jsonl

Why: the expert-iteration policy answers `pose proof (h0 (-3)) as h2.` to `h1 : f 6 = 20 ⊢ f 14 = 5`
whatever the numbers are (BENCHMARKS.md "Expert iteration, run 2"): it has the template of the
factory's multi-step scripts but does not copy the goal's numbers, and with BPE's merged digits the
same number is a different token sequence in the goal and in the tactic. Both arms train from
scratch, with the same model, seed, batches and steps (`networks.train.pretrain`, resumable: rerun
the same command), on the factory's script demonstrations less a held-out share of items chosen by
a hash of the item name; they differ only in `split_digits`. `report` scores each arm's last
checkpoint on (a) the held-out items' script steps (new seeds of the trained families) and (b) an
expert-iteration run's script references (its held-out slice, including whole families never
trained on): median teacher-forced log-prob, 8-beam top-1/top-8 exact match, each for the steps
whose tactic has a number the goal also has (it can be copied), those with a number that must be
computed, and the rest.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from networks.dataset import Example, read_examples  # noqa: E402

ARMS = {"merged": False, "digits": True}
NUMBER = re.compile(r"(?<![\w'])\d+")  # a numeral, not the digits inside an identifier such as h0


def has_number(tactic: str) -> bool:
    return bool(NUMBER.search(tactic))


def copyable(example: Example) -> bool:
    """Every numeral of the tactic occurs in the goal (`pose proof (h0 6)` from `f 6 = 20`), so the
    step can be written by copying; otherwise some number must be computed (`exists (-863)`)."""
    in_goal = set(NUMBER.findall(example.goal))
    return all(number in in_goal for number in NUMBER.findall(example.tactic))


#: The three kinds of step the report scores apart.
KINDS = {
    "number, copyable": lambda e: has_number(e.tactic) and copyable(e),
    "number, computed": lambda e: has_number(e.tactic) and not copyable(e),
    "without a number": lambda e: not has_number(e.tactic),
}


def split_demonstrations(scripts: Path, out: Path, heldout_percent: int) -> None:
    """train.jsonl / valid.jsonl under `out`: whole items (by a hash of `lemma`) go to one side."""
    out.mkdir(parents=True, exist_ok=True)
    if (out / "train.jsonl").is_file() and (out / "valid.jsonl").is_file():
        return
    with scripts.open(encoding="utf-8") as rows, (out / "train.jsonl.part").open("w", encoding="utf-8") as train, \
            (out / "valid.jsonl.part").open("w", encoding="utf-8") as valid:
        for line in rows:
            if line.strip():
                lemma = json.loads(line).get("lemma", "")
                (valid if zlib.crc32(lemma.encode()) % 100 < heldout_percent else train).write(line)
    (out / "valid.jsonl.part").replace(out / "valid.jsonl")
    (out / "train.jsonl.part").replace(out / "train.jsonl")


def train_arm(out: Path, arm: str, steps: int, threads: int, scripts: Path, heldout_percent: int) -> None:
    from networks.model import ProverModelConfig
    from networks.train import PretrainConfig, pretrain

    split_demonstrations(scripts, out, heldout_percent)
    shipped = json.loads((ROOT / "checkpoints" / "alphaprover-coq-small" / "config.json").read_text())["model"]
    model = ProverModelConfig.from_dict({k: v for k, v in shipped.items() if k != "vocab_size"})
    cfg = PretrainConfig(train_file=str(out / "train.jsonl"), valid_file=str(out / "valid.jsonl"),
                         out_dir=str(out / arm), model=model, split_digits=ARMS[arm], max_steps=steps,
                         eval_every=max(100, steps // 5), save_every=50, threads=threads, source_weights={})
    metrics = pretrain(cfg)
    print(json.dumps({"arm": arm, **metrics}))


def spread_sample(examples: list[Example], limit: int) -> list[Example]:
    """At most `limit` examples, a seeded sample across the whole file (files are grouped by family)."""
    return examples if len(examples) <= limit else random.Random(0).sample(examples, limit)


def reference_examples(path: Path) -> list[Example]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Example(r["goal"], r["tactic"], max(1, int(r.get("steps", 1))), "reference") for r in rows]


def score(checkpoint: Path, examples: list[Example]) -> dict[str, str]:
    """Median log-prob and 8-beam exact match, for each kind of step (`KINDS`)."""
    from alphaprover.iterate_cmd import logprob_scorer
    from networks.checkpoint import load_checkpoint
    from networks.train_eval import beam_exact_match
    from selfplay.round_metrics import median

    model, tokenizer, _ = load_checkpoint(checkpoint)
    row: dict[str, str] = {}
    for name, kind in KINDS.items():
        subset = [e for e in examples if kind(e)]
        if not subset:
            row[name] = "n=0"
            continue
        logprobs = logprob_scorer(checkpoint, [(e.goal, e.tactic) for e in subset])
        match = beam_exact_match(model, tokenizer, subset, 8)
        row[name] = (f"n={len(subset)} logprob {median(logprobs):.2f} top1 {match['top1']:.3f} "
                     f"top8 {match['topk']:.3f}")
    return row


def scoring_sets(out: Path, references: list[Path], limit: int) -> dict[str, list[Example]]:
    """The step sets a report scores: the split's new seeds, then each reference file."""
    sets = {"new seeds (valid.jsonl)": spread_sample(read_examples(out / "valid.jsonl"), limit)}
    for path in references:
        sets[f"references {path}"] = spread_sample(reference_examples(path), limit)
    return sets


def report_checkpoints(checkpoints: dict[str, Path], sets: dict[str, list[Example]]) -> None:
    """Print, for each named checkpoint, its training position and its `score` on every set."""
    for name, last in checkpoints.items():
        if not (last / "config.json").is_file():
            print(f"{name}: no checkpoint under {last}")
            continue
        meta = json.loads((last / "config.json").read_text())["metadata"]
        print(f"== {name} (step {meta.get('step', '?')}, epoch {meta.get('epoch', '?')}, valid policy loss "
              f"{meta.get('metrics', {}).get('policy_loss', float('nan')):.4f} nats/token)")
        for label, examples in sets.items():
            row = score(last, examples)
            print(f"  {label}:" + "".join(f"\n    {kind:17s} {row[kind]}" for kind in KINDS))


def report(out: Path, references: list[Path], limit: int) -> None:
    report_checkpoints({arm: out / arm / "last" for arm in ARMS}, scoring_sets(out, references, limit))


def arm_parsers(doc: str, arms: dict) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser,
                                                argparse.ArgumentParser]:
    """(parser, `train OUT --arm A` subparser, `report` subparser) of an arms benchmark."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    train = sub.add_parser("train")
    train.add_argument("out", type=Path)
    train.add_argument("--arm", choices=sorted(arms), required=True)
    return parser, train, sub.add_parser("report")


def add_split_arguments(train: argparse.ArgumentParser) -> None:
    """The demonstrations file and the held-out share of its items (shared with copy_scale.py)."""
    train.add_argument("--scripts", type=Path, default=ROOT / "data" / "factory" / "scripts.jsonl")
    train.add_argument("--heldout-percent", type=int, default=5)


def add_scoring_arguments(rep: argparse.ArgumentParser) -> None:
    rep.add_argument("--references", type=Path, action="append", default=[])
    rep.add_argument("--limit", type=int, default=800, help="steps scored per set")


def scripts_missing(scripts: Path) -> bool:
    """True (after a one-line error) if there are no demonstrations to train on."""
    if scripts.is_file():
        return False
    print(f"error: no script demonstrations at {scripts} (alphaprover factory writes them)", file=sys.stderr)
    return True


def main() -> int:
    parser, train, rep = arm_parsers(__doc__, ARMS)
    train.add_argument("--steps", type=int, default=1500)
    train.add_argument("--threads", type=int, default=1)
    add_split_arguments(train)
    rep.add_argument("out", type=Path)
    add_scoring_arguments(rep)
    args = parser.parse_args()
    if args.command == "train":
        if scripts_missing(args.scripts):
            return 2
        train_arm(args.out, args.arm, args.steps, args.threads, args.scripts, args.heldout_percent)
    else:
        report(args.out, args.references, args.limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
