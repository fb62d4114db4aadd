"""Process helpers shared by the backends that drive a prover over stdio."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess


def kill_process(proc: subprocess.Popen[bytes]) -> None:
    """Kill `proc`'s whole process group (it was started in its own session), reap it, close pipes."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):  # it may have exited just now
            os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    for stream in (proc.stdin, proc.stdout):
        if stream:
            stream.close()
