"""`alphaprover play`: an interactive, scriptable terminal session on one theorem.

Each input line is a tactic applied to the first open goal, or a command:
  goals   show every open goal          undo   take back the last tactic
  qed     assemble the proof and verify it from scratch (kernel + axiom audit)
  help    list commands                 quit   leave (also end of input)

The session keeps the proof as a tree (goal → tactic → sub-goals) exactly as the search does, so
`qed` renders it with the backend's own `render` and checks it with `verify`: what `play` accepts
is what `solve` would accept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, TextIO

from lean_interface.api import Goal, ProofEnv, ProofStep, Theorem, Verdict

HELP = "commands: goals | undo | qed | help | quit; anything else is a tactic for the first goal"


@dataclass
class _GoalSlot:
    """One goal of the session and, once a tactic was applied to it, its children's slot ids."""

    goal: Goal
    tactic: str | None = None
    children: list[int] = field(default_factory=list)


@dataclass
class PlaySession:
    """A proof in progress: the goal tree, the open goals (first = focused) and an undo history."""

    env: ProofEnv
    theorem: Theorem
    write: Callable[[str], None]
    slots: list[_GoalSlot] = field(default_factory=list)
    open_goals: list[int] = field(default_factory=list)
    history: list[tuple[int, list[int]]] = field(default_factory=list)
    verdict: Verdict | None = None

    def begin(self) -> None:
        root = self.env.start(self.theorem)
        self.slots = [_GoalSlot(root)]
        self.open_goals = [0]
        self.show_goals()

    # ---- commands -------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Process one input line; return False when the session should end."""
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        command = line.rstrip(".").strip().lower()
        if command in ("quit", "exit"):
            return False
        if command == "help":
            self.write(HELP)
        elif command == "goals":
            self.show_goals()
        elif command == "undo":
            self.undo()
        elif command == "qed":
            self.qed()
        else:
            self.apply(line)
        return True

    def apply(self, tactic: str) -> None:
        if not self.open_goals:
            self.write("no open goals: type qed to verify the proof")
            return
        slot_id = self.open_goals[0]
        result = self.env.apply(self.slots[slot_id].goal, tactic)
        if not result.ok:
            self.write(f"error: {result.error}")
            return
        self.history.append((slot_id, list(self.open_goals)))
        slot = self.slots[slot_id]
        slot.tactic = tactic
        slot.children = []
        for goal in result.goals:
            self.slots.append(_GoalSlot(goal))
            slot.children.append(len(self.slots) - 1)
        self.open_goals = slot.children + self.open_goals[1:]
        self.show_goals()

    def undo(self) -> None:
        if not self.history:
            self.write("nothing to undo")
            return
        slot_id, previous_open = self.history.pop()
        self.slots[slot_id].tactic = None
        self.slots[slot_id].children = []
        self.open_goals = previous_open
        self.show_goals()

    def qed(self) -> None:
        if self.open_goals:
            self.write(f"not finished: {len(self.open_goals)} goal(s) open")
            return
        proof = self._proof_tree(0)
        script = self.env.render(self.theorem, proof)
        self.verdict = self.env.verify(self.theorem, script)
        if self.verdict.ok:
            axioms = ", ".join(self.verdict.axioms) if self.verdict.axioms else "none"
            self.write(f"verified: {self.theorem.name} (axioms: {axioms})")
            self.write(self.verdict.script)
        else:
            self.write(f"verification FAILED: {self.verdict.message}")

    def show_goals(self) -> None:
        if not self.open_goals:
            self.write("no goals left: type qed to verify")
            return
        self.write(f"{len(self.open_goals)} goal(s)")
        for index, slot_id in enumerate(self.open_goals, start=1):
            self.write(f"--- goal {index} ---")
            self.write(self.slots[slot_id].goal.text)

    def _proof_tree(self, slot_id: int) -> ProofStep:
        slot = self.slots[slot_id]
        assert slot.tactic is not None, "qed called with an open goal"
        return ProofStep(slot.tactic, tuple(self._proof_tree(c) for c in slot.children))


def run_play(env: ProofEnv, theorem: Theorem, lines: TextIO, write: Callable[[str], None],
             prompt: bool) -> PlaySession:
    """Run a session reading one command per line from `lines` until quit or end of input."""
    session = PlaySession(env, theorem, write)
    session.begin()
    while True:
        if prompt:
            print("> ", end="", flush=True)
        line = lines.readline()
        if not line or not session.handle(line):
            break
    return session
