"""`alphaprover probe REFERENCES --checkpoint DIR [--checkpoint DIR …]`: where a policy stands on a
known proof, step by step.

A reference is a train problem and a proof script for it that Coq accepts (written by hand, or
copied from a search). The script is replayed in Coq under the problem's header, which gives the
goal before each step exactly as the search shows it to the policy; then, per checkpoint and per
step, the policy is asked three things:

* the teacher-forced log-prob (nats) of the reference step — how likely a sample is to be it;
* its rank among the tactics a beam of width K proposes (`rank 1` = the policy's first choice; `—`
  = the beam does not propose it — K likelier tactics filled it, or the search missed it);
* the value head's estimate of the steps still needed, beside the script's true count.

This is how session 34 found that the policy held a family's shape and missed exactly one step
on a competition statement (docs/experiments.md "Session 34"): the step a factory family never
showed in the competition's form. Evaluation only: nothing here is trained on, and the dev
subset and the test split are refused (a probe result is design input for the factory).

REFERENCES is a JSONL file (or `-` for stdin), one object a line: `{"problem": NAME, "script":
"intros. lra."}`, NAME a `minif2f-rocq-train` problem or a path to a `.v` file. The loop-proof
ledger (`data/loop-proofs/minif2f-rocq-train.jsonl`) is such a file; `--only minif2f-rocq-tune` keeps
the rows of one benchmark's problems — the tune slice, which fine-tunes and runs hold out, so its
ledger proofs are held-out references: a measure of a policy with no search and no clock
(docs/ARCHITECTURE.md, "Measured facts"). `--summary` prints the per-checkpoint lines only.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

from alphaprover.config import UsageError
from lean_interface.api import Theorem
from lean_interface.coq.proof_replay import ProofReplayer, TacticRecord
from lean_interface.problems.benchmarks import held_out_problem_of, load_benchmark
from selfplay.round_metrics import median


@dataclass(frozen=True)
class Reference:
    """One problem and a script for it."""

    problem: str
    theorem: Theorem
    script: str


@dataclass(frozen=True)
class StepScore:
    """What one checkpoint says about one reference step."""

    logprob: float
    rank: int | None  # 1-based among the beam's tactics; None when the beam does not propose it
    value_steps: float  # the value head's expected steps still needed (−V)


def read_references(path: str, only: str | None = None) -> list[Reference]:
    """The references of a JSONL file (`-` = stdin); with `only`, those whose problem is in that
    benchmark (e.g. `minif2f-rocq-tune`). UsageError (one line) for a malformed line, an unknown
    problem, a dev-subset or test-split problem, or nothing left to probe."""
    text = sys.stdin.read() if path == "-" else _read_text(Path(path))
    keep = None if only is None else {problem.name for problem in load_benchmark(only)}
    train = {problem.name: problem for problem in load_benchmark("minif2f-rocq-train")}
    references = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            name, script = str(row["problem"]), str(row["script"])
        except (json.JSONDecodeError, KeyError, TypeError):
            raise UsageError(f"{path}:{number}: expected {{\"problem\": NAME, \"script\": TEXT}}") from None
        if keep is not None and name not in keep:
            continue
        theorem = _theorem(name, train, f"{path}:{number}")
        refused = held_out_problem_of(theorem.name, theorem)
        if refused is not None:
            raise UsageError(f"{path}:{number}: {refused} is for measuring only; probe train problems")
        if not script.strip():
            raise UsageError(f"{path}:{number}: empty script")
        references.append(Reference(name, theorem, script.strip()))
    if not references:
        raise UsageError(f"{path}: no references" + (f" of {only} problems" if only else ""))
    return references


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read {path}: {error}") from None


def _theorem(name: str, train: dict, where: str) -> Theorem:
    """A train problem by name, or the theorem of a `.v` file."""
    if name in train:
        problem = train[name]
    elif name.endswith(".v") and Path(name).is_file():
        problem = load_benchmark(name)[0]
    else:
        refused = held_out_problem_of(name)
        if refused is not None:
            raise UsageError(f"{where}: {refused} is for measuring only; probe train problems")
        raise UsageError(f"{where}: {name!r} is neither a minif2f-rocq-train problem nor a .v file")
    if problem.theorem is None:
        raise UsageError(f"{where}: {name} does not load: {problem.error}")
    return problem.theorem


def replay_reference(replayer: ProofReplayer, reference: Reference) -> tuple[list[TacticRecord], str]:
    """The (goal, tactic, steps still to go) records of the script in proof order, or [] and why
    Coq refused it (one line)."""
    from lean_interface.coq.prelude import DEFAULT_PRELUDE, with_prelude

    theorem = reference.theorem
    text = f"{theorem.statement}\nProof.\n{reference.script}\nQed.\n"
    records, stats = replayer.replay_file(text, "probe", max_seconds=120.0,
                                          preamble=with_prelude(DEFAULT_PRELUDE, theorem.header))
    if stats.lemmas_ok != 1:
        why = stats.file_failed or "; ".join(stats.drop_reasons) or "the script does not prove the statement"
        return [], why
    return records, ""


def load_policy(checkpoint: Path):
    """(model, tokenizer) of a checkpoint directory, in eval mode."""
    from networks.checkpoint import load_checkpoint

    model, tokenizer, _ = load_checkpoint(checkpoint)
    model.eval()
    return model, tokenizer


def reference_steps(path: str) -> list[dict]:
    """Every step of every reference in `path` that Coq accepts, as rows (problem, goal, tactic,
    steps still to go): what expert iteration's `competition_bottleneck` scores each round."""
    rows = []
    with ProofReplayer() as replayer:
        for reference in read_references(path):
            records, _ = replay_reference(replayer, reference)
            rows += [{"problem": reference.problem, "goal": r.goal, "tactic": r.tactic, "steps": r.steps}
                     for r in records]
    return rows


def score_steps(policy, records: list[TacticRecord], beam_width: int) -> list[StepScore]:
    """One policy's (model, tokenizer) log-prob, beam rank and value for each record's (goal, tactic)."""
    import torch

    from lean_interface.tactic_form import tactic_form
    from networks.sampling import evaluate_goals

    model, tokenizer = policy
    form = tactic_form("coq")
    scores: list[StepScore] = []
    with torch.no_grad():
        for start in range(0, len(records), 8):
            chunk = records[start:start + 8]
            references = [form(record.tactic) or record.tactic for record in chunk]
            goals = [record.goal for record in chunk]
            # the beam alone, then the reference teacher-forced: a reference is in the beam only if
            # the beam itself proposes it (a beam that keeps fewer than K tactics, when texts are
            # dropped or merge, must not count an unlikely reference as proposed)
            beams = evaluate_goals(model, tokenizer, goals, num_samples=0, beam_width=beam_width,
                                   tactic_form=form).tactics
            forced = evaluate_goals(model, tokenizer, goals, num_samples=0,
                                    candidates=[[tactic] for tactic in references], tactic_form=form)
            for reference, beam, scored, value in zip(references, beams, forced.tactics, forced.values):
                logprob = next((lp for tactic, lp in scored if tactic == reference), -math.inf)
                proposed = [lp for tactic, lp in beam if tactic == reference]
                rank = (1 + sum(1 for tactic, lp in beam if tactic != reference and lp > proposed[0])
                        if proposed else None)
                scores.append(StepScore(logprob, rank, -value))
    return scores


def format_table(records: list[TacticRecord], columns: dict[str, list[StepScore]]) -> list[str]:
    """A Markdown table: one row per step; per checkpoint `log-prob (rank)` and the value's steps."""
    names = list(columns)
    lines = ["| step | tactic | steps left | " + " | ".join(f"{name}: log-prob (rank) · value" for name in names) + " |",
             "|---:|---|---:|" + "---|" * len(names)]
    for index, record in enumerate(records):
        cells = []
        for name in names:
            score = columns[name][index]
            rank = f"{score.rank}" if score.rank is not None else "—"
            cells.append(f"{score.logprob:.2f} ({rank}) · {score.value_steps:.1f}")
        tactic = record.tactic.replace("|", "\\|")
        lines.append(f"| {index + 1} | `{tactic}` | {record.steps} | " + " | ".join(cells) + " |")
    return lines


def summary_line(name: str, scores: list[StepScore]) -> str:
    """Per checkpoint over all steps: how many in the beam, the lowest and the median log-prob.

    The median is the curve's (`selfplay.round_metrics.median`, the mean of the middle two for an
    even count), so a probe and a run's `competition_bottleneck` column read the same statistic."""
    logprobs = [score.logprob for score in scores]
    in_beam = sum(score.rank is not None for score in scores)
    return (f"- {name}: {in_beam} / {len(scores)} steps in the beam, median log-prob "
            f"{median(logprobs):.2f}, lowest {min(logprobs):.2f}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("references", help="JSONL of {\"problem\": NAME, \"script\": TEXT} (- = stdin)")
    parser.add_argument("--checkpoint", action="append", required=True, type=Path,
                        help="a checkpoint directory; repeat to compare several side by side")
    parser.add_argument("--beam", type=int, default=8, help="beam width the rank is read against (default 8)")
    parser.add_argument("--only", metavar="BENCHMARK",
                        help="keep the references of this benchmark's problems (e.g. minif2f-rocq-tune)")
    parser.add_argument("--summary", action="store_true", help="print the per-checkpoint summary lines only")


def run(args: argparse.Namespace) -> int:
    """Replay every reference, score every step under every checkpoint, print one table each."""
    from networks.checkpoint import is_checkpoint

    if args.beam < 1:
        raise UsageError("--beam must be at least 1")
    for checkpoint in args.checkpoint:
        if not is_checkpoint(checkpoint):
            raise UsageError(f"{checkpoint} is not a checkpoint directory (config.json, model.safetensors, tokenizer.json)")
    references = read_references(args.references, args.only)
    tables = not args.summary
    policies = {str(c): load_policy(c) for c in args.checkpoint}
    totals: dict[str, list[StepScore]] = {str(c): [] for c in args.checkpoint}
    refused = 0
    with ProofReplayer() as replayer:
        for reference in references:
            records, why = replay_reference(replayer, reference)
            if not records:
                refused += 1
                print(f"\n### {reference.problem}\n\nCoq refuses the script: {why}")
                continue
            columns = {name: score_steps(policy, records, args.beam) for name, policy in policies.items()}
            for name, scores in columns.items():
                totals[name] += scores
            if tables:
                print(f"\n### {reference.problem}\n")
                print("\n".join(format_table(records, columns)), flush=True)
    print(f"\n{len(references) - refused} of {len(references)} scripts replayed; beam width {args.beam}")
    for name, scores in totals.items():
        if scores:
            print(summary_line(name, scores))
    return 1 if refused else 0


__all__ = ["Reference", "StepScore", "add_arguments", "format_table", "load_policy", "read_references",
           "reference_steps", "replay_reference", "run", "score_steps", "summary_line"]
