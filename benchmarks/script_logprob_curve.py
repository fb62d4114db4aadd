"""`script_logprob` for every weights version of an expert-iteration run, side by side in one run.

    PYTHONPATH=. .venv/bin/python benchmarks/script_logprob_curve.py runs/expert-2 [--checkpoint DIR ...]

The run's curve gets `script_logprob` from the round its driver first measured it; this scores
every published version (`weights/v000000`, …) and any extra `--checkpoint` on the same steps:
the held-out slice's own proof scripts (`script_references.jsonl`, replayed in Coq on first
use), the steps before each script's closing call. Printed per version: the median log-prob
(nats, teacher-forced: the curve's number), the mean, and how many steps the policy gives at
least 10% (log-prob above ln 0.1), i.e. ones a search sampling a few dozen times would draw.
Evaluation only: nothing is trained on the references.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from alphaprover.iterate_cmd import logprob_scorer, script_references  # noqa: E402
from benchmarks.policy_baselines import slice_problems, yaml_sources  # noqa: E402
from selfplay.round_metrics import median, script_steps  # noqa: E402


def steps_before_closing(run_dir: Path) -> list[tuple[str, str]]:
    """The run's script reference steps before each closing call, replaying them if the run has not."""
    return script_steps(run_dir / "script_references.jsonl",
                        lambda: script_references(slice_problems(run_dir), yaml_sources(run_dir)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--checkpoint", action="append", default=[], type=Path, help="repeatable; scored first")
    args = parser.parse_args()
    if not (args.run_dir / "rounds" / "r000" / "heldout.jsonl").is_file():
        print(f"script_logprob_curve: error: {args.run_dir} has no evaluated round 0", file=sys.stderr)
        return 2
    steps = steps_before_closing(args.run_dir)
    if not steps:
        print(f"script_logprob_curve: error: no multi-step scripts in {args.run_dir}'s held-out slice", file=sys.stderr)
        return 2
    versions = sorted(p for p in (args.run_dir / "weights").glob("v[0-9]*") if p.is_dir())
    print(f"{len(steps)} script steps before the closing call, held-out slice of {args.run_dir}")
    print("| weights | median log-prob | mean log-prob | steps at ≥ 10% |")
    print("|---|---:|---:|---:|")
    for checkpoint in [*args.checkpoint, *versions]:
        scores = logprob_scorer(checkpoint, steps)
        likely = sum(score > math.log(0.1) for score in scores)
        print(f"| {checkpoint.name} | {median(scores):.2f} | {sum(scores) / len(scores):.2f} | {likely} / {len(scores)} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
