"""Tactic datasets: JSONL records `{goal, tactic, steps, source, lemma}` → padded tensor batches.

`steps` is the number of tactics on the longest branch of the proof below the goal, this tactic
included (≥ 1): the value target (V = −steps, `search.value_units`).

Pretraining data is filtered and reweighted here: ssreflect-style tactics (Coquelicot's, the
stdlib's `ssr/`) cannot run in the plain-Coq files we prove, so they are dropped
(`is_ssreflect_tactic`); sources closer to competition mathematics (Reals, ZArith, Arith, ...)
are repeated `source_weights` times per epoch (`reweight`).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

import torch

from lean_interface.durable import read_jsonl
from networks.tokenizer import ProofTokenizer, tactic_identifiers


@dataclass(frozen=True)
class Example:
    goal: str
    tactic: str
    steps: int
    source: str = ""


class HeldOutRecord(ValueError):
    """A dataset record of a problem that is never trained on."""


def read_examples(path: str | Path, keep_lemma: Callable[[str], bool] | None = None) -> list[Example]:
    """All records of a JSONL file — only those whose `lemma` (a problem name, "" for none)
    `keep_lemma` accepts, when given (a run's own held-out benchmarks, `selfplay.hold_out`);
    ValueError (one line) on a missing file or a bad record, and `HeldOutRecord` on a record whose
    `lemma` is a held-out competition problem (the dev subset, the test split, or a variant of
    one: `held_out_problem_of`) — whatever wrote the file, no training input carries one."""
    from lean_interface.problems.benchmarks import held_out_problem_of

    file = Path(path)
    if not file.is_file():
        raise ValueError(f"dataset file not found: {file}")
    rows = read_jsonl(file, lambda row: (Example(row["goal"], row["tactic"], max(1, int(row["steps"])),
                                                 str(row.get("source", ""))), str(row.get("lemma") or "")),
                      what="a {goal, tactic, steps} record")
    for lemma in sorted({lemma for _, lemma in rows if lemma}):
        held_out = held_out_problem_of(lemma)
        if held_out is not None:
            raise HeldOutRecord(f"{file}: a record of {held_out}, which is never trained on")
    return [example for example, lemma in rows if keep_lemma is None or keep_lemma(lemma)]


def weighted_files(spec: str) -> list[tuple[Path, int]]:
    """(file, times) of each part of a comma-separated file spec: `file` or `file*N` (N >= 1: the
    file's records count N times, so a small file can weigh more in a mix than its size). The one
    parser of this syntax: `alphaprover pretrain`'s `train_file` and `alphaprover train`'s
    `supervised_file` both read it. ValueError (one line) on a bad N."""
    parts: list[tuple[Path, int]] = []
    for part in (part.strip() for part in spec.split(",")):
        if not part:
            continue
        path, _, weight = part.rpartition("*") if "*" in part else (part, "", "1")
        if not weight.strip().isdigit() or int(weight) < 1:
            raise ValueError(f"file {part!r}: the weight after '*' must be a whole number >= 1")
        parts.append((Path(path.strip()), int(weight)))
    return parts


def read_example_files(paths: str, keep_lemma: Callable[[str], bool] | None = None) -> list[Example]:
    """The records of every file in the comma-separated `paths`, in order, `file*N` counted N
    times (pretraining on the stdlib records, the factory's script demonstrations and the
    loop-proof ledger's records together: `data/extracted/train.jsonl,data/factory/scripts.jsonl,
    data/loop-proofs/records.jsonl*20`; `source_weights` then weighs them by their `source`), only
    those whose `lemma` `keep_lemma` accepts when given (`read_examples`)."""
    parts = weighted_files(paths)
    if not parts:
        raise ValueError("no dataset file given")
    return [example for file, times in parts for example in read_examples(file, keep_lemma) * times]


#: ssreflect syntax that plain Coq does not parse (plain `move H after H'` is allowed).
_SSR_PATTERNS = re.compile(
    r"^\s*move\b(?!\s+\S+\s+(after|before|at)\b)"
    r"|\b(case|elim|apply|exact|congr|have|suff|suffices|wlog)\s*:"
    r"|//|/=|\brewrite\s+(/|-(?!>))|^\s*by\b|\bdone\b|\blast\s+first\b|\bfirst\s+last\b|\[:"
    r"|^\s*(have|suff|suffices|wlog|congr|under|over)\b"
)


def is_ssreflect_tactic(tactic: str) -> bool:
    """Whether `tactic` uses ssreflect syntax (`move=>`, `case:`, `//`, `rewrite /f`, `by`, ...).
    `=>` counts only outside `fun`/`match` (where plain Coq uses it too)."""
    if _SSR_PATTERNS.search(tactic):
        return True
    return "=>" in tactic and not re.search(r"\b(fun|match|λ)\b", tactic)


def reweight(examples: Sequence[Example], source_weights: dict[str, float], seed: int) -> list[Example]:
    """Each example repeated by the weight of the first `source_weights` key contained in its
    source path (1 if none): weight w gives floor(w) copies plus one more with probability
    frac(w), drawn with `seed`; a weight of 0 drops the source."""
    rng = random.Random(seed)
    out: list[Example] = []
    for example in examples:
        weight = next((w for key, w in source_weights.items() if key in example.source), 1.0)
        copies = int(weight) + (rng.random() < weight - int(weight))
        out.extend([example] * copies)
    return out


@dataclass(frozen=True)
class EncodedExample:
    goal_ids: list[int]
    tactic_ids: list[int]
    steps: int


def encode_examples(examples: Sequence[Example], tokenizer: ProofTokenizer, max_goal_tokens: int,
                    max_tactic_tokens: int) -> list[EncodedExample]:
    """Token ids of every example whose tactic fits `max_tactic_tokens` (EOS included): a truncated
    tactic would teach the policy to stop mid-tactic, so longer ones are left out. A (goal, tactic)
    repeated by `reweight` is encoded once (the copies share the ids, which nothing mutates)."""
    out = []
    done: dict[tuple[str, str], tuple[list[int], list[int]] | None] = {}
    for example in examples:
        key = (example.goal, example.tactic)
        if key not in done:
            tactic = tokenizer.encode_tactic(example.tactic, max_tactic_tokens + 1, example.goal)
            done[key] = None if len(tactic) > max_tactic_tokens else (
                tokenizer.encode_goal(example.goal, max_goal_tokens, tactic_identifiers(example.tactic)), tactic)
        ids = done[key]
        if ids is not None:
            out.append(EncodedExample(ids[0], ids[1], example.steps))
    return out


def collate(batch: Sequence[EncodedExample], pad_id: int) -> dict[str, torch.Tensor]:
    """Right-padded tensors: input_ids/attention_mask (B, L), labels (B, T) with −100, steps (B,)."""
    goal_width = max(len(e.goal_ids) for e in batch)
    tactic_width = max(len(e.tactic_ids) for e in batch)
    input_ids = torch.full((len(batch), goal_width), pad_id, dtype=torch.long)
    labels = torch.full((len(batch), tactic_width), -100, dtype=torch.long)
    for row, example in enumerate(batch):
        input_ids[row, : len(example.goal_ids)] = torch.tensor(example.goal_ids)
        labels[row, : len(example.tactic_ids)] = torch.tensor(example.tactic_ids)
    attention_mask = (input_ids != pad_id).long()
    attention_mask[:, 0] = 1
    steps = torch.tensor([e.steps for e in batch], dtype=torch.long)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels, "steps": steps}


def batches(examples: Sequence[EncodedExample], batch_size: int, pad_id: int, seed: int,
            shuffle: bool = True) -> Iterator[dict[str, torch.Tensor]]:
    """One epoch of batches. Shuffled, then grouped by length within windows of 50 batches so
    padding stays small (the usual bucketing trick)."""
    order = list(range(len(examples)))
    if shuffle:
        random.Random(seed).shuffle(order)
    window = batch_size * 50
    for start in range(0, len(order), window):
        chunk = sorted(order[start : start + window], key=lambda i: len(examples[i].goal_ids))
        groups = [chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size)]
        if shuffle:
            random.Random(seed + start).shuffle(groups)
        for group in groups:
            yield collate([examples[i] for i in group], pad_id)
