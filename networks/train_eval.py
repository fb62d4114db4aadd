"""Held-out metrics of a prover network, as the model card reports them.

* Teacher-forced, over the WHOLE validation file (checkpoint selection uses `policy_loss`):
  `policy_loss` (mean tactic-token cross-entropy, nats/token), `value_loss` (value-bin
  cross-entropy), `value_mae` (|E[steps] − true steps|), and the same two value errors for the
  best constant predictor fitted on the training data (`value_mae_constant`: the training median;
  `value_loss_constant`: the training distribution over bins), so the value head is always read
  against "predict the usual depth".
* Exact match on a fixed sample of validation goals: `top1` / `topk` — the reference tactic is
  the model's most likely / among its k most likely tactics, found by beam search (k beams), both
  compared in the language's canonical form (`lean_interface.tactic_form`, the form the data has). Exact match against one human tactic is a harsh measure: many tactics
  prove a goal.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import torch
from torch.nn import functional as F

from lean_interface.tactic_form import TacticForm, coq_tactic
from networks.dataset import EncodedExample, Example, collate
from networks.model import ProverModel
from networks.sampling import encode_goals
from networks.tokenizer import ProofTokenizer


@dataclass(frozen=True)
class ValueBaseline:
    """The best constant value predictions, fitted on training steps."""

    median_steps: float
    bin_logprobs: tuple[float, ...]  # log of the training distribution over value bins (smoothed)

    @classmethod
    def fit(cls, steps: Sequence[int], num_bins: int) -> "ValueBaseline":
        counts = Counter(min(max(s, 1), num_bins) - 1 for s in steps)
        total = sum(counts.values()) + num_bins  # add-one smoothing
        logprobs = tuple(math.log((counts.get(i, 0) + 1) / total) for i in range(num_bins))
        return cls(float(statistics.median(steps)) if steps else 1.0, logprobs)


@torch.no_grad()
def teacher_forced_metrics(model: ProverModel, encoded: Sequence[EncodedExample], pad_id: int,
                           baseline: ValueBaseline, batch_size: int = 64) -> dict[str, float]:
    """Policy and value losses over every example (see the module docstring)."""
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    token_loss = tokens = value_loss = value_error = const_loss = const_error = 0.0
    bins = torch.tensor(baseline.bin_logprobs)
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i].goal_ids))  # little padding
    for start in range(0, len(order), batch_size):
        batch = collate([encoded[i] for i in order[start : start + batch_size]], pad_id)
        batch = {k: v.to(device) for k, v in batch.items()}
        encoder = model.encode(batch["input_ids"], batch["attention_mask"])
        logits = model.t5(encoder_outputs=encoder, attention_mask=batch["attention_mask"], labels=batch["labels"]).logits
        labels = batch["labels"]
        token_loss += F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1),
                                      ignore_index=-100, reduction="sum").item()
        tokens += (labels != -100).sum().item()
        value_logits = model.value_logits(encoder.last_hidden_state, batch["attention_mask"])
        targets = model.steps_to_bins(batch["steps"])
        value_loss += F.cross_entropy(value_logits, targets, reduction="sum").item()
        steps = batch["steps"].float()
        value_error += (-model.values(value_logits) - steps).abs().sum().item()
        const_loss += -bins[targets.cpu()].sum().item()
        const_error += (steps - baseline.median_steps).abs().sum().item()
    model.train(was_training)
    n = max(1, len(encoded))
    return {"policy_loss": token_loss / max(1.0, tokens), "value_loss": value_loss / n, "value_mae": value_error / n,
            "value_loss_constant": const_loss / n, "value_mae_constant": const_error / n}


@torch.no_grad()
def beam_exact_match(model: ProverModel, tokenizer: ProofTokenizer, examples: Sequence[Example], k: int,
                     batch_size: int = 16, form: TacticForm = coq_tactic) -> dict[str, float]:
    """top1/topk exact match of the k-beam tactics against the reference, in canonical `form`
    (a beam with no canonical form, one the guard refuses, matches nothing)."""
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    top1 = topk = 0
    for start in range(0, len(examples), batch_size):
        chunk = examples[start : start + batch_size]
        input_ids, attention_mask = encode_goals(tokenizer, [e.goal for e in chunk], model.config.max_goal_tokens, device)
        out = model.t5.generate(input_ids=input_ids, attention_mask=attention_mask, num_beams=k,
                                num_return_sequences=k, do_sample=False,
                                max_new_tokens=model.config.max_tactic_tokens)
        for row, example in enumerate(chunk):
            beams = [form(tokenizer.decode(ids.tolist(), chunk[row].goal)) for ids in out[row * k : (row + 1) * k]]
            reference = form(example.tactic)
            top1 += bool(beams) and reference is not None and beams[0] == reference
            topk += reference is not None and reference in beams
    model.train(was_training)
    n = max(1, len(examples))
    return {"top1": top1 / n, "topk": topk / n}


def evaluate_checkpoint(checkpoint: str, train_file: str, valid_file: str, exact_match_examples: int = 256,
                        beams: int = 8, seed: int = 0) -> dict[str, float]:
    """The model card's metrics for any checkpoint, on the same data and sample the pretraining
    run uses (ssreflect tactics dropped; the same seeded exact-match sample)."""
    import random

    from networks.checkpoint import load_checkpoint
    from networks.dataset import encode_examples, is_ssreflect_tactic, read_examples

    model, tokenizer, _ = load_checkpoint(checkpoint)
    train_steps = [e.steps for e in read_examples(train_file)]
    valid = [e for e in read_examples(valid_file) if not is_ssreflect_tactic(e.tactic)]
    baseline = ValueBaseline.fit(train_steps, model.config.num_value_bins)
    encoded = encode_examples(valid, tokenizer, model.config.max_goal_tokens, model.config.max_tactic_tokens)
    metrics = teacher_forced_metrics(model, encoded, tokenizer.pad_id, baseline)
    sample = random.Random(seed).sample(valid, min(exact_match_examples, len(valid)))
    metrics.update(beam_exact_match(model, tokenizer, sample, beams))
    return metrics


if __name__ == "__main__":
    import argparse
    import json

    parser = argparse.ArgumentParser(description="held-out metrics of a checkpoint (model card)")
    parser.add_argument("checkpoint")
    parser.add_argument("--train", default="data/extracted/train.jsonl")
    parser.add_argument("--valid", default="data/extracted/valid.jsonl")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(json.dumps(evaluate_checkpoint(args.checkpoint, args.train, args.valid), indent=2))


@torch.no_grad()
def predicted_values(model: ProverModel, tokenizer: ProofTokenizer, goals: Sequence[str],
                     batch_size: int = 64) -> list[float]:
    """The value head's V (≈ −steps still needed) for each goal: higher means closer to proved.
    Read against proved / unproved labels as an AUC (`selfplay.round_metrics.auc`)."""
    model.eval()
    values: list[float] = []
    for start in range(0, len(goals), batch_size):
        input_ids, attention_mask = encode_goals(tokenizer, goals[start:start + batch_size],
                                                 model.config.max_goal_tokens, next(model.parameters()).device)
        states = model.encode(input_ids, attention_mask).last_hidden_state
        values.extend(float(v) for v in model.values(model.value_logits(states, attention_mask)))
    return values
