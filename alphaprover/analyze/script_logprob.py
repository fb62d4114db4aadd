"""`alphaprover analyze RUN_DIR script-logprob-curve [--checkpoint DIR ...]`: `script_logprob` for
every weights version of a run, side by side in one run.

The run's curve gets `script_logprob` from the round its driver first measured it; this scores
every published version (`weights/v000000`, …) and any extra `--checkpoint` on the same steps:
the held-out slice's own proof scripts (`script_references.jsonl`, replayed in Coq on first use),
the steps before each script's closing call. Printed per version: the median log-prob (nats,
teacher-forced: the curve's number), the mean, and how many steps the policy gives at least 10%
(log-prob above ln 0.1), i.e. ones a search sampling a few dozen times would draw. Evaluation
only: nothing is trained on the references.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from alphaprover.analyze.run_files import slice_problems, version_dirs, yaml_sources
from alphaprover.config import UsageError
from selfplay.round_metrics import median, script_steps


def steps_before_closing(run_dir: Path) -> list[tuple[str, str]]:
    """The run's script reference steps before each closing call, replaying them if the run has not."""
    from alphaprover.iterate_cmd import script_references

    return script_steps(run_dir / "script_references.jsonl",
                        lambda: script_references(slice_problems(run_dir), yaml_sources(run_dir)))


def logprob_row(name: str, scores: list[float]) -> str:
    """One Markdown row: median and mean log-prob, and the steps above ln 0.1."""
    likely = sum(score > math.log(0.1) for score in scores)
    return f"| {name} | {median(scores):.2f} | {sum(scores) / len(scores):.2f} | {likely} / {len(scores)} |"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--checkpoint", action="append", default=[], type=Path, help="repeatable; scored first")


def run(run_dir: Path, args: argparse.Namespace) -> int:
    from alphaprover.iterate_cmd import logprob_scorer

    if not (run_dir / "rounds" / "r000" / "heldout.jsonl").is_file():
        raise UsageError(f"{run_dir} has no evaluated round 0")
    steps = steps_before_closing(run_dir)
    if not steps:
        raise UsageError(f"no multi-step scripts in {run_dir}'s held-out slice")
    print(f"{len(steps)} script steps before the closing call, held-out slice of {run_dir}")
    print("| weights | median log-prob | mean log-prob | steps at ≥ 10% |")
    print("|---|---:|---:|---:|")
    for checkpoint in [*args.checkpoint, *version_dirs(run_dir)]:
        print(logprob_row(checkpoint.name, logprob_scorer(checkpoint, steps)), flush=True)
    return 0
