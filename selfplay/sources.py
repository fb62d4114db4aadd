"""Problem sources for self-play (docs/ARCHITECTURE.md §Self-play, §Data).

`load_source(spec, cache_dir)` turns one source spec into `SourceProblem`s:

  <benchmark>                   a bundled benchmark name (`minif2f-rocq-train`), a `.v` directory or
                                file, as `lean_interface.problems.benchmarks.load_benchmark` reads it. Ids
                                `<source>/<name>` (source = the name or the directory's last part);
                                problems that do not parse are skipped. Not cached (it is instant).
  stdlib:<root>[:<limit>]       lemmas of Coq's libraries, restated on their own
                                (`selfplay.library_lemmas`, `selfplay.library_checks`). `root` is
                                a directory (or one `.v` file) or an alias: `stdlib` (theories/, Init
                                excluded), `coquelicot`, `flocq`, `coqprime`, `bignums` (the roots of
                                `lean_interface.problems.libraries`). At most `limit` problems (default
                                DEFAULT_STDLIB_LIMIT). Ids `<source>/<file path below the library
                                root, without .v>/<lemma>` (source = the alias, else `stdlib`).
  variants:<inner>[:<n>]        `make_variants(theorem, n, env)` (default n:
                                DEFAULT_VARIANTS_PER_PROBLEM) for every problem of a benchmark spec
                                `inner`, one shared CoqEnv. Ids `variants/<target>_v<N>`, source
                                `variants`. Variants may be false: self-play's disproof attempts
                                handle that. The maker is passed in by the caller (`alphaprover
                                train` passes `ttrl.variants.variant_theorems`): self-play sits
                                below ttrl and imports nothing from it.
  factory:<jsonl>[:<limit>]     the TRAIN items of a problem-factory file (`alphaprover factory`,
                                `lean_interface.problems.factory.build.read_items`): held-out items
                                never load. At most `limit` (default: all), a spread-out subset in
                                file order (`spread_order`). Ids `factory/<name>`. Not cached (the
                                file is already elaborated and deduplicated by Coq).

The dev subset (`lean_interface.problems.benchmarks.dev_problem_of`: by name or by statement) never
gets in: a source that contains a dev problem is refused (ValueError), and variants are never made
of a dev problem (the inner source is refused the same way). Within one load, problems are deduplicated by statement:
the statement without its name, with its header, for benchmark and variant sources; Coq's printed
root goal for library lemmas. A bad spec is a one-line ValueError.

`load_all` loads several specs and deduplicates across them (by id and by statement). stdlib and
variants loads are cached under `cache_dir` (`selfplay.source_cache`; a second load is a file
read, an interrupted variants load resumes). This module reads benchmark sources, makes variant
sources and dispatches; library lemmas are `selfplay.library_lemmas` (which lemmas,
with which header) and `selfplay.library_checks` (the Coq checks, the `stdlib:` source); specs are
parsed by `selfplay.source_spec`. Their public names, and the cache's, are re-exported here for
callers of the one-module API.
"""

from __future__ import annotations

import json
import logging
import os
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Iterable, Protocol, Sequence

from lean_interface.api import EnvError, ProofEnv, Theorem
from lean_interface.coq.declaration import parse_declaration
from lean_interface.coq.env import given_or_new
from lean_interface.problems.benchmarks import Problem, held_out_problem_of, load_benchmark
from lean_interface.problems.factory.build import read_items
from lean_interface.problems.factory.family import TRAIN
from selfplay.actor import SourceProblem
from selfplay.library_checks import (CHECK_NAME, MIN_ROUND, StdlibStats, require_alternatives, select_library_problems,
                                     spread_order, stdlib_source)
from selfplay.library_lemmas import (ALIASES, LEMMA_KEYWORDS, Candidate, LibraryLemma, definitions, is_require,
                                     library_candidates, library_lemmas, mentions)
from selfplay.source_cache import (CACHE_FORMAT, PartialFile, cache_path, env_fingerprint, lookup, problem_from_dict,
                                   problem_to_dict, read_cache, theorem_from_dict, theorem_to_dict, write_cache)
from selfplay.source_spec import DEFAULT_STDLIB_LIMIT, DEFAULT_VARIANTS_PER_PROBLEM, SourceSpec, parse_spec

log = logging.getLogger(__name__)

#: where `alphaprover train` caches loads unless ALPHAPROVER_SOURCES_CACHE says otherwise
DEFAULT_CACHE_DIR = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "alphaprover" / "sources"


# ---- deduplication ---------------------------------------------------------------------------

def statement_key(theorem: Theorem) -> str:
    """What makes two problems the same without Coq: the header and the statement minus its name."""
    try:
        declaration = parse_declaration(theorem.statement)
        body = f"{declaration.binders} : {declaration.type}"
    except ValueError:
        body = theorem.statement
    return f"{' '.join(theorem.header.split())}\n{' '.join(body.split())}"


# ---- benchmark sources -----------------------------------------------------------------------

def _benchmark_problems(spec: str, purpose: str = "") -> list[Problem]:
    """`load_benchmark(spec)`, refusing (ValueError) any source with a dev-subset problem."""
    try:
        loaded = load_benchmark(spec)
    except ValueError as error:
        if Path(spec).exists():
            raise
        raise ValueError(f"{error}; other source specs: stdlib:<root>[:<limit>], variants:<spec>[:<n>], "
                         "factory:<jsonl>[:<limit>]") from None
    held_out = [reason for p in loaded if (reason := held_out_problem_of(p.name, p.theorem))]
    if held_out:
        raise ValueError(f"source {spec} contains dev-subset or test-split problems ({', '.join(held_out[:3])}); "
                         f"the dev subset is for measuring only and the test split is held out{purpose}")
    return loaded


def _dedup(problems: Iterable[tuple[SourceProblem, str]]) -> list[SourceProblem]:
    seen_ids: set[str] = set()
    seen_keys: set[str] = set()
    out = []
    for problem, key in problems:
        if problem.id in seen_ids or key in seen_keys:
            continue
        seen_ids.add(problem.id)
        seen_keys.add(key)
        out.append(problem)
    return out


def benchmark_source(spec: SourceSpec) -> list[SourceProblem]:
    loaded = _benchmark_problems(spec.target)
    return _dedup((SourceProblem(f"{spec.source}/{p.name}", spec.source, p.theorem), statement_key(p.theorem))
                  for p in loaded if p.theorem is not None)


# ---- the problem factory ---------------------------------------------------------------------

def factory_source(spec: SourceSpec) -> list[SourceProblem]:
    """The train items of a factory file (module docstring); ValueError on a missing or malformed
    file, a file with no train item, or an item that states a dev-subset problem."""
    items = read_items(Path(spec.target), split=TRAIN)
    if not items:
        raise ValueError(f"factory source {spec.target}: no train items")
    held_out = [reason for item in items if (reason := held_out_problem_of(item.name, item.theorem()))]
    if held_out:
        raise ValueError(f"factory source {spec.target} states dev-subset or test-split problems "
                         f"({', '.join(held_out[:3])}); the dev subset is for measuring only and the test split is held out")
    chosen = sorted(spread_order(len(items))[:spec.count]) if spec.count else range(len(items))
    return _dedup((SourceProblem(f"factory/{items[i].name}", "factory", items[i].theorem()),
                   statement_key(items[i].theorem())) for i in chosen)


# ---- variants --------------------------------------------------------------------------------

class VariantMaker(Protocol):
    """Makes at most `max_variants` variant theorems of `target`, elaborating them in `env` (a
    CoqEnv); raises EnvError when the target itself does not elaborate."""

    def __call__(self, target: Theorem, max_variants: int, env: ProofEnv) -> Sequence[Theorem]: ...


def variants_source(spec: SourceSpec, cache_dir: Path | None, env: ProofEnv | None = None,
                    raw_spec: str = "", make_variants: VariantMaker | None = None) -> list[SourceProblem]:
    """The problems of a parsed `variants:` spec (module docstring), from the cache when it holds
    this load; an interrupted load resumes from its `PartialFile`. A load the cache does not hold
    needs `make_variants` (else ValueError, one line)."""
    loaded = _benchmark_problems(spec.target, "; variants are never made of a dev problem")
    targets = [p for p in loaded if p.theorem is not None]
    if any(p.theorem.language != "coq" for p in targets):
        raise ValueError(f"variants source {spec.target}: variants are made of Coq problems only")
    if not targets:
        raise ValueError(f"variants source {spec.target}: no problem parses")
    texts = [[p.name, p.theorem.header, p.theorem.statement] for p in targets]  # type: ignore[union-attr]
    key = json.dumps({"kind": "variants", "per_problem": spec.count, "env": env_fingerprint(env), "targets": texts},
                     sort_keys=True)
    raw_spec = raw_spec or f"variants:{spec.target}:{spec.count}"
    path, cached = lookup(cache_dir, raw_spec, key)
    if cached is not None:
        return cached
    if make_variants is None:
        raise ValueError(f"source {raw_spec}: not cached, and no variant maker was given to make it")
    partial = PartialFile(path, key) if path is not None else None
    started = time.monotonic()
    made: list[tuple[SourceProblem, str]] = []
    with partial if partial is not None else nullcontext(), given_or_new(env) as coq:
        for problem in targets:
            theorem = problem.theorem
            assert theorem is not None
            if partial is not None and problem.name in partial.done:
                ours = partial.done[problem.name]
            else:
                try:
                    variants = make_variants(theorem, spec.count, coq)
                except EnvError as error:
                    log.info("no variants of %s: %s", problem.name, str(error)[:200])
                    variants = []
                ours = [SourceProblem(f"variants/{v.name}", "variants", v) for v in variants]
                if partial is not None:
                    partial.add(problem.name, ours)
            # a variant that happens to state a held-out problem (by statement) is dropped, not trained on
            made.extend((p, statement_key(p.theorem)) for p in ours if not held_out_problem_of(p.id, p.theorem))
    problems = _dedup(made)
    if path is not None:
        write_cache(path, key, raw_spec, problems, targets=len(targets),
                    seconds=round(time.monotonic() - started, 1))
        partial.remove()  # type: ignore[union-attr]
    return problems


# ---- entry points ----------------------------------------------------------------------------

def load_source(spec: str, cache_dir: Path | None, env: ProofEnv | None = None,
                make_variants: VariantMaker | None = None) -> list[SourceProblem]:
    """The problems of one source spec (module docstring). `cache_dir` None = no cache. `env` is a
    CoqEnv to reuse for the Coq checks (one is opened and closed otherwise); `make_variants` makes
    the problems of a `variants:` spec. Raises ValueError (one line) on a bad spec, a missing path,
    a dev-subset problem, a variants spec without a maker; EnvError when Coq cannot run."""
    parsed = parse_spec(spec)
    if parsed.kind == "stdlib":
        return stdlib_source(parsed, cache_dir, env, spec.strip())
    if parsed.kind == "variants":
        return variants_source(parsed, cache_dir, env, spec.strip(), make_variants)
    if parsed.kind == "factory":
        return factory_source(parsed)
    return benchmark_source(parsed)


def default_cache_dir() -> Path:
    return Path(os.environ.get("ALPHAPROVER_SOURCES_CACHE") or DEFAULT_CACHE_DIR)


def load_all(specs: Sequence[str], cache_dir: Path | None = None,
             make_variants: VariantMaker | None = None) -> list[SourceProblem]:
    """Every spec's problems, in order, deduplicated across specs (by id and by statement key);
    `make_variants` as for `load_source`."""
    problems: list[tuple[SourceProblem, str]] = []
    for spec in specs:
        problems.extend((p, statement_key(p.theorem)) for p in load_source(spec, cache_dir,
                                                                           make_variants=make_variants))
    return _dedup(problems)


__all__ = ["ALIASES", "CACHE_FORMAT", "CHECK_NAME", "Candidate", "DEFAULT_CACHE_DIR", "DEFAULT_STDLIB_LIMIT",
           "DEFAULT_VARIANTS_PER_PROBLEM", "LEMMA_KEYWORDS", "LibraryLemma", "MIN_ROUND", "SourceSpec", "StdlibStats",
           "VariantMaker", "benchmark_source", "cache_path", "default_cache_dir", "definitions", "factory_source",
           "is_require", "library_candidates", "library_lemmas", "load_all", "load_source", "mentions", "parse_spec",
           "problem_from_dict", "problem_to_dict", "read_cache", "require_alternatives", "select_library_problems",
           "spread_order", "statement_key", "stdlib_source", "theorem_from_dict", "theorem_to_dict", "variants_source",
           "write_cache"]
