"""The tactic prelude does not change what any bundled problem says.

For every miniF2F-rocq valid problem that elaborates: state it once after its header alone and once
after prelude + header, print the goal with `Set Printing All` (no notations, every implicit
argument), and require the same text and, for every identifier in it, the same constant from
`Locate` — so neither a notation, a scope nor a shadowed name changed meaning. Two coqtop
processes per side run the problems in parallel (~2 minutes on 2 cores).
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from lean_interface.api import Theorem
from lean_interface.coq.prelude import DEFAULT_PRELUDE, with_prelude
from lean_interface.coq.process import CoqProcess
from lean_interface.coq.text import split_sentences
from lean_interface.problems.benchmarks import load_benchmark

pytestmark = pytest.mark.integration

_IDENTIFIER = re.compile(r"(?<![\w'.])([A-Za-z_][\w'.]*)")


def elaborated(process: CoqProcess, header: str, theorem: Theorem) -> tuple[str, dict[str, str]] | str:
    """The statement under `Set Printing All`, and what each identifier in it resolves to; or the
    first error (as a string) when the header or statement does not load."""
    process.back_to(process.initial_state)
    for sentence in split_sentences(header):
        reply = process.run(sentence.text, timeout=120.0)
        if reply.error:
            return f"header: {reply.error}"
    reply = process.run(theorem.statement, timeout=60.0)
    if reply.error:
        return f"statement: {reply.error}"
    process.run("Set Printing All.", timeout=10.0)
    shown = process.run("Show.", timeout=30.0).output
    goal = shown.split("============================", 1)[-1].strip()
    meanings = {}
    for name in sorted(set(_IDENTIFIER.findall(goal))):
        located = process.run(f"Locate {name}.", timeout=10.0).output.strip().splitlines()
        meanings[name] = located[0] if located else ""
    process.run("Abort.", timeout=10.0)
    return goal, meanings


def test_every_bundled_problem_means_the_same_with_and_without_the_prelude() -> None:
    problems = [p for p in load_benchmark("minif2f-rocq-valid") if p.theorem is not None]
    assert len(problems) >= 230
    halves = [problems[0::2], problems[1::2]]

    def run_half(part: list) -> list[str]:
        plain, preluded = CoqProcess(), CoqProcess()
        differences = []
        try:
            for problem in part:
                theorem = problem.theorem
                without = elaborated(plain, theorem.header, theorem)
                with_ = elaborated(preluded, with_prelude(DEFAULT_PRELUDE, theorem.header), theorem)
                if isinstance(without, str):
                    continue  # does not elaborate even without the prelude (reported by eval)
                if with_ != without:
                    differences.append(f"{problem.name}: {without} != {with_}")
        finally:
            plain.close()
            preluded.close()
        return differences

    with ThreadPoolExecutor(max_workers=2) as pool:
        differences = [d for half in pool.map(run_half, halves) for d in half]
    assert not differences, "\n".join(differences[:5])
