"""Benchmark loaders: a directory of Coq `.v` problems, or JSONL in the community form.

Bundled benchmarks have short names (`minif2f-rocq-valid`, `minif2f-rocq-dev`, `minif2f-rocq-test`,
`minif2f-lean-valid`, `minif2f-lean-test`); any other argument is a path.

`minif2f-rocq-test` is 184 of the 244 problems of miniF2F-rocq's test split (the other 60 are
withheld for measurements made outside the project): measuring only, held out of every training
path by name and by statement (`held_out_problem_of`), like the dev subset.

The **dev subset** `minif2f-rocq-dev` — every 8th problem of miniF2F-rocq valid by name, starting
with the first (31 problems, 28 elaborate) — is for measuring only: no stage (pretraining,
self-play, TTRL, tuning) may train or tune on it. `is_dev_problem` is the one test every problem
source applies; `minif2f-rocq-train` is the other 213 valid problems, which later stages may use.
Of those, the **tune slice** `minif2f-rocq-tune` (every 8th train problem by name from the 5th,
27) is what a run may hold out (`iteration.hold_out`) to choose settings on problems it never
trained on; `minif2f-rocq-fit` is the train split without it (186).

A problem whose file cannot be parsed is kept as a `Problem` with an error, so an evaluation
reports it instead of crashing.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from lean_interface.api import EnvError, Theorem
from lean_interface.durable import BadLine, read_jsonl

#: the repository root (this file is lean_interface/problems/benchmarks.py)
REPO_ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = REPO_ROOT / "data"

#: Bundled benchmarks: name → (path, JSONL split filter or None).
BUNDLED: dict[str, tuple[Path, str | None]] = {
    "minif2f-rocq-valid": (DATA_DIR / "minif2f-rocq" / "valid", None),
    "minif2f-rocq-test": (DATA_DIR / "minif2f-rocq" / "test", None),
    "minif2f-lean-valid": (DATA_DIR / "minif2f-lean" / "minif2f.jsonl", "valid"),
    "minif2f-lean-test": (DATA_DIR / "minif2f-lean" / "minif2f.jsonl", "test"),
}


@dataclass(frozen=True)
class Problem:
    """One benchmark problem: its theorem, or why it could not be read."""

    name: str
    theorem: Theorem | None
    error: str = ""


#: the dev subset: every DEV_STRIDE-th valid problem by name (docs/ARCHITECTURE.md §Data)
DEV_STRIDE = 8
#: the tune slice: every TUNE_STRIDE-th train problem by name from the TUNE_OFFSET-th
TUNE_STRIDE, TUNE_OFFSET = 8, 4


@functools.cache
def _valid_names() -> tuple[str, ...]:
    """The valid split's problem names, sorted: what the dev subset and the tune slice stride over."""
    return tuple(sorted(path.stem for path in BUNDLED["minif2f-rocq-valid"][0].glob("*.v")))


@functools.cache
def dev_problem_names() -> frozenset[str]:
    """Names of the dev subset's problems."""
    return frozenset(_valid_names()[::DEV_STRIDE])


@functools.cache
def tune_problem_names() -> frozenset[str]:
    """Names of the tune slice (`minif2f-rocq-tune`, 27 problems): every 8th train problem by name
    from the 5th. A run that holds it out (`iteration.hold_out=[minif2f-rocq-tune]`) never trains
    on it, so its versions can be compared on competition problems they never saw — the
    measurement that settings are chosen on, since the dev subset may not be tuned on. Unlike the
    dev subset it is part of the train split: runs that do not hold it out train on it."""
    train = [name for name in _valid_names() if name not in dev_problem_names()]
    return frozenset(train[TUNE_OFFSET::TUNE_STRIDE])


#: subsets of the valid split: name → which of its problem names it keeps
_SUBSETS: dict[str, Callable[[str], bool]] = {
    "minif2f-rocq-dev": lambda name: name in dev_problem_names(),
    "minif2f-rocq-train": lambda name: name not in dev_problem_names(),
    "minif2f-rocq-tune": lambda name: name in tune_problem_names(),
    "minif2f-rocq-fit": lambda name: name not in dev_problem_names() and name not in tune_problem_names(),
}


def is_dev_problem(name: str) -> bool:
    """Whether `name` (a bare problem name or `benchmark/name`) is in the dev subset."""
    return name.rpartition("/")[2] in dev_problem_names()


def statement_without_name(statement: str) -> str:
    """A declaration without its keyword and name, whitespace-normalised: what two copies of one
    problem under different names share."""
    return " ".join(re.sub(r"^\s*\w+\s+[\w'.]+", "", statement).split())


@functools.cache
def _dev_statements() -> dict[str, str]:
    return {statement_without_name(p.theorem.statement): p.name for p in load_benchmark("minif2f-rocq-dev")
            if p.theorem is not None}


def dev_problem_of(name: str, theorem: Theorem | None = None) -> str | None:
    """The dev-subset problem that `name` / `theorem` is — by name, or by its statement under any
    other name — else None. Every path that trains (self-play sources, the driver, TTRL targets)
    applies it."""
    if is_dev_problem(name):
        return name.rpartition("/")[2]
    if theorem is None:
        return None
    return _dev_statements().get(statement_without_name(theorem.statement))


#: the suffixes the variant makers add to a target's name (`ttrl.variants`: `_v3`, `_sg2`, `_sg1_4`,
#: `_b5`, `_lm1`); a variant's name with them stripped is its target's
_VARIANT_SUFFIX = re.compile(r"_(?:v|sg|b|lm)\d+(?:_\d+)*$")


def base_problem_name(name: str) -> str:
    """The problem a name belongs to: `benchmark/` prefixes and variant suffixes stripped
    (`variants/aime_1983_p9_v3` → `aime_1983_p9`), so a variant is held out with its target."""
    base = name.rpartition("/")[2]
    while _VARIANT_SUFFIX.search(base):
        base = _VARIANT_SUFFIX.sub("", base)
    return base


@functools.cache
def minif2f_test_names() -> frozenset[str]:
    """Names of miniF2F's test split: the test rows of the bundled Lean file (all 244) and the
    bundled Coq test problems (184 of them, the same names). Never trained on, in any language."""
    lean = {problem.name for problem in load_benchmark("minif2f-lean-test")}
    return frozenset(lean | {problem.name for problem in load_benchmark("minif2f-rocq-test")})


@functools.cache
def _test_statements() -> dict[str, str]:
    return {statement_without_name(p.theorem.statement): p.name for p in load_benchmark("minif2f-rocq-test")
            if p.theorem is not None}


def test_problem_of(name: str, theorem: Theorem | None = None) -> str | None:
    """The miniF2F test problem that `name` / `theorem` is — by name (Lean or Coq test split), or
    by its statement under any other name (the bundled Coq test problems) — else None."""
    base = name.rpartition("/")[2]
    if base in minif2f_test_names():
        return base
    if theorem is None or theorem.language != "coq":
        return None
    return _test_statements().get(statement_without_name(theorem.statement))


def held_out_problem_of(name: str, theorem: Theorem | None = None) -> str | None:
    """Why a problem may not be trained on, else None: `"<name> (dev subset)"` for a dev problem
    by name or by statement (`dev_problem_of`), `"<name> (test split)"` for a miniF2F test problem
    by name or by statement (`test_problem_of`) — and the same for a variant of either (its name
    carries its target's, `base_problem_name`). Every path that trains applies it
    (docs/ARCHITECTURE.md §Data)."""
    base = base_problem_name(name)
    dev = dev_problem_of(base, theorem)
    if dev is not None:
        return f"{dev} (dev subset)"
    test = test_problem_of(base, theorem)
    if test is not None:
        return f"{test} (test split)"
    return None


def load_benchmark(spec: str) -> list[Problem]:
    """Problems of a bundled benchmark name, a `.v` directory, a single `.v` file or a `.jsonl` file.

    Raises ValueError (one line) when `spec` names nothing loadable.
    """
    if spec in _SUBSETS:
        return [p for p in load_benchmark("minif2f-rocq-valid") if _SUBSETS[spec](p.name)]
    split: str | None = None
    if spec in BUNDLED:
        path, split = BUNDLED[spec]
    else:
        path = Path(spec)
    if path.is_dir():
        files = sorted(path.glob("*.v"))
        if not files:
            raise ValueError(f"no .v files in benchmark directory {path}")
        return [_coq_problem(f) for f in files]
    if path.is_file() and path.suffix == ".v":
        return [_coq_problem(path)]
    if path.is_file() and path.suffix == ".jsonl":
        return _jsonl_problems(path, split)
    names = ", ".join(sorted([*BUNDLED, *_SUBSETS]))
    raise ValueError(f"benchmark {spec!r} is not a bundled name ({names}), a .v directory or a .jsonl file")


def find_problem(name: str) -> Problem:
    """A problem by name from the bundled benchmarks: `mathd_algebra_10` or `minif2f-rocq-valid/mathd_algebra_10`."""
    benchmark, _, problem_name = name.rpartition("/")
    candidates = [benchmark] if benchmark else list(BUNDLED)
    for bench in candidates:
        if bench not in BUNDLED:
            raise ValueError(f"unknown bundled benchmark {bench!r}")
        for problem in load_benchmark(bench):
            if problem.name == problem_name:
                return problem
    raise ValueError(f"no bundled problem named {name!r}")


def _coq_problem(path: Path) -> Problem:
    from lean_interface.coq.files import theorem_from_file

    try:
        return Problem(path.stem, theorem_from_file(path))
    except EnvError as error:
        return Problem(path.stem, None, str(error))


def _jsonl_problems(path: Path, split: str | None) -> list[Problem]:
    """The problems of a JSONL benchmark (rows of `split` only, unless None); a line that cannot be
    read is kept as an unreadable problem, so an eval reports it instead of losing it."""

    def problem(row: dict) -> Problem | None:
        if split is not None and row.get("split") != split:
            return None
        return Problem(row["name"], lean_theorem(row))

    def unreadable(line: BadLine) -> Problem:
        return Problem(f"{path.name}:{line.number}", None, f"unreadable record: {line.error}")

    problems = read_jsonl(path, problem, unreadable)
    if not problems:
        raise ValueError(f"no problems in {path}" + (f" for split {split!r}" if split else ""))
    return problems


def lean_theorem(row: dict) -> Theorem:
    """A Lean theorem from a community-form record (`formal_statement` ends in `:= by`)."""
    statement = row["formal_statement"].rstrip()
    for suffix in (":= by sorry", ":= by", ":= sorry"):
        if statement.endswith(suffix):
            statement = statement[: -len(suffix)].rstrip()
            break
    return Theorem(name=row["name"], header=row.get("header", ""), statement=statement, language="lean")
