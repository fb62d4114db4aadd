"""Independent from-scratch proof checking: compile as a module, `coqchk` it, audit its report.

The proof script found by the search is written, with the prelude, the theorem's header and its
statement, into a fresh module and closed with `Qed.`; nothing else is in the file and nothing we
print is in it. `coqc` compiles it (its output is never read beyond the exit code: a tactic can
print anything there), then Coq's independent checker `coqchk -o -norec` re-checks the compiled
module with its own kernel, running no tactic, and reports the environment's axioms and any
bypassed check (`lean_interface.coq.kernel_check`). A proof is accepted only when:

  - the script passes the tactic guard sentence by sentence (defence in depth: the search's env
    already refused anything else, but `verify` may be handed any text);
  - coqc and coqchk both succeed, and coqchk checked our theorem's constant;
  - that constant proves *the statement*, not only carries its name: a second file — prelude and
    header, the statement elaborated afresh under a fresh name, then `Require` (no Import, so no
    notation or name of the proof module enters) of the compiled module — must compile a
    definition whose type-checking needs the fresh statement's type to be convertible to the
    constant's type (`eq_refl : T = U`, checked by the kernel at its definition; no coercion can
    stand in). A script that ends the proof and re-states the name (`Abort.` then
    `Theorem t : True.`) is refused here, whatever the guard did;
  - Set is predicative, nothing relies on type-in-type or unsafe (co)fixpoints, no inductive has
    assumed positivity (`#[bypass_check(…)]` shows up here);
  - every axiom is on the explicit allow-list of fully qualified names (`axioms.ALLOWED_AXIOMS`).
    An axiom declared by a header, or `Coq.Compat.AdmitAxiom.proof_admitted`, is refused.
"""

from __future__ import annotations

import re
from typing import Sequence

from lean_interface.api import Theorem, Verdict
from lean_interface.coq.axioms import ALLOWED_AXIOMS, SEALED_MODULE_FIELDS
from lean_interface.coq.declaration import KEYWORDS
from lean_interface.coq.guard import check_script
from lean_interface.coq.kernel_check import LOGICAL_ROOT, MODULE, CheckerReport, CheckFailed, compile_and_check
from lean_interface.coq.prelude import with_prelude

PREDICATIVE = "Set is predicative"
#: the fresh name the statement is elaborated under in the statement-check file
EXPECTED_NAME = "alphaprover_expected_statement"
_DECLARATION_KEYWORDS = "(?:" + "|".join(KEYWORDS) + ")"


def proof_file(theorem: Theorem, script: str, prelude: str = "") -> str:
    """The complete module text that proves `theorem` with `script`: nothing else is in it."""
    header = with_prelude(prelude, theorem.header).rstrip()
    return f"{header}\n\n{theorem.statement.strip()}\nProof.\n{script.strip()}\nQed.\n"


def statement_check_file(theorem: Theorem, prelude: str = "") -> str | None:
    """The file that compares the proved constant's type with the statement elaborated afresh, or
    None when the statement does not begin `Theorem <name>` (then nothing can be compared).

    The statement is elaborated *before* the proof module is loaded, so nothing the proof module
    declares can change how it reads; its placeholder proof (`Admitted`) makes it a constant whose
    type is the statement. This file is only compiled (its exit code read), never audited."""
    pattern = re.compile(rf"^(\s*{_DECLARATION_KEYWORDS}\s+){re.escape(theorem.name)}(?=[\s:(])")
    restated, count = pattern.subn(rf"\g<1>{EXPECTED_NAME}", theorem.statement.strip(), count=1)
    if not count:
        return None
    header = with_prelude(prelude, theorem.header).rstrip()
    proved = f"{LOGICAL_ROOT}.{MODULE}.{theorem.name}"
    return (f"{header}\n\n{restated}\nAdmitted.\n\nRequire {LOGICAL_ROOT}.{MODULE}.\n\n"
            f"Definition alphaprover_same_statement :\n"
            f"  ltac:(let T := type of {EXPECTED_NAME} in let U := type of {proved} in exact (T = U)) :=\n"
            f"  eq_refl.\n")


def audit_report(report: CheckerReport, theorem_name: str) -> str | None:
    """The first reason coqchk's report is not acceptable, or None."""
    if report.theory != PREDICATIVE:
        return f"checker theory is {report.theory!r}, not {PREDICATIVE!r}"
    if report.type_in_type:
        return f"relies on type-in-type: {', '.join(report.type_in_type)}"
    if report.unsafe_fixpoints:
        return f"relies on unsafe (co)fixpoints: {', '.join(report.unsafe_fixpoints)}"
    if report.assumed_positive:
        return f"inductives whose positivity is assumed: {', '.join(report.assumed_positive)}"
    foreign = [name for name in report.axioms if name not in ALLOWED_AXIOMS]
    if foreign:
        return f"axioms outside the allow-list: {', '.join(foreign)}"
    constant = f"{LOGICAL_ROOT}.{MODULE}.{theorem_name}"
    if constant not in report.checked:
        return f"the checker did not check {constant}"
    return None


def check_file(text: str, theorem: Theorem, prelude: str = "", coqc: str = "coqc", coqchk: str = "coqchk",
               timeout: float = 120.0, extra_args: Sequence[str] = ()) -> Verdict:
    """The kernel half of `verify_proof`, on a complete module text claimed to prove `theorem`
    under `prelude` (no guard: tests use this to show the checker alone refuses each trick)."""
    statement_check = statement_check_file(theorem, prelude)
    if statement_check is None:
        return Verdict(False, f"the statement does not declare {theorem.name!r}: nothing to check against",
                       script=text)
    try:
        report = compile_and_check(text, coqc, coqchk, timeout, extra_args, statement_check)
    except CheckFailed as error:
        return Verdict(False, str(error), script=text)
    reason = audit_report(report, theorem.name)
    if reason:
        return Verdict(False, reason, report.axioms, text)
    return Verdict(True, "", tuple(sorted(a for a in report.axioms if a not in SEALED_MODULE_FIELDS)), text)


def verify_proof(theorem: Theorem, script: str, coqc: str = "coqc", timeout: float = 120.0,
                 extra_args: Sequence[str] = (), prelude: str = "", coqchk: str = "coqchk") -> Verdict:
    """Check that `script` proves `theorem` from scratch. When ok, `Verdict.axioms` lists the real
    axioms of the environment the proof was checked in (sorted; the sealed-module fields that
    `-norec` reports are definitions and left out); the prelude's Lra loads Reals, so its classical
    axioms are in every environment, whether or not the proof uses them."""
    text = proof_file(theorem, script, prelude)
    refusal = check_script(script)
    if refusal:
        return Verdict(False, f"refused: {refusal}", script=text)
    return check_file(text, theorem, prelude, coqc, coqchk, timeout, extra_args)
