"""A stand-in for the Lean REPL binary that replays a recorded transcript (Lean cannot run here).

Usage: python fixture_repl.py FIXTURE_NAME [--hang-once MARKER K SECONDS] [--crash-once MARKER K]

It reads requests framed as the real REPL reads them (JSON blocks separated by blank lines; a raw
newline inside a block is dropped, as the recorded `invalid_line_break` replies show the REPL does)
and answers the k-th request with the k-th recorded reply from
`tests/fixtures/lean_repl/FIXTURE_NAME.expected.out`, after checking that the request equals the
recorded one (parsed JSON).

A request that is NOT in the recording gets no reply at all: the stand-in writes the reason to
stderr, appends it to the file named by `$FIXTURE_REPL_VIOLATIONS` (if set) and exits with status 3.
The client then raises (`ReplDied`: the output is no JSON reply, then EOF), and because a client may
turn that into an ordinary failure value (a crashed tactic, a refused verdict), tests also run
under `strict_recording`, which FAILS the test when the violations file is not empty. So a test can
only pass on recorded behaviour.

`--hang-once MARKER K S` sleeps S seconds before answering request K (a hung REPL) and
`--crash-once MARKER K` exits before answering request K (a crashed REPL), each only while the
file MARKER does not exist yet (they create it): the restarted stand-in then behaves normally.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "lean_repl"
VIOLATIONS_ENV = "FIXTURE_REPL_VIOLATIONS"


def fixture_dir() -> Path:
    """The recorded transcripts, copied unchanged into tests/fixtures/lean_repl (see its SOURCE.md)."""
    return FIXTURES


def split_blocks(text: str) -> list[str]:
    return [block.strip() for block in text.split("\n\n") if block.strip()]


def parse_request(block: str) -> Any:
    """A request block as the REPL reads it: raw newlines dropped, then JSON."""
    return json.loads(block.replace("\r", "").replace("\n", ""))


def load_pairs(name: str) -> tuple[list[dict], list[dict]]:
    """(recorded requests, recorded replies) of fixture `name`."""
    base = fixture_dir()
    requests = [parse_request(b) for b in split_blocks((base / f"{name}.in").read_text(encoding="utf-8"))]
    replies = [json.loads(b) for b in split_blocks((base / f"{name}.expected.out").read_text(encoding="utf-8"))]
    return requests, replies


@contextlib.contextmanager
def strict_recording(log: Path) -> Iterator[Path]:
    """Let stand-ins started inside the block log requests outside their recording to `log`;
    raise AssertionError at the end of the block if any did."""
    previous = os.environ.get(VIOLATIONS_ENV)
    os.environ[VIOLATIONS_ENV] = str(log)
    try:
        yield log
    finally:
        if previous is None:
            os.environ.pop(VIOLATIONS_ENV, None)
        else:
            os.environ[VIOLATIONS_ENV] = previous
    if log.exists() and log.read_text(encoding="utf-8").strip():
        raise AssertionError("the Lean REPL stand-in was sent requests outside its recording:\n"
                             + log.read_text(encoding="utf-8"))


def _violation(name: str, index: int, what: str) -> int:
    report = f"stand-in {name}: request {index} is not in the recording: {what}"
    sys.stderr.write(report + "\n")
    sys.stderr.flush()
    log = os.environ.get(VIOLATIONS_ENV)
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(report + "\n")
    return 3


def _once(argv: list[str], flag: str, arity: int) -> list[str] | None:
    """The flag's arguments if given and its marker file does not exist yet."""
    if flag not in argv:
        return None
    args = argv[argv.index(flag) + 1 : argv.index(flag) + 1 + arity]
    return None if Path(args[0]).exists() else args


def main(argv: list[str]) -> int:
    name = argv[1]
    hang = _once(argv, "--hang-once", 3)
    crash = _once(argv, "--crash-once", 2)
    requests, replies = load_pairs(name)
    block: list[str] = []
    index = 0
    for line in sys.stdin:
        if line.strip():
            block.append(line)
            continue
        if not block:
            continue
        text, block = "".join(block), []
        try:
            received = parse_request(text)
        except json.JSONDecodeError:
            return _violation(name, index, f"unparsable {text[:200]!r}")
        if crash and index == int(crash[1]):
            Path(crash[0]).touch()
            return 1
        if hang and index == int(hang[1]):
            Path(hang[0]).touch()
            time.sleep(float(hang[2]))
        if index >= len(requests) or received != requests[index]:
            return _violation(name, index, json.dumps(received, ensure_ascii=False))
        sys.stdout.write(json.dumps(replies[index], ensure_ascii=False, indent=1) + "\n\n")
        sys.stdout.flush()
        index += 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
