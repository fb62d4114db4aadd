"""Tiny transformers checkpoints made in a test, with no download: the hf policy's test subjects.

* `tiny_t5`: a randomly initialised T5 with `ByT5Tokenizer` (byte-level, needs no vocabulary file),
  the shape of ReProver's tactic generator.
* `tiny_gpt2`: a randomly initialised GPT-2 with a byte-level BPE tokenizer trained here on a few
  strings and wrapped in `PreTrainedTokenizerFast`, the shape of a causal step prover.
* `fit`: Adam steps on (goal, tactic) pairs until a tiny model's greedy tactic is exactly a
  given one (a recorded Lean session can only answer the recorded tactics).

Each is written with `save_pretrained`, exactly as a user's checkpoint is.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import (ByT5Tokenizer, GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast, T5Config,
                          T5ForConditionalGeneration)

from networks.hf_policy import PROMPTS

GPT2_EOS = "<|endoftext|>"
CORPUS = ("forall n : nat, n + 0 = n", "n : nat\n⊢ n + 0 = n", "intros n. lia. reflexivity. auto.",
          "[GOAL]x : Unit\n⊢ Nat[PROOFSTEP]apply Int.natAbs", "[GOAL]x : Unit\n⊢ Int[PROOFSTEP]exact -37")


def tiny_t5(directory: Path, seed: int = 0) -> tuple[T5ForConditionalGeneration, ByT5Tokenizer]:
    """A 2+2-layer, 64-wide T5 over bytes, saved in `directory`; untied embeddings, as ByT5's."""
    torch.manual_seed(seed)
    tokenizer = ByT5Tokenizer()
    config = T5Config(vocab_size=len(tokenizer), d_model=64, d_ff=128, d_kv=16, num_heads=4, num_layers=2,
                      num_decoder_layers=2, decoder_start_token_id=tokenizer.pad_token_id,
                      pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
                      feed_forward_proj="gated-gelu", tie_word_embeddings=False)
    model = T5ForConditionalGeneration(config).eval()
    model.save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))
    return model, tokenizer


def tiny_gpt2(directory: Path, seed: int = 0) -> tuple[GPT2LMHeadModel, PreTrainedTokenizerFast]:
    """A 2-layer, 64-wide GPT-2 with a BPE tokenizer trained on `CORPUS`, saved in `directory`."""
    torch.manual_seed(seed)
    raw = Tokenizer(models.BPE(unk_token="<unk>"))
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    raw.train_from_iterator(list(CORPUS) * 4, trainers.BpeTrainer(
        vocab_size=400, special_tokens=[GPT2_EOS, "<unk>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=raw, eos_token=GPT2_EOS, bos_token=GPT2_EOS,
                                        unk_token="<unk>", clean_up_tokenization_spaces=False)
    eos = tokenizer.eos_token_id
    config = GPT2Config(vocab_size=len(tokenizer), n_embd=64, n_layer=2, n_head=4, n_positions=512,
                        bos_token_id=eos, eos_token_id=eos)
    model = GPT2LMHeadModel(config).eval()
    model.save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))
    return model, tokenizer


def fit(directory: Path, model: torch.nn.Module, tokenizer, pairs: Sequence[tuple[str, str]],
        max_steps: int = 1500) -> None:
    """Train `model` on (goal, tactic) pairs as the hf policy prompts it (the family's default
    template; the tactic then EOS) until every target token is the model's teacher-forced argmax
    (so greedy decoding gives exactly the tactics), at most `max_steps` Adam steps; all pairs in one
    batch, one torch thread (several only contend on a small shared machine: a few hundred steps
    take seconds); then save it again. AssertionError if it has not learnt them by then."""
    causal = not model.config.is_encoder_decoder
    eos = tokenizer.eos_token_id
    sources, targets = [], []
    for goal, tactic in pairs:
        target = tokenizer(tactic, add_special_tokens=False)["input_ids"] + [eos]
        if causal:
            prompt = tokenizer(PROMPTS["proofstep"].replace("{goal}", goal))["input_ids"]
            sources.append(prompt + target)
            targets.append([-100] * len(prompt) + target)
        else:
            sources.append(tokenizer(goal)["input_ids"])
            targets.append(target)
    inputs = _padded(sources, eos if causal else tokenizer.pad_token_id)
    mask = (torch.arange(inputs.shape[1])[None, :] < torch.tensor([len(s) for s in sources])[:, None]).long()
    labels = _padded(targets, -100)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    optimiser = torch.optim.Adam(model.parameters(), lr=3e-3)
    learnt = False
    try:
        for step in range(max_steps):
            model.train()
            loss = model(input_ids=inputs, attention_mask=mask, labels=labels).loss
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            if step % 25 == 24:
                model.eval()
                with torch.no_grad():
                    logits = model(input_ids=inputs, attention_mask=mask, labels=labels).logits
                guessed = logits[:, :-1].argmax(-1) if causal else logits.argmax(-1)
                wanted = labels[:, 1:] if causal else labels
                learnt = bool(((guessed == wanted) | (wanted == -100)).all())
                if learnt:
                    break
    finally:
        torch.set_num_threads(threads)
    model.eval()
    assert learnt, f"the tiny model did not learn {pairs} in {max_steps} steps"
    model.save_pretrained(str(directory))


def _padded(rows: Sequence[Sequence[int]], pad: int) -> torch.Tensor:
    """Rows right-padded with `pad` into one (N, longest) tensor."""
    out = torch.full((len(rows), max(len(row) for row in rows)), pad, dtype=torch.long)
    for index, row in enumerate(rows):
        out[index, : len(row)] = torch.tensor(list(row))
    return out
