"""The one environment API every proof-assistant backend implements.

A search never talks to Coq or Lean directly: it holds `Goal`s, asks a `ProofEnv` to apply a
tactic string to any goal it has ever seen (in any order), and receives a `TacticResult`.

Contract every backend keeps (docs/ARCHITECTURE.md §Parts, §Soundness):

* **Any earlier goal stays usable.** `apply` accepts every `Goal` the env has returned since
  `start`, in any order, any number of times.
* **Independent subgoals only.** The goals in a `TacticResult` are independent of each other
  (no shared existential/meta variables, nothing shelved), so a search may prove each one alone
  (an AND node). When a tactic leaves goals that are coupled, the backend returns them together
  as ONE `Goal` (`num_goals > 1`) and tactics applied to it act on the coupled state as a whole.
* **Done means the kernel says so.** `TacticResult.goals == ()` with no error means this goal is
  closed. A whole proof is reported only after `verify` re-checks the assembled script from
  scratch, with an axiom audit.
* **Failures are values.** A tactic that errors, times out, makes no progress, is refused by the
  soundness guard, or crashes the prover process yields `TacticResult(error=...)`; the env
  restarts whatever died and remains usable.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Hashable, Sequence


class EnvError(Exception):
    """A problem the caller must hear about: the theorem does not elaborate, a binary is missing.

    Its message is one line fit to print to a user (the CLI turns it into exit code 2).
    """


@dataclass(frozen=True)
class Theorem:
    """What to prove.

    Fields:
      name:      the declaration's name (``add_comm_demo``); used in the assembled proof file.
      header:    everything the statement needs before it: imports, options, definitions.
      statement: the full declaration without proof. Coq: ``Theorem name : forall n, n + 0 = n.``
                 Lean: ``theorem name (n : Nat) : n + 0 = n`` (no ``:= by``).
      language:  ``"coq"`` or ``"lean"``: which family of backends can run it.
    """

    name: str
    header: str
    statement: str
    language: str = "coq"


@dataclass(frozen=True)
class Goal:
    """One proof obligation = one OR node of the search.

    Equality and hashing use `text` only, so identical goals reached by different routes merge
    (transpositions). `ref` is the backend's private address for reaching this goal again
    (Coq: the sentence path from the theorem's start; Lean REPL: proofState id + goal index).

    Fields:
      text:      canonical text, the same shape for every backend: one hypothesis per line
                 (``n, m : nat``), then ``⊢ <target>`` on the last line; coupled goals are
                 joined by a blank line. This is the network's input and the merge key.
      ref:       backend-private address; never inspected by the search.
      num_goals: how many prover goals this node holds (> 1 only for coupled goals).
    """

    text: str
    ref: Hashable = field(compare=False, hash=False)
    num_goals: int = field(default=1, compare=False, hash=False)


@dataclass(frozen=True)
class TacticResult:
    """The outcome of applying one tactic to one goal.

    Fields:
      error:   None on success, else a one-line reason (prover error, ``timeout``, ``no progress``,
               ``refused: ...`` by the soundness guard, ``prover crashed``).
      goals:   the goals left; independent of each other; ``()`` = the goal is closed.
      elapsed: wall seconds the prover spent (for statistics).
    """

    error: str | None = None
    goals: tuple[Goal, ...] = ()
    elapsed: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def closed(self) -> bool:
        return self.error is None and not self.goals


@dataclass(frozen=True)
class ProofStep:
    """A proof as a tree: the tactic applied to a goal, then one sub-proof per resulting goal,
    in the order `TacticResult.goals` listed them. Built by the search, rendered by the backend.
    """

    tactic: str
    children: tuple["ProofStep", ...] = ()

    def size(self) -> int:
        return 1 + sum(c.size() for c in self.children)


@dataclass(frozen=True)
class Verdict:
    """An independent from-scratch check of a whole proof script.

    Fields:
      ok:      True only if the kernel accepted the script and the axiom audit passed.
      message: why not (compiler error, forbidden axiom, refused tactic), or "" when ok.
      axioms:  the axioms the proof depends on, as the prover printed them.
      script:  the complete file/command that was checked (to print or save).
    """

    ok: bool
    message: str = ""
    axioms: tuple[str, ...] = ()
    script: str = ""


#: Words that never appear in a tactic we run: they close goals without proof, leave the proof
#: mode, or add trust. Each backend's guard refuses them (as whole words) before any prover sees them.
FORBIDDEN_WORDS: tuple[str, ...] = (
    "admit",
    "Admitted",
    "give_up",
    "sorry",
    "Abort",
    "Axiom",
    "Axioms",
    "Parameter",
    "Parameters",
    "Conjecture",
    "Hypothesis",
    "Variable",
    "native_decide",
    "native_compute",
    "vm_compute",  # not unsound, but kept out so every proof is kernel-checked the same way
)


class ProofEnv(abc.ABC):
    """A tactic-level session with a proof assistant (one process, or a small pool).

    Use as a context manager; `close()` ends the prover processes.
    """

    language: str = "coq"

    @abc.abstractmethod
    def start(self, theorem: Theorem) -> Goal:
        """Begin a proof of `theorem`; return its root goal.

        Raises `EnvError` (one-line message) when the statement does not elaborate.
        """

    @abc.abstractmethod
    def apply(self, goal: Goal, tactic: str) -> TacticResult:
        """Apply `tactic` to `goal` (any goal returned since `start`). Never raises for a bad
        tactic, a timeout or a crashed prover: those are `TacticResult(error=...)`."""

    def canonical_tactic(self, tactic: str) -> str | None:
        """`tactic` in this backend's canonical form (`lean_interface.tactic_form`: what the training
        data holds, the network scores and the search records), or None if it is no tactic this
        backend would run. A backend of a proof language returns that language's form; this
        default, for backends with none (test tables), only collapses whitespace."""
        return " ".join(tactic.split()) or None

    def apply_many(self, requests: Sequence[tuple[Goal, str]]) -> list[TacticResult]:
        """Apply several (goal, tactic) pairs; backends with a process pool run them in parallel."""
        return [self.apply(goal, tactic) for goal, tactic in requests]

    @abc.abstractmethod
    def render(self, theorem: Theorem, proof: ProofStep) -> str:
        """The proof tree as one tactic script for this backend (without the statement)."""

    @abc.abstractmethod
    def verify(self, theorem: Theorem, script: str) -> Verdict:
        """Check `theorem` proved by `script` from scratch, in a fresh prover, with an axiom audit."""

    def close(self) -> None:
        """Release prover processes. Idempotent."""

    def __enter__(self) -> "ProofEnv":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
