"""The LeanDojo adapter imports lazily and says how to install it (LeanDojo cannot run here:
it needs elan and a traced repository fetched over the network). Its `verify` never accepts
without the Lean REPL axiom audit: with no audit REPL configured it refuses, and with one it
delegates to the REPL check (driven here through a recorded transcript)."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_repl import strict_recording

from lean_interface import make_env
from lean_interface.api import EnvError, Theorem
from lean_interface.leandojo_env import (
    AUDIT_UNAVAILABLE,
    INSTALL_HINT,
    LeanDojoEnv,
    classify_result,
    verify_with_audit,
)

STAND_IN = str(Path(__file__).with_name("fixture_repl.py"))
DEMO = Theorem("demo", "", "theorem demo : 1 = 1", "lean")


@pytest.fixture(autouse=True)
def _stand_in_stays_on_the_recording(tmp_path: Path) -> Iterator[None]:
    with strict_recording(tmp_path / "stand_in_violations.log"):
        yield


@pytest.fixture()
def lean_dojo_without_dojo(monkeypatch: pytest.MonkeyPatch) -> None:
    """A `lean_dojo` module with only `LeanGitRepo`: building the env works, and any use of
    `Dojo` (a real LeanDojo run) would raise AttributeError. It answers nothing about Lean."""
    module = types.ModuleType("lean_dojo")
    module.LeanGitRepo = lambda url, commit: (url, commit)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lean_dojo", module)


def test_missing_lean_dojo_is_a_one_line_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "lean_dojo", None)  # import now fails as if not installed
    with pytest.raises(EnvError) as error:
        make_env("leandojo", repo_url="https://example.invalid/repo", commit="0" * 40, file_path="A.lean")
    assert str(error.value) == INSTALL_HINT
    assert "\n" not in str(error.value)


def test_importing_the_backend_module_does_not_import_lean_dojo() -> None:
    import importlib

    sys.modules.pop("lean_dojo", None)
    importlib.reload(importlib.import_module("lean_interface.leandojo_env"))
    assert "lean_dojo" not in sys.modules


def test_results_are_classified_by_lean_dojo_class_names() -> None:
    """Pure mapping on LeanDojo's documented result class names (not a fake prover)."""
    kinds = {name: classify_result(type(name, (), {})()) for name in
             ("ProofFinished", "LeanError", "ProofGivenUp", "TacticState")}
    assert kinds == {"ProofFinished": "finished", "LeanError": "error", "ProofGivenUp": "given_up",
                     "TacticState": "state"}


def test_unknown_backend_and_option_are_clear_errors() -> None:
    with pytest.raises(EnvError, match="unknown backend"):
        make_env("isabelle")
    with pytest.raises(EnvError, match="no option"):
        make_env("coq", bogus=1)


def test_verify_without_an_audit_refuses() -> None:
    verdict = verify_with_audit(DEMO, "rfl", None, None, 600.0)
    assert not verdict.ok and verdict.message == AUDIT_UNAVAILABLE and "\n" not in verdict.message


def test_leandojo_env_verify_without_an_audit_refuses(lean_dojo_without_dojo: None) -> None:
    env = LeanDojoEnv("https://example.invalid/repo", "0" * 40, "A.lean")
    verdict = env.verify(DEMO, "rfl")
    assert not verdict.ok and verdict.message.startswith("axiom audit unavailable")


def test_leandojo_verify_runs_the_tactic_guard(lean_dojo_without_dojo: None) -> None:
    env = LeanDojoEnv("https://example.invalid/repo", "0" * 40, "A.lean", audit_repl_path=sys.executable,
                      audit_repl_args=[STAND_IN, "proof_step"])  # any request to it would fail the test
    for script, reason in (("sorry", "forbidden word 'sorry'"), ('trace "ok"', "string literals"),
                           ("logInfo m", "forbidden word 'logInfo'"), ("native_decide", "native_decide")):
        verdict = env.verify(DEMO, script)
        assert not verdict.ok and verdict.message.startswith("refused: ") and reason in verdict.message


def test_leandojo_verify_delegates_to_the_repl_audit(lean_dojo_without_dojo: None) -> None:
    """With an audit REPL (here the recorded `self_proof_rw` session) the whole proof is checked
    freshly as one command: Lean's recorded error is the verdict."""
    env = make_env("leandojo", repo_url="https://example.invalid/repo", commit="0" * 40, file_path="A.lean",
                   audit_repl_path=sys.executable, audit_repl_args=[STAND_IN, "self_proof_rw"])
    verdict = env.verify(Theorem("self_application", "", "theorem self_application : 1 = 0", "lean"),
                         "rw [self_application]")
    assert not verdict.ok and verdict.message.startswith("Lean rejected the proof: fail to show termination")
    assert verdict.script.endswith("#print axioms self_application\n")


def test_an_audit_repl_that_cannot_start_is_a_refusal() -> None:
    verdict = verify_with_audit(DEMO, "rfl", ["/nonexistent/repl"], None, 600.0)
    assert not verdict.ok and verdict.message.startswith("axiom audit unavailable: Lean REPL not found")
