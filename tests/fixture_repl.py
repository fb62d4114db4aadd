"""A stand-in for the Lean REPL binary that replays a recorded transcript (Lean cannot run here).

Usage: python fixture_repl.py FIXTURE_NAME [--hang-once MARKER K SECONDS] [--crash-once MARKER K]

It reads requests framed as the real REPL reads them (JSON blocks separated by blank lines) and
answers the k-th request with the k-th recorded reply from
`tests/fixtures/lean_repl/FIXTURE_NAME.expected.out`, after checking that the request equals the
recorded one (parsed JSON). A request that is not in the recording gets an error reply and the
stand-in exits with status 3: tests can only pass on recorded behaviour.
`--hang-once MARKER K S` sleeps S seconds before answering request K (a hung REPL) and
`--crash-once MARKER K` exits before answering request K (a crashed REPL), each only while the
file MARKER does not exist yet (they create it): the restarted stand-in then behaves normally.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "lean_repl"


def fixture_dir() -> Path:
    """The recorded transcripts, copied unchanged into tests/fixtures/lean_repl (see its SOURCE.md)."""
    return FIXTURES


def split_blocks(text: str) -> list[str]:
    return [block.strip() for block in text.split("\n\n") if block.strip()]


def load_pairs(name: str) -> tuple[list[dict], list[dict]]:
    """(recorded requests, recorded replies) of fixture `name`."""
    base = fixture_dir()
    requests = [json.loads(b, strict=False) for b in split_blocks((base / f"{name}.in").read_text(encoding="utf-8"))]
    replies = [json.loads(b) for b in split_blocks((base / f"{name}.expected.out").read_text(encoding="utf-8"))]
    return requests, replies


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
        received = json.loads("".join(block), strict=False)
        block = []
        if crash and index == int(crash[1]):
            Path(crash[0]).touch()
            return 1
        if hang and index == int(hang[1]):
            Path(hang[0]).touch()
            time.sleep(float(hang[2]))
        if index >= len(requests) or received != requests[index]:
            sys.stdout.write(json.dumps({"message": f"stand-in: request {index} not in recording"}) + "\n\n")
            sys.stdout.flush()
            return 3
        sys.stdout.write(json.dumps(replies[index], ensure_ascii=False, indent=1) + "\n\n")
        sys.stdout.flush()
        index += 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
