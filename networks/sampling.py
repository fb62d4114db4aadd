"""Batched inference: K distinct tactics with log-probabilities, and values, for N goals at once.

The encoder runs once per batch; its states feed both the value head and HF `generate`, which
samples K sequences per goal (temperature configurable). A sample's log-probability is the sum of
its tokens' log-probabilities under the model's *untempered* distribution (the raw logits), so
priors mean the same thing whatever temperature was used to explore. Duplicates are merged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import torch

from networks.model import ProverModel
from networks.tokenizer import ProofTokenizer


@dataclass(frozen=True)
class BatchOutput:
    """Per goal: distinct (tactic, logprob) pairs, most likely first; and its value (≤ 0)."""

    tactics: list[list[tuple[str, float]]]
    values: list[float]


def encode_goals(tokenizer: ProofTokenizer, goals: Sequence[str], max_tokens: int,
                 device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    encoded = [tokenizer.encode_goal(g, max_tokens) for g in goals]
    width = max(len(ids) for ids in encoded)
    input_ids = torch.zeros((len(encoded), width), dtype=torch.long)
    for row, ids in enumerate(encoded):
        input_ids[row, : len(ids)] = torch.tensor(ids)
    attention_mask = (input_ids != tokenizer.pad_id).long()
    attention_mask[:, 0] = 1
    return input_ids.to(device), attention_mask.to(device)


@torch.no_grad()
def evaluate_goals(model: ProverModel, tokenizer: ProofTokenizer, goals: Sequence[str], num_samples: int,
                   temperature: float = 1.0, seed: int = 0) -> BatchOutput:
    """Sample `num_samples` tactics per goal (0 = values only) and predict every goal's value."""
    if not goals:
        return BatchOutput([], [])
    model.eval()
    device = next(model.parameters()).device
    input_ids, attention_mask = encode_goals(tokenizer, goals, model.config.max_goal_tokens, device)
    encoder = model.encode(input_ids, attention_mask)
    values = model.values(model.value_logits(encoder.last_hidden_state, attention_mask)).tolist()
    if num_samples <= 0:
        return BatchOutput([[] for _ in goals], values)
    torch.manual_seed(seed)
    generated = model.t5.generate(
        encoder_outputs=encoder, attention_mask=attention_mask, do_sample=True, temperature=temperature,
        top_k=0, top_p=1.0, num_return_sequences=num_samples, max_new_tokens=model.config.max_tactic_tokens,
        return_dict_in_generate=True, output_logits=True, pad_token_id=tokenizer.pad_id,
        eos_token_id=tokenizer.eos_id, decoder_start_token_id=tokenizer.pad_id,
    )
    sequences = generated.sequences[:, 1:]  # (N*K, T) without the decoder start token
    logits = torch.stack(generated.logits, dim=1).float()  # (N*K, T, V) raw, untempered
    logprobs = logits.log_softmax(-1).gather(-1, sequences.unsqueeze(-1)).squeeze(-1)  # (N*K, T)
    # tokens after the first EOS are padding: mask them out (EOS itself counts)
    is_eos = sequences == tokenizer.eos_id
    after_eos = (is_eos.cumsum(1) - is_eos.long()) > 0
    finished = is_eos.any(1)
    totals = logprobs.masked_fill(after_eos, 0.0).sum(1).tolist()
    tactics: list[list[tuple[str, float]]] = []
    for goal_index in range(len(goals)):
        best: dict[str, float] = {}
        for row in range(goal_index * num_samples, (goal_index + 1) * num_samples):
            if not finished[row]:
                continue  # ran out of length: not a complete tactic
            text = tokenizer.decode(sequences[row].tolist())
            if text and (text not in best or totals[row] > best[text]):
                best[text] = totals[row]
        tactics.append(sorted(best.items(), key=lambda item: -item[1]))
    return BatchOutput(tactics, values)
