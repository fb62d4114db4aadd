"""TTRL vs plain MCTS at equal CPU: the same targets and the same total time, side by side in one run.

    PYTHONPATH=. .venv/bin/python benchmarks/ttrl_vs_plain.py TARGETS [--minutes 60] [--slice-minutes 5]
                                                              [--out runs/ttrl-vs-plain] [TTRL_OVERRIDES ...]

TARGETS is a directory of `.v` problems (or a `.jsonl` benchmark); `key=value` overrides after it
go to the ttrl arm only (e.g. `final_attempt_fraction=0.5`). Both arms start from the same
checkpoint (`ALPHAPROVER_CHECKPOINT`, default the shipped one), search with `mcts-mixed` and one
network thread, and run *at the same time, each pinned to its own CPU core* (`sched_setaffinity`,
inherited by its coqtop processes), so neither can borrow the other's CPU:

- **ttrl**: `alphaprover ttrl TARGETS max_minutes=M` — competition mode: one budget for all targets,
  slices round-robin over the unsolved ones, self-play on generated variants, learner in-process.
- **plain**: `alphaprover eval TARGETS --methods mcts-mixed --seconds 60·M/N --workers 1` — every
  target gets its equal share of the same total, one search each.

Each arm's CPU seconds are its whole process tree's (`wait4`: the arm and every descendant it
reaped). Both arms report only proofs the kernel re-checked with the axiom audit. The script prints
the proved sets, the targets only one arm proved (for ttrl, with the variants it proved before the
target), and CPU seconds side by side. On a one-core machine the arms run one after the other.
Rerunning with the same `--out` resumes both arms (then the CPU columns cover this run only).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lean_interface.problems.benchmarks import load_benchmark  # noqa: E402


def _pinned(core: int | None) -> Callable[[], None] | None:
    if core is None:
        return None
    return lambda: os.sched_setaffinity(0, {core})


def _start(argv: Sequence[str], log: Path, core: int | None) -> tuple[subprocess.Popen, float]:
    """The arm's process and its start time."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    with log.open("w") as out:
        return subprocess.Popen(list(argv), stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
                                preexec_fn=_pinned(core)), time.monotonic()


def _wait_cpu(arm: tuple[subprocess.Popen, float]) -> tuple[int, float, float]:
    """(exit code, CPU seconds of the process tree, wall seconds from its start to its end)."""
    proc, started = arm
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_utime + usage.ru_stime, time.monotonic() - started


def _plain_proved(results: Path) -> set[str]:
    proved = set()
    for line in results.read_text(encoding="utf-8").splitlines() if results.exists() else []:
        row = json.loads(line)
        if row.get("status") == "proved":
            proved.add(row["problem"])
    return proved


def _ttrl_report(run_dir: Path) -> dict:
    path = run_dir / "report.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", help="a directory of .v problems or a .jsonl benchmark")
    parser.add_argument("--minutes", type=float, default=60.0, help="total budget of each arm")
    parser.add_argument("--slice-minutes", type=float, default=5.0, help="ttrl's slice per target turn")
    parser.add_argument("--out", default="runs/ttrl-vs-plain", help="both arms' outputs (rerun to resume)")
    parser.add_argument("overrides", nargs="*", help="key=value overrides of the ttrl arm (configs/ttrl.yaml)")
    args = parser.parse_intermixed_args()
    try:
        problems = load_benchmark(args.targets)
    except ValueError as error:
        print(f"ttrl_vs_plain: error: {error}", file=sys.stderr)
        return 2
    if not problems or args.minutes <= 0 or args.slice_minutes <= 0:
        print("ttrl_vs_plain: error: no targets, or a budget that is not positive", file=sys.stderr)
        return 2
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    targets = str(Path(args.targets).resolve())
    per_problem = 60 * args.minutes / len(problems)
    exe = str(Path(sys.executable).parent / "alphaprover")
    ttrl_argv = [exe, "ttrl", targets, f"run_dir={out / 'ttrl'}", f"max_minutes={args.minutes:g}",
                 f"slice_minutes={args.slice_minutes:g}", "threads=1", "learner.threads=1", *args.overrides]
    plain_argv = [exe, "eval", targets, "--methods", "mcts-mixed", "--seconds", f"{per_problem:g}",
                  "--simulations", "100000000", "--workers", "1", "--out", str(out / "plain.jsonl"), "threads=1"]
    two_cores = len(os.sched_getaffinity(0)) >= 2
    cores = sorted(os.sched_getaffinity(0))[:2] if two_cores else [None, None]
    print(f"{len(problems)} targets, {args.minutes:g} min per arm (plain: {per_problem:.0f} s per target); "
          f"{'concurrently, one core each' if two_cores else 'one after the other'}; logs in {out}", flush=True)

    if two_cores:
        ttrl = _start(ttrl_argv, out / "ttrl.log", cores[0])
        plain = _start(plain_argv, out / "plain.log", cores[1])
        plain_code, plain_cpu, plain_wall = _wait_cpu(plain)
        ttrl_code, ttrl_cpu, ttrl_wall = _wait_cpu(ttrl)
    else:
        ttrl_code, ttrl_cpu, ttrl_wall = _wait_cpu(_start(ttrl_argv, out / "ttrl.log", None))
        plain_code, plain_cpu, plain_wall = _wait_cpu(_start(plain_argv, out / "plain.log", None))
    if ttrl_code == 2 or plain_code == 2:
        print(f"ttrl_vs_plain: error: an arm rejected its input (exit 2); see {out}/*.log", file=sys.stderr)
        return 2

    plain_set = _plain_proved(out / "plain.jsonl")
    report = _ttrl_report(out / "ttrl")
    ttrl_targets = report.get("results", [])
    ttrl_set = {t["name"] for t in ttrl_targets if t.get("status") == "proved"}
    print()
    print("| arm | proved | of | CPU s | wall s |")
    print("|---|---:|---:|---:|---:|")
    print(f"| plain mcts-mixed ({per_problem:.0f} s each) | {len(plain_set)} | {len(problems)} | {plain_cpu:.0f} | "
          f"{plain_wall:.0f} |")
    print(f"| ttrl (competition mode) | {len(ttrl_set)} | {len(problems)} | {ttrl_cpu:.0f} | {ttrl_wall:.0f} |")
    print(f"\nCPU ttrl / plain: {ttrl_cpu / max(plain_cpu, 1e-9):.2f}×")
    print(f"proved by plain only: {', '.join(sorted(plain_set - ttrl_set)) or '-'}")
    print(f"proved by ttrl only:  {', '.join(sorted(ttrl_set - plain_set)) or '-'}")
    for target in ttrl_targets:
        if target["name"] in ttrl_set - plain_set:
            before = [v["name"] for v in target.get("proved_before", [])]
            print(f"  {target['name']}: proof {target.get('proof')!r}; variants proved before it: "
                  f"{', '.join(before) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
