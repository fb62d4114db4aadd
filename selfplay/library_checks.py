"""Coq checks of library-lemma candidates, and the `stdlib:<root>[:<limit>]` source built on them.

`selfplay.library_lemmas` proposes candidates from the text alone; text cannot tell whether a
statement still elaborates outside its file, is already in scope, or is a proposition at all, so
every candidate is checked with real Coq, in one CoqEnv (project prelude, as actors
run it), grouped by file so a header loads once: the header must load (a sentence that fails is
dropped and the rest kept, e.g. an `Open Scope` of a scope the file declares; a `Require A B` that
fails is retried as `From <library> Require A B`, then module by module, because a user-contrib
library's files name their siblings relative to the library's own root); the header's
`Require`s must pass the kernel axiom audit (`CoqEnv.verify` of `True` under them: a problem
whose environment carries an axiom off the allow-list could never be reported proved); the
statement must elaborate; `exact <its own name>` must NOT close it (else the lemma, or one of the
same name, is re-exported by an import or the prelude and the problem is trivial); and its negation
(`selfplay.negation.negate`) must elaborate too: the statement is a proposition (not a `{x | P}` or
`{A} + {B}` computation) that self-play can also try to disprove. `limit`
keeps a deterministic spread-out subset: candidates are taken in bit-reversal order of their
position (any prefix of it is evenly spread over the files), checked in rounds until `limit`
passed, and returned in file order. Problems are deduplicated by Coq's printed root goal, and a
load is cached (`selfplay.source_cache`).

Known limits: the lemma's own module may still be *loaded*, or re-exported by another import (a
`Require Export` chain, or the prelude: Lia loads `Coq.Arith.Plus`), so a qualified name
(`exact Plus.plus_comm`) or a same-statement lemma under another name (`Nat.add_comm`) can close
the problem; only the short own name is checked. Other in-file commands that change how a statement
reads (`Arguments`, `Coercion`, `Set`/`Unset` options, `Bind Scope`) are not carried over: a
statement that depends on one fails to elaborate (dropped) or, rarely, states something else.
Measured (Coq 8.16.1, 2 cores shared with a training job), whole roots: theories/Arith 30 of 46
candidates (7 s; the other 16 are `{..}+{..}` computations); flocq 165/182 (22 s); coquelicot
216/251 (70 s); coqprime 82/98 (57 s); bignums 0/25 (every header loads Int63 primitives, whose
axioms the audit refuses). `stdlib:stdlib:40`: 40 of the first 56 checked (67 s; 2049 candidates
in 547 files, 159 distinct headers).
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from lean_interface.api import EnvError, ProofEnv, Theorem
from lean_interface.coq.env import given_or_new
from lean_interface.coq.process import CoqDied
from lean_interface.problems.libraries import DEFAULT_EXCLUDE
from selfplay.actor import SourceProblem
from selfplay.library_lemmas import ALIASES, Candidate, is_require, library_candidates
from selfplay.negation import negate
from selfplay.source_cache import env_fingerprint, lookup, write_cache
from selfplay.source_spec import SourceSpec

log = logging.getLogger(__name__)

#: the fewest candidates a checking round takes (fewer, cheaper rounds near the end)
MIN_ROUND = 16
#: the name the header checks declare (`Theorem <CHECK_NAME> : True.`)
CHECK_NAME = "alphaprover_source_check"


@dataclass
class StdlibStats:
    """What happened to the candidates of one stdlib load (stored in the cache's first line)."""

    files: int = 0
    candidates: int = 0
    checked: int = 0
    axioms_refused: int = 0
    not_elaborating: int = 0
    closed_by_own_name: int = 0
    not_a_proposition: int = 0
    duplicates: int = 0
    kept: int = 0
    header_sentences_dropped: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


# ---- checks ----------------------------------------------------------------------------------

_PLAIN_REQUIRE = re.compile(r"^Require\s+(?:(Import|Export)\s+)?(.+)\.$", re.DOTALL)


def require_alternatives(sentence: str, library: str | None) -> tuple[str | None, list[list[str]]]:
    """What to try instead of a header sentence that failed. For `Require [Import|Export] A B C.`
    without `From`: first the whole sentence as `From <library> Require … A B C.` (None when there
    is no library or one module), else per module the options `Require … A.` and `From <library>
    Require … A.`. Anything else has no alternative: (None, [])."""
    match = _PLAIN_REQUIRE.match(sentence)
    if not match:
        return None, []
    mode = f"{match.group(1)} " if match.group(1) else ""
    modules = match.group(2).split()
    whole = f"From {library} {sentence}" if library and len(modules) > 1 else None
    per_module = []
    for module in modules:
        options = [f"Require {mode}{module}."] if len(modules) > 1 else []
        if library:
            options.append(f"From {library} Require {mode}{module}.")
        if options:
            per_module.append(options)
    return whole, per_module


class _Checker:
    """Coq checks of library candidates in one env, with per-header and per-audit memos."""

    def __init__(self, env: ProofEnv, stats: StdlibStats) -> None:
        self.env = env
        self.stats = stats
        self.headers: dict[tuple[str, ...], tuple[str, ...]] = {}
        self.audits: dict[tuple[str, ...], bool] = {}

    def _loads(self, sentences: tuple[str, ...]) -> bool:
        try:
            self.env.start(Theorem(CHECK_NAME, "\n".join(sentences), f"Theorem {CHECK_NAME} : True."))
            return True
        except (EnvError, CoqDied):
            return False

    def header(self, sentences: tuple[str, ...], library: str | None = None) -> tuple[str, ...]:
        """`sentences` minus those that fail to load, each tried after the good ones before it. A
        failing `Require` of several modules is retried module by module, each also as `From
        <library> Require …` (a library's files name their siblings relative to its own root)."""
        key = (sentences, library)
        if key in self.headers:
            return self.headers[key]
        if not sentences or self._loads(sentences):
            result = sentences
        else:
            base = self.header(sentences[:-1], library)
            last = sentences[-1]
            if base != sentences[:-1] and self._loads(base + (last,)):
                result = base + (last,)
            else:
                result = base
                whole, per_module = require_alternatives(last, library)
                if whole is not None and self._loads(result + (whole,)):
                    result += (whole,)
                    per_module = []
                elif whole is None and not per_module:
                    self.stats.header_sentences_dropped += 1
                    log.info("header sentence dropped: %s", last[:120])
                for options in per_module:
                    for option in options:
                        if self._loads(result + (option,)):
                            result += (option,)
                            break
                    else:
                        self.stats.header_sentences_dropped += 1
                        log.info("header sentence dropped: %s", options[0][:120])
        self.headers[key] = result
        return result

    def audit(self, header: tuple[str, ...]) -> bool:
        """The axiom audit of the environment the header's `Require`s build (with the prelude)."""
        requires = tuple(s for s in header if is_require(s))
        if requires not in self.audits:
            theorem = Theorem(CHECK_NAME, "\n".join(requires), f"Theorem {CHECK_NAME} : True.")
            verdict = self.env.verify(theorem, "exact I.")
            if not verdict.ok:
                log.info("axiom audit refuses %s: %s", " ".join(requires)[:200], verdict.message[:200])
            self.audits[requires] = verdict.ok
        return self.audits[requires]

    def check(self, candidate: Candidate, source: str) -> tuple[SourceProblem, str] | None:
        """The problem and its dedup key (Coq's printed root goal), or None when it does not pass."""
        self.stats.checked += 1
        lemma = candidate.lemma
        header = self.header(lemma.header, candidate.library)
        if not self.audit(header):
            self.stats.axioms_refused += 1
            return None
        theorem = Theorem(lemma.name, "\n".join(header), lemma.statement)
        try:
            root = self.env.start(theorem)
        except (EnvError, CoqDied):
            self.stats.not_elaborating += 1
            return None
        if self.env.apply(root, f"exact {lemma.name}").closed:
            self.stats.closed_by_own_name += 1
            return None
        try:
            self.env.start(negate(theorem))
        except (EnvError, CoqDied, ValueError):
            self.stats.not_a_proposition += 1
            return None
        return SourceProblem(candidate.id, source, theorem), " ".join(root.text.split())


# ---- a spread-out subset ---------------------------------------------------------------------

def spread_order(n: int) -> list[int]:
    """0..n-1 in bit-reversal order: every prefix is spread evenly over the range (the first 2^j are
    the multiples of 2^(bits-j)), so `limit` candidates come from all over the library."""
    if n <= 1:
        return list(range(n))
    bits = (n - 1).bit_length()
    return sorted(range(n), key=lambda i: int(format(i, f"0{bits}b")[::-1], 2))


def select_library_problems(candidates: Sequence[Candidate], limit: int, check) -> tuple[list[SourceProblem], int]:
    """The first `limit` distinct passing candidates in `spread_order`, returned in file order, and
    the number of duplicates skipped. `check(candidate)` → (problem, key) or None. Candidates are
    checked in rounds, each the next stretch of the spread order (sized by the pass rate so far),
    checked in file order so a header loads once per round; the checked ones always form a prefix
    of the spread order, so the result does not depend on how the rounds fell."""
    order = spread_order(len(candidates))
    results: dict[int, tuple[SourceProblem, str] | None] = {}
    position = 0
    while position < len(order):
        kept, _ = _first_unique(order[:position], results, limit)
        need = limit - len(kept)
        if need <= 0:
            break
        # take enough for `need` at the pass rate seen so far (fewer rounds: each reloads headers)
        rate = max(len(kept) / position, 0.1) if position else 1.0
        batch = order[position:position + max(math.ceil(need / rate), MIN_ROUND)]
        position += len(batch)
        for index in sorted(batch):
            results[index] = check(candidates[index])
        log.info("library lemmas: %d of %d candidates checked, %d pass", position, len(order),
                 sum(r is not None for r in results.values()))
    kept, duplicates = _first_unique(order[:position], results, limit)
    return [results[i][0] for i in sorted(kept)], duplicates  # type: ignore[index]


def _first_unique(order: Sequence[int], results: dict, limit: int) -> tuple[list[int], int]:
    seen: set[str] = set()
    kept: list[int] = []
    duplicates = 0
    for index in order:
        if len(kept) >= limit:
            break
        result = results.get(index)
        if result is None:
            continue
        if result[1] in seen:
            duplicates += 1
            continue
        seen.add(result[1])
        kept.append(index)
    return kept, duplicates


# ---- the source ------------------------------------------------------------------------------

def stdlib_source(spec: SourceSpec, cache_dir: Path | None, env: ProofEnv | None = None,
                  raw_spec: str = "") -> list[SourceProblem]:
    """The problems of a parsed `stdlib:` spec (module docstring; `selfplay.sources.load_source`), from
    the cache when it holds this load. `env` is a CoqEnv to reuse (else one is opened and closed)."""
    root = Path(spec.target)
    if not root.exists():
        raise ValueError(f"stdlib source root {root} does not exist")
    if root.is_file() and root.suffix != ".v":
        raise ValueError(f"stdlib source root {root} is neither a directory nor a .v file")
    exclude = DEFAULT_EXCLUDE if spec.source == "stdlib" and root == Path(ALIASES["stdlib"]) else ()
    key = json.dumps({"kind": "stdlib", "root": str(root), "source": spec.source, "limit": spec.count,
                      "exclude": list(exclude), "env": env_fingerprint(env)}, sort_keys=True)
    raw_spec = raw_spec or f"stdlib:{root}:{spec.count}"
    path, cached = lookup(cache_dir, raw_spec, key)
    if cached is not None:
        return cached
    started = time.monotonic()
    stats = StdlibStats()
    candidates, stats.files = library_candidates(root, spec.source, exclude)
    stats.candidates = len(candidates)
    if not candidates:
        raise ValueError(f"no lemma candidates in .v files under {root}")
    log.info("%s: %d candidate lemmas in %d files", raw_spec, len(candidates), stats.files)
    with given_or_new(env) as coq:
        checker = _Checker(coq, stats)
        problems, stats.duplicates = select_library_problems(candidates, spec.count,
                                                             lambda c: checker.check(c, spec.source))
    stats.kept = len(problems)
    stats.seconds = round(time.monotonic() - started, 1)
    log.info("%s: %s", raw_spec, stats.as_dict())
    if path is not None:
        write_cache(path, key, raw_spec, problems, stats=stats.as_dict())
    return problems


__all__ = ["CHECK_NAME", "MIN_ROUND", "StdlibStats", "require_alternatives", "select_library_problems",
           "spread_order", "stdlib_source"]
