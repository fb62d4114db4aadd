"""Does a policy learn to copy the goal's numbers with far more training, a wider model, or number slots?

    # where a GPU is (or on CPU, slowly): each arm fills its minutes, then stops with a decayed schedule
    PYTHONPATH=. python benchmarks/copy_scale.py train runs/copy-scale --arm shipped --minutes 7 --batch-size 128
    PYTHONPATH=. python benchmarks/copy_scale.py train runs/copy-scale --arm slots --minutes 7 --batch-size 128
    # a fixed number of steps instead, e.g. digit_tokens.py's 3,000 of 32, under another name
    PYTHONPATH=. python benchmarks/copy_scale.py train runs/copy-scale --arm slots --steps 3000 --batch-size 32 \
        --name slots-3000x32
    # side by side, with the 3,000-step arm of benchmarks/digit_tokens.py as the short-training reference
    PYTHONPATH=. .venv/bin/python benchmarks/copy_scale.py report runs/copy-scale \\
        --checkpoint merged-3000x32=runs/digits/merged/last \\
        --checkpoint shipped-long=runs/copy-scale/shipped/last --checkpoint slots-long=runs/copy-scale/slots/last \\
        --references runs/expert-2/script_references.jsonl

Why: benchmarks/digit_tokens.py found that the shipped architecture, after ≈2 epochs of the
factory's script demonstrations, writes the right template 85% of the time but copies a number
from the goal into it only 13.5% of the time (`pose proof (h0 6)` for `f 6 = 20`). Two causes
predict different fixes: under-training (then more epochs — a GPU, or days of CPU — fix it) or too
little capacity for pointing (then a wider model, or number slots — networks/numbers.py, which turn
copying into choosing a slot — do). Each arm here trains
from scratch on the same split as digit_tokens.py (items held out by a hash of their name, so the
same new seeds are scored), same seed, with a learning-rate schedule sized to its time budget:
a first call of 200 steps inside the warm-up (where the schedule does not depend on `max_steps`)
measures seconds per training step (`pretrain` times its training loop less evaluations and
checkpoints, not start-up), then `max_steps` is set to fill the minutes left. The report scores
every named checkpoint with digit_tokens.py's `score` (median teacher-forced log-prob, 8-beam top-1/top-8 per
kind of step).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from digit_tokens import (add_scoring_arguments, add_split_arguments, arm_parsers, report_checkpoints,  # noqa: E402
                          scoring_sets, scripts_missing, split_demonstrations)

#: Per arm: (model shape over the shipped config `checkpoints/alphaprover-coq-small/config.json`,
#: tokenizer options of `PretrainConfig`).
ARMS: dict[str, tuple[dict, dict]] = {
    "shipped": ({}, {}),
    "wide": ({"d_model": 384, "d_ff": 1536, "num_heads": 6}, {}),
    "slots": ({}, {"number_placeholders": 16}),
}
#: The calibration call stays inside the warm-up, where the learning rate does not depend on max_steps.
CALIBRATION_STEPS = 200


def arm_config(out: Path, arm: str, name: str, batch_size: int, threads: int):
    from networks.model import ProverModelConfig
    from networks.train import PretrainConfig

    shipped = json.loads((ROOT / "checkpoints" / "alphaprover-coq-small" / "config.json").read_text())["model"]
    shape, tokenizer_options = ARMS[arm]
    model = ProverModelConfig.from_dict({k: v for k, v in shipped.items() if k != "vocab_size"} | shape)
    return PretrainConfig(train_file=str(out / "train.jsonl"), valid_file=str(out / "valid.jsonl"),
                          out_dir=str(out / name), model=model, batch_size=batch_size, warmup_steps=200,
                          eval_every=10**9, save_every=500, threads=threads, source_weights={}, **tokenizer_options)


def train_arm(out: Path, arm: str, name: str, minutes: float, steps: int, batch_size: int, threads: int,
              scripts: Path, heldout_percent: int) -> None:
    """Calibrate (first run only), then train to the sized `max_steps` or the deadline, whichever
    first; with `steps` > 0, train exactly that many (no calibration, no deadline)."""
    from networks.train import pretrain

    started = time.monotonic()
    split_demonstrations(scripts, out, heldout_percent)
    cfg = arm_config(out, arm, name, batch_size, threads)
    plan_path = out / name / "scale.json"
    if steps > 0:
        metrics = pretrain(replace(cfg, max_steps=steps, eval_every=max(200, steps // 4)))
        print(json.dumps({"arm": arm, "name": name, **metrics}), flush=True)
        return
    if plan_path.is_file():
        plan = json.loads(plan_path.read_text())
    else:
        calibration = pretrain(replace(cfg, max_steps=CALIBRATION_STEPS))
        seconds_per_step = calibration["seconds_per_step"]
        left = 60 * minutes - (time.monotonic() - started)
        max_steps = CALIBRATION_STEPS + max(0, int(0.85 * left / seconds_per_step))
        plan = {"arm": arm, "batch_size": batch_size, "seconds_per_step": seconds_per_step,
                "max_steps": max_steps, "minutes": minutes, "shape": ARMS[arm][0], "tokenizer": ARMS[arm][1]}
        plan_path.parent.mkdir(parents=True, exist_ok=True)
        plan_path.write_text(json.dumps(plan, indent=2))
        print(json.dumps(plan), flush=True)
    left_minutes = max(0.5, minutes - (time.monotonic() - started) / 60)
    metrics = pretrain(replace(cfg, max_steps=plan["max_steps"], max_minutes=left_minutes,
                               eval_every=max(200, plan["max_steps"] // 4)))
    print(json.dumps({"arm": arm, "name": name, **metrics}), flush=True)


def main() -> int:
    parser, train, rep = arm_parsers(__doc__, ARMS)
    train.add_argument("--name", default="", help="output folder under OUT (default: the arm)")
    budget = train.add_mutually_exclusive_group(required=True)
    budget.add_argument("--minutes", type=float, default=0.0, help="wall-clock budget of this arm (schedule sized to it)")
    budget.add_argument("--steps", type=int, default=0, help="train exactly this many steps")
    train.add_argument("--batch-size", type=int, default=128)
    train.add_argument("--threads", type=int, default=1)
    add_split_arguments(train)
    rep.add_argument("out", type=Path, help="the split's folder (valid.jsonl = the new seeds)")
    rep.add_argument("--checkpoint", action="append", default=[], metavar="NAME=DIR", required=True)
    add_scoring_arguments(rep)
    args = parser.parse_args()
    if args.command == "train":
        if scripts_missing(args.scripts):
            return 2
        train_arm(args.out, args.arm, args.name or args.arm, args.minutes, args.steps, args.batch_size, args.threads,
                  args.scripts, args.heldout_percent)
        return 0
    checkpoints = {}
    for spec in args.checkpoint:
        name, sep, directory = spec.partition("=")
        if not sep or not name or not directory:
            print(f"error: --checkpoint wants NAME=DIR, got {spec!r}", file=sys.stderr)
            return 2
        checkpoints[name] = Path(directory)
    report_checkpoints(checkpoints, scoring_sets(args.out, args.references, args.limit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
