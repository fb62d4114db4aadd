"""Source specs: the text a run config names a problem source by, parsed (docs/ARCHITECTURE.md §Self-play).

`parse_spec` reads the four forms `selfplay.sources` documents (`<benchmark>`, `stdlib:<root>[:<limit>]`,
`variants:<inner>[:<n>]`, `factory:<jsonl>[:<limit>]`) into a `SourceSpec`. The loaders of each
kind (`selfplay.sources`, `selfplay.library_checks`) take a parsed spec, so the spec lives below
both of them and neither imports the other for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from selfplay.library_lemmas import ALIASES

DEFAULT_STDLIB_LIMIT = 500
DEFAULT_VARIANTS_PER_PROBLEM = 8

_STDLIB_PREFIX = "stdlib:"
_VARIANTS_PREFIX = "variants:"
_FACTORY_PREFIX = "factory:"


@dataclass(frozen=True)
class SourceSpec:
    """A parsed source spec.

    Fields:
      kind:   `benchmark`, `stdlib` or `variants`.
      target: the benchmark spec (benchmark, variants) or the library root directory / file (stdlib).
      source: the source name in ids (`minif2f-rocq-train`, `stdlib`, `flocq`, `variants`).
      count:  stdlib: the limit; variants: variants per problem; factory: the limit (0: all);
              benchmark: 0.
    """

    kind: str
    target: str
    source: str
    count: int = 0


def _split_count(rest: str, default: int, spec: str) -> tuple[str, int]:
    head, sep, tail = rest.rpartition(":")
    if sep and tail.strip().isdigit():
        count = int(tail)
        if count < 1:
            raise ValueError(f"source spec {spec!r}: the count must be at least 1")
        return head, count
    return rest, default


def parse_spec(spec: str) -> SourceSpec:
    """`stdlib:<root>[:<limit>]`, `variants:<inner>[:<per_problem>]`, `factory:<jsonl>[:<limit>]`,
    else a benchmark spec.
    Raises ValueError (one line) on a malformed spec (existence is checked when loading)."""
    spec = spec.strip()
    if not spec:
        raise ValueError("empty source spec")
    if spec.startswith(_STDLIB_PREFIX):
        root, limit = _split_count(spec[len(_STDLIB_PREFIX):], DEFAULT_STDLIB_LIMIT, spec)
        root = root.strip()
        if not root:
            raise ValueError(f"source spec {spec!r}: expected stdlib:<root>[:<limit>], root a directory or one of "
                             f"{', '.join(ALIASES)}")
        if root in ALIASES:
            return SourceSpec("stdlib", ALIASES[root], root, limit)
        return SourceSpec("stdlib", str(Path(root).expanduser().resolve()), "stdlib", limit)
    if spec.startswith(_VARIANTS_PREFIX):
        inner, per_problem = _split_count(spec[len(_VARIANTS_PREFIX):], DEFAULT_VARIANTS_PER_PROBLEM, spec)
        inner = inner.strip()
        if not inner:
            raise ValueError(f"source spec {spec!r}: expected variants:<benchmark or .v directory>[:<per_problem>]")
        if inner.startswith((_STDLIB_PREFIX, _VARIANTS_PREFIX)):
            raise ValueError(f"source spec {spec!r}: variants are made of a benchmark or a .v directory only")
        return SourceSpec("variants", inner, "variants", per_problem)
    if spec.startswith(_FACTORY_PREFIX):
        path, limit = _split_count(spec[len(_FACTORY_PREFIX):], 0, spec)
        if not path.strip():
            raise ValueError(f"source spec {spec!r}: expected factory:<factory .jsonl file>[:<limit>]")
        return SourceSpec("factory", str(Path(path.strip()).expanduser()), "factory", limit)
    return SourceSpec("benchmark", spec, Path(spec).name or spec)


__all__ = ["DEFAULT_STDLIB_LIMIT", "DEFAULT_VARIANTS_PER_PROBLEM", "SourceSpec", "parse_spec"]
