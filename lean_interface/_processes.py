"""Process helpers shared by the backends that drive a prover over stdio."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess


def kill_process(proc: subprocess.Popen[bytes]) -> None:
    """Kill `proc`'s whole process group (it was started in its own session), reap it, close pipes.

    The group is killed even when `proc` itself has already exited: a prover's helpers (psatz's
    `csdpcert`, which runs `csdp`) outlive it otherwise and keep a core busy for minutes, skewing
    every timed search after them. Linux does not reuse a pid while it names a live group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # no member left: nothing to kill
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    for stream in (proc.stdin, proc.stdout):
        if stream:
            stream.close()
