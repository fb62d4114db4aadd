"""Soundness guards for Lean: which tactic strings may run, and which `#print axioms` report counts.

The tactic guard refuses, before any Lean process sees them:

* `sorry`/`admit` and the shared forbidden words (`lean_interface.api.FORBIDDEN_WORDS`);
* kernel bypasses: `native_decide`, `implemented_by`, `extern`, `unsafe`, `Lean.ofReduceBool`
  (and `ofReduceBool`/`ofReduceNat`/`reduceBool` anywhere), `debug.skipKernelTC`, `trustCompiler`;
* anything that starts a new command inside a tactic (`theorem`, `def`, `axiom`, `elab`, `macro`, …)
  and every `#` command (`#eval`, `#print`, …);
* everything that prints: `trace`, `dbg_trace`, `trace_state`, `logInfo` (also qualified, e.g.
  `Lean.logInfo`), `IO.println` and all of `IO.`, `run_tac`, `run_cmd`, and every string literal
  (any `"`). A printing tactic could otherwise write text that looks like a verdict — the axiom
  report below is read only from its own command, but nothing printed by a proof is needed.

The axiom audit (`audit_verdict`) reads the `#print axioms NAME` report of a command sent ON ITS
OWN in the proof's environment, so the report is the info message at that command's own position
(line 1, column 0; the recorded `#print` replies put a command's info message there). Only
`propext`, `Classical.choice` and `Quot.sound` are accepted; a missing, ambiguous or unreadable
report is a refusal (fail-closed).
"""

from __future__ import annotations

import re
from typing import Any

from lean_interface.api import FORBIDDEN_WORDS, Verdict

LEAN_FORBIDDEN = (
    "sorry", "admit", "native_decide", "implemented_by", "extern", "unsafe", "axiom", "opaque",
    "theorem", "lemma", "def", "abbrev", "instance", "elab", "by_elab", "macro", "macro_rules", "syntax",
    "notation", "infix", "infixl", "infixr", "postfix", "initialize", "builtin_initialize",
    "run_tac", "run_cmd", "run_elab", "skipKernelTC", "set_option", "import", "namespace", "section",
    "end", "open", "export", "variable", "universe", "attribute", "decide := true", "trace",
)
#: Printing/meta names refused even when qualified (`Lean.logInfo`, `IO.println`).
LEAN_PRINTING = (
    "dbg_trace", "dbgTrace", "dbgTraceIfShared", "trace_state", "logInfo", "logWarning", "logError",
    "logInfoAt", "println", "eprintln", "ofReduceBool", "ofReduceNat", "reduceBool", "trustCompiler",
)
_WORDS = re.compile(
    r"(?<![\w.])(" + "|".join(re.escape(w) for w in (*FORBIDDEN_WORDS, *LEAN_FORBIDDEN)) + r")(?![\w.])"
)
_PRINTING = re.compile(r"(?<!\w)(" + "|".join(re.escape(w) for w in LEAN_PRINTING) + r")(?!\w)")
_SUBSTRINGS = ("ofReduceBool", "ofReduceNat", "reduceBool", "implemented_by", "skipKernelTC", "trustCompiler")
_IO = re.compile(r"(?<![\w.])IO\.")
_COMMAND = re.compile(r"#\w")

ALLOWED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})
#: Where the `#print axioms` command sits in the audit command (it is the whole command text).
AUDIT_POS = {"line": 1, "column": 0}
_REPORT = re.compile(
    r"'(?P<name>.+?)' (?:does not depend on any axioms|depends on axioms: \[(?P<axioms>[^\]]*)\])", re.DOTALL
)


class LeanTacticRefused(ValueError):
    """The tactic may not run; the message says why in one line."""


def check_lean_tactic(tactic: str) -> str:
    """The tactic, stripped, or raise `LeanTacticRefused`."""
    text = tactic.strip()
    if not text:
        raise LeanTacticRefused("empty tactic")
    if '"' in text:
        raise LeanTacticRefused("string literals are not allowed in a tactic")
    if "/-" in text or "--" in text:
        raise LeanTacticRefused("comments are not allowed in a tactic")
    command = _COMMAND.search(text)
    if command:
        raise LeanTacticRefused(f"commands are not tactics: {command.group(0)!r}")
    for needle in _SUBSTRINGS:
        if needle in text:
            raise LeanTacticRefused(f"forbidden name {needle!r}")
    if _IO.search(text):
        raise LeanTacticRefused("IO actions are not allowed in a tactic")
    found = _WORDS.search(text) or _PRINTING.search(text)
    if found:
        raise LeanTacticRefused(f"forbidden word {found.group(1)!r}")
    return text


def canonical_lean_tactic(tactic: str) -> str | None:
    """The canonical form of a Lean tactic (`check_lean_tactic`: stripped), or None where the guard
    refuses it (`lean_interface.tactic_form`)."""
    try:
        return check_lean_tactic(tactic)
    except LeanTacticRefused:
        return None


def script_refusal(script: str) -> str | None:
    """Why a whole tactic script may not be checked, or None. Every check of the guard is position-free,
    so the whole text is checked at once (a `·` bullet is not refused)."""
    try:
        check_lean_tactic(script)
    except LeanTacticRefused as error:
        return "empty proof script" if not script.strip() else str(error)
    return None


def declares(statement: str, name: str) -> bool:
    """True if the statement's FIRST declaration is `theorem|lemma|def|abbrev NAME`: the name that
    `#print axioms NAME` audits must be the declaration the proof script proves."""
    code = re.sub(r"--[^\n]*", "", re.sub(r"/-.*?-/", "", statement, flags=re.DOTALL))
    first = re.search(r"(?<![\w.])(theorem|lemma|def|abbrev|example|instance|axiom|opaque)(?![\w.'])", code)
    if first is None or first.group(1) not in ("theorem", "lemma", "def", "abbrev"):
        return False
    after = code[first.end():]
    return re.match(r"\s+" + re.escape(name) + r"(?![\w.'])", after) is not None


def axiom_report(reply: dict[str, Any], name: str) -> tuple[list[str] | None, str]:
    """(axioms, "") read from the audit command's own report, or (None, why there is no usable report).

    Only an `info` message at `AUDIT_POS` is a report candidate; there must be exactly one, it must
    name `name` (Lean prints the full name, possibly with a namespace prefix), and it must parse."""
    if "message" in reply:
        return None, f"the REPL refused the audit: {' '.join(str(reply['message']).split())}"
    messages = reply.get("messages", [])
    errors = [m.get("data", "") for m in messages if m.get("severity") == "error"]
    if errors:
        return None, f"#print axioms failed: {errors[0].splitlines()[0] if errors[0] else 'error'}"
    here = [m for m in messages if m.get("severity") == "info" and m.get("pos") == AUDIT_POS]
    if len(here) != 1:
        return None, "no single axiom report at the #print axioms command" if not here else "several reports"
    found = _REPORT.fullmatch(str(here[0].get("data", "")).strip())
    if found is None:
        return None, "unreadable axiom report"
    printed = found.group("name")
    if printed != name and not printed.endswith("." + name):
        return None, f"the axiom report is about {printed!r}, not {name!r}"
    listed = found.group("axioms")
    return ([a.strip() for a in listed.split(",") if a.strip()] if listed is not None else []), ""


def audit_verdict(reply: dict[str, Any], name: str, script: str) -> Verdict:
    """The Verdict for a proof that Lean accepted, from the reply to its own `#print axioms NAME`."""
    axioms, problem = axiom_report(reply, name)
    if axioms is None:
        return Verdict(False, f"axiom audit failed: {problem}", script=script)
    foreign = sorted(set(axioms) - ALLOWED_AXIOMS)
    if foreign:
        return Verdict(False, f"non-standard axioms: {', '.join(foreign)}", tuple(axioms), script)
    return Verdict(True, "", tuple(axioms), script)
