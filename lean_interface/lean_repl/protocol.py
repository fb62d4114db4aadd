"""The leanprover-community/repl wire protocol over a child process's stdio.

Requests: one JSON object on ONE line, then a blank line. A raw newline inside a JSON string
would be lost by the REPL (fixture `invalid_line_break`: `by\\nsorry` became `bysorry`), so
requests are always serialised with escaped newlines. Replies: pretty-printed multi-line JSON
ended by a blank line: read until the blank line, then parse.

Every request has a wall-clock limit; a REPL that does not answer in time, or dies, is killed and
`ReplDied` is raised: the env layer restarts it and rebuilds what it needs.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import time
from typing import Any, Sequence

from lean_interface._processes import guard_group, kill_process
from lean_interface.api import EnvError


class ReplDied(Exception):
    """The REPL process exited, or was killed after a timeout."""


def encode_request(request: dict[str, Any]) -> bytes:
    """One line of JSON (newlines inside strings escaped), then the blank line that ends it."""
    line = json.dumps(request, ensure_ascii=False)
    assert "\n" not in line
    return (line + "\n\n").encode("utf-8")


class ReplProcess:
    """A running REPL (`repl_path *repl_args`, in `cwd`), one request at a time."""

    def __init__(self, repl_path: str, repl_args: Sequence[str] = (), cwd: str | None = None) -> None:
        binary = shutil.which(repl_path) or (repl_path if os.path.isfile(repl_path) else None)
        if binary is None:
            raise EnvError(f"Lean REPL not found at {repl_path!r}: build leanprover-community/repl and set backend.repl_path")
        if cwd is not None and not os.path.isdir(cwd):
            raise EnvError(f"Lean project directory not found: {cwd}")
        self.argv = [binary, *repl_args]
        self.cwd = cwd
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self.requests = 0
        self.start()

    def start(self) -> None:
        self.close()
        self._proc = subprocess.Popen(self.argv, cwd=self.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, start_new_session=True)
        guard_group(self._proc)
        self._buffer = b""
        self.requests = 0

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            kill_process(proc)

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def send(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one request and return the parsed reply. Raises ReplDied."""
        if not self.alive:
            raise ReplDied("the REPL is not running")
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(encode_request(request))
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.close()
            raise ReplDied("the REPL closed its input") from None
        self.requests += 1
        return self._read_reply(timeout)

    def _read_reply(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        assert self._proc is not None and self._proc.stdout is not None
        while True:
            stripped = self._buffer.lstrip(b"\n")
            end = stripped.find(b"\n\n")
            if end >= 0:
                text = stripped[:end].decode("utf-8", errors="replace")
                self._buffer = stripped[end + 2 :]
                try:
                    return json.loads(text)
                except json.JSONDecodeError:
                    self.close()
                    raise ReplDied(f"unparsable REPL reply: {text[:120]!r}") from None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.close()
                raise ReplDied("timeout")
            ready, _, _ = select.select([self._proc.stdout], [], [], min(remaining, 1.0))
            if not ready:
                if self._proc.poll() is not None:
                    self.close()
                    raise ReplDied("the REPL exited")
                continue
            chunk = os.read(self._proc.stdout.fileno(), 1 << 16)
            if not chunk:
                # a final reply may end at EOF without its blank line
                if self._buffer.strip():
                    self._buffer += b"\n\n"
                    continue
                self.close()
                raise ReplDied("the REPL exited")
            self._buffer += chunk
