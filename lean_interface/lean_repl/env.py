"""`LeanReplEnv`: the ProofEnv over the Lean 4 REPL, with proofState-addressed goals.

Every REPL proofState stays usable, so a goal is (proofState, index, siblings): the state, the
goal's position in it, and how many other goals of that state do NOT belong to this node.
Index 0 is the main goal, which an ordinary tactic acts on: the tactic is sent as is (exactly the
requests the REPL's own tests make). A later goal is brought forward first — `rotate_left i` then
`focus` — so the tactic acts on it alone; either way the goals it produced are the first
`len(goals) − siblings` of the reply.

Rules from the recorded transcripts: a message of severity `error` is a failed tactic even when a
proofState comes back (`name_generator`); with no other goal left, only `proofStatus ==
"Completed"` closes a goal — an empty goal list alone does not (`invalid_tactic`,
`self_proof_rw`); goals sharing a metavariable `?m` stay one coupled node. REPL ids are never
freed, so the process is restarted every `restart_every` requests; goals from before a restart
are rebuilt by replaying their tactic path.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any, Sequence

from lean_interface.api import EnvError, Goal, ProofEnv, ProofStep, TacticResult, Theorem, Verdict
from lean_interface.lean_repl.guard import LeanTacticRefused, check_lean_tactic
from lean_interface.lean_repl.protocol import ReplDied, ReplProcess

ALLOWED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})
_METAVAR = re.compile(r"\?[\w.']+")
_AXIOMS = re.compile(r"depends on axioms: \[([^\]]*)\]")


@dataclass(frozen=True)
class LeanGoalRef:
    """Where a goal lives: proofState id, position, siblings not owned, and how to rebuild it."""

    theorem: Theorem
    proof_state: int
    index: int
    siblings: int
    path: tuple[str, ...]
    epoch: int


def canonical_goal(text: str) -> str:
    """Hypotheses then `⊢ target`, without the `case` tag line, whitespace normalised per line."""
    lines = [" ".join(line.split()) for line in text.strip().splitlines()]
    return "\n".join(line for line in lines if line and not line.startswith("case "))


def errors_of(reply: dict[str, Any]) -> list[str]:
    return [m.get("data", "") for m in reply.get("messages", []) if m.get("severity") == "error"]


def axioms_of(messages: Sequence[dict[str, Any]]) -> list[str] | None:
    """Axioms named by a `#print axioms` info message; [] for "does not depend on any axioms"."""
    for message in messages:
        data = message.get("data", "")
        if "does not depend on any axioms" in data:
            return []
        found = _AXIOMS.search(data)
        if found:
            return [a.strip() for a in found.group(1).split(",") if a.strip()]
    return None


def interpret_reply(reply: dict[str, Any], siblings: int) -> tuple[str | None, list[str]]:
    """(error or None, goals the tactic produced) for a tactic reply on a goal whose state holds
    `siblings` other goals. Empty produced list with no error = the goal is closed."""
    errors = errors_of(reply)
    if errors:
        return errors[0].splitlines()[0], []
    status = str(reply.get("proofStatus", ""))
    if status.startswith("Error") or "proofState" not in reply:
        return (status.splitlines()[0] if status else "no proof state"), []
    goals = reply.get("goals", [])
    if len(goals) < siblings:
        return "tactic closed goals it did not own", []
    produced = goals[: len(goals) - siblings]
    if not produced and siblings == 0 and status != "Completed":
        return f"not complete: {status}", []
    return None, produced


class LeanReplEnv(ProofEnv):
    """Lean 4 through leanprover-community/repl."""

    language = "lean"

    def __init__(self, repl_path: str, project_dir: str | None = None, timeout: float = 20.0,
                 restart_every: int = 2000, repl_args: Sequence[str] = ()) -> None:
        self.timeout = timeout
        self.restart_every = restart_every
        self._repl = ReplProcess(repl_path, repl_args, project_dir)
        self._epoch = 0
        self._header_envs: dict[str, int] = {}
        self._rebuilt: dict[tuple[Theorem, tuple[str, ...]], int] = {}

    # ---- process --------------------------------------------------------------------------
    def _send(self, request: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        if self._repl.requests >= self.restart_every:
            self._restart()
        try:
            return self._repl.send(request, timeout or self.timeout)
        except ReplDied:
            self._restart()
            raise

    def _restart(self) -> None:
        self._repl.start()
        self._epoch += 1
        self._header_envs.clear()
        self._rebuilt.clear()

    def _open(self, theorem: Theorem) -> tuple[int, str]:
        """(proofState, goal text) of `theorem := by sorry` in this process."""
        request: dict[str, Any] = {"cmd": f"{theorem.statement} := by sorry"}
        if theorem.header.strip():
            if theorem.header not in self._header_envs:
                reply = self._send({"cmd": theorem.header}, timeout=max(self.timeout, 600.0))
                if errors_of(reply):
                    raise EnvError(f"header of {theorem.name} fails: {errors_of(reply)[0].splitlines()[0]}")
                self._header_envs[theorem.header] = reply["env"]
            request["env"] = self._header_envs[theorem.header]
        reply = self._send(request)
        errors = errors_of(reply)
        sorries = reply.get("sorries", [])
        if errors or not sorries:
            reason = errors[0].splitlines()[0] if errors else "no proof state"
            raise EnvError(f"statement of {theorem.name} does not elaborate: {reason}")
        return sorries[0]["proofState"], sorries[0]["goal"]

    # ---- ProofEnv ---------------------------------------------------------------------------
    def start(self, theorem: Theorem) -> Goal:
        try:
            state, text = self._open(theorem)
        except ReplDied as error:
            raise EnvError(f"the Lean REPL died while opening {theorem.name}: {error}") from None
        return Goal(canonical_goal(text), LeanGoalRef(theorem, state, 0, 0, (), self._epoch))

    def _current_state(self, ref: LeanGoalRef) -> int:
        """The proofState of `ref` in the current process (replayed after a restart)."""
        if ref.epoch == self._epoch:
            return ref.proof_state
        key = (ref.theorem, ref.path)
        if key not in self._rebuilt:
            state, _ = self._open(ref.theorem)
            for index, sent in enumerate(ref.path):
                reply = self._send({"tactic": sent, "proofState": state})
                if errors_of(reply) or "proofState" not in reply:
                    raise ReplDied("replay after restart failed")
                state = reply["proofState"]
                self._rebuilt[(ref.theorem, ref.path[: index + 1])] = state
            self._rebuilt[key] = state
        return self._rebuilt[key]

    def apply(self, goal: Goal, tactic: str) -> TacticResult:
        ref = goal.ref
        if not isinstance(ref, LeanGoalRef):
            raise TypeError("LeanReplEnv.apply needs a goal returned by LeanReplEnv")
        try:
            text = check_lean_tactic(tactic)
        except LeanTacticRefused as error:
            return TacticResult(error=f"refused: {error}")
        sent = text if ref.index == 0 else f"rotate_left {ref.index}\nfocus\n  {text}"
        started = time.perf_counter()
        try:
            reply = self._send({"tactic": sent, "proofState": self._current_state(ref)})
        except ReplDied as error:
            return TacticResult(error=f"prover crashed: {error}", elapsed=time.perf_counter() - started)
        elapsed = time.perf_counter() - started
        error, produced = interpret_reply(reply, ref.siblings)
        if error is not None:
            return TacticResult(error=error, elapsed=elapsed)
        if not produced:
            return TacticResult(goals=(), elapsed=elapsed)
        goals = reply["goals"]
        state, path = reply["proofState"], (*ref.path, sent)
        others = len(goals) - len(produced)
        texts = [canonical_goal(g) for g in produced]
        if len(produced) == 1 or _coupled(produced):
            node = Goal("\n\n".join(texts), LeanGoalRef(ref.theorem, state, 0, others, path, self._epoch),
                        num_goals=len(produced))
            if node.text == goal.text and node.num_goals == goal.num_goals:
                return TacticResult(error="no progress", elapsed=elapsed)
            return TacticResult(goals=(node,), elapsed=elapsed)
        siblings = len(goals) - 1
        return TacticResult(goals=tuple(
            Goal(t, LeanGoalRef(ref.theorem, state, i, siblings, path, self._epoch)) for i, t in enumerate(texts)
        ), elapsed=elapsed)

    def render(self, theorem: Theorem, proof: ProofStep) -> str:
        return "\n".join(_render_lines(proof))

    def verify(self, theorem: Theorem, script: str) -> Verdict:
        for line in script.splitlines():
            body = line.strip().lstrip("·").strip()
            if body:
                try:
                    check_lean_tactic(body)
                except LeanTacticRefused as error:
                    return Verdict(False, f"refused: {error}")
        body = "\n".join("  " + line for line in script.splitlines())
        text = f"{theorem.header.rstrip()}\n\n{theorem.statement} := by\n{body}\n\n#print axioms {theorem.name}\n"
        fresh = ReplProcess(self._repl.argv[0], self._repl.argv[1:], self._repl.cwd)
        try:
            reply = fresh.send({"cmd": text}, timeout=max(self.timeout, 600.0))
        except ReplDied as error:
            return Verdict(False, f"the verifier REPL died: {error}", script=text)
        finally:
            fresh.close()
        messages = reply.get("messages", [])
        errors = errors_of(reply)
        if errors:
            return Verdict(False, f"Lean rejected the proof: {errors[0].splitlines()[0]}", script=text)
        if any("sorry" in m.get("data", "") for m in messages if m.get("severity") == "warning"):
            return Verdict(False, "the proof uses sorry", script=text)
        axioms = axioms_of(messages)
        if axioms is None:
            return Verdict(False, "no #print axioms report", script=text)
        foreign = sorted(set(axioms) - ALLOWED_AXIOMS)
        if foreign:
            return Verdict(False, f"non-standard axioms: {', '.join(foreign)}", tuple(axioms), text)
        return Verdict(True, "", tuple(axioms), text)

    def close(self) -> None:
        self._repl.close()


def _coupled(goals: Sequence[str]) -> bool:
    seen: set[str] = set()
    for text in goals:
        metavars = set(_METAVAR.findall(text))
        if seen & metavars:
            return True
        seen |= metavars
    return False


def _render_lines(step: ProofStep) -> list[str]:
    """Tactic; one child continues below it; several children each get a `·` block."""
    lines = step.tactic.strip().splitlines()
    if len(step.children) == 1:
        lines += _render_lines(step.children[0])
    else:
        for child in step.children:
            body = _render_lines(child)
            lines.append(f"· {body[0]}")
            lines.extend(f"  {line}" for line in body[1:])
    return lines
