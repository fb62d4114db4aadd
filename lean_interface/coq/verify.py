"""Independent from-scratch proof checking: `coqc` on a fresh file, then an axiom audit.

The proof script found by the search is written with the theorem's header and statement into a
new file, closed with `Qed.` and compiled by `coqc` (the kernel re-checks the whole term). Then
`Print Assumptions` lists the axioms the theorem depends on, and each one is located: only axioms
declared by Coq's standard library itself (logical path `Coq.`, e.g. the axioms behind `Reals`)
are accepted, never one declared by the header or anything else.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from lean_interface.api import Theorem, Verdict
from lean_interface.coq.guard import check_script

_AXIOM_LINE = re.compile(r"^([^\s:]+)(?:\s|$)", re.MULTILINE)  # a name at column 0; its type follows
_LOCATED = re.compile(r"^Constant ([\w'.]+)", re.MULTILINE)
ALLOWED_PREFIXES = ("Coq.",)


def proof_file(theorem: Theorem, script: str) -> str:
    """The complete `.v` text that proves `theorem` with `script` and prints its assumptions."""
    return (
        f"{theorem.header.rstrip()}\n\n{theorem.statement.strip()}\nProof.\n{script.strip()}\nQed.\n\n"
        f"Print Assumptions {theorem.name}.\n"
    )


def _coqc(text: str, coqc: str, timeout: float, extra_args: tuple[str, ...]) -> tuple[int, str]:
    with tempfile.TemporaryDirectory(prefix="alphaprover-verify-") as tmp:
        path = Path(tmp) / "AlphaproverCheck.v"
        path.write_text(text, encoding="utf-8")
        try:
            done = subprocess.run([coqc, "-q", *extra_args, path.name], cwd=tmp, capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return -1, "coqc timed out"
        return done.returncode, done.stdout + done.stderr


def _axiom_names(output: str) -> list[str] | None:
    """Axiom names from `Print Assumptions` output; None if the output has no such report."""
    if "Closed under the global context" in output:
        return []
    start = output.find("Axioms:")
    if start < 0:
        return None
    names = _AXIOM_LINE.findall(output[start + len("Axioms:"):])
    return names or None  # an "Axioms:" report we cannot read is never taken as "no axioms"


def verify_proof(theorem: Theorem, script: str, coqc: str = "coqc", timeout: float = 120.0,
                 extra_args: tuple[str, ...] = ()) -> Verdict:
    """Check `script` proves `theorem` from scratch; accept only stdlib axioms."""
    text = proof_file(theorem, script)
    refusal = check_script(script)
    if refusal:
        return Verdict(False, f"refused: {refusal}", script=text)
    binary = shutil.which(coqc)
    if binary is None:
        return Verdict(False, f"coqc not found ({coqc!r})", script=text)
    code, output = _coqc(text, binary, timeout, extra_args)
    if code != 0:
        message = next((line for line in output.splitlines() if line.startswith("Error")), output.strip())
        return Verdict(False, f"coqc rejected the proof: {message[:300]}", script=text)
    names = _axiom_names(output)
    if names is None:
        return Verdict(False, "no Print Assumptions report in coqc output", script=text)
    if not names:
        return Verdict(True, "", (), text)
    qualified = _locate_axioms(text, names, extra_args)
    if qualified is None:
        return Verdict(False, f"could not locate axioms {names}", tuple(names), text)
    foreign = [q for q in qualified if not q.startswith(ALLOWED_PREFIXES)]
    if foreign:
        return Verdict(False, f"proof depends on axioms outside the standard library: {', '.join(foreign)}",
                       tuple(qualified), text)
    return Verdict(True, "", tuple(qualified), text)


def _locate_axioms(text: str, names: list[str], extra_args: tuple[str, ...]) -> list[str] | None:
    """Full logical paths of `names`, located in the scope of the proof file (a fresh coqtop,
    one sentence at a time, so each answer belongs to exactly one name)."""
    from lean_interface.coq.process import CoqDied, CoqProcess
    from lean_interface.coq.sentences import split_sentences

    process = CoqProcess(extra_args=extra_args)
    try:
        for sentence in split_sentences(text):
            reply = process.run(sentence.text, timeout=120.0)
            if reply.error:
                return None
        located = []
        for name in names:
            reply = process.run(f"Locate Term {name}.", timeout=30.0)
            match = _LOCATED.search(reply.output)
            if reply.error or match is None:
                return None
            located.append(match.group(1))
        return located
    except CoqDied:
        return None
    finally:
        process.close()
