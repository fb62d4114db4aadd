"""selfplay.negation on real Coq: every minif2f-rocq-train statement that elaborates has a negation
that elaborates too, and *is* its negation.

All problems go into one module file, each wrapped in its own `Module P<k>. … End P<k>.` (so one
problem's imports, scopes and options end with its module), in the env's order: prelude first
(docs/ARCHITECTURE.md §Tactic prelude), then per problem its header, the original statement with
`Proof. Admitted.`, the negated statement with `Proof. Admitted.`, and a link check that the
negation's type is syntactically `~ (type of the original)` (`constr_eq` up to bound names).
coqc stops at the first error: an error in a header or original statement means that problem does
not elaborate, so it is skipped and the file is rebuilt from the next problem; any other error
fails the test. A skipped problem is then compiled alone, so a problem is never skipped because
the batch changed its context. ~20–30 s on 2 cores (6 coqc runs for the batch, 1 per skip).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from lean_interface.api import Theorem
from lean_interface.coq.prelude import DEFAULT_PRELUDE
from lean_interface.problems.benchmarks import Problem, load_benchmark
from selfplay.negation import negate

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("coqc") is None, reason="Coq is not installed"),
]

_LINE = re.compile(r'File "[^"]*", line (\d+)')
#: parts of a problem in the batch file; an error in an ORIGINAL part means "does not elaborate"
ORIGINAL = ("header", "statement")


def coqc(directory: Path, text: str, name: str = "Batch") -> subprocess.CompletedProcess[str]:
    path = directory / f"{name}.v"
    path.write_text(text, encoding="utf-8")
    return subprocess.run(["coqc", "-w", "-all", path.name], cwd=directory, capture_output=True, text=True,
                          timeout=600)


def batch_file(problems: list[tuple[int, Problem]]) -> tuple[str, list[tuple[int, str]]]:
    """The batch text and, for each of its lines, (problem index, part)."""
    lines: list[str] = []
    owners: list[tuple[int, str]] = []

    def emit(index: int, part: str, text: str) -> None:
        for line in text.splitlines():
            lines.append(line)
            owners.append((index, part))

    emit(-1, "prelude", DEFAULT_PRELUDE)  # one owner per line: the prelude spans several

    for index, problem in problems:
        theorem = problem.theorem
        negated = negate(theorem)
        emit(index, "header", f"Module P{index}.\n{theorem.header}")
        emit(index, "statement", f"{theorem.statement}\nProof. Admitted.")
        emit(index, "negation", f"{negated.statement}\nProof. Admitted.")
        emit(index, "link", "Example negation_link : True.\nProof.\n"
                            f"  let t := type of @{theorem.name} in let u := type of @{negated.name} in\n"
                            "  constr_eq u (~ t); exact I.\nQed.")
        emit(index, "end", f"End P{index}.")
    return "\n".join(lines) + "\n", owners


def test_every_negation_of_an_elaborating_train_problem_elaborates_and_negates_it(tmp_path: Path) -> None:
    problems = [p for p in load_benchmark("minif2f-rocq-train") if p.theorem is not None]
    assert len(problems) == 213
    pending = list(enumerate(problems))
    skipped: list[tuple[Problem, str]] = []
    runs = 0
    while pending:
        text, owners = batch_file(pending)
        result = coqc(tmp_path, text)
        runs += 1
        if result.returncode == 0:
            break
        output = (result.stdout + result.stderr).strip()
        line = _LINE.search(output)
        assert line, f"coqc failed without a location: {output[-500:]}"
        index, part = owners[int(line.group(1)) - 1]
        problem = problems[index] if index >= 0 else None
        message = " ".join(output.split())[-300:]
        assert part in ORIGINAL, f"{problem.name if problem else 'prelude'}: the {part} failed: {message}"
        skipped.append((problems[index], message))
        pending = [(i, p) for i, p in pending if i > index]
        assert runs <= 20, f"too many problems do not elaborate: {[p.name for p, _ in skipped]}"

    # docs/ARCHITECTURE.md §Data: 236 of 244 valid problems elaborate, 28 of the 31 dev ones
    assert len(skipped) <= 8, [p.name for p, _ in skipped]
    for problem, message in skipped:
        alone = coqc(tmp_path, f"{DEFAULT_PRELUDE}\n{problem.theorem.header}\n{problem.theorem.statement}\n"
                               "Proof. Admitted.\n", name="Alone")
        assert alone.returncode != 0, f"{problem.name} elaborates alone but not in the batch: {message}"


def test_the_link_check_catches_a_wrong_negation(tmp_path: Path) -> None:
    """The batch's `constr_eq` check is not vacuous: a negation that drops a hypothesis fails it,
    the one `negate` writes passes it."""
    theorem = Theorem("t", "", "Theorem t (n : nat) (h : 0 < n) : 1 <= n.", "coq")
    original = f"{DEFAULT_PRELUDE}\n{theorem.statement}\nProof. Admitted.\n"
    link = "Goal True. let t := type of @t in let u := type of @t_neg in constr_eq u (~ t); exact I. Qed.\n"
    wrong = coqc(tmp_path, original + "Theorem t_neg : ~ (forall (n : nat), 1 <= n).\nProof. Admitted.\n" + link,
                 name="Wrong")
    assert wrong.returncode != 0 and "Not equal" in wrong.stdout + wrong.stderr
    right = coqc(tmp_path, original + f"{negate(theorem).statement}\nProof. Admitted.\n" + link, name="Right")
    assert right.returncode == 0, right.stdout + right.stderr
