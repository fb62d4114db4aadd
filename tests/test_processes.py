"""`kill_process`: a prover's helper processes die with it, even after the prover itself exited."""

from __future__ import annotations

import os
import subprocess
import time

from lean_interface._processes import kill_process


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
        return handle.read().split()[2] != "Z"  # a zombie is dead, only not reaped yet


def test_the_group_is_killed_after_its_leader_exited() -> None:
    # the leader starts a helper in its own group and exits, as coqtop leaves csdpcert behind
    proc = subprocess.Popen(["sh", "-c", "sleep 60 & echo $!"], stdout=subprocess.PIPE, start_new_session=True)
    helper = int(proc.stdout.readline())
    proc.wait()
    assert _alive(helper) and os.getpgid(helper) == proc.pid
    kill_process(proc)
    deadline = time.monotonic() + 5
    while _alive(helper) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(helper)
    kill_process(proc)  # again: nothing left in the group, no error
