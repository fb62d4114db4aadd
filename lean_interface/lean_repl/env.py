"""`LeanReplEnv`: the ProofEnv over the Lean 4 REPL, with proofState-addressed goals.

Every REPL proofState stays usable, so a goal is (proofState, index, width, the state's goal list):
the node owns `width` goals starting at `index`; the other goals of that state are its siblings.

A tactic for a node that is the whole state is sent as is. A tactic for one node among several is
always sent as ONE `focus` tactic (the REPL parses exactly one tactic per request, see repl issue
#43), also for index 0: otherwise `case neg => …`, `all_goals`, `swap`, `pick_goal` or
`rotate_left` could act on a sibling while we report this node closed. A later goal is first
brought forward by a separate `rotate_left i` request, whose reply must list exactly the expected
rotated goals. After the reply the siblings must come back untouched, as the last goals of the
new state with exactly their old text; a reply that closes or changes a sibling is a failed tactic.

Rules from the recorded transcripts: a message of severity `error` is a failed tactic even when a
proofState comes back (`name_generator`); a reply with a top-level `message` is a REPL error
(`unknown_tactic`); with no other goal left, only `proofStatus == "Completed"` closes a goal — an
empty goal list alone does not (`invalid_tactic`, `self_proof_rw`); goals sharing a metavariable
`?m` stay one coupled node. REPL ids are never freed, so the process is restarted every
`restart_every` requests; goals from before a restart are rebuilt by replaying their tactic path.

`verify` (`check_proof`) runs in a FRESH REPL: the header as its own command, the proof as one
command in its environment, then `#print axioms NAME` alone in the proof's environment, so the
axiom report is the only message at that command's position (see `guard.audit_verdict`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lean_interface.api import EnvError, Goal, ProofEnv, ProofStep, TacticResult, Theorem, Verdict
from lean_interface.lean_repl.guard import (LeanTacticRefused, audit_verdict, canonical_lean_tactic, check_lean_tactic,
                                            declares, script_refusal)
from lean_interface.lean_repl.protocol import ReplDied, ReplProcess

_METAVAR = re.compile(r"\?[\w.']+")


@dataclass(frozen=True)
class LeanGoalRef:
    """Where a goal lives: the proofState, the goals this node owns (`width` from `index`), the
    state's whole goal list as the REPL printed it, and the tactic path that rebuilds the state."""

    theorem: Theorem
    proof_state: int
    index: int
    width: int
    state_goals: tuple[str, ...]
    path: tuple[str, ...]
    epoch: int

    @property
    def rotated(self) -> tuple[str, ...]:
        """The state's goals after `rotate_left index`: this node's goals come first."""
        return self.state_goals[self.index:] + self.state_goals[: self.index]

    @property
    def others(self) -> tuple[str, ...]:
        """The sibling goals, in the order they must follow the tactic's own goals in the reply."""
        return self.rotated[self.width:]


def canonical_goal(text: str) -> str:
    """Hypotheses then `⊢ target`, without the `case` tag line, whitespace normalised per line."""
    lines = [" ".join(line.split()) for line in text.strip().splitlines()]
    return "\n".join(line for line in lines if line and not line.startswith("case "))


def errors_of(reply: dict[str, Any]) -> list[str]:
    return [m.get("data", "") for m in reply.get("messages", []) if m.get("severity") == "error"]


def _first_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.strip()), text.strip()) or "error"


def _indented(lines: Sequence[str]) -> str:
    """`lines` as an indented Lean block (blank lines kept empty)."""
    return "\n".join(f"  {line}" if line.strip() else "" for line in lines)


def focused(text: str) -> str:
    """`text` as the block of one `focus` tactic: it sees the main goal only."""
    return "focus\n" + _indented(text.splitlines())


def tactic_plan(ref: LeanGoalRef, text: str) -> tuple[str | None, str]:
    """(the `rotate_left` tactic to send first, or None; the tactic to send) for `text` on `ref`."""
    if not ref.others:
        return None, text
    return (f"rotate_left {ref.index}" if ref.index else None), focused(text)


def rotation_ok(reply: dict[str, Any], ref: LeanGoalRef) -> bool:
    """True if a `rotate_left index` reply lists exactly `ref.rotated` (nothing closed or changed)."""
    goals = tuple(str(g) for g in reply.get("goals", ()))
    return not errors_of(reply) and "message" not in reply and "proofState" in reply and goals == ref.rotated


def interpret_reply(reply: dict[str, Any], others: Sequence[str]) -> tuple[str | None, list[str]]:
    """(error or None, goals the tactic produced) for a tactic reply on a node whose siblings are
    `others` (in reply order). An empty produced list with no error means the node is closed."""
    errors = errors_of(reply)
    if errors:
        return _first_line(errors[0]), []
    if "message" in reply:
        return " ".join(str(reply["message"]).split()), []
    status = str(reply.get("proofStatus", ""))
    if status.startswith("Error") or "proofState" not in reply:
        return (_first_line(status) if status else "no proof state"), []
    if reply.get("sorries"):
        return "the tactic left a sorry", []
    goals = [str(g) for g in reply.get("goals", [])]
    kept = len(goals) - len(others)
    if kept < 0 or goals[kept:] != list(others):
        return "the tactic closed or changed a goal it does not own", []
    produced = goals[:kept]
    if not produced and not others and status != "Completed":
        return f"not complete: {status}", []
    return None, produced


def proof_command(statement: str, script: str) -> str:
    """`statement := by script`: one line for a one-line script, else an indented block."""
    lines = script.strip("\n").splitlines()
    if len(lines) == 1:
        return f"{statement} := by {lines[0].strip()}"
    return f"{statement} := by\n" + _indented(lines)


def _command_problem(reply: dict[str, Any]) -> str | None:
    """Why a command reply is not a clean success, or None."""
    errors = errors_of(reply)
    if errors:
        return _first_line(errors[0])
    if "message" in reply:
        return " ".join(str(reply["message"]).split())
    return None if "env" in reply else "no environment in the reply"


def _uses_sorry(reply: dict[str, Any]) -> bool:
    texts = [m.get("data", "") for m in reply.get("messages", [])]
    return bool(reply.get("sorries")) or any("declaration uses" in t and "sorry" in t for t in texts)


def check_proof(theorem: Theorem, script: str, argv: Sequence[str], cwd: str | None, timeout: float) -> Verdict:
    """Check `theorem` proved by `script` from scratch in a fresh REPL (`argv`, in `cwd`), with the
    tactic guard and an axiom audit. Anything short of a clean audit is a refusal."""
    refusal = script_refusal(script)
    if refusal:
        return Verdict(False, f"refused: {refusal}", script=script)
    if not declares(theorem.statement, theorem.name):
        return Verdict(False, f"the statement does not declare {theorem.name!r}: nothing to audit", script=script)
    proof = proof_command(theorem.statement, script)
    text = f"{theorem.header.rstrip()}\n\n{proof}\n\n#print axioms {theorem.name}\n".lstrip("\n")
    try:
        fresh = ReplProcess(argv[0], argv[1:], cwd)
    except EnvError as error:
        return Verdict(False, f"axiom audit unavailable: {error}", script=text)
    try:
        env: int | None = None
        if theorem.header.strip():
            reply = fresh.send({"cmd": theorem.header}, timeout)
            problem = _command_problem(reply)
            if problem:
                return Verdict(False, f"the header fails: {problem}", script=text)
            env = reply["env"]
        reply = fresh.send({"cmd": proof} if env is None else {"cmd": proof, "env": env}, timeout)
        problem = _command_problem(reply)
        if problem:
            return Verdict(False, f"Lean rejected the proof: {problem}", script=text)
        if _uses_sorry(reply):
            return Verdict(False, "the proof uses sorry", script=text)
        audit = fresh.send({"cmd": f"#print axioms {theorem.name}", "env": reply["env"]}, timeout)
        return audit_verdict(audit, theorem.name, text)
    except ReplDied as error:
        return Verdict(False, f"the verifier REPL died: {error}", script=text)
    finally:
        fresh.close()


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
        self._rotations: dict[tuple[int, int], int] = {}

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
        self._rotations.clear()

    def _open(self, theorem: Theorem) -> tuple[int, str]:
        """(proofState, goal text) of `theorem := by sorry` in this process."""
        request: dict[str, Any] = {"cmd": f"{theorem.statement} := by sorry"}
        if theorem.header.strip():
            if theorem.header not in self._header_envs:
                reply = self._send({"cmd": theorem.header}, timeout=max(self.timeout, 600.0))
                problem = _command_problem(reply)
                if problem:
                    raise EnvError(f"header of {theorem.name} fails: {problem}")
                self._header_envs[theorem.header] = reply["env"]
            request["env"] = self._header_envs[theorem.header]
        reply = self._send(request)
        errors = errors_of(reply)
        sorries = reply.get("sorries", [])
        if errors or not sorries:
            reason = _first_line(errors[0]) if errors else "no proof state"
            raise EnvError(f"statement of {theorem.name} does not elaborate: {reason}")
        return sorries[0]["proofState"], sorries[0]["goal"]

    # ---- ProofEnv ---------------------------------------------------------------------------
    def start(self, theorem: Theorem) -> Goal:
        try:
            state, text = self._open(theorem)
        except ReplDied as error:
            raise EnvError(f"the Lean REPL died while opening {theorem.name}: {error}") from None
        return Goal(canonical_goal(text), LeanGoalRef(theorem, state, 0, 1, (text,), (), self._epoch))

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

    def _rotate(self, state: int, ref: LeanGoalRef, tactic: str) -> int | None:
        """The proofState with `ref`'s goals first, or None if `rotate_left` did not give exactly that."""
        key = (state, ref.index)
        if key not in self._rotations:
            reply = self._send({"tactic": tactic, "proofState": state})
            if not rotation_ok(reply, ref):
                return None
            self._rotations[key] = reply["proofState"]
        return self._rotations[key]

    def canonical_tactic(self, tactic: str) -> str | None:
        return canonical_lean_tactic(tactic)

    def apply(self, goal: Goal, tactic: str) -> TacticResult:
        ref = goal.ref
        if not isinstance(ref, LeanGoalRef):
            raise TypeError("LeanReplEnv.apply needs a goal returned by LeanReplEnv")
        try:
            text = check_lean_tactic(tactic)
        except LeanTacticRefused as error:
            return TacticResult(error=f"refused: {error}")
        rotate, sent = tactic_plan(ref, text)
        started = time.perf_counter()
        path = ref.path
        try:
            state = self._current_state(ref)
            if rotate is not None:
                rotated = self._rotate(state, ref, rotate)
                if rotated is None:
                    return TacticResult(error="rotate_left did not bring the goal forward",
                                        elapsed=time.perf_counter() - started)
                state, path = rotated, (*path, rotate)
            reply = self._send({"tactic": sent, "proofState": state})
        except ReplDied as error:
            return TacticResult(error=f"prover crashed: {error}", elapsed=time.perf_counter() - started)
        elapsed = time.perf_counter() - started
        error, produced = interpret_reply(reply, ref.others)
        if error is not None:
            return TacticResult(error=error, elapsed=elapsed)
        if not produced:
            return TacticResult(goals=(), elapsed=elapsed)
        goals = tuple(str(g) for g in reply["goals"])
        state, path = reply["proofState"], (*path, sent)
        texts = [canonical_goal(g) for g in produced]
        if len(produced) == 1 or _coupled(produced):
            node = Goal("\n\n".join(texts), LeanGoalRef(ref.theorem, state, 0, len(produced), goals, path, self._epoch),
                        num_goals=len(produced))
            if node.text == goal.text and node.num_goals == goal.num_goals:
                return TacticResult(error="no progress", elapsed=elapsed)
            return TacticResult(goals=(node,), elapsed=elapsed)
        return TacticResult(goals=tuple(
            Goal(t, LeanGoalRef(ref.theorem, state, i, 1, goals, path, self._epoch)) for i, t in enumerate(texts)
        ), elapsed=elapsed)

    def render(self, theorem: Theorem, proof: ProofStep) -> str:
        return "\n".join(_render_lines(proof))

    def verify(self, theorem: Theorem, script: str) -> Verdict:
        """A from-scratch check in a fresh REPL with the same command line (see `check_proof`)."""
        return check_proof(theorem, script, self._repl.argv, self._repl.cwd, max(self.timeout, 600.0))

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
