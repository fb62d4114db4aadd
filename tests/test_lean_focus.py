"""The focus/rotation path of `LeanReplEnv.apply` and the sibling check, on recorded replies.

No recorded transcript contains a `focus` or `rotate_left` request, so a focused request can never
be answered by the stand-in. What is tested instead:

* the goal refs come from real recorded sessions driven through `LeanReplEnv` (the splits of
  `proof_branching`, `by_cases`, `Mathlib__induction`);
* the exact request `apply` sends for a goal among several is captured before any reply (the
  capture answers nothing, so `apply` reports a crash; no Lean behaviour is invented);
* the sibling check (`interpret_reply`) and the rotation check (`rotation_ok`) are run on RECORDED
  replies whose goal lists show a sibling closed or changed, or goals in the unrotated order.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixture_repl import load_pairs, strict_recording

from lean_interface.api import Goal, Theorem
from lean_interface.lean_repl import LeanReplEnv
from lean_interface.lean_repl.env import (
    LeanGoalRef,
    focused,
    interpret_reply,
    rotation_ok,
    tactic_plan,
)
from lean_interface.lean_repl.protocol import ReplDied

STAND_IN = str(Path(__file__).with_name("fixture_repl.py"))
BRANCHING = Theorem("complex_and", "", "theorem complex_and (p q r : Prop) (h1 : p ∧ q) (h2 : q → r) : p ∧ r", "lean")


@pytest.fixture(autouse=True)
def _stand_in_stays_on_the_recording(tmp_path: Path) -> Iterator[None]:
    with strict_recording(tmp_path / "stand_in_violations.log"):
        yield


def _split(name: str, theorem: Theorem, tactic: str) -> tuple[LeanReplEnv, tuple[Goal, ...]]:
    env = LeanReplEnv(sys.executable, timeout=10.0, repl_args=[STAND_IN, name])
    result = env.apply(env.start(theorem), tactic)
    assert result.ok and len(result.goals) == 2, result
    return env, result.goals


def _ref(goal: Goal) -> LeanGoalRef:
    assert isinstance(goal.ref, LeanGoalRef)
    return goal.ref


def _captured_request(env: LeanReplEnv, goal: Goal, tactic: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The first request `apply` sends for `tactic` on `goal`; it is never answered."""
    sent: list[dict[str, Any]] = []

    def capture(request: dict[str, Any], timeout: float) -> dict[str, Any]:
        sent.append(request)
        raise ReplDied("captured, not answered")

    monkeypatch.setattr(env._repl, "send", capture)
    result = env.apply(goal, tactic)
    monkeypatch.undo()
    assert result.error is not None and result.error.startswith("prover crashed")
    return sent[0]


def test_goal_zero_of_two_is_sent_inside_focus(monkeypatch: pytest.MonkeyPatch) -> None:
    """Index 0 too: unfocused, `case right => …` or `all_goals` would reach the sibling."""
    env, (left, _right) = _split("proof_branching", BRANCHING, "apply And.intro")
    with env:
        assert tactic_plan(_ref(left), "exact h1.left") == (None, "focus\n  exact h1.left")
        assert _captured_request(env, left, "exact h1.left", monkeypatch) == {
            "tactic": "focus\n  exact h1.left", "proofState": 1}


def test_a_later_goal_is_rotated_forward_first(monkeypatch: pytest.MonkeyPatch) -> None:
    env, (_left, right) = _split("proof_branching", BRANCHING, "apply And.intro")
    with env:
        assert tactic_plan(_ref(right), "exact h1.right") == ("rotate_left 1", "focus\n  exact h1.right")
        assert _captured_request(env, right, "exact h1.right", monkeypatch) == {
            "tactic": "rotate_left 1", "proofState": 1}


def test_whole_state_goal_is_sent_as_is_and_blocks_are_indented() -> None:
    env = LeanReplEnv(sys.executable, timeout=10.0, repl_args=[STAND_IN, "proof_step"])
    with env:
        root = env.start(Theorem("f", "", "def f : Nat", "lean"))
        assert _ref(root).others == () and tactic_plan(_ref(root), "exact 3") == (None, "exact 3")
    assert focused("induction x with\n| zero => rfl\n| succ n ih => simp") == (
        "focus\n  induction x with\n  | zero => rfl\n  | succ n ih => simp")


def test_closing_the_own_goal_with_the_sibling_untouched_is_a_closed_goal() -> None:
    """proof_branching reply 2 (after `exact h1.left` on state 1) leaves exactly the `right` goal."""
    _, replies = load_pairs("proof_branching")
    env, (left, _right) = _split("proof_branching", BRANCHING, "apply And.intro")
    with env:
        assert interpret_reply(replies[2], _ref(left).others) == (None, [])


def test_a_reply_that_closes_the_sibling_is_a_failed_tactic() -> None:
    """The same recorded reply read as the answer for the `right` node: the sibling `left` is gone
    and `right` is still there, i.e. the tactic acted on the sibling. (The old count-only check
    reported the `right` node closed here.)"""
    _, replies = load_pairs("proof_branching")
    env, (_left, right) = _split("proof_branching", BRANCHING, "apply And.intro")
    with env:
        error, produced = interpret_reply(replies[2], _ref(right).others)
        assert error == "the tactic closed or changed a goal it does not own" and produced == []


def test_case_on_the_sibling_is_caught() -> None:
    """by_cases: `case pos => rfl` closed the `pos` goal (recorded reply 2). For the `neg` node that
    is the `case`-on-a-sibling cheat; for the `pos` node it is an honest close."""
    _, replies = load_pairs("by_cases")
    env, (pos, neg) = _split("by_cases", Theorem("foo", "", "theorem foo (x : Int) : x = x", "lean"), "by_cases h : x < 0")
    with env:
        assert interpret_reply(replies[2], _ref(pos).others) == (None, [])
        assert interpret_reply(replies[2], _ref(neg).others)[0] == "the tactic closed or changed a goal it does not own"
        assert interpret_reply(replies[3], _ref(pos).others)[0]  # `all_goals sorry`: sorries, siblings gone


def test_a_changed_sibling_is_a_failed_tactic() -> None:
    """proof_branching reply 3 keeps one goal, but its target is `q`, not the sibling's `r`."""
    _, replies = load_pairs("proof_branching")
    env, (left, _) = _split("proof_branching", BRANCHING, "apply And.intro")
    with env:
        assert replies[3]["goals"] != list(_ref(left).others)
        assert interpret_reply(replies[3], _ref(left).others)[0] == "the tactic closed or changed a goal it does not own"


def test_rotation_must_give_exactly_the_rotated_goal_list() -> None:
    """Mathlib__induction: node `succ` (index 1) needs [succ, zero]; the recorded unrotated state
    [zero, succ] is not accepted as a rotation, and `next => rfl`'s reply (one goal) neither."""
    _, replies = load_pairs("Mathlib__induction")
    env, (zero, succ) = _split("Mathlib__induction", Theorem("foo", "import Mathlib", "theorem foo (x : Nat) : x = x",
                                                               "lean"), "induction x")
    with env:
        ref = _ref(succ)
        assert ref.rotated == (replies[2]["goals"][1], replies[2]["goals"][0]) and ref.others == (replies[2]["goals"][0],)
        assert not rotation_ok(replies[2], ref) and not rotation_ok(replies[3], ref)
        assert interpret_reply(replies[3], _ref(zero).others) == (None, [])  # `next => rfl` closed `zero` only
