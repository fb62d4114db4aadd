"""`alphaprover analyze RUN_DIR curve-budgets [--simulations 8 16 32 64]`: a run's held-out curve
read at several search budgets, from one results file.

Why: the curve's point is the slice's proof rate at one budget (32 simulations). Once most items a
budget can reach are reached, that rate saturates — items at the edge trade places from round to
round — while measures that do not saturate (the scripts' log-prob, reference top-8) keep rising.
Reading every published version at several budgets shows whether a round's dip is the policy or
the edge of one budget. Every budget is one `alphaprover eval` run over the exported slice with
all versions side by side and the run's own held-out search (`heldout_setup`), appended to one
results file (`eval` skips what the file holds: rerun to resume). Evaluation only.

The helpers here are shared with `curve-repeats`: how a run searches its held-out slice, and one
`eval` run over the exported slice.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from alphaprover.analyze.run_files import version_dirs
from alphaprover.config import UsageError


def budget_table(records: list[dict], versions: list[str], budgets: list[int]) -> list[list[str]]:
    """Rows `version, proved at budget 1, …` from eval records (`method` ends with `@<version dir>`)."""
    proved: dict[tuple[str, int], int] = {}
    attempted: dict[tuple[str, int], int] = {}
    for record in records:
        key = (record["method"].rsplit("/", 1)[-1], int(record["budget_simulations"]))
        attempted[key] = attempted.get(key, 0) + 1
        proved[key] = proved.get(key, 0) + (record["status"] == "proved")
    return [[version] + [f"{proved.get((version, b), 0)}/{attempted[(version, b)]}" if (version, b) in attempted
                         else "-" for b in budgets] for version in versions]


@dataclass(frozen=True)
class HeldoutSetup:
    """How a run searches its held-out slice, read from its saved config, and the slice exported as files."""

    slice_dir: Path
    actions: str
    seconds: float
    simulations: int
    overrides: tuple[str, ...]  # for `eval`: the run's decoding and its whole `mcts` block


def search_overrides(cfg: dict) -> tuple[str, ...]:
    """`eval` overrides that make its search the run's held-out search: the held-out decoding and every
    `mcts` key of the run (a run searches with `configs/train.yaml`'s `mcts.num_samples: 16` where
    `eval` defaults to 32 — a wider beam, more candidates per expansion, a different measure)."""
    decoding = str(cfg.get("heldout_decoding") or cfg.get("decoding", "sample"))
    return (f"decoding={decoding}", *(f"mcts.{key}={value}" for key, value in sorted(cfg.get("mcts", {}).items())))


def heldout_setup(run_dir: Path, slice_dir: Path | None = None) -> HeldoutSetup:
    """Exports the run's slice (to RUN_DIR/heldout_slice_files unless `slice_dir`) and reads its held-out
    action set, budget and search settings; UsageError (a one-line message) when a slice item is missing."""
    from omegaconf import OmegaConf

    from alphaprover.analyze.heldout_slice import write_slice

    cfg = OmegaConf.load(run_dir / "config.yaml")
    slice_dir = slice_dir or run_dir / "heldout_slice_files"
    written, size = write_slice(run_dir, slice_dir)
    if not size or written != size:
        raise UsageError(f"{written} of {size} slice items of {run_dir} found")
    return HeldoutSetup(slice_dir, str(cfg.get("heldout_actions", "network")), float(cfg.iteration.heldout_seconds),
                        int(cfg.iteration.heldout_simulations),
                        search_overrides(OmegaConf.to_container(cfg, resolve=True)))


def published_versions(run_dir: Path) -> list[Path]:
    """The run's published versions; UsageError when it has none or no saved config."""
    versions = version_dirs(run_dir)
    if not versions or not (run_dir / "config.yaml").is_file():
        raise UsageError(f"{run_dir} has no published weights or no config.yaml")
    return versions


def run_slice_eval(slice_dir: Path, methods: str, simulations: int, seconds: float, workers: int, out: Path,
                   *overrides: str) -> bool:
    """One `alphaprover eval` over an exported slice at one budget (threads=1, plus `overrides`),
    appending to `out`; echoes the command; True when it exited 0."""
    command = [sys.executable, "-m", "alphaprover.cli", "eval", str(slice_dir), "--methods", methods,
               "--simulations", str(simulations), "--seconds", str(seconds), "--workers", str(workers),
               "threads=1", *overrides, "--out", str(out)]
    print("$", " ".join(command), flush=True)
    return subprocess.run(command).returncode == 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--simulations", type=int, nargs="+", default=[8, 16, 32, 64])
    parser.add_argument("--seconds", type=float, default=0.0, help="per problem (default: the run's held-out seconds)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="results file (default: RUN_DIR/budgets.jsonl)")


def run(run_dir: Path, args: argparse.Namespace) -> int:
    versions = published_versions(run_dir)
    if any(b < 1 for b in args.simulations) or args.workers < 1:
        raise UsageError("--simulations and --workers must be at least 1")
    from alphaprover.eval_records import read_records

    setup = heldout_setup(run_dir)
    seconds = args.seconds or setup.seconds
    out = args.out or run_dir / "budgets.jsonl"
    methods = ",".join(f"mcts-{setup.actions}@{path}" for path in versions)
    for budget in args.simulations:
        if not run_slice_eval(setup.slice_dir, methods, budget, seconds, args.workers, out, *setup.overrides):
            return 1
    records = [{"method": r.method, "budget_simulations": r.budget_simulations, "status": r.status.value}
               for r in read_records(out)]
    print("\t".join(["version", *[f"{b} sims" for b in args.simulations]]))
    for row in budget_table(records, [path.name for path in versions], args.simulations):
        print("\t".join(row))
    return 0
