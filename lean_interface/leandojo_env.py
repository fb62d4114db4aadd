"""`LeanDojoEnv`: the ProofEnv over LeanDojo (`pip install 'alphaprover[leandojo]'`).

LeanDojo (lean-dojo 4.20) addresses a theorem as `Theorem(LeanGitRepo(url, commit), file, name)`
and interacts through `with Dojo(theorem, timeout=…) as (dojo, initial_state)`;
`dojo.run_tac(state, tactic)` accepts any earlier `TacticState` and returns a `TacticState`
(`pp`, `id`, `num_goals`), `ProofFinished`, `LeanError` or `ProofGivenUp`. It needs a traced
repository (elan, network access to trace or download the trace), so it cannot run here: this
module imports LeanDojo lazily and says in one line how to install it when it is missing.
A LeanDojo state is the whole goal list, so a multi-goal state is one (coupled) node here.

LeanDojo has no command mode, so it cannot run `#print axioms`: `verify` delegates the whole
from-scratch check (guard, fresh command, axiom audit) to a Lean REPL given by `audit_repl_path`
(`lean_interface.lean_repl.check_proof`). Without one, `verify` REFUSES: a proof is never reported
without its axiom audit.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lean_interface.api import EnvError, Goal, ProofEnv, ProofStep, TacticResult, Theorem, Verdict
from lean_interface.lean_repl.env import _render_lines, canonical_goal, check_proof
from lean_interface.lean_repl.guard import LeanTacticRefused, canonical_lean_tactic, check_lean_tactic, script_refusal

INSTALL_HINT = "LeanDojo is not installed: pip install 'alphaprover[leandojo]'"
AUDIT_UNAVAILABLE = ("axiom audit unavailable: LeanDojo cannot run #print axioms; "
                     "set audit_repl_path to a Lean REPL for this project")


def import_lean_dojo() -> Any:
    try:
        return importlib.import_module("lean_dojo")
    except ImportError:
        raise EnvError(INSTALL_HINT) from None


@dataclass(frozen=True)
class DojoGoalRef:
    state: Any  # a lean_dojo TacticState


def classify_result(result: Any) -> str:
    """'finished' | 'error' | 'given_up' | 'state', by LeanDojo's result class name."""
    name = type(result).__name__
    return {"ProofFinished": "finished", "LeanError": "error", "ProofGivenUp": "given_up"}.get(name, "state")


class LeanDojoEnv(ProofEnv):
    """One theorem of a traced repository, through `lean_dojo.Dojo`."""

    language = "lean"

    def __init__(self, repo_url: str, commit: str, file_path: str, timeout: int = 600,
                 audit_repl_path: str | None = None, audit_project_dir: str | None = None,
                 audit_repl_args: Sequence[str] = ()) -> None:
        self._audit_argv = (audit_repl_path, *audit_repl_args) if audit_repl_path else None
        self._audit_cwd = audit_project_dir
        self._dojo_module = import_lean_dojo()
        self._repo = self._dojo_module.LeanGitRepo(repo_url, commit)
        self._file_path = file_path
        self._timeout = timeout
        self._context: Any = None
        self._dojo: Any = None

    def start(self, theorem: Theorem) -> Goal:
        module = self._dojo_module
        self.close()
        target = module.Theorem(self._repo, self._file_path, theorem.name)
        try:
            self._context = module.Dojo(target, timeout=self._timeout)
            self._dojo, initial = self._context.__enter__()
        except Exception as error:  # DojoInitError and friends: the theorem cannot be opened
            raise EnvError(f"LeanDojo cannot open {theorem.name}: {error}") from None
        return Goal(canonical_goal(initial.pp), DojoGoalRef(initial), num_goals=max(1, initial.num_goals))

    def canonical_tactic(self, tactic: str) -> str | None:
        return canonical_lean_tactic(tactic)

    def apply(self, goal: Goal, tactic: str) -> TacticResult:
        if not isinstance(goal.ref, DojoGoalRef) or self._dojo is None:
            raise TypeError("LeanDojoEnv.apply needs a goal returned by this env")
        try:
            text = check_lean_tactic(tactic)
        except LeanTacticRefused as error:
            return TacticResult(error=f"refused: {error}")
        try:
            result = self._dojo.run_tac(goal.ref.state, text)
        except Exception as error:  # DojoTacticTimeoutError, DojoCrashError
            return TacticResult(error=f"{type(error).__name__}: {error}")
        kind = classify_result(result)
        if kind == "finished":
            return TacticResult(goals=())
        if kind == "error":
            return TacticResult(error=str(getattr(result, "error", result)).splitlines()[0])
        if kind == "given_up":
            return TacticResult(error="proof given up")
        node = Goal(canonical_goal(result.pp), DojoGoalRef(result), num_goals=max(1, result.num_goals))
        if node.text == goal.text:
            return TacticResult(error="no progress")
        return TacticResult(goals=(node,))

    def render(self, theorem: Theorem, proof: ProofStep) -> str:
        return "\n".join(_render_lines(proof))

    def verify(self, theorem: Theorem, script: str) -> Verdict:
        """The tactic guard on the script, then the Lean REPL's from-scratch check with its
        `#print axioms` audit; refused when no REPL is configured for the audit."""
        return verify_with_audit(theorem, script, self._audit_argv, self._audit_cwd, float(self._timeout))

    def close(self) -> None:
        if self._context is not None:
            self._context.__exit__(None, None, None)
            self._context, self._dojo = None, None


def verify_with_audit(theorem: Theorem, script: str, audit_argv: Sequence[str] | None, cwd: str | None,
                      timeout: float) -> Verdict:
    """The LeanDojo backend's verify: guard first, then `check_proof` in a fresh REPL started as
    `audit_argv` (binary, args...) in `cwd`; without `audit_argv` the audit is impossible: refuse."""
    refusal = script_refusal(script)
    if refusal:
        return Verdict(False, f"refused: {refusal}", script=script)
    if not audit_argv:
        return Verdict(False, AUDIT_UNAVAILABLE, script=script)
    return check_proof(theorem, script, audit_argv, cwd, timeout)
