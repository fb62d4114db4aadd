"""Give a trained checkpoint number slots: add `⟨n0⟩…` to its tokenizer and rows to its embedding.

Why: the near misses on the train split are steps that copy a goal's number (amc12_2001_p9's
`replace 600 with (500 * (600 / 500)) by lra.` at log-prob −47.7 under the fine-tune;
docs/experiments.md, session 45), and a network whose BPE cuts `600` differently in the goal and in
the tactic does not copy. Number slots (networks/numbers.py) turn copying into choosing a slot, and
doubled copying at equal training when a network was trained with them from scratch; but that
needs a fresh pretraining (a new tokenizer), which these 2-core machines cannot afford at the
shipped model's size. A graft keeps everything the network knows: the BPE vocabulary and every
trained weight stay; the slots are appended as added special tokens (ids `vocab_size…`, one id
each, never merged, exactly as a tokenizer trained with slots holds them), and the shared
(tied) embedding grows by one row per slot. A slot's row starts at the mean embedding of the
vocabulary's number tokens (so a slot first reads as "some number") plus a small random part of
the embedding's own scale (so slots are told apart: T5 has no absolute positions, a slot's
identity is its row alone). A short fine-tune then teaches reading and writing slots.

    python -m networks.graft_slots checkpoints/alphaprover-coq-small /work/runs/slots-graft --slots 16

The result is a checkpoint (float32 unless `--dtype`) whose config says `vocab_size + slots` and
whose metadata names its source (`grafted_slots_from`). A checkpoint that already has slots, or
whose tokenizer, config and embedding sizes disagree (so appended ids would not be appended rows),
is refused with a one-line error.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

import torch
from safetensors.torch import load_file
from tokenizers import AddedToken, Tokenizer

from networks.checkpoint import CONFIG, WEIGHTS, require_checkpoint
from networks.export import DTYPES, write_checkpoint_files
from networks.numbers import MAX_PLACEHOLDERS, placeholder_tokens
from networks.tokenizer import FILE_NAME as TOKENIZER_FILE
from networks.tokenizer import ProofTokenizer

EMBEDDING = "t5.shared.weight"
#: A vocabulary entry that is a number with at most its byte-level leading space (`Ġ`).
NUMBER_TOKEN = re.compile(r"Ġ?\d+")


def grafted_tokenizer(tokenizer: Tokenizer, slots: int) -> Tokenizer:
    """A copy of `tokenizer` with `slots` placeholders appended as special added tokens."""
    if not 1 <= slots <= MAX_PLACEHOLDERS:
        raise ValueError(f"slots must be between 1 and {MAX_PLACEHOLDERS}, got {slots}")
    if ProofTokenizer(tokenizer).number_placeholders:
        raise ValueError("the checkpoint's tokenizer already has number slots")
    copy = Tokenizer.from_str(tokenizer.to_str())
    copy.add_special_tokens([AddedToken(text, special=True, normalized=False) for text in placeholder_tokens(slots)])
    return copy


def number_token_ids(tokenizer: Tokenizer) -> list[int]:
    """Ids of the vocabulary's number tokens (`12`, `Ġ600`): where a slot's row starts from."""
    return sorted(index for token, index in tokenizer.get_vocab().items() if NUMBER_TOKEN.fullmatch(token))


def grafted_embedding(embedding: torch.Tensor, number_ids: list[int], slots: int,
                      seed: int = 0, noise: float = 0.5) -> torch.Tensor:
    """`embedding` (V, d) with `slots` rows appended: the mean of the number tokens' rows plus
    Gaussian noise of `noise` × the embedding's per-dimension standard deviation (float32)."""
    if not number_ids:
        raise ValueError("the vocabulary has no number tokens to start the slots from")
    table = embedding.float()
    generator = torch.Generator().manual_seed(seed)
    base = table[number_ids].mean(0)
    scale = table.std(0) * noise
    rows = base + torch.randn(slots, table.shape[1], generator=generator) * scale
    return torch.cat([table, rows], 0)


def graft_checkpoint(source: str | Path, target: str | Path, slots: int = MAX_PLACEHOLDERS,
                     dtype: str = "float32", seed: int = 0) -> Path:
    """Write `source` with `slots` number slots to `target`. ValueError (one line) on a
    non-checkpoint, a tokenizer that already has slots, a vocabulary the embedding does not match,
    an unknown dtype, or a target that is the source."""
    src, dst = require_checkpoint(source), Path(target)
    if dst.exists() and dst.resolve() == src.resolve():
        raise ValueError(f"target {dst} is the source: choose another directory")
    config = json.loads((src / CONFIG).read_text(encoding="utf-8"))
    tokenizer = Tokenizer.from_file(str(src / TOKENIZER_FILE))
    state = load_file(str(src / WEIGHTS))
    vocab = int(config["model"]["vocab_size"])
    if EMBEDDING not in state or state[EMBEDDING].shape[0] != vocab or tokenizer.get_vocab_size() != vocab:
        raise ValueError(f"{src}: the tokenizer ({tokenizer.get_vocab_size()}), config ({vocab}) and embedding "
                         "sizes differ: cannot append slots after the vocabulary")
    new_tokenizer = grafted_tokenizer(tokenizer, slots)
    state = dict(state)
    state[EMBEDDING] = grafted_embedding(state[EMBEDDING], number_token_ids(tokenizer), slots, seed)
    metadata = dict(config.get("metadata", {}))
    metadata["grafted_slots_from"] = {"source": str(src), "slots": slots, "seed": seed}
    new_config = {**config, "model": {**config["model"], "vocab_size": vocab + slots}, "metadata": metadata}
    with tempfile.TemporaryDirectory() as scratch:
        tokenizer_file = Path(scratch) / TOKENIZER_FILE
        new_tokenizer.save(str(tokenizer_file))
        return write_checkpoint_files(dst, state, dtype, new_config, tokenizer_file)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="a checkpoint without number slots")
    parser.add_argument("target", help="directory to write (created)")
    parser.add_argument("--slots", type=int, default=MAX_PLACEHOLDERS, help="number of slots (1–16)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the slot rows' random part")
    parser.add_argument("--dtype", default="float32", help=f"one of {', '.join(DTYPES)}")
    args = parser.parse_args(argv)
    try:
        out = graft_checkpoint(args.source, args.target, args.slots, args.dtype, args.seed)
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"grafted {args.slots} number slots onto {args.source}: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
