"""Process helpers shared by the backends that drive a prover over stdio.

A prover runs in its own session (its own process group), so that a tactic's helpers — psatz's
`csdpcert`, which runs `csdp` — can be killed with it. Two ways a group is cleaned up:
- `kill_process`, when the owner closes the prover (every normal path, restarts included);
- the **guardian**, when the owner dies without closing it (a Ray worker killed by its driver, a
  SIGKILL, a crash): one small helper process per owner holds the read end of a pipe, the owner
  tells it which groups are live, and at end-of-file — the kernel closes the pipe when the owner
  dies, however it dies — it kills every group still registered. Without it a killed evaluation
  left `csdpcert` running `csdp` at full speed for 40 minutes, under the next run's timed searches.

The guardian is a *grandchild* of the owner: the process the owner starts forks the reader and
only waits for it (so the owner can still tell whether its guardian lives). Ray kills a dying
worker's direct children (`RAY_kill_child_processes_on_worker_exit`, on by default), not their
descendants: a guardian that was a direct child died with coqtop, before it could kill the group,
and `csdpcert` was left behind, orphaned, through expert iteration's learning phase.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading

_GUARDIAN_SOURCE = r"""
import os, signal, sys
reader = os.fork()
if reader:  # the owner's direct child: it reads nothing and lives as long as the reader does
    os.close(0)
    os.waitpid(reader, 0)
    sys.exit(0)
groups = set()
for line in sys.stdin.buffer:
    (groups.add if line[:1] == b"+" else groups.discard)(int(line[1:]))
for group in groups:
    try:
        os.killpg(group, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
"""


class _Guardian:
    """The owner's side of the guardian: started on first use, and again in a forked child
    (a child must not share its parent's pipe: the parent's groups are not its own)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._owner = 0
        self._groups: set[int] = set()

    def _ensure(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._owner != os.getpid() or self._proc.poll() is not None:
            if self._owner != os.getpid():
                self._groups = set()
            self._proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", _GUARDIAN_SOURCE],
                                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, start_new_session=True)
            self._owner = os.getpid()
            self._write(self._proc, "".join(f"+{group}\n" for group in sorted(self._groups)))
        return self._proc

    @staticmethod
    def _write(proc: subprocess.Popen[bytes], text: str) -> None:
        if text and proc.stdin is not None:
            with contextlib.suppress(OSError):  # a guardian gone: the next call starts another
                proc.stdin.write(text.encode())
                proc.stdin.flush()

    def add(self, group: int) -> None:
        with self._lock:
            proc = self._ensure()
            self._groups.add(group)
            self._write(proc, f"+{group}\n")

    def discard(self, group: int) -> None:
        with self._lock:
            if self._owner == os.getpid() and group in self._groups:
                self._groups.discard(group)
                if self._proc is not None:
                    self._write(self._proc, f"-{group}\n")


_guardian = _Guardian()


def guard_group(proc: subprocess.Popen[bytes]) -> None:
    """Have `proc`'s process group (it was started with `start_new_session=True`) killed if this
    process dies before `kill_process(proc)`."""
    _guardian.add(proc.pid)


def kill_process(proc: subprocess.Popen[bytes]) -> None:
    """Kill `proc`'s whole process group (it was started in its own session), reap it, close pipes.

    The group is killed even when `proc` itself has already exited: a prover's helpers (psatz's
    `csdpcert`, which runs `csdp`) outlive it otherwise and keep a core busy for minutes, skewing
    every timed search after them. Linux does not reuse a pid while it names a live group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # no member left: nothing to kill
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    _guardian.discard(proc.pid)
    for stream in (proc.stdin, proc.stdout):
        if stream:
            stream.close()
