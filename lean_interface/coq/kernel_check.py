"""Compile a proof file as a module with `coqc`, then check it with Coq's independent checker.

Why two programs: `coqc` runs the tactics (and anything they print goes to its output, which we
never read beyond the exit code); `coqchk` then re-checks the compiled module with its own kernel
and runs no tactic at all, so no text in its report can come from the proof. Its `-o` report is
the only thing the audit reads:

    CONTEXT SUMMARY
    ===============
    * Theory: Set is predicative
    * Axioms:
        Coq.Logic.Classical_Prop.classic
    * Constants/Inductives relying on type-in-type: <none>
    * Constants/Inductives relying on unsafe (co)fixpoints: <none>
    * Inductives whose positivity is assumed: <none>

`-norec` trusts the already-installed, already-compiled libraries (Coq's stdlib, Coquelicot), so a
check takes ~1–3 s instead of ~30 s; the axioms those libraries declare are still listed (the
report covers the whole environment the module was compiled in, used or not), so an axiom brought
in by a header is seen even when the proof does not use it. The report is parsed strictly: every
line of the summary must have the expected shape, or the check fails closed.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from lean_interface._processes import guard_group, kill_process

#: logical directory our compiled proof files live under (`-Q <tmp> Alphaprover`)
LOGICAL_ROOT = "Alphaprover"
MODULE = "ProofCheck"
#: the second file: the statement elaborated afresh, compared with the proved constant's type
STATEMENT_MODULE = "StatementCheck"

_ITEM = re.compile(r"^    ([A-Za-z_][\w'.]*)$")
_SECTIONS = {
    "* Axioms:": "axioms",
    "* Constants/Inductives relying on type-in-type:": "type_in_type",
    "* Constants/Inductives relying on unsafe (co)fixpoints:": "unsafe_fixpoints",
    "* Inductives whose positivity is assumed:": "assumed_positive",
}


@dataclass(frozen=True)
class CheckerReport:
    """What `coqchk -o` says about a module's environment.

    Fields:
      theory:           the `* Theory:` line's text (e.g. "Set is predicative").
      axioms:           fully qualified names of every axiom/parameter in the environment.
      type_in_type:     constants or inductives checked with universe checking off.
      unsafe_fixpoints: constants relying on unguarded (co)fixpoints.
      assumed_positive: inductives whose positivity was not checked.
      checked:          constants coqchk says it checked in our module (`checking cst:…`).
    """

    theory: str
    axioms: tuple[str, ...]
    type_in_type: tuple[str, ...]
    unsafe_fixpoints: tuple[str, ...]
    assumed_positive: tuple[str, ...]
    checked: tuple[str, ...]


class CheckFailed(Exception):
    """The file did not compile, the checker rejected it, or its report is not what we expect."""


def parse_report(output: str) -> CheckerReport:
    """The context summary of `coqchk -o` output; CheckFailed when anything is off."""
    if "Modules were successfully checked" not in output:
        raise CheckFailed("coqchk did not report a successful check")
    checked = tuple(re.findall(r"^  checking cst:([\w'.]+)$", output, re.MULTILINE))
    head, marker, summary = output.partition("\nCONTEXT SUMMARY\n===============\n")
    if not marker:
        raise CheckFailed("coqchk printed no context summary")
    theory = ""
    lists: dict[str, list[str]] = {key: [] for key in _SECTIONS.values()}
    seen: set[str] = set()
    current: str | None = None
    for line in summary.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if line.startswith("* Theory:"):
            theory, current = line[len("* Theory:"):].strip(), None
            continue
        header = next((h for h in _SECTIONS if line.startswith(h)), None)
        if header is not None:
            current = _SECTIONS[header]
            seen.add(current)
            rest = line[len(header):].strip()
            if rest == "<none>":
                current = None
            elif rest:
                raise CheckFailed(f"unexpected coqchk summary line: {line[:120]!r}")
            continue
        match = _ITEM.match(line)
        if current is None or match is None:
            raise CheckFailed(f"unexpected coqchk summary line: {line[:120]!r}")
        lists[current].append(match.group(1))
    missing = set(_SECTIONS.values()) - seen
    if missing or not theory:
        raise CheckFailed(f"coqchk summary lacks sections: {sorted(missing) or ['theory']}")
    return CheckerReport(theory, tuple(lists["axioms"]), tuple(lists["type_in_type"]),
                         tuple(lists["unsafe_fixpoints"]), tuple(lists["assumed_positive"]), checked)


def compile_and_check(text: str, coqc: str = "coqc", coqchk: str = "coqchk", timeout: float = 120.0,
                      extra_args: Sequence[str] = (), statement_check: str | None = None) -> CheckerReport:
    """Compile `text` as module `Alphaprover.ProofCheck` and return coqchk's report on it.

    `statement_check`, when given, is a second file compiled after the module (as
    `Alphaprover.StatementCheck`, so it can `Require Alphaprover.ProofCheck.`): it must compile
    too, or the check fails (`lean_interface.coq.verify.statement_check_file` writes it).
    `extra_args` are load-path flags (`-Q dir Lib`, `-R dir Lib`) given to both programs.
    Raises CheckFailed with a one-line reason (compile error, checker error, timeout).
    """
    with tempfile.TemporaryDirectory(prefix="alphaprover-check-") as tmp:
        source = Path(tmp) / f"{MODULE}.v"
        source.write_text(text, encoding="utf-8")
        load_path = ["-Q", tmp, LOGICAL_ROOT, *extra_args]
        code, output = _run([coqc, "-q", *load_path, source.name], tmp, timeout)
        if code != 0:
            raise CheckFailed(f"coqc rejected the proof: {_first_error(output)}")
        if statement_check is not None:
            (Path(tmp) / f"{STATEMENT_MODULE}.v").write_text(statement_check, encoding="utf-8")
            code, output = _run([coqc, "-q", *load_path, f"{STATEMENT_MODULE}.v"], tmp, timeout)
            if code != 0:
                raise CheckFailed(f"the proved constant does not have the stated type: {_first_error(output)}")
        code, output = _run([coqchk, "-o", "-norec", f"{LOGICAL_ROOT}.{MODULE}", *load_path], tmp, timeout)
        if code != 0:
            last = next((line for line in reversed(output.splitlines()) if line.strip()), "")
            raise CheckFailed(f"coqchk rejected the module: {last[:300]}")
        return parse_report(output)


def _first_error(output: str) -> str:
    """coqc's first error message on one line (it may span several), at most 300 characters."""
    start = output.find("Error")
    return " ".join((output[start:] if start >= 0 else output).split())[:300]


def _run(argv: list[str], cwd: str, timeout: float) -> tuple[int, str]:
    """Run a checker program in its own process group and kill the whole group afterwards.

    Why a group: `coqc` replaying a `psatz` proof starts `csdpcert`, which runs `csdp`. A plain
    `subprocess.run` timeout kills `coqc` alone, and those helpers kept running, orphaned, at full
    speed under the next searches (seen in an evaluation: four `csdpcert` left behind).
    """
    try:
        proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
    except FileNotFoundError:
        raise CheckFailed(f"{argv[0]} not found: install Coq (`apt-get install coq`)") from None
    guard_group(proc)
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CheckFailed(f"{Path(argv[0]).name} timed out after {timeout:g} s") from None
    finally:
        kill_process(proc)
    return proc.returncode, output.decode(errors="replace")
