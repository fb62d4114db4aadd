"""Fast teacher-forced scoring of many tactics per goal (PyTorch), for candidate lists.

Scoring C candidates of one goal with a plain HF forward (`networks.sampling.score_tactics`, the
reference) repeats the goal's encoder states C times, so every decoder layer re-projects them into
cross-attention keys and values, and CTranslate2's `score_batch` even re-runs the encoder per
candidate: with 40 short candidates and goals of ~100 tokens that repeated work is most of the
cost. Here the keys and values are computed once per goal and broadcast over its candidates, and
the vocabulary projection runs only at real (non-padding) positions. Everything else is the HF T5
decoder's own computation with its own modules (RMS norm, relative position bias of the first
layer, unscaled dot-product attention, gated FFN, output scaled by d_model^-0.5 when embeddings are
tied), so results equal the reference up to float rounding (tested).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from networks.model import ProverModel

TOKEN_BUDGET = 8192  # decoder positions (rows × longest row, padding included) per pass


def _split_heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    """(..., heads·dk) → (..., heads, dk)."""
    return x.view(*x.shape[:-1], heads, x.shape[-1] // heads)


def _cross_attention(q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
                     groups: list[tuple[int, int, torch.Tensor]]) -> torch.Tensor:
    """Cross-attention of queries (R, T, H, dk) over each row's goal: `groups` = (goal, its real
    length, its rows); `keys`/`values` (G, H, L, dk) are per goal and never copied per row."""
    _, width, heads, dim = q.shape
    mixed = torch.empty_like(q)
    for goal, length, select in groups:
        count = len(select)
        query = q[select].permute(2, 0, 1, 3).reshape(heads, count * width, dim)  # (H, n·T, dk)
        weights = torch.bmm(query, keys[goal, :, :length].transpose(1, 2)).softmax(-1)  # (H, n·T, L)
        out = torch.bmm(weights, values[goal, :, :length])  # (H, n·T, dk)
        mixed[select] = out.view(heads, count, width, dim).permute(1, 2, 0, 3)
    return mixed


def _score_chunk(model: ProverModel, cross: list[tuple[torch.Tensor, torch.Tensor]],
                 groups: list[tuple[int, int, torch.Tensor]], labels: torch.Tensor) -> torch.Tensor:
    """Summed log-probs (R,) of labels (R, T) (−100 = padding); `cross[i]` = decoder layer i's
    keys and values (G, H, L, dk) per goal; `groups` says which rows belong to which goal."""
    t5 = model.t5
    decoder = t5.get_decoder()
    width = labels.shape[1]
    heads = t5.config.num_heads
    inputs = torch.cat([torch.full_like(labels[:, :1], t5.config.decoder_start_token_id), labels[:, :-1]], 1)
    hidden = decoder.embed_tokens(inputs.masked_fill(inputs < 0, t5.config.pad_token_id))  # (R, T, d)
    causal = torch.full((width, width), float("-inf"), device=hidden.device).triu(1)
    self_bias = decoder.block[0].layer[0].SelfAttention.compute_bias(width, width, device=hidden.device) + causal
    for block, (keys, values) in zip(decoder.block, cross):
        layer = block.layer[0]
        x = layer.layer_norm(hidden)
        attention = layer.SelfAttention
        q, k, v = (_split_heads(p(x), heads).transpose(1, 2) for p in (attention.q, attention.k, attention.v))
        mixed = ((q @ k.transpose(-1, -2) + self_bias).softmax(-1) @ v).transpose(1, 2)  # (R, T, H, dk)
        hidden = hidden + attention.o(mixed.reshape(hidden.shape))
        layer = block.layer[1]
        q = _split_heads(layer.EncDecAttention.q(layer.layer_norm(hidden)), heads)  # (R, T, H, dk)
        mixed = _cross_attention(q, keys, values, groups)
        hidden = hidden + layer.EncDecAttention.o(mixed.reshape(hidden.shape))
        layer = block.layer[-1]
        hidden = hidden + layer.DenseReluDense(layer.layer_norm(hidden))
    real = labels >= 0
    out = decoder.final_layer_norm(hidden[real])  # (N, d): real positions only
    if getattr(t5.config, "scale_decoder_outputs", t5.config.tie_word_embeddings):
        out = out * t5.config.d_model ** -0.5
    logits = t5.lm_head(out).float()
    token_logprobs = logits.gather(-1, labels[real].unsqueeze(-1)).squeeze(-1) - logits.logsumexp(-1)
    totals = torch.zeros(labels.shape, dtype=token_logprobs.dtype, device=hidden.device)
    totals[real] = token_logprobs
    return totals.sum(-1)


@torch.no_grad()
def score_rows(model: ProverModel, states: torch.Tensor, attention_mask: torch.Tensor,
               rows: Sequence[tuple[int, Sequence[int]]]) -> list[float]:
    """Summed log-probs of (goal index, token ids ending with EOS) rows, in the order given, against
    the goals' encoder states (G, L, d) and their `attention_mask` (G, L). Rows are run sorted by
    length in passes of at most TOKEN_BUDGET positions, so padding costs almost nothing."""
    if not rows:
        return []
    model.eval()
    heads = model.t5.config.num_heads
    cross = [(_split_heads(b.layer[1].EncDecAttention.k(states), heads).transpose(1, 2),
              _split_heads(b.layer[1].EncDecAttention.v(states), heads).transpose(1, 2))
             for b in model.t5.get_decoder().block]  # once per goal: (G, H, L, dk)
    lengths = attention_mask.sum(1).tolist()  # goals are right-padded
    order = sorted(range(len(rows)), key=lambda r: len(rows[r][1]))
    totals = [0.0] * len(rows)
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and (end + 1 - start) * len(rows[order[end]][1]) <= TOKEN_BUDGET:
            end += 1
        chunk = order[start:end]
        labels = torch.full((len(chunk), len(rows[chunk[-1]][1])), -100, dtype=torch.long)
        for row, r in enumerate(chunk):
            labels[row, : len(rows[r][1])] = torch.tensor(list(rows[r][1]))
        members: dict[int, list[int]] = {}
        for row, r in enumerate(chunk):
            members.setdefault(rows[r][0], []).append(row)
        groups = [(goal, int(lengths[goal]), torch.tensor(select, device=states.device))
                  for goal, select in members.items()]
        sums = _score_chunk(model, cross, groups, labels.to(states.device))
        for r, total in zip(chunk, sums.tolist()):
            totals[r] = total
        start = end
    return totals
