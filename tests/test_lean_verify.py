"""`verify`: the guard, a fresh REPL, the proof as one command, then `#print axioms` on its own.

Through the stand-in, `verify` is driven on recordings whose FIRST request is exactly the command
`verify` sends (a fresh REPL starts the recording from its start): Lean's recorded errors are
refusals. No recording contains a `#print axioms` reply, so the audit itself is tested on the pure
reader `guard.axiom_report`/`audit_verdict`, with recorded replies where they exist (a `#print`
info message at the command position 1:0 in `options`, a tactic's `trace` info message at 2:2 in
`trace_simp`, an error in `dup_msg`, a REPL `message` in `unknown_environment`) and, for report
texts, those recorded message shapes with the `data` text replaced by Lean's report wording.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixture_repl import load_pairs, strict_recording

from lean_interface.api import Theorem
from lean_interface.lean_repl import LeanReplEnv
from lean_interface.lean_repl.env import proof_command
from lean_interface.lean_repl.guard import audit_verdict, axiom_report, declares

STAND_IN = str(Path(__file__).with_name("fixture_repl.py"))


@pytest.fixture(autouse=True)
def _stand_in_stays_on_the_recording(tmp_path: Path) -> Iterator[None]:
    with strict_recording(tmp_path / "stand_in_violations.log"):
        yield


def _env(name: str) -> LeanReplEnv:
    return LeanReplEnv(sys.executable, timeout=10.0, repl_args=[STAND_IN, name])


TERMINATION = "Lean rejected the proof: fail to show termination for"


@pytest.mark.parametrize("name, theorem, script, message", [
    ("self_proof_apply_check", Theorem("ex", "", "theorem ex : False", "lean"), "apply ex", TERMINATION),
    ("self_proof_exact_check", Theorem("ex", "", "theorem ex : False", "lean"), "exact ex", TERMINATION),
    ("self_proof_rw", Theorem("self_application", "", "theorem self_application : 1 = 0", "lean"),
     "rw [self_application]", TERMINATION),
    ("self_proof_check", Theorem("ex", "", "theorem ex : False", "lean"), "exact?",
     "Lean rejected the proof: `exact?` could not close the goal."),
    ("incomplete", Theorem("f", "", "def f : Nat", "lean"), "apply Nat.succ", "Lean rejected the proof: unsolved goals"),
    ("synthesize_placeholder", Theorem("t", "def f : Nat := _", "theorem t : f = f", "lean"), "rfl",
     "the header fails: don't know how to synthesize placeholder"),
])
def test_recorded_lean_errors_are_refusals(name: str, theorem: Theorem, script: str, message: str) -> None:
    with _env(name) as env:
        verdict = env.verify(theorem, script)
    assert not verdict.ok and verdict.message.startswith(message), verdict
    assert verdict.script.endswith(f"#print axioms {theorem.name}\n") and "\n" not in verdict.message


def test_a_proof_lean_accepts_is_followed_by_the_audit_alone_in_its_env(tmp_path: Path) -> None:
    """file_env records `def f : Nat := 1` then `theorem demo … := by rw [Nat.add_comm]` in env 0,
    answered `{"env": 1}`: exactly what verify sends for this header and proof. Its next request
    must be `#print axioms demo` ALONE in env 1. The recording has no audit reply, so this is the
    one test that expects the stand-in to refuse a request: it checks only WHAT was sent (the
    refused request is exactly the audit), never how the client read the stand-in's refusal."""
    theorem = Theorem("demo", "def f : Nat := 1", "theorem demo (a b: Nat): a + b = b + a", "lean")
    with pytest.raises(AssertionError) as failure:
        with strict_recording(tmp_path / "own.log"):
            with _env("file_env") as env:
                env.verify(theorem, "rw [Nat.add_comm]")
    log = str(failure.value).splitlines()[1:]
    assert log == ['stand-in file_env: request 2 is not in the recording: {"cmd": "#print axioms demo", "env": 1}']


@pytest.mark.parametrize("script, reason", [
    ("sorry", "forbidden word 'sorry'"),
    ('trace "\'demo\' does not depend on any axioms"\nrfl', "string literals"),
    ("dbg_trace x; rfl", "forbidden word 'dbg_trace'"),
    ("run_tac Lean.logInfo m", "forbidden word 'run_tac'"),
    ("rfl\n#print axioms demo", "commands are not tactics"),
    ("exact Lean.ofReduceBool _ _ rfl", "forbidden name 'ofReduceBool'"),
    ("", "empty proof script"),
])
def test_the_guard_refuses_before_any_lean_process(script: str, reason: str) -> None:
    with _env("proof_step") as env:  # the env's REPL would fail the test if verify sent anything
        verdict = env.verify(Theorem("demo", "", "theorem demo : 1 = 1", "lean"), script)
    assert not verdict.ok and verdict.message.startswith("refused: ") and reason in verdict.message


def test_the_audited_name_must_be_the_declaration_proved() -> None:
    assert declares("theorem demo (a b : Nat) : a = a", "demo")
    assert declares("/-- the theorem -/ @[simp] theorem Foo.demo : 1 = 1", "Foo.demo")
    assert not declares("example : 1 = 1", "demo")
    assert not declares("theorem other : True := trivial\ntheorem demo : False", "demo")
    assert not declares("theorem demo' : 1 = 1", "demo")
    with _env("proof_step") as env:
        verdict = env.verify(Theorem("demo", "", "example : 1 = 1", "lean"), "rfl")
    assert not verdict.ok and "does not declare 'demo'" in verdict.message
    assert proof_command("theorem demo : 1 = 1", "rfl") == "theorem demo : 1 = 1 := by rfl"
    assert proof_command("theorem t : p ∧ q", "constructor\n· exact hp\n· exact hq") == (
        "theorem t : p ∧ q := by\n  constructor\n  · exact hp\n  · exact hq")


# ---- the axiom report is read from the audit command's own position only -----------------------
def _with_data(reply: dict[str, Any], data: str) -> dict[str, Any]:
    """A recorded reply with its one message's text replaced (position, severity, shape kept)."""
    shaped = copy.deepcopy(reply)
    shaped["messages"][0]["data"] = data
    return shaped


def _print_reply() -> dict[str, Any]:
    """options reply 0: the info message of `#print List.cons`, a whole command, at 1:0."""
    reply = load_pairs("options")[1][0]
    assert reply["messages"][0]["pos"] == {"line": 1, "column": 0}
    return reply


def _trace_reply() -> dict[str, Any]:
    """trace_simp reply 7: `example : True := by\\n  trace "!"\\n  trivial` — a tactic's info at 2:2."""
    reply = load_pairs("trace_simp")[1][7]
    assert reply["messages"][0]["pos"] == {"line": 2, "column": 2} and reply["messages"][0]["data"] == "!"
    return reply


def test_a_report_at_the_command_position_is_read() -> None:
    clean = _with_data(_print_reply(), "'demo' depends on axioms: [propext, Classical.choice, Quot.sound]")
    verdict = audit_verdict(clean, "demo", "S")
    assert verdict.ok and verdict.axioms == ("propext", "Classical.choice", "Quot.sound")
    assert audit_verdict(_with_data(_print_reply(), "'demo' does not depend on any axioms"), "demo", "S").ok
    wrapped = _with_data(_print_reply(), "'Ns.demo' depends on axioms: [propext,\n Quot.sound]")
    assert audit_verdict(wrapped, "demo", "S").axioms == ("propext", "Quot.sound")


def test_sorry_and_foreign_axioms_are_refused() -> None:
    for listed, foreign in (("[propext, sorryAx]", "sorryAx"), ("[Lean.ofReduceBool, propext]", "Lean.ofReduceBool"),
                            ("[my_axiom]", "my_axiom")):
        verdict = audit_verdict(_with_data(_print_reply(), f"'demo' depends on axioms: {listed}"), "demo", "S")
        assert not verdict.ok and verdict.message == f"non-standard axioms: {foreign}"


def test_a_fake_report_printed_by_a_tactic_elsewhere_is_not_accepted() -> None:
    """The recorded trace message sits at 2:2, where the proof's tactic ran, not at the audit
    command's 1:0; with the report wording in it, it is still no report."""
    assert axiom_report(_trace_reply(), "demo") == (None, "no single axiom report at the #print axioms command")
    fake = _with_data(_trace_reply(), "'demo' does not depend on any axioms")
    assert axiom_report(fake, "demo")[0] is None
    assert not audit_verdict(fake, "demo", "S").ok
    both = _with_data(_print_reply(), "'demo' depends on axioms: [sorryAx]")
    both["messages"].append(fake["messages"][0])  # the real report refuses; the fake one elsewhere is ignored
    assert audit_verdict(both, "demo", "S").message == "non-standard axioms: sorryAx"


def test_missing_ambiguous_or_unreadable_reports_are_refusals() -> None:
    assert axiom_report(_print_reply(), "List.cons") == (None, "unreadable axiom report")  # recorded `#print` text
    assert axiom_report(load_pairs("trace_simp")[1][0], "demo")[0] is None  # recorded `{"env": 0}`: no message
    assert "Unknown identifier" in axiom_report(load_pairs("dup_msg")[1][2], "g")[1]  # recorded error reply
    assert axiom_report(load_pairs("unknown_environment")[1][0], "demo")[1].startswith("the REPL refused the audit")
    twice = _with_data(_print_reply(), "'demo' does not depend on any axioms")
    twice["messages"].append(dict(twice["messages"][0]))
    assert axiom_report(twice, "demo") == (None, "several reports")
    other = _with_data(_print_reply(), "'helper' does not depend on any axioms")
    assert "is about 'helper'" in axiom_report(other, "demo")[1]
    warning = _with_data(_print_reply(), "'demo' does not depend on any axioms")
    warning["messages"][0]["severity"] = "warning"
    assert axiom_report(warning, "demo")[0] is None
