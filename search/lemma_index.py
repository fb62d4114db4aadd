"""The library lemmas about miniF2F's function symbols, read once from Coq's `Search`.

Why (issue 39, item 5; docs/ARCHITECTURE.md §Lemma candidates): the policy forgot the stdlib's
lemma names, and the fixed list names none, so a goal about `sqrt` or `Nat.modulo` is searched
without `sqrt_sqrt` or `Nat.mod_mod`. This index is what `search.lemma_candidates` offers from.

How: one coqtop with the project's tactic prelude and `INDEX_HEADER` (the stdlib parts the train
split's headers import: Reals, ZArith, Arith, Znumtheory) runs `Search SYMBOL -is:Axiom
-is:Parameter -is:Conjecture.` for each symbol of `SYMBOLS`. `Set Printing Width 1000` (the
process preamble) puts each result on one line, `name: type`. A result is kept when its name is
a plain (possibly qualified) identifier outside `SKIPPED_MODULES` (typeclass instances of zify,
nothing a proof names) and its statement's conclusion is a relation (`=`, `<`, `<>`, `<->`, …):
predicates of analysis (`continuity_pt sqrt x`) or instance types are not goals of miniF2F's kind.
Axioms are excluded by `Search` itself; every stdlib lemma rests only on the axioms the env's audit
admits (`lean_interface.coq.axioms`), and `verify` still audits each proof.

The index is cached as JSON under `~/.cache/alphaprover/lemmas/`, keyed by the Coq version, the
prelude, the header, the symbol list and `FORMAT`: regenerable, never committed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import subprocess
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Iterable, Sequence

from lean_interface.coq.declaration import forall_parts
from lean_interface.coq.prelude import DEFAULT_PRELUDE, with_prelude
from lean_interface.coq.process import CoqProcess
from lean_interface.coq.text import SentenceError, split_sentences, top_level

log = logging.getLogger(__name__)

#: the function symbols miniF2F's statements use (read off the train split's statements)
SYMBOLS: tuple[str, ...] = (
    "sqrt", "Rsqr", "Rabs", "ln", "exp", "Rpower", "pow", "powerRZ", "sin", "cos", "tan", "PI", "INR", "IZR",
    "Rinv", "Rdiv", "Rmin", "Rmax", "up", "Int_part", "frac_part", "sum_f_R0", "Z.of_nat", "Z.to_nat",
    "Z.modulo", "Z.div", "Z.abs", "Z.gcd", "Z.pow", "Z.sqrt", "Z.divide", "Z.max", "Z.min", "Nat.modulo",
    "Nat.div", "Nat.gcd", "Nat.pow", "Nat.sqrt", "Nat.divide", "Nat.max", "Nat.min", "Nat.even", "Nat.odd",
    "Z.even", "Z.odd", "fact",
)
#: what the index environment imports beside the prelude: the stdlib parts the train headers load
INDEX_HEADER = "Require Import Reals ZArith Arith Znumtheory."
#: the cache's format version: bump it when `IndexedLemma` or the parsing changes
FORMAT = 2
#: modules whose results are typeclass instances or internals, never lemmas a proof names
SKIPPED_MODULES: tuple[str, ...] = ("ZifyInst.", "ZifyClasses.", "Zify.", "ZifyBool.", "ZifyN.", "ZifyComparison.")
_RESULT = re.compile(r"^([A-Za-z_][\w']*(?:\.[A-Za-z_][\w']*)*): (.+)$")
#: the relations a kept lemma's conclusion must contain at top level
RELATIONS: frozenset[str] = frozenset({"=", "<>", "<", "<=", ">", ">=", "<->", "/\\", "\\/", "~"})
_EQUATIONS: frozenset[str] = frozenset({"=", "<->"})


@dataclass(frozen=True)
class IndexedLemma:
    """One library lemma, as `Search` printed it.

    Fields:
      name:      the name as printed (short where the index environment imports it, else qualified).
      statement: the printed type, one line.
      symbols:   the `SYMBOLS` entries whose `Search` found it (a lemma is kept once).
      premises:  top-level `->` premises after the leading `forall`s.
      equation:  its conclusion is an equation or an iff (so it can be rewritten with).
      closed:    it has no leading `forall` (a fact `pose proof` can add as it is).
    """

    name: str
    statement: str
    symbols: tuple[str, ...]
    premises: int
    equation: bool
    closed: bool


def arrow_parts(body: str) -> list[str]:
    """`A -> B -> C` split at its top-level arrows (brackets respected by the project's scanner)."""
    parts, last = [], 0
    for token in top_level(body):
        if token.kind == "symbol" and token.text == "->":
            parts.append(body[last:token.start].strip())
            last = token.end
    parts.append(body[last:].strip())
    return parts


def relations(text: str) -> set[str]:
    """The relation symbols at top level of `text`, or inside one outer `( … )%scope` group."""
    found = {t.text for t in top_level(text) if t.kind == "symbol" and t.text in RELATIONS}
    stripped = text.strip()
    if not found and stripped.startswith("(") and re.search(r"\)%\w+$", stripped):
        inner = stripped[1:stripped.rindex(")")]
        found = {t.text for t in top_level(inner) if t.kind == "symbol" and t.text in RELATIONS}
    return found


def parse_result(line: str, symbol: str) -> IndexedLemma | None:
    """One `name: type` line of `Search` output as a lemma, or None when it is not one to offer."""
    match = _RESULT.match(line.strip())
    if not match or match.group(1).startswith(SKIPPED_MODULES):
        return None
    name, statement = match.group(1), match.group(2).strip()
    try:
        closed = forall_parts(statement) is None
        pieces = arrow_parts(strip_foralls(statement))
        found = relations(pieces[-1])
    except SentenceError:
        return None
    if not found:
        return None
    return IndexedLemma(name=name, statement=statement, symbols=(symbol,), premises=len(pieces) - 1,
                        equation=is_equation(found), closed=closed)


def strip_foralls(statement: str) -> str:
    """The statement without its leading `forall` binders."""
    while (parts := forall_parts(statement)) is not None:
        statement = parts[1]
    return statement


def is_equation(found: set[str]) -> bool:
    """Whether relations found by `relations` make an equation or iff (conjunctions of them too)."""
    return bool(found & _EQUATIONS) and not found - _EQUATIONS - {"/\\"}


def search_sentence(symbol: str) -> str:
    """The `Search` command for one symbol: axioms and parameters left out by Coq itself."""
    return f"Search {symbol} -is:Axiom -is:Parameter -is:Conjecture."


def coq_version(coqtop: str = "coqtop") -> str:
    """`coqtop -print-version` (e.g. `8.16.1 4.13.1`), the first part of the cache key."""
    return subprocess.run([coqtop, "-print-version"], capture_output=True, text=True, check=True,
                          timeout=60).stdout.strip()


def cache_key(version: str, prelude: str = DEFAULT_PRELUDE, header: str = INDEX_HEADER,
              symbols: Sequence[str] = SYMBOLS) -> str:
    """A short hash of everything the index depends on."""
    text = json.dumps([FORMAT, version, prelude, header, list(symbols)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def default_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/alphaprover/lemmas` (default `~/.cache/alphaprover/lemmas`)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "alphaprover" / "lemmas"


def build_index(symbols: Iterable[str] = SYMBOLS, prelude: str = DEFAULT_PRELUDE, header: str = INDEX_HEADER,
                coqtop: str = "coqtop") -> list[IndexedLemma]:
    """Run `Search` for each symbol in one coqtop; the lemmas in the order Coq printed them.
    A symbol the environment does not know (an error) contributes nothing."""
    process = CoqProcess(coqtop)
    try:
        for sentence in split_sentences(with_prelude(prelude, header)):
            reply = process.run(sentence.text, timeout=120.0)
            if reply.error:
                raise RuntimeError(f"the lemma index's environment fails at {sentence.text!r}: {reply.error}")
        lemmas: dict[str, IndexedLemma] = {}
        for symbol in symbols:
            reply = process.run(search_sentence(symbol), timeout=120.0)
            if reply.error:
                log.warning("lemma index: Search %s failed: %s", symbol, reply.error)
                continue
            for line in reply.output.splitlines():
                lemma = parse_result(line, symbol)
                if lemma is None:
                    continue
                known = lemmas.get(lemma.name)
                lemmas[lemma.name] = replace(known, symbols=(*known.symbols, symbol)) if known else lemma
        return list(lemmas.values())
    finally:
        process.close()


def load_index(cache_dir: Path | None = None, coqtop: str = "coqtop", prelude: str = DEFAULT_PRELUDE,
               symbols: Sequence[str] = SYMBOLS) -> list[IndexedLemma]:
    """The cached index for this Coq and prelude, built (and cached) when missing or unreadable."""
    directory = cache_dir or default_cache_dir()
    path = directory / f"index-{cache_key(coq_version(coqtop), prelude, INDEX_HEADER, symbols)}.json"
    if path.exists():
        try:
            return [IndexedLemma(**{**row, "symbols": tuple(row["symbols"])})
                    for row in json.loads(path.read_text(encoding="utf-8"))]
        except (ValueError, TypeError) as error:
            log.warning("lemma index %s unreadable (%s): rebuilding", path, error)
    started = time.monotonic()
    lemmas = build_index(symbols, prelude, INDEX_HEADER, coqtop)
    directory.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps([asdict(lemma) for lemma in lemmas]), encoding="utf-8")
    partial.replace(path)  # atomic: parallel workers never read half a file
    log.info("lemma index: %d lemmas for %d symbols in %.1f s -> %s", len(lemmas), len(symbols),
             time.monotonic() - started, path)
    return lemmas


__all__ = ["FORMAT", "INDEX_HEADER", "IndexedLemma", "SYMBOLS", "arrow_parts", "build_index", "cache_key",
           "coq_version", "default_cache_dir", "is_equation", "load_index", "parse_result", "relations",
           "search_sentence", "strip_foralls"]
