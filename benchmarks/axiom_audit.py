"""Which axioms do the bundled problems' environments hold? The derivation of the allow-list.

For every distinct header of miniF2F-rocq valid, with and without the tactic prelude, compile a
trivial lemma after it as a module and read `coqchk -o -norec`'s report; print each axiom with
the number of problems whose environment has it, without and with the prelude side by side,
marking names not on the allow-list; last, how many of the axioms found on each side are outside
the allow-list (by design: only those a problem's own header declares, docs/ARCHITECTURE.md
§Soundness).

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
    # per side (header alone, prelude + header): axiom -> problems whose environment has it
    counts: dict[str, collections.Counter[str]] = {"no prelude": collections.Counter(), "prelude": collections.Counter()}
    for header, names in tqdm(headers.items(), desc="headers"):
        for side, prelude in (("no prelude", ""), ("prelude", DEFAULT_PRELUDE)):
            try:
                report = compile_and_check(with_prelude(prelude, header) + PROBE)
            except CheckFailed as error:
                print(f"{names[0]} (prelude={bool(prelude)}): {error}")
                continue
            for axiom in report.axioms:
                counts[side][axiom] += len(names)
    print(f"{len(headers)} distinct headers, {sum(map(len, headers.values()))} problems")
    print(f"{'no prelude':>10} {'prelude':>8}  axiom (problems whose environment has it)")
    for axiom in sorted(set(counts["no prelude"]) | set(counts["prelude"])):
        mark = "" if axiom in ALLOWED_AXIOMS else "   <-- not allowed"
        print(f"{counts['no prelude'][axiom]:10d} {counts['prelude'][axiom]:8d}  {axiom}{mark}")
    sides = [f"{sum(a not in ALLOWED_AXIOMS for a in found)} of {len(found)} ({side})" for side, found in counts.items()]
    print(f"axioms outside the allow-list: {' / '.join(sides)}")


if __name__ == "__main__":
    main()
