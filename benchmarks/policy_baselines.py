"""The policy and value head of checkpoints against honest baselines, on an expert-iteration run's
held-out slice (the model card's table; issue: "a network that learns").

Policy — exact match (canonical tactic form) against the run's reference steps (`references.jsonl`:
the held-out slice proved by the automation alone, proofs pruned), top-1 and top-8:

* constant `intros.`: one answer for every goal;
* frequent-8: the 8 most frequent policy targets in the run's replay buffer (top-1 = the first);
* goal-blind bigram: a token bigram model fitted on the buffer's policy targets (tokenizer tokens,
  add-one smoothed), 8-beam; what a policy that never reads the goal can reach;
* each checkpoint: an 8-beam of its decoder on the goal.

Each column is also given on the references the frequent-8 misses (the non-trivial ones), where
every goal-blind baseline scores 0 by construction of frequent-8. On those, the median log-prob
(nats) of the whole reference tactic, teacher-forced (the bigram: its own token log-probs): a
number that moves long before the reference enters the 8-beam, so a round's learning shows
before it pays in exact match or proofs.

Value — AUC of V on the goals of a round's held-out searches, proved vs searched without a proof
(`rounds/rNNN/heldout.jsonl`), against a constant (0.5). Last, each checkpoint's top-1 and top-8
as a multiple of frequent-8's (the model card's "4.2× frequent-8's top-1").

    PYTHONPATH=. .venv/bin/python benchmarks/policy_baselines.py runs/expert-10 --checkpoint checkpoints/alphaprover-coq-small \
        --round 6 --references scripts --demonstrations data/factory/scripts.jsonl    # the model card's table
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from alphaprover.analyze.run_files import slice_problems, value_auc, yaml_sources  # noqa: E402
from alphaprover.iterate_cmd import logprob_scorer  # noqa: E402
from lean_interface.tactic_form import coq_tactic  # noqa: E402
from networks.tokenizer import ProofTokenizer  # noqa: E402
from selfplay.replay_buffer import ReplayBuffer  # noqa: E402
from selfplay.round_metrics import median, read_rows  # noqa: E402

BEAMS = 8


class Bigram:
    """P(token | previous token) over tactic token sequences, add-one smoothed; BOS = -1."""

    def __init__(self, sequences: list[list[int]], vocab: int) -> None:
        self.counts: dict[int, Counter] = defaultdict(Counter)
        for ids in sequences:
            for prev, token in zip([-1, *ids], ids):
                self.counts[prev][token] += 1
        self.vocab = vocab

    def log_prob(self, prev: int, token: int) -> float:
        row = self.counts.get(prev, Counter())
        return math.log((row[token] + 1) / (sum(row.values()) + self.vocab))

    def sequence_log_prob(self, ids: list[int]) -> float:
        return sum(self.log_prob(prev, token) for prev, token in zip([-1, *ids], ids))

    def beam(self, eos: int, width: int, max_tokens: int) -> list[list[int]]:
        """The `width` most probable sequences ending in `eos` (beam search; only tokens seen after
        the previous one are expanded: an unseen continuation never beats a seen one)."""
        beams: list[tuple[float, list[int]]] = [(0.0, [])]
        finished: list[tuple[float, list[int]]] = []
        for _ in range(max_tokens):
            grown = []
            for score, ids in beams:
                prev = ids[-1] if ids else -1
                for token in self.counts.get(prev, {}):
                    grown.append((score + self.log_prob(prev, token), [*ids, token]))
            grown.sort(key=lambda item: -item[0])
            beams = []
            for score, ids in grown:
                (finished if ids[-1] == eos else beams).append((score, ids))
                if len(beams) >= width:
                    break
            if not beams:
                break
        finished.sort(key=lambda item: -item[0])
        return [ids for _, ids in finished[:width]]


def exact_match(answers: list[list[str | None]], references: list[str | None]) -> tuple[float, float]:
    """(top-1, top-k) of per-reference ranked answers; a reference with no canonical form matches nothing."""
    n = max(1, len(references))
    top1 = sum(1 for ranked, ref in zip(answers, references) if ref is not None and ranked and ranked[0] == ref)
    topk = sum(1 for ranked, ref in zip(answers, references) if ref is not None and ref in ranked)
    return top1 / n, topk / n


def checkpoint_answers(checkpoint: str, goals: list[str]) -> list[list[str | None]]:
    import torch

    from networks.checkpoint import load_checkpoint
    from networks.sampling import encode_goals

    model, tokenizer, _ = load_checkpoint(checkpoint)
    model.eval()
    answers: list[list[str | None]] = []
    with torch.no_grad():
        for start in range(0, len(goals), 16):
            chunk = goals[start:start + 16]
            input_ids, attention_mask = encode_goals(tokenizer, chunk, model.config.max_goal_tokens, "cpu")
            out = model.t5.generate(input_ids=input_ids, attention_mask=attention_mask, num_beams=BEAMS,
                                    num_return_sequences=BEAMS, do_sample=False,
                                    max_new_tokens=model.config.max_tactic_tokens)
            for row in range(len(chunk)):
                answers.append([coq_tactic(tokenizer.decode(ids.tolist(), chunk[row])) for ids in out[row * BEAMS:(row + 1) * BEAMS]])
    return answers


def script_references(run_dir: Path) -> list[tuple[str, str]]:
    """(goal, tactic) for every step of the proof scripts of the run's held-out slice (the items its
    rounds searched in `rounds/r000/heldout.jsonl`), replayed in Coq: multi-step references that
    automation proofs are not. Evaluation only: nothing here reaches a learner."""
    from alphaprover.iterate_cmd import script_references as replayed_scripts

    return [(row["goal"], row["tactic"]) for row in replayed_scripts(slice_problems(run_dir), yaml_sources(run_dir))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--checkpoint", action="append", default=[], help="repeatable")
    parser.add_argument("--round", type=int, default=-1, help="held-out goals of this round (default: the last)")
    parser.add_argument("--references", choices=("automation", "scripts"), default="automation",
                        help="automation: the run's references.jsonl; scripts: the held-out slice's own proof "
                             "scripts replayed in Coq (every step, every item)")
    parser.add_argument("--demonstrations", default="", help="a supervised JSONL (factory scripts) whose tactics "
                        "count with the buffer's for frequent-8 and the bigram: what the learner was trained on")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(2)
    references = (script_references(args.run_dir) if args.references == "scripts" else
                  [(goal, tactic) for row in read_rows(args.run_dir / "references.jsonl") for goal, tactic in row["steps"]])
    if not references:
        print(f"{args.run_dir}: no reference steps ({args.references})", file=sys.stderr)
        return 2
    goals = [goal for goal, _ in references]
    wanted = [coq_tactic(tactic) for _, tactic in references]
    targets = [r.tactic for e in ReplayBuffer(args.run_dir / "buffer", 10**9).episodes_iter() for r in e.records if r.tactic]
    if args.demonstrations:
        from networks.dataset import read_examples

        targets += [example.tactic for example in read_examples(args.demonstrations)]
    frequent = [t for t, _ in Counter(coq_tactic(t) for t in targets).most_common(BEAMS)]
    tokenizer = ProofTokenizer.load(args.checkpoint[0] if args.checkpoint else ROOT / "checkpoints/alphaprover-coq-small")
    # goal-blind: tactics read against an empty goal (a tokenizer with number slots keeps every number literal)
    bigram = Bigram([tokenizer.encode_tactic(t, 49, "") for t in targets], tokenizer.vocab_size)
    bigram_answers = [coq_tactic(tokenizer.decode(ids, "")) for ids in bigram.beam(tokenizer.eos_id, BEAMS, 48)]
    columns: dict[str, list[list[str | None]]] = {
        "constant intros.": [[coq_tactic("intros.")]] * len(references),
        "frequent-8": [frequent] * len(references),
        "goal-blind bigram": [bigram_answers] * len(references),
    }
    for checkpoint in args.checkpoint:
        columns[checkpoint] = checkpoint_answers(checkpoint, goals)
    hard = [i for i, ref in enumerate(wanted) if ref not in frequent]
    rounds = sorted((args.run_dir / "rounds").glob("r*/heldout.jsonl"))
    heldout = args.run_dir / "rounds" / f"r{args.round:03d}" / "heldout.jsonl" if args.round >= 0 else rounds[-1]
    print(f"{len(references)} reference steps ({args.references}); {len(hard)} of them outside the frequent-8; "
          f"{len(targets)} training targets; "
          f"frequent-8 = {frequent}; bigram 8-beam = {bigram_answers}")
    print(f"value AUC on the goals of {heldout.relative_to(args.run_dir)}")
    hard_goals = [goals[i] for i in hard]
    hard_tactics = [references[i][1] for i in hard]
    log_probs = {"goal-blind bigram": [bigram.sequence_log_prob(tokenizer.encode_tactic(t, 49, "")) for t in hard_tactics]}
    print("| answers from | top-1 | top-8 | top-8 outside frequent-8 | median log-prob outside frequent-8 | value AUC |")
    print("|---|---:|---:|---:|---:|---:|")
    matches: dict[str, tuple[float, float]] = {}
    for name, answers in columns.items():
        top1, top8 = matches[name] = exact_match(answers, wanted)
        _, hard8 = exact_match([answers[i] for i in hard], [wanted[i] for i in hard])
        scores = logprob_scorer(Path(name), list(zip(hard_goals, hard_tactics))) if name in args.checkpoint else log_probs.get(name)
        log_prob = f"{median(scores):.1f}" if scores else "—"
        value = f"{value_auc(name, heldout):.3f}" if name in args.checkpoint else "0.500 (constant)"
        print(f"| {name} | {top1:.3f} | {top8:.3f} | {hard8:.3f} | {log_prob} | {value} |")
    for checkpoint in args.checkpoint:
        print(f"{checkpoint} / frequent-8: top-1 {ratio(matches[checkpoint][0], matches['frequent-8'][0])}, "
              f"top-8 {ratio(matches[checkpoint][1], matches['frequent-8'][1])}")
    return 0


def ratio(ours: float, baseline: float) -> str:
    """`ours / baseline` as `4.2×`; `—` when the baseline is 0."""
    return f"{ours / baseline:.1f}×" if baseline else "—"


if __name__ == "__main__":
    sys.exit(main())
