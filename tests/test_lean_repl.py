"""The Lean REPL client against real recorded REPL transcripts (Lean cannot be installed here).

`tests/fixture_repl.py` plays the REPL binary: it answers each request with the recorded reply,
and only if the request equals the recorded one. So every test here passes only on the REPL's
real recorded behaviour.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from fixture_repl import fixture_dir, load_pairs
from lean_interface.api import Theorem
from lean_interface.lean_repl import LeanReplEnv
from lean_interface.lean_repl.env import axioms_of, canonical_goal, interpret_reply
from lean_interface.lean_repl.protocol import ReplProcess, encode_request

STAND_IN = str(Path(__file__).with_name("fixture_repl.py"))

#: Core fixtures (no Mathlib) left out of the pass-through, and why.
EXCLUDED = {
    "invalid_line_break": "its requests carry raw newlines that the real REPL dropped; our client escapes "
                          "them (tested separately), so the recorded replies do not apply",
}


def _core_fixtures() -> list[str]:
    names = sorted(p.name[: -len(".in")] for p in fixture_dir().glob("*.in"))
    return [n for n in names if not n.startswith("Mathlib__") and "pickle" not in n and n not in EXCLUDED]


def _env(name: str, *extra: str, timeout: float = 10.0) -> LeanReplEnv:
    return LeanReplEnv(sys.executable, timeout=timeout, repl_args=[STAND_IN, name, *extra])


@pytest.mark.parametrize("name", _core_fixtures())
def test_recorded_transcript_passes_through_the_client(name: str) -> None:
    requests, replies = load_pairs(name)
    repl = ReplProcess(sys.executable, [STAND_IN, name])
    try:
        for request, expected in zip(requests, replies):
            assert repl.send(request, timeout=10.0) == expected
    finally:
        repl.close()


def test_framing_keeps_a_request_on_one_line() -> None:
    """The recorded `invalid_line_break` replies show a raw newline is lost (`by\\nsorry` read as
    `bysorry`); our requests therefore never contain one."""
    _, replies = load_pairs("invalid_line_break")
    assert "bysorry" in replies[0]["messages"][0]["data"]
    data = encode_request({"cmd": "theorem foo : 1 = 1 := by\nsorry"})
    assert data.endswith(b"\n\n") and data[:-2].count(b"\n") == 0
    assert json.loads(data)["cmd"] == "theorem foo : 1 = 1 := by\nsorry"


def test_earlier_proof_states_stay_usable() -> None:
    """proof_step: two different tactics on proofState 0, then a tactic on the second result."""
    with _env("proof_step") as env:
        root = env.start(Theorem("f", "", "def f : Nat", "lean"))
        assert root.text == "⊢ Nat"
        first = env.apply(root, "apply Int.natAbs")
        assert first.ok and [g.text for g in first.goals] == ["⊢ Int"]
        second = env.apply(root, "have t : Nat := 42")
        assert [g.text for g in second.goals] == ["t : Nat\n⊢ Nat"]
        assert env.apply(second.goals[0], "exact t").closed


def test_several_goals_become_independent_nodes() -> None:
    """proof_branching: `apply And.intro` leaves two goals; closing the first is a closed node even
    though the state still holds the other (proofStatus is then "Incomplete")."""
    with _env("proof_branching") as env:
        theorem = Theorem("complex_and", "", "theorem complex_and (p q r : Prop) (h1 : p ∧ q) (h2 : q → r) : p ∧ r", "lean")
        root = env.start(theorem)
        split = env.apply(root, "apply And.intro")
        assert [g.text for g in split.goals] == ["p q r : Prop\nh1 : p ∧ q\nh2 : q → r\n⊢ p",
                                                 "p q r : Prop\nh1 : p ∧ q\nh2 : q → r\n⊢ r"]
        assert env.apply(split.goals[0], "exact h1.left").closed


def test_by_cases_goal_closed_by_case_block() -> None:
    with _env("by_cases") as env:
        root = env.start(Theorem("foo", "", "theorem foo (x : Int) : x = x", "lean"))
        cases = env.apply(root, "by_cases h : x < 0")
        assert len(cases.goals) == 2
        assert env.apply(cases.goals[0], "case pos => rfl").closed


def test_error_message_is_a_failed_tactic() -> None:
    with _env("invalid_tactic") as env:
        root = env.start(Theorem("my_theorem", "", "theorem my_theorem (x : Nat) : x = x", "lean"))
        result = env.apply(root, "exact my_fake_premise")
        assert not result.ok and "Unknown identifier" in result.error


def test_recorded_replies_are_interpreted_by_the_rules() -> None:
    """Only "Completed" closes a lone goal; error messages fail even with a proofState."""
    _, invalid = load_pairs("invalid_tactic")
    assert interpret_reply(invalid[1], 0)[0] == "Unknown identifier `my_fake_premise`"
    _, names = load_pairs("name_generator")
    assert names[2]["goals"] == [] and interpret_reply(names[2], 0)[0].startswith("not complete")
    failing = [r for r in names if any(m.get("severity") == "error" for m in r.get("messages", []))]
    assert failing and all("proofState" in r and interpret_reply(r, 0)[0] for r in failing)
    _, rw = load_pairs("self_proof_rw")
    assert interpret_reply(rw[2], 0)[0].startswith("Error: kernel type check failed")
    _, steps = load_pairs("proof_step")
    assert interpret_reply(steps[3], 0) == (None, [])


def test_statement_that_does_not_elaborate_is_a_clear_error() -> None:
    from lean_interface.api import EnvError

    with _env("invalid_line_break") as env:
        with pytest.raises(EnvError, match="does not elaborate"):
            env.start(Theorem("foo", "", "theorem foo : 1 = 1 := by\nsorry", "lean"))


def test_timeout_and_crash_are_survived(tmp_path: Path) -> None:
    hang = str(tmp_path / "hang")
    with _env("proof_step", "--hang-once", hang, "1", "30", timeout=1.0) as env:
        root = env.start(Theorem("f", "", "def f : Nat", "lean"))
        assert env.apply(root, "apply Int.natAbs").error.startswith("prover crashed: timeout")
        again = env.apply(root, "apply Int.natAbs")  # restarted REPL, state rebuilt by replay
        assert [g.text for g in again.goals] == ["⊢ Int"]
    crash = str(tmp_path / "crash")
    with _env("proof_step", "--crash-once", crash, "1") as env:
        root = env.start(Theorem("f", "", "def f : Nat", "lean"))
        assert env.apply(root, "apply Int.natAbs").error.startswith("prover crashed")
        assert [g.text for g in env.apply(root, "apply Int.natAbs").goals] == ["⊢ Int"]


def test_guard_refuses_before_sending() -> None:
    with _env("proof_step") as env:
        root = env.start(Theorem("f", "", "def f : Nat", "lean"))
        for bad in ("sorry", "exact sorry", "native_decide", "admit", "#eval 1", "theorem x : True := trivial",
                    "set_option debug.skipKernelTC true in rfl"):
            assert env.apply(root, bad).error.startswith("refused")


def test_goal_text_and_axiom_report_parsing() -> None:
    assert canonical_goal("case left\np q : Prop\n⊢   p") == "p q : Prop\n⊢ p"
    # `#print axioms` message shapes (Lean core): a list, or none at all
    assert axioms_of([{"severity": "info", "data": "'foo' depends on axioms: [propext, Quot.sound]"}]) == [
        "propext", "Quot.sound"]
    assert axioms_of([{"severity": "info", "data": "'foo' does not depend on any axioms"}]) == []
    assert axioms_of([]) is None


def test_render_uses_focus_blocks_for_several_goals() -> None:
    from lean_interface.api import ProofStep

    with _env("proof_step") as env:
        proof = ProofStep("constructor", (ProofStep("exact h1.left"), ProofStep("apply h2", (ProofStep("exact h1.right"),))))
        assert env.render(Theorem("t", "", "theorem t", "lean"), proof) == (
            "constructor\n· exact h1.left\n· apply h2\n  exact h1.right")


def test_the_recorded_fixtures_are_present() -> None:
    """54 core pairs were recorded; without Mathlib and pickles, at least 40 must replay here."""
    assert len(_core_fixtures()) >= 40
