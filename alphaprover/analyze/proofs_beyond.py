"""`alphaprover analyze RUN_DIR proofs-beyond EVAL.jsonl [EVAL.jsonl …] [--method M]`: the benchmark
problems a run's loop proved that a baseline eval run did not, each with the loop's verified scripts.

Why (issue #39, "Train split" done-when): the claim that the loop reaches competition problems
the automation does not is a list — the train problems that `mcts-fixed` at 60 s fails in one eval
run and that the loop's actors proved — not a count on a curve. Each row gives the problem, the
first weights version that proved it, how many times it was proved, and its shortest script; the
scripts are those the actors reported, each checked by the kernel with the axiom audit before the
episode was stored (`selfplay.actor`), so nothing here is re-checked or trusted from text.

Input: the run's replay buffer (`buffer/`; episodes of `--source`, default `minif2f-rocq-train`,
read without opening the buffer) and an eval results file (`alphaprover eval --out`). `--method`
picks the baseline's records when the file holds several methods (one method needs no flag). A
problem the baseline did not attempt is counted apart, never as beyond it. `--names` prints only the
gained names, comma-separated, for `alphaprover eval --problems` (the done-when's fresh search on
them beside the baseline), `--unseen-names` the loop-proved names no baseline file attempted yet
(what the baseline still has to run; a missing file counts as empty). Reads, never writes.

`--ledger LEDGER` adds the committed loop-proof ledger's rows (`analyze export-train-proofs`:
earlier runs' proved train problems with their shortest verified scripts) for the problems this
run's buffer has not proved: the done-when's "over the rounds" counts what every loop proved,
though a replaced machine took the earlier runs' directories. Such rows show their run.

Several baseline files (a running loop's new names get their baseline run by run, e.g. one per
round) are read as one baseline: a problem counts as proved by it when any file's run proved it,
as failed only when every run that attempted it failed — the conservative reading, so a problem
is never "beyond" a baseline that proved it once. The done-when's claim itself is one run.

`--fresh METHOD` reads the done-when's second half from the same single eval file: beside each
listed problem, whether METHOD (a fresh search with the final checkpoint, run in the same `eval`
run as the baseline) proved it, and how many of the list it proved. Only one file is accepted with
it, so the list and the fresh search come from one run, as the issue asks; a listed problem the
fresh method did not attempt shows as such and never counts as proved.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from alphaprover.config import UsageError


@dataclass
class LoopProof:
    """What the loop did on one problem: the first version that proved it, and its scripts."""

    name: str
    first_version: int
    scripts: list[str]
    run: str = ""          # set for a proof read from the ledger (another run's)

    @property
    def shortest(self) -> str:
        return min(self.scripts, key=script_length)


def script_length(script: str) -> tuple[int, int]:
    """The order `shortest` picks by: sentences, then characters."""
    return len(script.split(".")), len(script)


def loop_proofs(run_dir: Path, source: str) -> dict[str, LoopProof]:
    """Per problem name (no source prefix), the proved, non-disprove episodes of `source`, in order."""
    from selfplay.replay_buffer import read_episodes

    proofs: dict[str, LoopProof] = {}
    for episode in read_episodes(run_dir / "buffer"):
        if episode.source != source or episode.disprove or not episode.proved or not episode.proof:
            continue
        name = episode.problem.split("/", 1)[1] if "/" in episode.problem else episode.problem
        entry = proofs.setdefault(name, LoopProof(name, episode.weights_version, []))
        entry.first_version = min(entry.first_version, episode.weights_version)
        entry.scripts.append(episode.proof.strip())
    return proofs


def with_ledger(proofs: dict[str, LoopProof], rows: list[dict], run_name: str) -> dict[str, LoopProof]:
    """`proofs` plus one LoopProof per problem of the ledger `rows` the run did not prove: the
    shortest script any other run's row gives it, with that row's run and version (this run's own
    rows are its buffer's, read there)."""
    merged = dict(proofs)
    for row in sorted(rows, key=lambda row: (*script_length(row["script"]), row["run"])):
        if row["run"] == run_name or row["problem"] in merged:
            continue
        merged[row["problem"]] = LoopProof(row["problem"], int(row.get("first_version", 0)),
                                           [row["script"]] * max(1, int(row.get("proofs", 1))), run=row["run"])
    return merged


def baseline_outcomes(eval_file: Path, method: str | None) -> tuple[str, dict[str, bool]]:
    """(method, problem → proved) of one method of an eval results file (`eval_records.read_records`,
    which skips a torn last line); UsageError when the file is missing or unreadable, or when the
    method is ambiguous or absent."""
    from alphaprover.eval_records import read_records
    from lean_interface.durable import JsonlError
    from search.outcome import Outcome

    if not eval_file.is_file():
        raise UsageError(f"no eval results file {eval_file}")
    try:
        records = read_records(eval_file)
    except JsonlError as error:
        raise UsageError(f"{eval_file}: {error}") from None
    methods = sorted({record.method for record in records})
    if method is None:
        if len(methods) != 1:
            raise UsageError(f"{eval_file} holds {len(methods)} methods ({', '.join(methods)}): pick one with --method")
        method = methods[0]
    elif method not in methods:
        raise UsageError(f"method {method!r} is not in {eval_file} ({', '.join(methods) or 'no records'})")
    outcomes = {record.problem: record.status is Outcome.PROVED for record in records
                if record.method == method and record.status in (Outcome.PROVED, Outcome.FAILED)}
    return method, outcomes


def merged_baseline(eval_files: list[Path], method: str | None) -> tuple[str, dict[str, bool]]:
    """One baseline from several eval files (`baseline_outcomes` each, with the same `--method`):
    proved when any file's run proved the problem. UsageError when the files' methods differ (no
    `--method` given and each file holds a different single method)."""
    methods: set[str] = set()
    merged: dict[str, bool] = {}
    for eval_file in eval_files:
        name, outcomes = baseline_outcomes(eval_file, method)
        methods.add(name)
        for problem, proved in outcomes.items():
            merged[problem] = merged.get(problem, False) or proved
    if len(methods) != 1:
        raise UsageError(f"the baseline files hold different methods ({', '.join(sorted(methods))}): "
                         "pick one with --method")
    return methods.pop(), merged


def beyond(proofs: dict[str, LoopProof], baseline: dict[str, bool]) -> tuple[list[LoopProof], list[str]]:
    """(loop proofs of problems the baseline attempted and failed, sorted by name; names the loop
    proved that the baseline did not attempt)."""
    gained = sorted((p for name, p in proofs.items() if baseline.get(name) is False), key=lambda p: p.name)
    unseen = sorted(name for name in proofs if name not in baseline)
    return gained, unseen


def fresh_cell(fresh: dict[str, bool] | None, name: str) -> str:
    if fresh is None:
        return ""
    return {True: " proved |", False: " failed |"}.get(fresh.get(name), " not attempted |")


def report(method: str, eval_files: list[Path], proofs: dict[str, LoopProof], baseline: dict[str, bool],
           fresh: tuple[str, dict[str, bool]] | None = None) -> str:
    """The list as markdown; with `fresh` (method, outcomes from the same run) a column and a count."""
    gained, unseen = beyond(proofs, baseline)
    failed = sum(1 for proved in baseline.values() if not proved)
    files = ", ".join(str(path) for path in eval_files)
    lines = [f"loop proved {len(proofs)} problems; baseline `{method}` ({files}) failed {failed} of "
             f"{len(baseline)}; proved by the loop and not by the baseline: **{len(gained)}**"
             + (f"; {len(unseen)} loop-proved problems not in the baseline run" if unseen else "")]
    fresh_method, fresh_outcomes = fresh if fresh is not None else (None, None)
    if fresh_outcomes is not None:
        proved = sum(1 for proof in gained if fresh_outcomes.get(proof.name) is True)
        lines.append(f"fresh search `{fresh_method}` in the same run proved **{proved}** of the {len(gained)}")
    header = "| problem | first version | proofs | shortest script |" + (f" `{fresh_method}` |" if fresh else "")
    lines += ["", header, "|---|---:|---:|---|" + ("---|" if fresh else "")]
    for proof in gained:
        script = " ".join(proof.shortest.split()).replace("|", "\\|")
        version = f"{proof.run} v{proof.first_version}" if proof.run else str(proof.first_version)
        lines.append(f"| {proof.name} | {version} | {len(proof.scripts)} | `{script}` |"
                     + fresh_cell(fresh_outcomes, proof.name))
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("eval_files", type=Path, nargs="+", metavar="eval_file",
                        help="`alphaprover eval --out` results files (the baseline; several are read as one: "
                             "a problem any of them proved counts as proved)")
    parser.add_argument("--method", default=None, help="the baseline method in those files (needed when a file has several)")
    parser.add_argument("--source", default="minif2f-rocq-train", help="the loop's problem source to read")
    parser.add_argument("--ledger", type=Path, default=None,
                        help="also count the loop-proof ledger's problems that other runs proved "
                             "(data/loop-proofs/minif2f-rocq-train.jsonl)")
    parser.add_argument("--names", action="store_true",
                        help="print only the gained problem names, comma-separated (for `eval --problems`)")
    parser.add_argument("--unseen-names", action="store_true",
                        help="print only the loop-proved names no baseline file attempted, comma-separated: what "
                             "the baseline still has to run (`eval --problems … --out` the same file; missing "
                             "files count as empty)")
    parser.add_argument("--fresh", default=None, metavar="METHOD",
                        help="also report how many listed problems METHOD proved in the same eval run "
                             "(one eval file only: the list and the fresh search from one run)")


def run(run_dir: Path, args: argparse.Namespace) -> int:
    if not (run_dir / "buffer").is_dir():
        raise UsageError(f"{run_dir} has no replay buffer (buffer/)")
    proofs = loop_proofs(run_dir, args.source)
    if args.ledger is not None:
        from alphaprover.analyze.ledger import ledger_rows

        if not args.ledger.is_file():
            raise UsageError(f"no ledger {args.ledger}")
        proofs = with_ledger(proofs, ledger_rows(args.ledger), run_dir.name)
    if args.unseen_names:
        present = [path for path in args.eval_files if path.is_file()]
        baseline = merged_baseline(present, args.method)[1] if present else {}
        print(",".join(beyond(proofs, baseline)[1]))
        return 0
    method, baseline = merged_baseline(args.eval_files, args.method)
    fresh = None
    if args.fresh is not None:
        if len(args.eval_files) != 1:
            raise UsageError("--fresh reads one eval file: the list and the fresh search must come from one run")
        if args.fresh == method:
            raise UsageError(f"--fresh {args.fresh} is the baseline method itself")
        fresh = baseline_outcomes(args.eval_files[0], args.fresh)
    if args.names:
        print(",".join(proof.name for proof in beyond(proofs, baseline)[0]))
    else:
        print(report(method, args.eval_files, proofs, baseline, fresh))
    return 0
