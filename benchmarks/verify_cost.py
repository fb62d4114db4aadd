"""Cost of `verify` per proof: plain `coqc` on the proof file vs the full check (coqc as a module
+ `coqchk -o -norec` + audit), side by side in one run, on typical proofs.

    PYTHONPATH=. .venv/bin/python benchmarks/verify_cost.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lean_interface.api import Theorem  # noqa: E402
from lean_interface.coq import theorem_from_proposition  # noqa: E402
from lean_interface.coq.prelude import DEFAULT_PRELUDE  # noqa: E402
from lean_interface.coq.verify import proof_file, verify_proof  # noqa: E402

PROOFS: list[tuple[Theorem, str]] = [
    (theorem_from_proposition("forall n : nat, n + 0 = n", name="nat_lia", header="Require Import Arith."),
     "intros n.\nlia."),
    (theorem_from_proposition("forall a b : Z, (a + b) * (a + b) = a * a + 2 * a * b + b * b", name="z_ring",
                              header="Require Import ZArith.\nOpen Scope Z_scope."), "intros a b.\nring."),
    (theorem_from_proposition("forall x y : R, x < y -> x < (x + y) / 2 < y", name="reals_lra",
                              header="Require Import Reals.\nOpen Scope R_scope."), "intros x y H.\nsplit; lra."),
    (theorem_from_proposition("forall x : R, 0 <= x * x", name="reals_nra",
                              header="Require Import Reals.\nOpen Scope R_scope."), "intros x.\nnra."),
]


def plain_coqc(text: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "Plain.v"
        path.write_text(text, encoding="utf-8")
        started = time.perf_counter()
        subprocess.run(["coqc", "-q", path.name], cwd=tmp, check=True, capture_output=True)
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'proof':12} {'plain coqc (s)':>15} {'verify (s)':>11} {'ratio':>6}")
    ratios = []
    for theorem, script in PROOFS:
        text = proof_file(theorem, script, DEFAULT_PRELUDE)
        plain = statistics.median(plain_coqc(text) for _ in range(args.repeat))
        times = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            verdict = verify_proof(theorem, script, prelude=DEFAULT_PRELUDE)
            times.append(time.perf_counter() - started)
            assert verdict.ok, verdict.message
        full = statistics.median(times)
        ratios.append(full / plain)
        print(f"{theorem.name:12} {plain:15.2f} {full:11.2f} {full / plain:5.1f}×")
    print(f"median: verify costs {statistics.median(ratios):.1f}× a plain coqc compile of the same file")


if __name__ == "__main__":
    main()
