"""`LeanReplEnv` driven through real recorded REPL transcripts (Lean cannot be installed here).

`tests/fixture_repl.py` plays the REPL binary: it answers a request with the recorded reply only
if the request equals the recorded one, and otherwise sends NO reply, logs the request and exits;
every test here runs under `strict_recording`, so such a request fails the test even when the
client turns the dead process into an ordinary failure value. Every scenario below therefore
passes only if `LeanReplEnv.start`/`apply` sent exactly the recorded requests and interpreted
exactly the recorded replies.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_repl import fixture_dir, load_pairs, strict_recording

from lean_interface.api import EnvError, Goal, ProofStep, TacticResult, Theorem
from lean_interface.lean_repl import LeanReplEnv
from lean_interface.lean_repl.env import LeanGoalRef, canonical_goal, interpret_reply
from lean_interface.lean_repl.protocol import ReplDied, ReplProcess, encode_request

STAND_IN = str(Path(__file__).with_name("fixture_repl.py"))


@pytest.fixture(autouse=True)
def _stand_in_stays_on_the_recording(tmp_path: Path) -> Iterator[None]:
    with strict_recording(tmp_path / "stand_in_violations.log"):
        yield


def _env(name: str, *extra: str, timeout: float = 10.0) -> LeanReplEnv:
    return LeanReplEnv(sys.executable, timeout=timeout, repl_args=[STAND_IN, name, *extra])


def _texts(result: TacticResult) -> list[str]:
    assert result.ok, result.error
    return [g.text for g in result.goals]


def _ref(goal: Goal) -> LeanGoalRef:
    assert isinstance(goal.ref, LeanGoalRef)
    return goal.ref


# ---- whole recorded sessions, through start/apply ---------------------------------------------
def test_proof_step_earlier_states_stay_usable() -> None:
    """proof_step: two different tactics on proofState 0, then a tactic on the second result."""
    with _env("proof_step") as env:
        root = env.start(Theorem("f", "", "def f : Nat", "lean"))
        assert root.text == "⊢ Nat"
        assert _texts(env.apply(root, "apply Int.natAbs")) == ["⊢ Int"]
        second = env.apply(root, "have t : Nat := 42")
        assert _texts(second) == ["t : Nat\n⊢ Nat"]
        assert env.apply(second.goals[0], "exact t").closed


def test_readme_session() -> None:
    with _env("readme") as env:
        root = env.start(Theorem("f", "", "def f (x : Unit) : Nat", "lean"))
        step = env.apply(root, "apply Int.natAbs")
        assert _texts(step) == ["x : Unit\n⊢ Int"]
        assert env.apply(step.goals[0], "exact -37").closed


def test_assumption_and_transitivity_sessions() -> None:
    with _env("assumption_proof") as env:
        root = env.start(Theorem("aa", "", "theorem aa (x : Nat) (h1 : x  = 2) : x = 2", "lean"))
        assert root.text == "x : Nat\nh1 : x = 2\n⊢ x = 2"
        assert env.apply(root, "assumption").closed
    with _env("proof_transitivity") as env:
        first = env.start(Theorem("t1", "", "example (x y z : Nat) (h1 : x = y) (h2 : y = z) : x = z", "lean"))
        assert env.apply(first, "exact Eq.trans h1 h2").closed
        second = env.start(Theorem("t2", "", "example (f : Nat → Nat) (n : Nat) (h : n = 3) : f n = f 3", "lean"))
        assert env.apply(second, "exact congrArg f h").closed


def test_errors_are_failed_tactics() -> None:
    """An error message (with a proofState) and a top-level REPL `message` both fail the tactic."""
    with _env("invalid_tactic") as env:
        root = env.start(Theorem("my_theorem", "", "theorem my_theorem (x : Nat) : x = x", "lean"))
        assert env.apply(root, "exact my_fake_premise").error == "Unknown identifier `my_fake_premise`"
    with _env("unknown_tactic") as env:
        root = env.start(Theorem("f", "", "def f : Nat", "lean"))
        assert env.apply(root, "exat 42").error == "Lean error: <input>:1:1: unknown tactic"
    with _env("Mathlib__20240209") as env:
        root = env.start(Theorem("e", "", "example : False", "lean"))
        assert env.apply(root, "simpa using show False by done").error == "unsolved goals"


def test_mathlib_exact_session_with_a_shared_header() -> None:
    """Mathlib__exact: the header is sent once; `exact?` closes one goal (its "Try this" info
    message is no error) and fails on the other with a REPL-level `message`."""
    with _env("Mathlib__exact") as env:
        one = env.start(Theorem("test", "import Mathlib", "theorem test : 0 < 1", "lean"))
        assert env.apply(one, "exact?").closed
        other = env.start(Theorem("test", "import Mathlib", "theorem test : 3 = 7", "lean"))
        assert env.apply(other, "exact?").error.startswith("Lean error: `exact?` could not close the goal")


@pytest.mark.parametrize("name, theorem, tactic, texts", [
    ("by_cases", Theorem("foo", "", "theorem foo (x : Int) : x = x", "lean"), "by_cases h : x < 0",
     ["x : Int\nh : x < 0\n⊢ x = x", "x : Int\nh : ¬x < 0\n⊢ x = x"]),
    ("proof_branching", Theorem("complex_and", "", "theorem complex_and (p q r : Prop) (h1 : p ∧ q) (h2 : q → r) : p ∧ r",
                                "lean"), "apply And.intro",
     ["p q r : Prop\nh1 : p ∧ q\nh2 : q → r\n⊢ p", "p q r : Prop\nh1 : p ∧ q\nh2 : q → r\n⊢ r"]),
    ("Mathlib__induction", Theorem("foo", "import Mathlib", "theorem foo (x : Nat) : x = x", "lean"), "induction x",
     ["⊢ 0 = 0", "n✝ : ℕ\na✝ : n✝ = n✝\n⊢ n✝ + 1 = n✝ + 1"]),
    ("Mathlib__H20231115", Theorem("e", "import Mathlib.Tactic.Cases", "example {x : Nat} : x + 1 > x", "lean"),
     "induction' x with x hx", ["⊢ 0 + 1 > 0", "x : Nat\nhx : x + 1 > x\n⊢ x + 1 + 1 > x + 1"]),
])
def test_a_split_becomes_independent_nodes(name: str, theorem: Theorem, tactic: str, texts: list[str]) -> None:
    """Two independent goals become two nodes over the same proofState: node i owns goal i and
    the other goal is its sibling, exactly as the REPL printed it."""
    _, replies = load_pairs(name)
    with _env(name) as env:
        split = env.apply(env.start(theorem), tactic)
        assert _texts(split) == texts
        state = next(r for r in replies if r.get("goals") and len(r["goals"]) == 2)
        for i, goal in enumerate(split.goals):
            ref = _ref(goal)
            assert (ref.proof_state, ref.index, ref.width) == (state["proofState"], i, 1)
            assert ref.state_goals == tuple(state["goals"]) and ref.others == (state["goals"][1 - i],)


def test_proof_branching2_prefix() -> None:
    """proof_branching2 up to the split: one-goal states are sent unwrapped (they are the whole state)."""
    with _env("proof_branching2") as env:
        goal = env.start(Theorem("e", "", "example (p q : Prop) : p ∧ q → q ∧ p", "lean"))
        for tactic in ("intro h", "have hp : p := h.left", "have hq : q := h.right"):
            (goal,) = env.apply(goal, tactic).goals
            assert _ref(goal).others == ()
        split = env.apply(goal, "apply And.intro")
        assert [t.splitlines()[-1] for t in _texts(split)] == ["⊢ q", "⊢ p"]


def test_statement_and_header_that_do_not_elaborate_are_clear_errors() -> None:
    """have_by_sorry's first command is `… := by\\n  have h : x = 1 := by sorry` with an error;
    synthesize_placeholder's `def f : Nat := _` fails as a header."""
    with _env("have_by_sorry") as env:
        with pytest.raises(EnvError, match="does not elaborate: unsolved goals"):
            env.start(Theorem("foo", "", "theorem foo (x : Int) : x = x := by\n  have h : x = 1", "lean"))
    with _env("synthesize_placeholder") as env:
        with pytest.raises(EnvError, match="header of t fails: don't know how to synthesize placeholder"):
            env.start(Theorem("t", "def f : Nat := _", "theorem t : f = f", "lean"))


@pytest.mark.parametrize("name, theorem, tactic", [
    ("tactic_mode_sorry", Theorem("f", "", "def f : Nat", "lean"), "sorry"),
    ("sorry_hypotheses", Theorem("foo", "", "theorem foo (x : Int) : x = x", "lean"), "have h : x = 1 := sorry"),
    ("name_generator", Theorem("e", "", "set_option trace.Meta.Tactic.simp true\nexample {x : Int} (h0 : x > 0) : False",
                               "lean"), "have h : x > 0 := by sorry"),
    ("Mathlib__on_goal", Theorem("e", "import Mathlib\nopen Real", "example {x : ℝ} (h0: |x| > 1) : (x < 0) ∨ (2 * x > 2)",
                                 "lean"), "on_goal 1 =>\n  have h1 : x = x := by sorry\n  by_cases h3 : x < 0"),
])
def test_recorded_sorry_tactics_are_refused_before_sending(name: str, theorem: Theorem, tactic: str) -> None:
    """The recorded session goes on with a sorry tactic; the guard refuses it, so it is never sent."""
    with _env(name) as env:
        assert env.apply(env.start(theorem), tactic).error.startswith("refused: forbidden word 'sorry'")


# ---- process handling -------------------------------------------------------------------------
def test_timeout_and_crash_are_survived(tmp_path: Path) -> None:
    hang = str(tmp_path / "hang")
    with _env("proof_step", "--hang-once", hang, "1", "30", timeout=1.0) as env:
        root = env.start(Theorem("f", "", "def f : Nat", "lean"))
        assert env.apply(root, "apply Int.natAbs").error.startswith("prover crashed: timeout")
        again = env.apply(root, "apply Int.natAbs")  # restarted REPL, state rebuilt by replay
        assert _texts(again) == ["⊢ Int"]
    crash = str(tmp_path / "crash")
    with _env("proof_step", "--crash-once", crash, "1") as env:
        root = env.start(Theorem("f", "", "def f : Nat", "lean"))
        assert env.apply(root, "apply Int.natAbs").error.startswith("prover crashed")
        assert _texts(env.apply(root, "apply Int.natAbs")) == ["⊢ Int"]


def test_framing_keeps_a_request_on_one_line() -> None:
    """The recorded `invalid_line_break` replies show a raw newline is lost (`by\\nsorry` read as
    `bysorry`); our requests therefore never contain one."""
    requests, replies = load_pairs("invalid_line_break")
    assert requests[0]["cmd"] == "theorem foo : 1 = 1 := bysorry"  # as the REPL read it
    assert "bysorry" in replies[0]["messages"][0]["data"]
    data = encode_request({"cmd": "theorem foo : 1 = 1 := by\nsorry"})
    assert data.endswith(b"\n\n") and data[:-2].count(b"\n") == 0
    assert json.loads(data)["cmd"] == "theorem foo : 1 = 1 := by\nsorry"


# ---- the stand-in itself fails loudly ----------------------------------------------------------
def test_stand_in_exits_with_an_error_and_no_reply_on_an_unknown_request(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="request 0 is not in the recording"):
        with strict_recording(tmp_path / "own.log"):
            done = subprocess.run([sys.executable, STAND_IN, "proof_step"], capture_output=True, text=True, check=False,
                                  input='{"cmd": "def g : Nat := by sorry"}\n\n', timeout=30)
            assert done.returncode == 3 and done.stdout == ""
            assert "request 0 is not in the recording" in done.stderr


def test_client_raises_and_the_test_fails_on_an_unknown_request(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="request 1 is not in the recording"):
        with strict_recording(tmp_path / "own.log"):
            repl = ReplProcess(sys.executable, [STAND_IN, "proof_step"])
            try:
                assert "sorries" in repl.send({"cmd": "def f : Nat := by sorry"}, timeout=10.0)
                with pytest.raises(ReplDied):
                    repl.send({"tactic": "exact 42", "proofState": 0}, timeout=10.0)
            finally:
                repl.close()


def test_a_crash_that_the_env_absorbs_still_fails_the_test(tmp_path: Path) -> None:
    """`apply` turns the dead stand-in into `prover crashed`: the violation log still fails the test."""
    with pytest.raises(AssertionError, match="not in the recording"):
        with strict_recording(tmp_path / "own.log"):
            with _env("proof_step") as env:
                root = env.start(Theorem("f", "", "def f : Nat", "lean"))
                assert env.apply(root, "exact 42").error.startswith("prover crashed")


# ---- pure helpers ------------------------------------------------------------------------------
def test_recorded_replies_are_interpreted_by_the_rules() -> None:
    """Only "Completed" closes a lone goal; error messages fail even with a proofState."""
    _, invalid = load_pairs("invalid_tactic")
    assert interpret_reply(invalid[1], ())[0] == "Unknown identifier `my_fake_premise`"
    _, names = load_pairs("name_generator")
    assert names[2]["goals"] == [] and interpret_reply(names[2], ())[0].startswith("not complete")
    failing = [r for r in names if any(m.get("severity") == "error" for m in r.get("messages", []))]
    assert failing and all("proofState" in r and interpret_reply(r, ())[0] for r in failing)
    _, rw = load_pairs("self_proof_rw")
    assert interpret_reply(rw[2], ())[0].startswith("Error: kernel type check failed")
    _, steps = load_pairs("proof_step")
    assert interpret_reply(steps[3], ()) == (None, [])


def test_goal_text_and_render() -> None:
    assert canonical_goal("case left\np q : Prop\n⊢   p") == "p q : Prop\n⊢ p"
    with _env("proof_step") as env:
        proof = ProofStep("constructor", (ProofStep("exact h1.left"), ProofStep("apply h2", (ProofStep("exact h1.right"),))))
        assert env.render(Theorem("t", "", "theorem t", "lean"), proof) == (
            "constructor\n· exact h1.left\n· apply h2\n  exact h1.right")


def test_the_recorded_fixtures_are_present() -> None:
    assert len(list(fixture_dir().glob("*.in"))) >= 70
