"""Coq's decision procedures run directly on problem files, without our env or search: the
reference the automation portfolio must match.

For each problem and each tactic T of a fixed list (`T.` and `intros; T.`), the problem file is
compiled by `coqc` with its proof replaced by `Proof. T. Qed.`, after one line that loads the
tactic modules (`Require Import Lia Lra Psatz Ring Field.`), with a 5 s limit per run. A problem
counts as proved by the first tactic that compiles. Compiles run on two processes.

    PYTHONPATH=. .venv/bin/python benchmarks/decision_procedures.py [minif2f-rocq-dev]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tqdm import tqdm  # noqa: E402

from lean_interface.coq.prelude import DEFAULT_PRELUDE, with_prelude  # noqa: E402
from lean_interface.problems.benchmarks import Problem, load_benchmark  # noqa: E402

PROCEDURES = ("lia", "nia", "lra", "nra", "field", "ring", "psatz R", "auto", "firstorder", "tauto",
              "congruence", "reflexivity", "easy")
TACTICS = tuple(t for p in PROCEDURES for t in (p, f"intros; {p}"))


def compiles(problem: Problem, tactic: str, seconds: float) -> bool:
    theorem = problem.theorem
    assert theorem is not None
    text = f"{with_prelude(DEFAULT_PRELUDE, theorem.header)}\n\n{theorem.statement}\nProof.\n{tactic}.\nQed.\n"
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "Direct.v").write_text(text, encoding="utf-8")
        try:
            return subprocess.run(["coqc", "-q", "Direct.v"], cwd=tmp, capture_output=True,
                                  timeout=seconds).returncode == 0
        except subprocess.TimeoutExpired:
            return False


def first_proof(problem: Problem, seconds: float) -> str | None:
    return next((t for t in TACTICS if compiles(problem, t, seconds)), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("benchmark", nargs="?", default="minif2f-rocq-dev")
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    problems = [p for p in load_benchmark(args.benchmark) if p.theorem is not None]
    with ThreadPoolExecutor(max_workers=2) as pool:
        found = list(tqdm(pool.map(lambda p: first_proof(p, args.seconds), problems), total=len(problems)))
    proved = [(p.name, t) for p, t in zip(problems, found) if t]
    for name, tactic in proved:
        print(f"  {name}: {tactic}.")
    after_intros = sum(tactic.startswith("intros; ") for _, tactic in proved)
    print(f"decision procedures directly: {len(proved)}/{len(problems)} problems of {args.benchmark} "
          f"(first proof by `T.` alone: {len(proved) - after_intros}, by `intros; T.`: {after_intros})")


if __name__ == "__main__":
    main()
