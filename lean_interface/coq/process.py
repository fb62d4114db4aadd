"""One coqtop process, driven one sentence at a time over `coqtop -quiet -emacs`.

coqtop prints a sentence's output (goals, messages, errors) and then exactly one prompt
`<prompt>NAME < STATE |PROOFSTACK| DEPTH < </prompt>`, with errors on stderr: we merge stderr into
stdout to keep the order, and read until the prompt. The prompt's STATE is the state id; an error
leaves it unchanged; `BackTo N` returns to state N and deletes every later state.

Time limits are enforced outside Coq as well as inside (the env prefixes tactics with `Timeout`):
when no prompt arrives in time we interrupt the process group (SIGINT, which coqtop answers with
"User interrupt" and an unchanged state), and if even that fails we kill it. A dead process raises
`CoqDied`; the caller restarts and replays.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Sequence

from lean_interface._processes import guard_group, kill_process
from lean_interface.api import EnvError

_PROMPT = re.compile(r"<prompt>(\S+) < (\d+) \|([^|]*)\| (\d+) < </prompt>")
_ERROR = re.compile(r"^Error:\s*(.*)$", re.MULTILINE)
_TAG = re.compile(r"</?(?:infomsg|warning)>")

#: Sentences every process runs first: one hypothesis per line, no colours, no diffs.
PREAMBLE = ("Set Printing Width 1000.", "Unset Printing Wildcard.")


class CoqDied(Exception):
    """The coqtop process ended or stopped answering and was killed."""


def exhausted(error: str | None) -> bool:
    """Whether a reply's error is coqtop's own "Out of memory." — the whole message, so a tactic
    that fails with those words (`fail "Out of memory."` reads "Tactic failure: Out of memory..") does
    not pass for it; the worst a forged one could do is cost a restart."""
    return error is not None and error.strip() == "Out of memory."


@dataclass(frozen=True)
class Reply:
    """What coqtop answered to one sentence.

    Fields:
      state:     the state id in the prompt after the sentence (unchanged on error).
      output:    everything printed before the prompt, tags stripped.
      error:     the error message (text after `Error:`, joined to one line), or None.
      proof:     the name of the open proof (prompt NAME), "Coq" outside proofs.
      interrupted: the outer time limit fired and SIGINT stopped the sentence.
    """

    state: int
    output: str
    error: str | None
    proof: str
    interrupted: bool = False


def _limit_memory(memory_mb: int) -> None:
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


class CoqProcess:
    """A coqtop process with sentence-exact I/O, state ids, time limits and restart."""

    def __init__(self, coqtop: str = "coqtop", extra_args: Sequence[str] = (), memory_mb: int = 4096,
                 preamble: Sequence[str] = PREAMBLE) -> None:
        path = shutil.which(coqtop)
        if path is None:
            raise EnvError(f"coqtop not found ({coqtop!r}): install Coq, e.g. `apt-get install coq`")
        # coqtop runs in a private directory: tactics may write there (micromega keeps its
        # `.csdp.cache` of psatz certificates in the working directory), and no search should
        # read another run's cache or litter the user's directory. Relative load paths given as
        # arguments are made absolute first, so they still mean what the caller meant.
        self._workdir = tempfile.TemporaryDirectory(prefix="alphaprover-coqtop-")
        self._argv = [path, "-quiet", "-emacs", *(os.path.abspath(a) if os.path.exists(a) else a for a in extra_args)]
        self._memory_mb = memory_mb
        self._preamble = tuple(preamble)
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self.state = 0
        self.proof = "Coq"
        self.initial_state = 0
        self.restarts = 0
        self.start()

    # ---- life cycle -----------------------------------------------------------------------
    def start(self) -> None:
        """(Re)start coqtop and run the preamble; `initial_state` is the state after it."""
        self.close()
        self._proc = subprocess.Popen(
            self._argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            cwd=self._workdir.name, start_new_session=True, preexec_fn=lambda: _limit_memory(self._memory_mb),
        )
        guard_group(self._proc)
        self._buffer = b""
        first = self._read_reply(timeout=60.0)
        self.state, self.proof = first.state, first.proof
        for sentence in self._preamble:
            reply = self.run(sentence, timeout=30.0)
            if reply.error:
                raise EnvError(f"coqtop rejected its preamble {sentence!r}: {reply.error}")
        self.initial_state = self.state

    def restart(self) -> None:
        self.restarts += 1
        self.start()

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            kill_process(proc)

    # ---- sentences ------------------------------------------------------------------------
    def run(self, sentence: str, timeout: float = 10.0) -> Reply:
        """Send one complete sentence and return its reply.

        Raises `CoqDied` when the process is gone or had to be killed (the caller restarts).
        """
        if not self.alive:
            raise CoqDied("coqtop is not running")
        assert self._proc is not None and self._proc.stdin is not None
        data = (sentence.replace("\n", " ") + "\n").encode()
        try:
            self._proc.stdin.write(data)
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.close()
            raise CoqDied("coqtop closed its input") from None
        reply = self._read_reply(timeout)
        self.state, self.proof = reply.state, reply.proof
        if exhausted(reply.error):
            # OCaml's Out_of_memory under the process's memory limit (`memory_mb`): coqtop stays up
            # but every later sentence, a new problem's header included, fails the same way
            # (seen after 1.5 h of a 2-worker eval: 87 problems in a row). A restart frees it.
            self.close()
            raise CoqDied(f"coqtop ran out of memory: {reply.error}")
        return reply

    def back_to(self, state: int) -> None:
        """Return to `state`, deleting every later state. Raises CoqDied on failure."""
        if state == self.state:
            return
        reply = self.run(f"BackTo {state}.", timeout=30.0)
        if reply.error or self.state != state:
            self.close()
            raise CoqDied(f"BackTo {state} failed: {reply.error or self.state}")

    def _read_reply(self, timeout: float) -> Reply:
        deadline = time.monotonic() + timeout
        interrupted = False
        while True:
            text = self._buffer.decode(errors="replace")
            match = _PROMPT.search(text)
            if match:
                consumed = len(text[: match.end()].encode())
                self._buffer = self._buffer[consumed:]
                return self._make_reply(text[: match.start()], match, interrupted)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if interrupted:
                    self.close()
                    raise CoqDied("coqtop did not answer an interrupt: killed")
                self._interrupt()
                interrupted = True
                deadline = time.monotonic() + 3.0
                continue
            assert self._proc is not None and self._proc.stdout is not None
            ready, _, _ = select.select([self._proc.stdout], [], [], min(remaining, 1.0))
            if not ready:
                if self._proc.poll() is not None:
                    self.close()
                    raise CoqDied("coqtop exited")
                continue
            chunk = os.read(self._proc.stdout.fileno(), 1 << 16)
            if not chunk:
                self.close()
                raise CoqDied("coqtop exited")
            self._buffer += chunk

    def _interrupt(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):  # it may have exited just now
                os.killpg(self._proc.pid, signal.SIGINT)

    @staticmethod
    def _make_reply(raw: str, prompt: re.Match[str], interrupted: bool) -> Reply:
        output = _TAG.sub("", raw).strip("\n")
        error = None
        found = _ERROR.search(output)
        if found:
            rest = output[found.start():].split("\n", 1)
            tail = rest[1] if len(rest) > 1 else ""
            error = " ".join([found.group(1).strip(), " ".join(line.strip() for line in tail.splitlines())]).strip()
            error = re.sub(r"\s+", " ", error) or "error"
        elif interrupted:
            error = "timeout"
        if interrupted and error and "interrupt" in error.lower():
            error = "timeout"
        return Reply(state=int(prompt.group(2)), output=output, error=error, proof=prompt.group(1),
                     interrupted=interrupted)
