"""Coq's verdict on generated statements: does each elaborate, and what is its printed form.

One coqtop process (`CoqProcess`) loads the project prelude (`DEFAULT_PRELUDE`, as search and
verify do), then a header, then the printing options `KEY_PRINTING`; for each statement it states
the theorem, reverts every hypothesis and variable (`REVERT_ALL`), reads the goal with `Show`, and
returns to the header's state with `BackTo`. The printed closed goal is the statement's *key*: two
statements with one key are the same proposition as Coq reads it, whatever their text, spacing,
parentheses or binder style, so the factory deduplicates by it and compares it with the dev
subset's keys. The printing shows every parenthesis and coercion (`INR`, `IZR` appear as written)
but keeps notations: under `Set Printing All` a nat numeral prints in unary (7056 is 7056 nested
`S`), and nothing is elided (`Printing Depth` raised from its default 50, at which deep terms print
as `...` and distinct statements would share a key).

Why not coqc per chunk: coqc stops at the first error, and a statement that fails must only be
dropped. Why check alignment: the key is read from coqtop's output, so each chunk of `chunk`
statements ends with a sentinel (`Check <fresh name>.`, whose error must name that sentinel): if
output ever lagged behind its prompt, the chunk is redone in a fresh process rather than giving
statements each other's keys. Measured (2 shared cores, Coq 8.16.1): ~1.6 ms per statement.
"""

from __future__ import annotations

import logging
from typing import Protocol, Sequence

from lean_interface.api import EnvError
from lean_interface.coq.prelude import DEFAULT_PRELUDE, with_prelude
from lean_interface.coq.process import CoqDied, CoqProcess
from lean_interface.coq.text import SentenceError, split_sentences

log = logging.getLogger(__name__)

#: reverts every hypothesis and variable, last first, so the goal is the whole statement, closed
REVERT_ALL = "repeat match goal with H : _ |- _ => revert H end."
#: how keys are printed (module docstring)
KEY_PRINTING = ("Set Printing Parentheses.", "Set Printing Coercions.", "Set Printing Depth 1000000.")
#: a name no statement defines; `Check` of it must fail with an error naming it
SENTINEL = "factory_sentinel_{}"
DEFAULT_CHUNK = 250


class Elaborator(Protocol):
    """Gives each statement under `header` its key (Coq's printed closed statement), or None when
    it does not elaborate."""

    def keys(self, header: str, statements: Sequence[str]) -> list[str | None]: ...


class OutOfStep(Exception):
    """coqtop's output did not line up with the sentences sent (a sentinel read something else)."""


def key_from_show(output: str) -> str | None:
    """The closed goal of a `Show` reply with one goal and an empty context, whitespace-normalised."""
    lines = output.splitlines()
    if not lines or not lines[0].startswith("1 goal"):
        return None
    bars = [i for i, line in enumerate(lines) if line.strip().startswith("====")]
    if len(bars) != 1 or any(line.strip() for line in lines[1:bars[0]]):
        return None
    key = " ".join(" ".join(lines[bars[0] + 1:]).split())
    return key or None


class CoqElaborator:
    """`Elaborator` over one coqtop process; the header last loaded stays loaded for the next call."""

    def __init__(self, prelude: str = DEFAULT_PRELUDE, chunk: int = DEFAULT_CHUNK, timeout: float = 30.0) -> None:
        if chunk < 1:
            raise ValueError("chunk must be at least 1")
        self.prelude = prelude
        self.chunk = chunk
        self.timeout = timeout
        self.process = CoqProcess()
        self._header: str | None = None
        self._header_state = 0
        self._sentinels = 0
        self.restarts = 0

    def close(self) -> None:
        self.process.close()

    def __enter__(self) -> CoqElaborator:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ---- header ---------------------------------------------------------------------------
    def _load(self, header: str) -> None:
        """Stand at `header`'s state: prelude, header, KEY_PRINTING. EnvError if it fails."""
        if self._header == header and self.process.alive:
            self.process.back_to(self._header_state)
            return
        if not self.process.alive:
            self.process.restart()
        self.process.back_to(self.process.initial_state)
        self._header = None
        try:
            sentences = [s.text for s in split_sentences(with_prelude(self.prelude, header))]
        except SentenceError as error:
            raise EnvError(f"factory header does not split into sentences: {error}") from None
        for sentence in [*sentences, *KEY_PRINTING]:
            reply = self.process.run(sentence, timeout=120.0)
            if reply.error:
                raise EnvError(f"factory header fails at {sentence!r}: {reply.error}")
        self._header, self._header_state = header, self.process.state

    # ---- statements -----------------------------------------------------------------------
    def _key(self, statement: str) -> str | None:
        process = self.process
        try:
            if len(split_sentences(statement)) != 1:
                return None
        except SentenceError:
            return None
        reply = process.run(statement, timeout=self.timeout)
        if reply.error or reply.proof == "Coq":
            process.back_to(self._header_state)
            return None
        key = None
        if not process.run(REVERT_ALL, timeout=self.timeout).error:
            key = key_from_show(process.run("Show.", timeout=self.timeout).output)
        process.back_to(self._header_state)
        return key

    def _sentinel(self) -> None:
        self._sentinels += 1
        name = SENTINEL.format(self._sentinels)
        reply = self.process.run(f"Check {name}.", timeout=self.timeout)
        if not reply.error or name not in reply.error:
            raise OutOfStep(f"sentinel {name} answered {reply.error or reply.output!r}")

    def _chunk(self, header: str, statements: Sequence[str]) -> list[str | None]:
        self._load(header)
        self._sentinel()
        keys = [self._key(statement) for statement in statements]
        self._sentinel()
        return keys

    def keys(self, header: str, statements: Sequence[str]) -> list[str | None]:
        """Keys of `statements` under `header`, in order (None: does not elaborate). A chunk whose
        sentinel fails, or whose coqtop dies, is redone once in a fresh process; a second failure
        raises EnvError. EnvError too when the header itself fails."""
        out: list[str | None] = []
        for start in range(0, len(statements), self.chunk):
            part = statements[start:start + self.chunk]
            for attempt in (1, 2):
                try:
                    out.extend(self._chunk(header, part))
                    break
                except (OutOfStep, CoqDied) as error:
                    log.warning("factory elaboration chunk redone (%s)", error)
                    self.restarts += 1
                    self._header = None
                    self.process.restart()
                    if attempt == 2:
                        raise EnvError(f"coqtop failed twice on one chunk of statements: {error}") from None
        return out
