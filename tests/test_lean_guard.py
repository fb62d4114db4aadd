"""The Lean tactic guard: ordinary tactics pass; cheats, commands and anything that prints do not."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from fixture_repl import strict_recording

from lean_interface.api import Theorem
from lean_interface.lean_repl import LeanReplEnv
from lean_interface.lean_repl.guard import (
    LeanTacticRefused,
    check_lean_tactic,
    script_refusal,
)

STAND_IN = str(Path(__file__).with_name("fixture_repl.py"))

ADMITTED = (
    "exact?", "simp [h]", "rw [Nat.add_comm]", "intro h", "omega", "decide", "norm_num", "nlinarith [sq_nonneg x]",
    "exact Matrix.trace_mul_comm A B", "exact h.trace_eq", "rotate_left 1", "case pos => rfl", "exact #[1, 2].size",
    "induction n with\n| zero => rfl\n| succ n ih => simp [ih]", "focus\n  exact h1.left", "exact 'a'",
)
REFUSED = {
    'exact "x".length': "string literals",
    'trace "hi"': "string literals",
    "trace m": "forbidden word 'trace'",
    "trace[Meta.debug] m": "forbidden word 'trace'",
    "dbg_trace x; rfl": "forbidden word 'dbg_trace'",
    "exact dbgTrace x fun _ => rfl": "forbidden word 'dbgTrace'",
    "trace_state": "forbidden word 'trace_state'",
    "logInfo m": "forbidden word 'logInfo'",
    "exact (Lean.logInfo m)": "forbidden word 'logInfo'",
    "exact IO.println 1": "IO actions",
    "run_tac pure ()": "forbidden word 'run_tac'",
    "run_cmd pure ()": "forbidden word 'run_cmd'",
    "elab x : tactic => pure ()": "forbidden word 'elab'",
    "#eval 1": "commands are not tactics",
    "rfl; #print axioms foo": "commands are not tactics",
    "exact (#check 1)": "commands are not tactics",
    "exact Lean.ofReduceBool a b h": "forbidden name 'ofReduceBool'",
    "exact ofReduceBool a b h": "forbidden name 'ofReduceBool'",
    "attribute [implemented_by g] f": "forbidden name 'implemented_by'",
    "extern": "forbidden word 'extern'",
    "native_decide": "forbidden word 'native_decide'",
    "sorry": "forbidden word 'sorry'",
    "exact sorry": "forbidden word 'sorry'",
    "admit": "forbidden word 'admit'",
    "set_option debug.skipKernelTC true in rfl": "forbidden name 'skipKernelTC'",
    "theorem x : True := trivial": "forbidden word 'theorem'",
    "rfl -- done": "comments",
    "": "empty tactic",
}


@pytest.mark.parametrize("tactic", ADMITTED)
def test_ordinary_tactics_are_admitted(tactic: str) -> None:
    assert check_lean_tactic(tactic) == tactic.strip()


@pytest.mark.parametrize("tactic, reason", sorted(REFUSED.items()))
def test_cheats_commands_and_printing_are_refused(tactic: str, reason: str) -> None:
    with pytest.raises(LeanTacticRefused, match=reason.replace("[", r"\[")):
        check_lean_tactic(tactic)
    assert script_refusal(f"intro h\n{tactic}" if tactic else tactic) is not None


def test_apply_refuses_before_sending(tmp_path: Path) -> None:
    """A refused tactic never reaches the REPL: the stand-in would fail the test on any unrecorded request."""
    with strict_recording(tmp_path / "violations.log"):
        with LeanReplEnv(sys.executable, timeout=10.0, repl_args=[STAND_IN, "proof_step"]) as env:
            root = env.start(Theorem("f", "", "def f : Nat", "lean"))
            for tactic in REFUSED:
                assert env.apply(root, tactic).error.startswith("refused")
