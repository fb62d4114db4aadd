"""Which axioms do the bundled problems' environments hold? The derivation of the allow-list.

For every distinct header of miniF2F-rocq valid, with and without the tactic prelude, compile a
trivial lemma after it as a module and read `coqchk -o -norec`'s report; print each axiom with
the number of problems whose environment has it, marking names not on the allow-list.

    PYTHONPATH=. .venv/bin/python benchmarks/axiom_audit.py        # ~10 min on 2 cores
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tqdm import tqdm  # noqa: E402

from lean_interface.coq.axioms import ALLOWED_AXIOMS  # noqa: E402
from lean_interface.coq.kernel_check import CheckFailed, compile_and_check  # noqa: E402
from lean_interface.coq.prelude import DEFAULT_PRELUDE, with_prelude  # noqa: E402
from lean_interface.problems.benchmarks import load_benchmark  # noqa: E402

PROBE = "\n\nLemma alphaprover_probe : True.\nProof.\nexact I.\nQed.\n"


def main() -> None:
    headers: dict[str, list[str]] = collections.defaultdict(list)
    for problem in load_benchmark("minif2f-rocq-valid"):
        if problem.theorem is not None:
            headers[problem.theorem.header].append(problem.name)
    counts: collections.Counter[str] = collections.Counter()
    for header, names in tqdm(headers.items(), desc="headers"):
        for prelude in ("", DEFAULT_PRELUDE):
            try:
                report = compile_and_check(with_prelude(prelude, header) + PROBE)
            except CheckFailed as error:
                print(f"{names[0]} (prelude={bool(prelude)}): {error}")
                continue
            for axiom in report.axioms:
                counts[axiom] += len(names)
    print(f"{len(headers)} distinct headers")
    for axiom, count in sorted(counts.items()):
        mark = "" if axiom in ALLOWED_AXIOMS else "   <-- not allowed"
        print(f"{count:4d} {axiom}{mark}")


if __name__ == "__main__":
    main()
