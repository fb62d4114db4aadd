"""`kill_process`: a prover's helper processes die with it, even after the prover itself exited."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from lean_interface._processes import kill_process
from tests.procfs import alive as _alive
from tests.procfs import children as _children


_OWNER_SOURCE = """
import subprocess, sys, time
from lean_interface._processes import guard_group
proc = subprocess.Popen(["sh", "-c", "sleep 60 & echo $!; sleep 60"], stdout=subprocess.PIPE, start_new_session=True)
guard_group(proc)
print(proc.pid, proc.stdout.readline().decode().strip(), flush=True)
time.sleep(60)
"""


def _start_owner() -> tuple[subprocess.Popen[bytes], int, int]:
    """An owner process (a Ray worker, say) running a guarded prover (`leader`) whose helper
    (`helper`, in the leader's group) runs on: (owner, leader, helper)."""
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    owner = subprocess.Popen([sys.executable, "-c", _OWNER_SOURCE], stdout=subprocess.PIPE, cwd=root,
                             env={**os.environ, "PYTHONPATH": root})
    leader, helper = (int(pid) for pid in owner.stdout.readline().split())
    return owner, leader, helper


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


def test_the_group_is_killed_when_its_owner_dies_without_closing_it() -> None:
    """The owner (a Ray worker, say) is SIGKILLed while its prover's helper runs: the guardian
    kills the prover's group — leader and helper — with no `kill_process` call at all."""
    owner, leader, helper = _start_owner()
    assert _alive(leader) and _alive(helper) and os.getpgid(helper) == leader
    owner.kill()
    owner.wait()
    deadline = time.monotonic() + 10
    while (_alive(leader) or _alive(helper)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(helper) and not _alive(leader)


def test_a_closed_group_is_forgotten_by_the_guardian() -> None:
    from lean_interface import _processes

    proc = subprocess.Popen(["sleep", "60"], start_new_session=True)
    _processes.guard_group(proc)
    assert proc.pid in _processes._guardian._groups
    kill_process(proc)
    assert proc.pid not in _processes._guardian._groups and proc.returncode is not None


def test_a_timed_out_checker_takes_its_helpers_with_it(tmp_path) -> None:
    """`coqc` replaying a psatz proof runs `csdpcert`; when the check times out, the helper dies
    with it (a plain `subprocess.run` timeout killed `coqc` alone and orphaned the helper)."""
    from lean_interface.coq.kernel_check import CheckFailed, _run

    pid_file = tmp_path / "helper.pid"
    with pytest.raises(CheckFailed, match="timed out"):
        _run(["sh", "-c", f"sleep 60 & echo $! > {pid_file}; sleep 60"], str(tmp_path), 1.0)
    helper = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while _alive(helper) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(helper)


def test_a_checker_run_returns_its_exit_code_and_output(tmp_path) -> None:
    from lean_interface.coq.kernel_check import _run

    assert _run(["sh", "-c", "echo out; echo err >&2; exit 3"], str(tmp_path), 10.0) == (3, "out\nerr\n")


def test_the_group_is_killed_when_the_owners_direct_children_are_killed_with_it() -> None:
    """Ray kills a dying worker's direct children before the worker itself: the prover's leader
    and whatever the owner started — but not their descendants. The prover's helper must still
    die: the guardian that kills its group is not a direct child of the owner."""
    import signal

    owner, leader, helper = _start_owner()
    children = _children(owner.pid)
    assert leader in children and helper not in children and len(children) == 2  # the leader and the guardian's parent
    deadline = time.monotonic() + 10
    while not any(_children(child) for child in children if child != leader) and time.monotonic() < deadline:
        time.sleep(0.05)  # the guardian's parent has started its reader (long done in a real run)
    for child in children:  # what Ray does on a worker's exit
        os.kill(child, signal.SIGKILL)
    owner.kill()
    owner.wait()
    deadline = time.monotonic() + 10
    while _alive(helper) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(helper)
