"""The on-disk cache of self-play source loads (`selfplay.sources`), and its JSON forms of problems.

A `stdlib:` load checks hundreds of lemmas with Coq and a `variants:` load elaborates every
candidate variant: minutes each. So a finished load is written to `cache_dir` as JSONL
(`<slug>-<hash>.jsonl`, first line `{"format", "key", "spec", "count", …}`, then one
`{"id", "source", "theorem"}` per line), keyed by the spec and what it depends on (the Coq version
and the prelude, `env_fingerprint`; for variants the inner problems' text), written atomically
(`lean_interface.durable.write_atomic`), so a second load is a file read. A file of another key or
format, or one cut short, reads as missing.

A variants load also appends each finished target to `<file>.partial` (`PartialFile`, fsynced
appends), and an interrupted load resumes from it: one target's variants take seconds, a whole
benchmark's an hour.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path
from typing import Sequence

from lean_interface.api import ProofEnv, Theorem
from lean_interface.durable import Appender, read_jsonl, skip_torn_last, write_atomic
from selfplay.actor import SourceProblem

#: bump when what a cached load contains changes (parsing or checking rules)
CACHE_FORMAT = 1


# ---- (de)serialisation -----------------------------------------------------------------------

def theorem_to_dict(theorem: Theorem) -> dict:
    return {"name": theorem.name, "header": theorem.header, "statement": theorem.statement,
            "language": theorem.language}


def theorem_from_dict(data: dict) -> Theorem:
    return Theorem(name=str(data["name"]), header=str(data["header"]), statement=str(data["statement"]),
                   language=str(data.get("language", "coq")))


def problem_to_dict(problem: SourceProblem) -> dict:
    return {"id": problem.id, "source": problem.source, "theorem": theorem_to_dict(problem.theorem)}


def problem_from_dict(data: dict) -> SourceProblem:
    return SourceProblem(str(data["id"]), str(data["source"]), theorem_from_dict(data["theorem"]))


# ---- cache files -----------------------------------------------------------------------------

def cache_path(cache_dir: Path, spec: str, key: str) -> Path:
    """`<cache_dir>/<readable slug of spec>-<hash of key>.jsonl`."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", spec).strip("-")[-60:] or "source"
    return Path(cache_dir) / f"{slug}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.jsonl"


def read_cache(path: Path, key: str) -> list[SourceProblem] | None:
    """The cached problems, or None when the file is missing, for another key, or incomplete."""
    try:
        meta, *rows = read_jsonl(path, what="a cache line")
        if meta.get("format") != CACHE_FORMAT or meta.get("key") != key:
            return None
        problems = [problem_from_dict(row) for row in rows]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return problems if len(problems) == meta.get("count") else None


def lookup(cache_dir: Path | None, spec: str, key: str) -> tuple[Path | None, list[SourceProblem] | None]:
    """Where a load of `spec` under `key` is cached (None without a `cache_dir`) and the problems
    cached there (None when there are none to reuse)."""
    if cache_dir is None:
        return None, None
    path = cache_path(cache_dir, spec, key)
    return path, read_cache(path, key)


def write_cache(path: Path, key: str, spec: str, problems: Sequence[SourceProblem], **info: object) -> None:
    """Write atomically (`write_atomic`): a reader sees the old file or the new one."""
    meta = {"format": CACHE_FORMAT, "key": key, "spec": spec, "count": len(problems), **info}
    rows = [meta, *(problem_to_dict(problem) for problem in problems)]
    write_atomic(path, "".join(json.dumps(row) + "\n" for row in rows))


def _coq_version() -> str:
    try:
        return subprocess.run(["coqc", "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def env_fingerprint(env: ProofEnv | None) -> str:
    """What a load's Coq checks depend on besides the spec: the Coq version and the env's prelude."""
    from lean_interface.coq.prelude import DEFAULT_PRELUDE

    prelude = getattr(env, "prelude", None)  # CoqEnv's; None (or an env without one) = the default
    prelude = DEFAULT_PRELUDE if prelude is None else prelude
    return f"{_coq_version()}\n{prelude}"


# ---- partial loads ---------------------------------------------------------------------------

def _read_partial(path: Path, key: str) -> dict[str, list[SourceProblem]]:
    """Targets finished by an interrupted load. A torn last line is ignored (`skip_torn_last`: the
    file is rewritten whole before it is appended to, so only its last line can be torn); a file
    bad elsewhere, or of another key, starts the load over."""
    try:
        header, *rows = read_jsonl(path, on_bad=skip_torn_last, what="a partial-load line")
    except (OSError, ValueError):
        return {}
    if not isinstance(header, dict) or header.get("key") != key:
        return {}
    done: dict[str, list[SourceProblem]] = {}
    for row in rows:
        try:
            done[str(row["target"])] = [problem_from_dict(p) for p in row["problems"]]
        except (KeyError, TypeError):
            break
    return done


class PartialFile:
    """`<cache file>.partial` of a load that goes target by target: a `{"key"}` line, then one
    `{"target", "problems"}` line per finished target, appended and fsynced at once. `done` holds
    what an earlier, interrupted load of the same key finished; entering rewrites the file with just
    that (atomically, dropping a torn last line), `add` appends, `remove` deletes it once the load
    is cached."""

    def __init__(self, cache_file: Path, key: str) -> None:
        self.path = cache_file.with_name(cache_file.name + ".partial")
        self.key = key
        self.done = _read_partial(self.path, key)
        self._appender: Appender | None = None

    def __enter__(self) -> "PartialFile":
        lines = [json.dumps({"key": self.key}), *(self._line(t, p) for t, p in self.done.items())]
        write_atomic(self.path, "".join(line + "\n" for line in lines))
        self._appender = Appender(self.path)
        return self

    @staticmethod
    def _line(target: str, problems: Sequence[SourceProblem]) -> str:
        return json.dumps({"target": target, "problems": [problem_to_dict(p) for p in problems]})

    def add(self, target: str, problems: Sequence[SourceProblem]) -> None:
        if self._appender is None:
            raise ValueError(f"{self.path}: add() outside `with`")
        self._appender.write(self._line(target, problems))

    def __exit__(self, *exc: object) -> None:
        if self._appender is not None:
            self._appender.close()
            self._appender = None

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


__all__ = ["CACHE_FORMAT", "PartialFile", "cache_path", "env_fingerprint", "lookup", "problem_from_dict",
           "problem_to_dict", "read_cache", "theorem_from_dict", "theorem_to_dict", "write_cache"]
