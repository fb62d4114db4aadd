"""What `alphaprover train` mixes, built when missing and loaded (docs/ARCHITECTURE.md §Expert iteration).

A run mixes five inputs: the problem factory (`factory:` sources), its script demonstrations and
the committed loop-proof ledger's scripts replayed into records (`supervised_file`: what earlier
loops proved on the train split, so a run on a fresh machine starts from them rather than
searching its way back), the stdlib records of `alphaprover extract` (`library_file`: a
`learner.library_fraction` of every batch, so the policy keeps the library's lemma names), and
the train split with its variants (`sources`). On a fresh clone none of the generated files
exists: each one at its default path (`FACTORY_BUILDS`, `SCRIPT_BUILDS`, the extraction, the
ledger's records) is built here the first time a run needs it, as `alphaprover factory [families=…]`
/ `alphaprover factory reuse=true scripts=… [families=…]` / `alphaprover extract` /
`alphaprover eval-proofs LEDGER OUT` would build it (minutes each; printed before it starts; the
extraction beside the factory builds). The ledger's records are rebuilt when the ledger is newer
than them (a session's export added rows). A missing file at any other path is the user's own
name for it: a usage error that says how to build it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from alphaprover.config import UsageError
from selfplay.episode import TrainingRecord

#: where `alphaprover factory` writes by default
DEFAULT_FACTORY = Path("data/factory/factory.jsonl")
#: where the factory's script demonstrations go by default
DEFAULT_SCRIPTS = Path("data/factory/scripts.jsonl")
#: the distinct_roots family built on its own: a second `factory:` source, so the plan draws it more
DEFAULT_ROOTS = Path("data/factory/roots.jsonl")
#: the script demonstrations of `DEFAULT_ROOTS`
DEFAULT_ROOTS_SCRIPTS = Path("data/factory/roots-scripts.jsonl")
#: the script demonstrations of `FOCUS_FAMILIES` alone, for a mix that counts them more than once
DEFAULT_FOCUS_SCRIPTS = Path("data/factory/focus-scripts.jsonl")
#: the families written for competition shapes the train split needs (docs/ARCHITECTURE.md §Data):
#: runs 18–20 count their scripts five times (`…/scripts.jsonl,…/focus-scripts.jsonl*4`)
FOCUS_FAMILIES = ("complex_arith", "guarded_rewrite", "identity_points", "local_definition", "bounded_cases",
                  "witness_compute")
#: each factory file a run may name at its default path, and the families built into it (empty: all)
FACTORY_BUILDS: dict[Path, tuple[str, ...]] = {DEFAULT_FACTORY: (), DEFAULT_ROOTS: ("distinct_roots",)}
#: each script file at its default path: the factory file whose train items it replays, and the
#: families kept (empty: all)
SCRIPT_BUILDS: dict[Path, tuple[Path, tuple[str, ...]]] = {
    DEFAULT_SCRIPTS: (DEFAULT_FACTORY, ()),
    DEFAULT_ROOTS_SCRIPTS: (DEFAULT_ROOTS, ()),
    DEFAULT_FOCUS_SCRIPTS: (DEFAULT_FACTORY, FOCUS_FAMILIES),
}
#: where `alphaprover extract` writes its train records by default
DEFAULT_EXTRACTED = Path("data/extracted/train.jsonl")
#: the committed loop-proof ledger: the train problems earlier loops proved, with their scripts
DEFAULT_LEDGER = Path("data/loop-proofs/minif2f-rocq-train.jsonl")
#: the ledger's scripts replayed in Coq into learner records (`alphaprover eval-proofs LEDGER OUT`)
DEFAULT_LEDGER_RECORDS = Path("data/loop-proofs/records.jsonl")
#: the committed written proofs of train problems no search had proved (data/README.md), same row format
DEFAULT_WRITTEN = Path("data/written-proofs/minif2f-rocq-train.jsonl")
#: the written proofs replayed into learner records
DEFAULT_WRITTEN_RECORDS = Path("data/written-proofs/records.jsonl")
#: each replayed-records file at its default path and the committed proof file it is replayed from
PROOF_RECORD_BUILDS: dict[Path, Path] = {DEFAULT_LEDGER_RECORDS: DEFAULT_LEDGER, DEFAULT_WRITTEN_RECORDS: DEFAULT_WRITTEN}
#: the record source of library records in learner batches
LIBRARY_SOURCE = "library"


def supervised_parts(spec: str) -> list[tuple[Path, int]]:
    """(file, times) of each part of a `supervised_file` spec: comma-separated `file` or `file*N`
    (N ≥ 1: the file's records count N times; `networks.dataset.weighted_files`, the one parser of
    this syntax); a bad N is a usage error."""
    from networks.dataset import weighted_files

    try:
        return weighted_files(spec)
    except ValueError as error:
        raise UsageError(f"supervised {error}") from None


def supervised_paths(spec: str) -> list[Path]:
    """The files of a `supervised_file` spec."""
    return [path for path, _ in supervised_parts(spec)]


def read_records(file: Path, source: str, keep: Callable[[str], bool] = lambda source_file: True,
                 keep_lemma: Callable[[str], bool] | None = None) -> list[TrainingRecord]:
    """The (goal, tactic, steps) records of `file` as learner records of `source`, ssreflect
    tactics dropped (they cannot run in plain-Coq problems), only those whose source file `keep`
    accepts and whose problem `keep_lemma` accepts (a run's `iteration.hold_out`); a malformed
    file is a usage error."""
    from networks.dataset import is_ssreflect_tactic, read_examples

    try:
        examples = read_examples(file, keep_lemma)
    except ValueError as error:
        raise UsageError(str(error)) from None
    return [TrainingRecord(e.goal, e.tactic, e.steps, source) for e in examples
            if keep(e.source) and not is_ssreflect_tactic(e.tactic)]


def ensure_factory(files: Sequence[Path]) -> None:
    """Build each factory file a source names that is missing at a default path
    (`FACTORY_BUILDS`); a missing file at any other path is a usage error (the user named it)."""
    _check_user_named(files)
    for path in files:
        if path.is_file():
            continue
        print(f"{path} not found: building it first (alphaprover factory, a few minutes)")
        from alphaprover.config import load_config
        from alphaprover.factory_cmd import run_factory

        run_factory(load_config("factory", [f"out={path}", *_families_override(FACTORY_BUILDS[path])]))


def _families_override(families: Sequence[str]) -> list[str]:
    """The `alphaprover factory` override that names `families` (none for all of them)."""
    return [f"families=[{','.join(families)}]"] if families else []


def _check_user_named(files: Sequence[Path]) -> None:
    for path in files:
        if not path.is_file() and path not in FACTORY_BUILDS:
            raise UsageError(f"factory file {path} not found (build it with `alphaprover factory out={path}`)")


def _build_scripts(path: Path) -> None:
    """Replay the train items' scripts of `path`'s factory file (the families `SCRIPT_BUILDS`
    keeps) into `path`, the factory file built first when it is missing too."""
    factory, families = SCRIPT_BUILDS[path]
    ensure_factory([factory])
    kept = _families_override(families)
    print(f"{path} not found: replaying the factory's scripts first "
          f"(alphaprover factory out={factory} reuse=true scripts={path} {' '.join(kept)}, minutes)")
    from alphaprover.config import load_config
    from alphaprover.factory_cmd import run_factory

    run_factory(load_config("factory", [f"out={factory}", "reuse=true", f"scripts={path}", *kept]))


def _build_library() -> None:
    print(f"{DEFAULT_EXTRACTED} not found: extracting the Coq libraries' proofs "
          "(alphaprover extract, ~15 minutes on 2 cores)")
    from alphaprover.extract import extract
    from lean_interface.problems.libraries import DEFAULT_ROOTS

    extract(DEFAULT_ROOTS, DEFAULT_EXTRACTED.parent)


def ledger_records_stale(records: Path = DEFAULT_LEDGER_RECORDS) -> bool:
    """Whether a proof file's replayed records (`PROOF_RECORD_BUILDS`; the loop ledger's by default)
    must be (re)built: missing, or older than the proof file (an `analyze export-train-proofs` added
    rows since). No proof file: nothing to build."""
    proofs = PROOF_RECORD_BUILDS[records]
    if not proofs.is_file():
        return False
    return not records.is_file() or records.stat().st_mtime < proofs.stat().st_mtime


def _build_proof_records(records_path: Path) -> None:
    """Replay a committed proof file's scripts in Coq into supervised records (a minute or two:
    one script per train problem), as `alphaprover eval-proofs PROOFS OUT --force` does."""
    from alphaprover.analyze.ledger import ledger_rows
    from alphaprover.eval_proofs import eval_proof_records, write_proof_records

    proofs = PROOF_RECORD_BUILDS[records_path]
    print(f"{records_path} missing or older than {proofs}: replaying its proofs "
          "(alphaprover eval-proofs, a minute or two)")
    records, report = eval_proof_records(ledger_rows(proofs), "minif2f-rocq-train")
    write_proof_records(records_path, records)
    print(f"{report.records} records from {report.replayed} of {report.proofs} proofs "
          f"({report.dropped} did not replay)")


class _Beside:
    """A build run in a thread beside the caller's own (the extraction's work is in its worker
    processes and coqtop, so the thread only coordinates); `join` re-raises what it raised."""

    def __init__(self, build: Callable[[], None]) -> None:
        import threading

        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(build,), name="build-beside", daemon=True)
        self.thread.start()

    def _run(self, build: Callable[[], None]) -> None:
        try:
            build()
        except BaseException as error:  # noqa: BLE001 - handed to the joining thread
            self.error = error

    def join(self) -> None:
        self.thread.join()
        if self.error is not None:
            raise self.error


def ensure_inputs(supervised_spec: str, library_file: str, factory_files: Sequence[Path] = ()) -> None:
    """Build the default-path inputs a run mixes when they are missing: the factory files its
    sources name (`factory_files`, `FACTORY_BUILDS`), the script demonstrations its supervised
    files name (`SCRIPT_BUILDS`; their factory file first, if it is missing too), the stdlib
    records and the replayed records of the committed proof files (`PROOF_RECORD_BUILDS`: the loop
    ledger, the written proofs). The stdlib extraction runs beside the factory builds, not after
    them: each mostly waits on its own coqtop processes, so on a fresh 2-core machine the two
    overlap (session 35: factory and extraction together in 11 minutes). Files at other paths are
    left to `load_supervised` / `load_library`, which say what is wrong; a missing factory file at
    another path is a usage error before anything is built."""
    _check_user_named(factory_files)
    wanted = set(supervised_paths(supervised_spec))
    if library_file:
        wanted.add(Path(library_file))
    scripts = [path for path in SCRIPT_BUILDS if path in wanted and not path.is_file()]
    need_factory = bool(scripts) or any(not path.is_file() for path in factory_files)
    need_library = DEFAULT_EXTRACTED in wanted and not DEFAULT_EXTRACTED.is_file()
    beside = _Beside(_build_library) if need_library and need_factory else None
    ensure_factory(factory_files)
    for path in scripts:
        _build_scripts(path)
    for records_path in PROOF_RECORD_BUILDS:
        if records_path in wanted and ledger_records_stale(records_path):
            _build_proof_records(records_path)
    if beside is not None:
        beside.join()
    elif need_library:
        _build_library()


def load_library(path: str, roots: Sequence[str]) -> list[TrainingRecord]:
    """The library records a run keeps in every batch: the records of `alphaprover extract`'s file
    `path` whose source file lies under `theories/<root>/` for one of `roots` (e.g. Reals, ZArith,
    Arith: the lemma names competition proofs use), ssreflect tactics dropped, each with source
    `library`. "" = no library; a missing file is a one-line warning (the share then goes to the
    other sources), a malformed one a usage error."""
    if not path:
        return []
    file = Path(path).expanduser()
    if not file.is_file():
        print(f"warning: {file} not found (run `alphaprover extract`); no library records in learner batches")
        return []
    markers = tuple(f"/theories/{root.strip('/')}/" for root in roots)
    records = read_records(file, LIBRARY_SOURCE,
                           lambda source_file: not markers or any(marker in source_file for marker in markers))
    if not records:
        raise UsageError(f"library file {file}: no records under {', '.join(roots) or 'any root'}")
    return records


__all__ = ["DEFAULT_EXTRACTED", "DEFAULT_FACTORY", "DEFAULT_FOCUS_SCRIPTS", "DEFAULT_LEDGER", "DEFAULT_LEDGER_RECORDS",
           "DEFAULT_ROOTS", "DEFAULT_ROOTS_SCRIPTS", "DEFAULT_SCRIPTS", "DEFAULT_WRITTEN", "DEFAULT_WRITTEN_RECORDS",
           "FACTORY_BUILDS", "FOCUS_FAMILIES", "LIBRARY_SOURCE", "PROOF_RECORD_BUILDS", "SCRIPT_BUILDS",
           "ensure_factory", "ensure_inputs", "ledger_records_stale", "load_library", "read_records",
           "supervised_parts", "supervised_paths"]
