"""`alphaprover eval-proofs EVAL.jsonl OUT.jsonl`: the proofs an eval run found on train problems,
replayed in Coq into supervised records (`{goal, tactic, steps, source, lemma}`, the format
`alphaprover pretrain train_file=…` and the learner's `supervised_file` read).

Why: a 60 s search without the network (`mcts-fixed`) finds multi-step proofs of competition
problems — `intros. field_simplify. { rewrite H1. field. lra. } { lra. }` — that the loop's 20 s
searches rarely reach. On the train split those proofs are expert demonstrations of the target's
kind: the search as a policy-improvement operator, as in expert iteration, with a longer budget.

The input may also be the loop-proof ledger (`alphaprover analyze RUN export-train-proofs`,
`data/loop-proofs/minif2f-rocq-train.jsonl`, committed): its rows (`problem`, `script`, `run`) are
read as proved, `--methods` then names runs. A fresh run on a replaced machine starts from the
earlier loops' train proofs as demonstrations (`supervised_file=…,records.jsonl*N`) instead of
searching its way back to them.

What is kept, and what never is:
  * only problems of `--benchmark` (default `minif2f-rocq-train`): an eval file of the whole valid
    split also holds the dev subset's rows, and they are left out by name before anything is run;
  * a problem `held_out_problem_of` names (the dev subset by name or statement, the test split) is
    refused even when a benchmark path lists it — counted and printed, never replayed;
  * every distinct proof of a problem (whitespace normalised) (all methods, or `--methods`), each replayed from the
    problem's own header under the project prelude, so goals read as search renders them; a proof
    that does not replay to `Qed` is counted as dropped. The eval verified each proof with the
    kernel before it recorded it; the replay checks it again step by step.
  * a (goal, tactic) pair is written once.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable

from alphaprover.config import UsageError


@dataclass
class EvalProofReport:
    """What one export did."""

    proofs: int = 0            # distinct (problem, script) pairs of the benchmark's proved rows
    replayed: int = 0          # of those, replayed to Qed
    dropped: int = 0           # did not replay (a step failed, or a focus the replayer cannot follow)
    outside: int = 0           # proved rows of problems not in the benchmark (e.g. the dev subset's)
    refused: int = 0           # proved rows of held-out problems the benchmark lists (dev by statement, test)
    records: int = 0


def proved_script(row: dict) -> tuple[str | None, str | None]:
    """(script, origin) of one input row: an eval record's proof when its status is `proved` (origin:
    its method), a loop-proof ledger row's script (origin: its run); (None, None) otherwise."""
    if "status" in row:
        return (row.get("proof") or None, row.get("method")) if row["status"] == "proved" else (None, None)
    if isinstance(row.get("script"), str) and "run" in row:
        return row["script"] or None, row["run"]
    return None, None


def proofs_to_replay(rows: Iterable[dict], problems: dict, methods: frozenset[str], report: EvalProofReport
                     ) -> dict[str, list[str]]:
    """Problem → its distinct proof scripts (shortest first) from the proved `rows` of the problems
    in `problems` (name → Problem), of `methods` (empty: all); held-out ones refused."""
    from lean_interface.problems.benchmarks import held_out_problem_of

    scripts: dict[str, set[str]] = {}
    for row in rows:
        proof, origin = proved_script(row)
        if not proof or (methods and origin not in methods):
            continue
        problem = problems.get(row["problem"])
        if problem is None or problem.theorem is None:
            report.outside += 1
            continue
        if held_out_problem_of(problem.name, problem.theorem) is not None:
            report.refused += 1
            continue
        scripts.setdefault(problem.name, set()).add(" ".join(proof.split()))
    report.proofs = sum(len(found) for found in scripts.values())
    return {name: sorted(found, key=lambda s: (len(s), s)) for name, found in sorted(scripts.items())}


def proof_text(theorem, script: str) -> str:
    """The replayed part of a proof file: the statement, the script, `Qed.` (the prelude and the
    header are the replayer's preamble, so the prelude's own lemmas are not recorded)."""
    return f"{theorem.statement}\nProof.\n{script}\nQed.\n"


def eval_proof_records(rows: Iterable[dict], benchmark: str, methods: frozenset[str] = frozenset(),
                       source: str = "minif2f-rocq-train", timeout: float = 30.0
                       ) -> tuple[list[dict], EvalProofReport]:
    """The deduplicated supervised records of the benchmark's proofs in `rows` (eval records)."""
    from tqdm import tqdm

    from lean_interface.coq.prelude import DEFAULT_PRELUDE, with_prelude
    from lean_interface.coq.proof_replay import ProofReplayer
    from lean_interface.problems.benchmarks import load_benchmark

    report = EvalProofReport()
    problems = {problem.name: problem for problem in load_benchmark(benchmark)}
    todo = proofs_to_replay(rows, problems, methods, report)
    records: dict[tuple[str, str], dict] = {}
    with ProofReplayer(timeout=timeout) as replayer, tqdm(total=report.proofs, unit="proof", desc="replay") as bar:
        for name, scripts in todo.items():
            for script in scripts:
                theorem = problems[name].theorem
                found, stats = replayer.replay_file(proof_text(theorem, script), source,
                                                    max_seconds=max(60.0, 4 * timeout),
                                                    preamble=with_prelude(DEFAULT_PRELUDE, theorem.header))
                if stats.lemmas_ok == 1:
                    report.replayed += 1
                    for record in found:
                        records.setdefault((record.goal, record.tactic), {**asdict(record), "lemma": name})
                else:
                    report.dropped += 1
                bar.update(1)
    report.records = len(records)
    return list(records.values()), report


def write_proof_records(path: Path, records: list[dict]) -> None:
    """Write `records` (eval_proof_records') as JSON lines, atomically."""
    from lean_interface.durable import write_atomic

    write_atomic(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("eval_file", type=Path,
                        help="an `alphaprover eval` records file, or a loop-proof ledger (`analyze export-train-proofs`)")
    parser.add_argument("out_file", type=Path, help="the supervised JSONL file to write")
    parser.add_argument("--benchmark", default="minif2f-rocq-train",
                        help="whose problems' proofs to keep (default: the train split; never dev or test)")
    parser.add_argument("--methods", default="",
                        help="comma-separated eval methods (a ledger: runs) to keep (default: all)")
    parser.add_argument("--source", default="minif2f-rocq-train",
                        help="the records' `source` field (what source_weights key weighs them)")
    parser.add_argument("--force", action="store_true", help="replace an existing OUT file")


def run(args: argparse.Namespace) -> int:
    from lean_interface.durable import read_jsonl

    if not args.eval_file.is_file():
        raise UsageError(f"{args.eval_file}: no such eval records file")
    if args.out_file.exists() and not args.force:
        raise UsageError(f"{args.out_file} exists (pass --force to replace it)")
    rows = read_jsonl(args.eval_file, what="an eval record")
    if any(not isinstance(row, dict) or "problem" not in row for row in rows):
        raise UsageError(f"{args.eval_file}: not an eval records file nor a ledger (a line without `problem`)")
    methods = frozenset(part.strip() for part in args.methods.split(",") if part.strip())
    records, report = eval_proof_records(rows, args.benchmark, methods, args.source)
    write_proof_records(args.out_file, records)
    print(f"{report.records} records from {len({r['lemma'] for r in records})} problems written to {args.out_file}: "
          f"{report.replayed} of {report.proofs} proofs replayed ({report.dropped} dropped); "
          f"{report.outside} proved rows outside {args.benchmark}, {report.refused} held out refused")
    return 0
