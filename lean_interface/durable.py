"""Durable files: the one atomic whole-file write, the one fsynced append, the one JSONL reader.

Runs are killed (`kill -9`, a lost machine) and resumed (docs/ARCHITECTURE.md §Self-play,
§Expert iteration, §Test-time RL), so every file a run or an eval keeps is written one of two ways:

* **whole** (`write_atomic`): the text goes to a temporary file in the same directory, is flushed
  and fsynced, renamed over the target (`os.replace`), and the directory is fsynced so the rename
  itself survives a crash. A reader sees the old file or the new one, never half of one.
* **appended** (`Appender`, `append_line`): one line at a time, flushed and fsynced before
  `write` returns, so a line that was reported written is on disk. A crash mid-append can leave a
  *torn* last line (a prefix without its newline); opening an `Appender` ends such a line with a
  newline first, so the next line starts clean and the torn one stays a line of its own. A new
  file's directory is fsynced so its name survives too.

`read_jsonl` reads both kinds back, one JSON value a line (blank lines ignored). What it does with
a line that does not parse (bad JSON, or refused by the caller's `parse`) is the caller's stated
policy, one of three, each for one way of writing:

* `refuse` — files written whole: no line can be torn, so any bad line is an error (`JsonlError`,
  a ValueError naming `path:line`).
* `skip_torn_last` — files appended to but never after a torn line (the replay buffer starts a
  new shard instead): only the file's last line can be torn; it is skipped with a warning, a bad
  line before it is corruption (`JsonlError`).
* `skip_torn` — files appended through `Appender`, which ends a torn line and appends after it:
  a torn line may stand anywhere, and every bad line is skipped with a warning.

This module sits in the bottom layer, `lean_interface`, and imports nothing else of ours, so every
package above uses it without an upward import (docs/ARCHITECTURE.md §Parts).
"""

from __future__ import annotations

import json
import logging
import os
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Iterator, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


# ---- writing -----------------------------------------------------------------------------------

def fsync_directory(directory: str | Path) -> None:
    """Make the entries of `directory` (a rename into it, a file created in it) survive a crash."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def write_atomic(path: str | Path, text: str) -> None:
    """Replace `path` by `text` (UTF-8) so that a reader, or a crash, sees the old file or the new
    one, whole: a temporary sibling `.<name>.<pid>.tmp` written, flushed and fsynced, renamed over
    `path`, then the directory fsynced. Parent directories are created; on an error the temporary
    file is removed and the old file is left as it was."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    fsync_directory(path.parent)


def ends_cleanly(path: str | Path) -> bool:
    """Whether a line appended to `path` would start a line of its own: the file is missing,
    empty, or ends with a newline (a torn append does not)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            if handle.tell() == 0:
                return True
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) == b"\n"
    except FileNotFoundError:
        return True


class Appender:
    """An append-only file of lines, each flushed and fsynced before `write` returns.

    Opening ends a torn last line with a newline (module docstring); creating the file fsyncs its
    directory. Call `close` when done (`contextlib.closing` makes it a context manager)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        torn = not ends_cleanly(self.path)
        self._handle: IO[bytes] | None = open(self.path, "ab")
        if torn:
            self._append(b"\n")
        if created:
            fsync_directory(self.path.parent)

    def write(self, line: str) -> None:
        """Append `line` (one line: no newline inside) and its newline, durably."""
        if "\n" in line:
            raise ValueError("an appended line may not contain a newline")
        self._append(line.encode("utf-8") + b"\n")

    def _append(self, data: bytes) -> None:
        if self._handle is None:
            raise ValueError(f"{self.path} is closed")
        self._handle.write(data)
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        """Close the file (every written line is already on disk). Idempotent."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def append_line(path: str | Path, line: str) -> None:
    """Append one line to `path` durably (an `Appender` opened for one line)."""
    with closing(Appender(path)) as appender:
        appender.write(line)


# ---- reading -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class BadLine:
    """A line of a JSONL file that does not parse.

    Fields:
      path:   the file.
      number: its line number (1-based).
      error:  why: the JSON error, or what the caller's `parse` raised.
      last:   it is the file's last line (a torn append can only be that, or a line an `Appender`
              ended after the crash).
      size:   its length in bytes.
      what:   what a line should have been, in words (`a factory item`), for messages.
    """

    path: Path
    number: int
    error: Exception
    last: bool
    size: int
    what: str


class JsonlError(ValueError):
    """A bad line a policy refuses: `<path>:<line>: not <what>`. The line is `self.line`."""

    def __init__(self, line: BadLine) -> None:
        super().__init__(f"{line.path}:{line.number}: not {line.what}")
        self.line = line


def refuse(line: BadLine) -> None:
    """Policy for files written whole (`write_atomic`): any bad line is an error."""
    raise JsonlError(line)


def skip_torn(line: BadLine) -> None:
    """Policy for files appended through `Appender`: a bad line is a torn append; skip it."""
    log.warning("%s: skipping torn %sline %d (%d bytes): %s", line.path, "last " if line.last else "",
                line.number, line.size, line.error)


def skip_torn_last(line: BadLine) -> None:
    """Policy for files never appended to after a torn line: only the last line can be torn and is
    skipped; a bad line before it is corruption (an error)."""
    if not line.last:
        raise JsonlError(line)
    skip_torn(line)


def read_jsonl(path: str | Path, parse: Callable[[Any], T | None] = lambda value: value,
               on_bad: Callable[[BadLine], T | None] = refuse, what: str = "a JSON record") -> list[T]:
    """The values of the JSON lines of `path`, in order, each passed through `parse`: what it
    returns is kept (None: the line is left out). A line whose JSON or `parse` fails (ValueError,
    KeyError, TypeError) goes to `on_bad`: `refuse`, `skip_torn_last` or `skip_torn` (module
    docstring), or the caller's own, whose non-None result stands in the line's place. Blank lines
    are ignored. OSError when the file cannot be read."""
    path = Path(path)
    out: list[T] = []
    for number, raw, last in _lines(path):
        if not raw.strip():
            continue
        try:
            value = parse(json.loads(raw.decode("utf-8")))
        except (ValueError, KeyError, TypeError) as error:
            value = on_bad(BadLine(path, number, error, last, len(raw), what))
        if value is not None:
            out.append(value)
    return out


def _lines(path: Path) -> Iterator[tuple[int, bytes, bool]]:
    """(number, bytes without the newline, whether it is the file's last line) for every line,
    read one at a time (bytes: a torn append may have cut a character in two)."""
    with open(path, "rb") as handle:
        line, number = handle.readline(), 0
        while line:
            following = handle.readline()
            number += 1
            yield number, line[:-1] if line.endswith(b"\n") else line, not following
            line = following


__all__ = ["Appender", "BadLine", "JsonlError", "append_line", "ends_cleanly", "fsync_directory", "read_jsonl",
           "refuse", "skip_torn", "skip_torn_last", "write_atomic"]
