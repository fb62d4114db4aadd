"""Process facts read from /proc, for the tests that check a prover's processes are gone."""

from __future__ import annotations


def alive(pid: int) -> bool:
    """Whether `pid` runs: a zombie is dead, only not reaped yet."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def children(pid: int) -> list[int]:
    """The direct children of `pid`."""
    with open(f"/proc/{pid}/task/{pid}/children", encoding="utf-8") as handle:
        return [int(child) for child in handle.read().split()]
