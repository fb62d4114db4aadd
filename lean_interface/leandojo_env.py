"""`LeanDojoEnv`: the ProofEnv over LeanDojo (`pip install 'alphaprover[leandojo]'`).

LeanDojo (lean-dojo 4.20) addresses a theorem as `Theorem(LeanGitRepo(url, commit), file, name)`
and interacts through `with Dojo(theorem, timeout=…) as (dojo, initial_state)`;
`dojo.run_tac(state, tactic)` accepts any earlier `TacticState` and returns a `TacticState`
(`pp`, `id`, `num_goals`), `ProofFinished`, `LeanError` or `ProofGivenUp`. It needs a traced
repository (elan, network access to trace or download the trace), so it cannot run here: this
module imports LeanDojo lazily and says in one line how to install it when it is missing.
A LeanDojo state is the whole goal list, so a multi-goal state is one (coupled) node here.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from lean_interface.api import EnvError, Goal, ProofEnv, ProofStep, TacticResult, Theorem, Verdict
from lean_interface.lean_repl.env import canonical_goal
from lean_interface.lean_repl.guard import LeanTacticRefused, check_lean_tactic

INSTALL_HINT = "LeanDojo is not installed: pip install 'alphaprover[leandojo]'"


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

    def __init__(self, repo_url: str, commit: str, file_path: str, timeout: int = 600) -> None:
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
        from lean_interface.lean_repl.env import _render_lines

        return "\n".join(_render_lines(proof))

    def verify(self, theorem: Theorem, script: str) -> Verdict:
        """Replay the whole script as one tactic block in a FRESH Dojo of the theorem. LeanDojo has
        no command mode, so `#print axioms` cannot run here; tactic-level axioms are impossible and
        `sorry` is `ProofGivenUp`. For a full axiom audit, verify with the lean_repl backend."""
        for line in script.splitlines():
            body = line.strip().lstrip("·").strip()
            try:
                if body:
                    check_lean_tactic(body)
            except LeanTacticRefused as error:
                return Verdict(False, f"refused: {error}", script=script)
        module = self._dojo_module
        target = module.Theorem(self._repo, self._file_path, theorem.name)
        try:
            with module.Dojo(target, timeout=self._timeout) as (dojo, initial):
                result = dojo.run_tac(initial, script)
        except Exception as error:
            return Verdict(False, f"LeanDojo replay failed: {error}", script=script)
        if classify_result(result) != "finished":
            return Verdict(False, f"LeanDojo replay did not finish the proof ({type(result).__name__})", script=script)
        return Verdict(True, "", (), script)

    def close(self) -> None:
        if self._context is not None:
            self._context.__exit__(None, None, None)
            self._context, self._dojo = None, None
