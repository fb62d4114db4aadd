"""`CoqEnv`: the ProofEnv over coqtop, with path-addressed goals.

coqtop keeps one linear history, but a tree search visits goals in any order. So a goal is
addressed by its *path*: the sentences after `Proof.` that reach a state whose focused goals are
exactly this goal. Each worker remembers the path it is at (sentence → state id); reaching another
goal is `BackTo` the longest shared prefix plus a replay of the rest (a few ms).

A tactic that leaves several goals yields one Goal per goal when they share no existential
variable and nothing is shelved; goal i's path then ends with the focus sentence `i: {`. Coupled
goals stay one Goal (tactics act on its first goal, Coq's default). A tactic that changes nothing
is a failure ("no progress"). Errors, timeouts and crashes are `TacticResult(error=...)`: a dead
coqtop is restarted and the next request replays its path.
"""

from __future__ import annotations

import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Sequence

from lean_interface.api import EnvError, Goal, ProofEnv, ProofStep, TacticResult, Theorem, Verdict
from lean_interface.coq.goals import ParsedGoal, parse_goals, parse_show
from lean_interface.coq.guard import TacticRefused, canonical_tactic, normalise_tactic
from lean_interface.coq.prelude import DEFAULT_PRELUDE, with_prelude
from lean_interface.coq.process import CoqDied, CoqProcess
from lean_interface.coq.text import SentenceError, is_focus_sentence, split_sentences
from lean_interface.coq.verify import verify_proof


@dataclass(frozen=True)
class CoqGoalRef:
    """Where a goal lives: the theorem, and the sentences after `Proof.` that reach it."""

    theorem: Theorem
    path: tuple[str, ...]


class _ReplayFailed(Exception):
    """A path that once worked failed on replay (e.g. a timeout under load)."""


class _Worker:
    """One coqtop process and the path it currently stands on."""

    def __init__(self, process: CoqProcess, timeout: float, prelude: str) -> None:
        self.process = process
        self.timeout = timeout
        self.prelude = prelude
        self.theorem: Theorem | None = None
        self.header: str | None = None
        self.header_state = 0
        self.base_state = 0
        self.trail: list[tuple[str, int]] = []

    def reset(self) -> None:
        self.process.restart()
        self.theorem, self.header, self.trail = None, None, []

    def run_sentence(self, sentence: str):
        """Run one path sentence (tactics under Coq's `Timeout`, focus sentences as they are)."""
        if is_focus_sentence(sentence):
            return self.process.run(sentence, timeout=30.0)
        limit = max(1, int(round(self.timeout)))
        return self.process.run(f"Timeout {limit} {sentence}", timeout=self.timeout + 2.0)

    def load(self, theorem: Theorem) -> str:
        """Open `theorem` (prelude, header, statement, `Proof.`); return the root goal's text."""
        process = self.process
        if self.header != theorem.header:
            process.back_to(process.initial_state)
            self.header = None
            try:
                sentences = split_sentences(with_prelude(self.prelude, theorem.header))
            except SentenceError as error:
                raise EnvError(f"header of {theorem.name}: {error}") from None
            for sentence in sentences:
                reply = process.run(sentence.text, timeout=120.0)
                if reply.error:
                    raise EnvError(f"header of {theorem.name} fails: {reply.error}")
            self.header, self.header_state = theorem.header, process.state
        process.back_to(self.header_state)
        self.theorem, self.trail = None, []
        reply = process.run(theorem.statement, timeout=60.0)
        if reply.error:
            process.back_to(self.header_state)
            raise EnvError(f"statement of {theorem.name} does not elaborate: {reply.error}")
        if reply.proof == "Coq":
            raise EnvError(f"{theorem.name}: the statement did not open a proof")
        process.run("Proof.", timeout=30.0)
        self.theorem, self.base_state = theorem, process.state
        view = parse_goals(process.run("Show.", timeout=30.0).output)
        assert view.first is not None
        return view.first.text

    def goto(self, ref: CoqGoalRef) -> None:
        """Stand on the state at the end of `ref.path` (BackTo shared prefix, replay the rest)."""
        if self.theorem != ref.theorem:
            self.load(ref.theorem)
        shared = 0
        for (sentence, _), wanted in zip(self.trail, ref.path):
            if sentence != wanted:
                break
            shared += 1
        del self.trail[shared:]
        self.process.back_to(self.trail[-1][1] if self.trail else self.base_state)
        for sentence in ref.path[shared:]:
            reply = self.run_sentence(sentence)
            if reply.error:
                self.process.back_to(self.trail[-1][1] if self.trail else self.base_state)
                raise _ReplayFailed(reply.error)
            self.trail.append((sentence, self.process.state))


class CoqEnv(ProofEnv):
    """Coq through a small pool of coqtop processes (one per parallel worker)."""

    language = "coq"

    def __init__(self, timeout: float = 5.0, memory_mb: int = 4096, pool_size: int = 1,
                 coqtop: str = "coqtop", coqc: str = "coqc", extra_args: Sequence[str] = (),
                 verify_timeout: float = 120.0, prelude: str | None = None, coqchk: str = "coqchk") -> None:
        if pool_size < 1:
            raise EnvError("pool_size must be at least 1")
        if timeout <= 0:
            raise EnvError("timeout must be positive")
        self.timeout = timeout
        self.coqc = coqc
        self.coqchk = coqchk
        self.prelude = DEFAULT_PRELUDE if prelude is None else prelude
        self.extra_args = tuple(extra_args)
        self.verify_timeout = verify_timeout
        self._workers = [_Worker(CoqProcess(coqtop, extra_args, memory_mb), timeout, self.prelude)
                         for _ in range(pool_size)]
        self._idle: queue.Queue[_Worker] = queue.Queue()
        for worker in self._workers:
            self._idle.put(worker)
        self._executor = ThreadPoolExecutor(max_workers=pool_size) if pool_size > 1 else None
        self._closed = False
        self.crashes = 0
        self._lock = threading.Lock()

    # ---- ProofEnv ---------------------------------------------------------------------------
    def start(self, theorem: Theorem) -> Goal:
        worker = self._idle.get()
        try:
            try:
                text = worker.load(theorem)
            except CoqDied:
                worker.reset()
                text = worker.load(theorem)
            return Goal(text, CoqGoalRef(theorem, ()))
        finally:
            self._idle.put(worker)

    def apply(self, goal: Goal, tactic: str) -> TacticResult:
        if not isinstance(goal.ref, CoqGoalRef):
            raise TypeError("CoqEnv.apply needs a goal returned by CoqEnv")
        try:
            sentence = normalise_tactic(tactic)
        except TacticRefused as error:
            return TacticResult(error=f"refused: {error}")
        worker = self._idle.get()
        started = time.perf_counter()
        try:
            return self._apply_on(worker, goal, sentence, started)
        finally:
            self._idle.put(worker)

    def canonical_tactic(self, tactic: str) -> str | None:
        return canonical_tactic(tactic)

    def apply_many(self, requests: Sequence[tuple[Goal, str]]) -> list[TacticResult]:
        if self._executor is None or len(requests) <= 1:
            return [self.apply(goal, tactic) for goal, tactic in requests]
        return list(self._executor.map(lambda request: self.apply(*request), requests))

    def render(self, theorem: Theorem, proof: ProofStep) -> str:
        return "\n".join(_render_lines(proof, 0))

    def verify(self, theorem: Theorem, script: str) -> Verdict:
        return verify_proof(theorem, script, self.coqc, self.verify_timeout, self.extra_args, self.prelude,
                            self.coqchk)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._executor is not None:
            self._executor.shutdown(wait=True)
        for worker in self._workers:
            worker.process.close()

    @property
    def pids(self) -> list[int | None]:
        """coqtop process ids (tests kill them to check recovery)."""
        return [worker.process.pid for worker in self._workers]

    # ---- internals --------------------------------------------------------------------------
    def _apply_on(self, worker: _Worker, goal: Goal, sentence: str, started: float) -> TacticResult:
        ref: CoqGoalRef = goal.ref  # type: ignore[assignment]
        try:
            worker.goto(ref)
            reply = worker.run_sentence(sentence)
            if reply.error:
                if reply.interrupted or "Timeout" in reply.error:
                    return TacticResult(error="timeout", elapsed=time.perf_counter() - started)
                return TacticResult(error=reply.error, elapsed=time.perf_counter() - started)
            worker.trail.append((sentence, worker.process.state))
            output = reply.output
            if not _shows_goals(output):
                # coqtop skips printing goals equal to the last ones it printed (even across
                # BackTo): then, and only then, ask explicitly.
                shown = worker.process.run("Show.", timeout=30.0)
                if shown.error:
                    return TacticResult(error=f"cannot show goals: {shown.error}")
                output = shown.output
            goals = self._goals_after(worker, ref, sentence, output)
        except _ReplayFailed as error:
            return TacticResult(error=f"replay failed: {error}", elapsed=time.perf_counter() - started)
        except CoqDied as error:
            with self._lock:
                self.crashes += 1
            try:
                worker.reset()
            except EnvError as restart_error:
                return TacticResult(error=f"prover crashed and did not restart: {restart_error}")
            return TacticResult(error=f"prover crashed: {error}", elapsed=time.perf_counter() - started)
        elapsed = time.perf_counter() - started
        if isinstance(goals, str):
            return TacticResult(error=goals, elapsed=elapsed)
        if len(goals) == 1 and goals[0].text == goal.text and goals[0].num_goals == goal.num_goals:
            return TacticResult(error="no progress", elapsed=elapsed)
        return TacticResult(goals=tuple(goals), elapsed=elapsed)

    def _goals_after(self, worker: _Worker, ref: CoqGoalRef, sentence: str, output: str) -> list[Goal] | str:
        """The Goals left by the tactic just run, or an error string."""
        try:
            view = parse_goals(output)
        except ValueError:
            return f"unrecognised coqtop output: {output[:120]}"
        path = (*ref.path, sentence)
        if view.count == 0:
            if view.shelved or "shelf" in output or "gave up" in output or "shelved" in output:
                return "goals left on the shelf"
            return []
        assert view.first is not None
        parsed: list[ParsedGoal] = [view.first]
        for index in range(2, view.count + 1):
            reply = worker.process.run(f"Show {index}.", timeout=30.0)
            if reply.error:
                return f"cannot show goal {index}: {reply.error}"
            parsed.append(parse_show(reply.output))
        if view.count == 1:
            return [Goal(parsed[0].text, CoqGoalRef(ref.theorem, path))]
        if view.shelved or _coupled(parsed):
            text = "\n\n".join(goal.text for goal in parsed)
            return [Goal(text, CoqGoalRef(ref.theorem, path), num_goals=view.count)]
        return [Goal(goal.text, CoqGoalRef(ref.theorem, (*path, f"{index}: {{")))
                for index, goal in enumerate(parsed, start=1)]


@contextmanager
def given_or_new(env: ProofEnv | None, timeout: float = 10.0) -> Iterator[ProofEnv]:
    """`env` when given (left open: the caller shares it), else a new CoqEnv (project prelude)
    closed after the block. For batch jobs that may run alone or inside a caller's session."""
    if env is not None:
        yield env
        return
    own = CoqEnv(timeout=timeout)
    try:
        yield own
    finally:
        own.close()


def _shows_goals(output: str) -> bool:
    """Whether a reply already lists the goals (so no `Show.` is needed)."""
    if "No more goals" in output or "This subproof is complete" in output or "remaining goals are on the shelf" in output:
        return True
    try:
        parse_goals(output)
    except ValueError:
        return False
    return True


def _coupled(goals: list[ParsedGoal]) -> bool:
    """True when two goals mention the same existential variable."""
    seen: set[str] = set()
    for goal in goals:
        evars = goal.evars
        if seen & evars:
            return True
        seen |= evars
    return False


def _render_lines(step: ProofStep, depth: int) -> list[str]:
    """Tactic, then each child: inline for one child, in `{ … }` blocks (in order) for several."""
    indent = "  " * depth
    lines = [f"{indent}{normalise_tactic(step.tactic)}"]
    if len(step.children) == 1:
        lines.extend(_render_lines(step.children[0], depth))
    else:
        for child in step.children:
            body = _render_lines(child, depth + 1)
            body[0] = f"{indent}{{ {body[0].lstrip()}"
            body[-1] = f"{body[-1]} }}"
            lines.extend(body)
    return lines
