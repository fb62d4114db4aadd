"""Batched inference: K distinct tactics with log-probabilities, and values, for N goals at once.

The encoder runs once per batch; its states feed the value head, HF `generate` (which samples K
sequences per goal, temperature configurable) and teacher-forced scoring of candidate tactics. A
tactic's log-probability is the sum of its tokens' log-probabilities (EOS included) under the
model's *untempered* distribution (the raw logits), so priors mean the same thing whatever
temperature was used to explore, and sampled and scored tactics can be ranked together.
Duplicates are merged (keeping the higher log-prob). This PyTorch path is the reference the
CTranslate2 engine (`networks.engine`) is tested against.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import chain

import torch
from transformers.modeling_outputs import BaseModelOutput

from networks.model import ProverModel
from networks.scoring import score_rows
from networks.tokenizer import ProofTokenizer
from search.evaluator import TacticForm, rank_tactics

OVERLONG_LOGPROB = -1e3
SCORE_ROWS = 256  # decoder rows per teacher-forced scoring pass (bounds memory)
DECODINGS = ("sample", "beam", "both")  # how a goal's tactics are proposed: samples, beams, or their union


@dataclass(frozen=True)
class BatchOutput:
    """Per goal: distinct (tactic, logprob) pairs, most likely first; and its value (≤ 0)."""

    tactics: list[list[tuple[str, float]]]
    values: list[float]


def overlong_logprob(num_tokens: int) -> float:
    """Log-prob given to a tactic longer than the model can emit: below any real score (a real
    one is at least ~ −20 per token × 48 tokens), and lower the longer it is, so such tactics are
    still returned but tried last."""
    return OVERLONG_LOGPROB - num_tokens


def tactic_ids(tokenizer: ProofTokenizer, tactic: str, goal: str) -> list[int]:
    """Token ids of `tactic` for `goal` plus EOS, not truncated (callers decide what is too long)."""
    return tokenizer.encode_tactic(tactic, 1 << 30, goal)


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


def candidate_rows(tokenizer: ProofTokenizer, max_tokens: int, tactics_per_goal: Sequence[Sequence[str]],
                   goals: Sequence[str]) -> tuple[list[list[float]], list[tuple[int, int, list[int]]]]:
    """Split candidates into those to run and those too long: (scores with `overlong_logprob`
    filled in for tactics over `max_tokens` tokens (EOS included), rows (goal, position, ids) to score)."""
    scores = [[0.0] * len(tactics) for tactics in tactics_per_goal]
    rows: list[tuple[int, int, list[int]]] = []
    for goal, tactics in enumerate(tactics_per_goal):
        for position, tactic in enumerate(tactics):
            ids = tactic_ids(tokenizer, tactic, goals[goal])
            if len(ids) > max_tokens:
                scores[goal][position] = overlong_logprob(len(ids))
            else:
                rows.append((goal, position, ids))
    return scores, rows


def _reference_rows(model: ProverModel, states: torch.Tensor, attention_mask: torch.Tensor,
                    rows: Sequence[tuple[int, Sequence[int]]]) -> list[float]:
    """Teacher-forced summed log-probs of (goal index, ids incl. EOS) rows by a plain HF forward
    with labels (each row repeats its goal's encoder states): simple, slow, the reference."""
    totals: list[float] = []
    for start in range(0, len(rows), SCORE_ROWS):
        chunk = rows[start : start + SCORE_ROWS]
        index = torch.tensor([goal for goal, _ in chunk], device=states.device)
        labels = torch.full((len(chunk), max(len(ids) for _, ids in chunk)), -100, dtype=torch.long)
        for row, (_, ids) in enumerate(chunk):
            labels[row, : len(ids)] = torch.tensor(list(ids))
        labels = labels.to(states.device)
        logits = model.t5(encoder_outputs=BaseModelOutput(last_hidden_state=states[index]),
                          attention_mask=attention_mask[index], labels=labels).logits.float()
        logprobs = logits.log_softmax(-1).gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)
        totals.extend(logprobs.masked_fill(labels < 0, 0.0).sum(1).tolist())
    return totals


def _score_candidates(model: ProverModel, tokenizer: ProofTokenizer, states: torch.Tensor,
                      attention_mask: torch.Tensor, tactics_per_goal: Sequence[Sequence[str]],
                      goals: Sequence[str], fast: bool = True) -> list[list[float]]:
    scores, rows = candidate_rows(tokenizer, model.config.max_tactic_tokens, tactics_per_goal, goals)
    run = score_rows if fast else _reference_rows
    totals = run(model, states, attention_mask, [(goal, ids) for goal, _, ids in rows]) if rows else []
    for (goal, position, _), total in zip(rows, totals):
        scores[goal][position] = total
    return scores


def _encoder_states(model: ProverModel, tokenizer: ProofTokenizer,
                    goals: Sequence[str]) -> tuple[torch.Tensor, torch.Tensor]:
    """(encoder hidden states, attention mask) of a batch of goals, model in eval mode."""
    model.eval()
    device = next(model.parameters()).device
    input_ids, attention_mask = encode_goals(tokenizer, goals, model.config.max_goal_tokens, device)
    return model.encode(input_ids, attention_mask).last_hidden_state, attention_mask


@torch.no_grad()
def score_tactics(model: ProverModel, tokenizer: ProofTokenizer, goals: Sequence[str],
                  tactics_per_goal: Sequence[Sequence[str]]) -> list[list[float]]:
    """Teacher-forced log-prob of each given tactic (its own tokenization, EOS included) for its
    goal, in the order given. Tactics longer than `max_tactic_tokens` (EOS included) are not run
    and get `overlong_logprob(length)`. One encoder pass, then a plain HF forward with labels: the
    reference that `networks.scoring` (used by `evaluate_goals`) and the engine are tested against."""
    if len(goals) != len(tactics_per_goal):
        raise ValueError("score_tactics: one tactic list per goal")
    if not goals:
        return []
    states, attention_mask = _encoder_states(model, tokenizer, goals)
    return _score_candidates(model, tokenizer, states, attention_mask, tactics_per_goal, goals, fast=False)


@torch.no_grad()
def score_token_ids(model: ProverModel, tokenizer: ProofTokenizer, goals: Sequence[str],
                    ids_per_goal: Sequence[Sequence[Sequence[int]]]) -> list[list[float]]:
    """Teacher-forced log-prob of exact token sequences (each ending with EOS), no length limit:
    the reference for a sampled path, whose tokens need not be the text's own tokenization."""
    states, attention_mask = _encoder_states(model, tokenizer, goals)
    rows = [(goal, list(ids)) for goal, group in enumerate(ids_per_goal) for ids in group]
    totals = iter(_reference_rows(model, states, attention_mask, rows) if rows else [])
    return [[next(totals) for _ in group] for group in ids_per_goal]


@torch.no_grad()
def goal_values(model: ProverModel, tokenizer: ProofTokenizer, goals: Sequence[str]) -> list[float]:
    """Value (−expected steps) of each goal: one encoder pass and the value head."""
    if not goals:
        return []
    states, attention_mask = _encoder_states(model, tokenizer, goals)
    return model.values(model.value_logits(states, attention_mask)).tolist()


Sampler = Callable[[Sequence[str], int], list[list[tuple[str, float]]]]


def _generate(model: ProverModel, tokenizer: ProofTokenizer, encoder: BaseModelOutput, attention_mask: torch.Tensor,
              num_samples: int, temperature: float, goals: Sequence[str]) -> list[list[tuple[str, float]]]:
    """HF `generate`: per goal, the finished samples (text, untempered summed log-prob), duplicates kept."""
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
    samples: list[list[tuple[str, float]]] = []
    for goal_index in range(attention_mask.shape[0]):
        group = []
        for row in range(goal_index * num_samples, (goal_index + 1) * num_samples):
            if finished[row]:  # else it ran out of length: not a complete tactic
                text = tokenizer.decode(sequences[row].tolist(), goals[goal_index])
                if text:
                    group.append((text, totals[row]))
        samples.append(group)
    return samples


def _beam(model: ProverModel, tokenizer: ProofTokenizer, states: torch.Tensor, attention_mask: torch.Tensor,
          width: int, goals: Sequence[str]) -> list[list[tuple[str, float]]]:
    """HF beam search: per goal, the `width` beams that finished with EOS as (text, summed log-prob
    of the beam's token path, EOS included, rescored teacher-forced: HF's own beam scores carry
    its length handling). `early_stopping=False` with `length_penalty=0`: the search stops only
    when no running beam can still beat the worst finished one (a log-prob only falls as a path
    grows), so it is exact and agrees with CTranslate2's beam; `True` stopped at the first `width`
    finished beams and dropped a long tactic that was still the best running path."""
    generated = model.t5.generate(
        encoder_outputs=BaseModelOutput(last_hidden_state=states), attention_mask=attention_mask,
        do_sample=False, num_beams=width, num_return_sequences=width, length_penalty=0.0,
        early_stopping=False, max_new_tokens=model.config.max_tactic_tokens, pad_token_id=tokenizer.pad_id,
        eos_token_id=tokenizer.eos_id, decoder_start_token_id=tokenizer.pad_id,
    )
    paths: list[tuple[int, list[int]]] = []
    for row, sequence in enumerate(generated[:, 1:].tolist()):
        if tokenizer.eos_id in sequence:  # else it ran out of length: not a complete tactic
            paths.append((row // width, sequence[: sequence.index(tokenizer.eos_id) + 1]))
    totals = score_rows(model, states, attention_mask, paths) if paths else []
    beams: list[list[tuple[str, float]]] = [[] for _ in range(attention_mask.shape[0])]
    for (goal, ids), total in zip(paths, totals):
        text = tokenizer.decode(ids, goals[goal])
        if text:
            beams[goal].append((text, total))
    return beams


def canonical_samples(samples: Sequence[tuple[str, float]],
                      form: TacticForm) -> tuple[list[tuple[str, float]], list[str]]:
    """Split one goal's samples by `form`: those already canonical, kept with their sampled
    log-prob, and the canonical forms of the others, which must be scored teacher-forced (a
    sampled `lra`'s log-prob is not `lra.`'s). Samples with no canonical form are dropped."""
    kept: list[tuple[str, float]] = []
    rescore: list[str] = []
    for text, logprob in samples:
        canonical = form(text)
        if canonical == text:
            kept.append((text, logprob))
        elif canonical is not None:
            rescore.append(canonical)
    return kept, rescore


@torch.no_grad()
def evaluate_goals(model: ProverModel, tokenizer: ProofTokenizer, goals: Sequence[str], num_samples: int,
                   temperature: float = 1.0, seed: int = 0, candidates: Sequence[Sequence[str]] | None = None,
                   sampler: Sampler | None = None, tactic_form: TacticForm | None = None,
                   beam_width: int = 0, beamer: Sampler | None = None) -> BatchOutput:
    """Sample `num_samples` tactics per goal (0 = none), score each goal's `candidates` teacher-forced
    (returned too, merged with the samples), and predict every goal's value. One encoder pass
    serves the value head, the candidate scoring and HF `generate` (seeded with `seed`); a
    `sampler(goals, num_samples)` (e.g. the CTranslate2 engine) replaces `generate` if given.
    With `beam_width` > 0 a beam search of that width adds the policy's `beam_width` most likely
    tactics (distinct, deterministic; `beamer(goals, width)`, e.g. the engine's, replaces HF's),
    so `num_samples=0, beam_width=K` is pure beam decoding.

    With `tactic_form` (the proof language's canonical form, `lean_interface.tactic_form`) every
    tactic returned, and every tactic scored, is in that form: candidates are put into it before
    scoring, a sample not in it is replaced by its canonical form scored teacher-forced, and text
    with no canonical form is dropped. So `lra` and `lra.` are one tactic, priced as `lra.`."""
    if not goals:
        return BatchOutput([], [])
    states, attention_mask = _encoder_states(model, tokenizer, goals)
    values = model.values(model.value_logits(states, attention_mask)).tolist()
    sampled: list[list[tuple[str, float]]] = [[] for _ in goals]
    if num_samples > 0 and sampler is not None:
        sampled = sampler(goals, num_samples)
    elif num_samples > 0:
        torch.manual_seed(seed)
        sampled = _generate(model, tokenizer, BaseModelOutput(last_hidden_state=states), attention_mask, num_samples,
                            temperature, goals)
    if beam_width > 0:
        beams = (beamer(goals, beam_width) if beamer is not None
                 else _beam(model, tokenizer, states, attention_mask, beam_width, goals))
        sampled = [[*group, *extra] for group, extra in zip(sampled, beams)]
    to_score = [list(group) for group in candidates] if candidates is not None else [[] for _ in goals]
    if tactic_form is not None:
        split = [canonical_samples(group, tactic_form) for group in sampled]
        sampled = [kept for kept, _ in split]
        to_score = [list(dict.fromkeys(c for c in map(tactic_form, (*group, *rescore)) if c is not None))
                    for group, (_, rescore) in zip(to_score, split)]
    scored: list[list[tuple[str, float]]] = [[] for _ in goals]
    if any(to_score):
        scores = _score_candidates(model, tokenizer, states, attention_mask, to_score, goals)
        scored = [list(zip(tactics, totals)) for tactics, totals in zip(to_score, scores)]
    return BatchOutput([rank_tactics(chain(s, c)) for s, c in zip(sampled, scored)], values)
