"""The LeanDojo adapter imports lazily and says how to install it (LeanDojo cannot run here:
it needs elan and a traced repository fetched over the network)."""

from __future__ import annotations

import sys

import pytest

from lean_interface import make_env
from lean_interface.api import EnvError
from lean_interface.leandojo_env import INSTALL_HINT, classify_result


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
