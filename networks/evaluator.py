"""`NetworkEvaluator`: the trained network behind search's `Evaluator` interface.

Batched (one network call for all requests of a search step), cached by (goal text, round,
number of samples) so transpositions and repeated leaves cost nothing. Round r of progressive
sampling uses its own seed, so later rounds can propose tactics earlier rounds did not.
"""

from __future__ import annotations

import zlib
from collections import OrderedDict
from pathlib import Path
from typing import Sequence

import torch

from networks.checkpoint import load_checkpoint
from networks.model import ProverModel
from networks.sampling import evaluate_goals
from networks.tokenizer import ProofTokenizer
from search.evaluator import EvalRequest, Evaluation


class NetworkEvaluator:
    """Policy + value from a checkpoint, batched and cached."""

    def __init__(self, model: ProverModel, tokenizer: ProofTokenizer, temperature: float = 1.0, seed: int = 0,
                 max_batch: int = 32, cache_size: int = 100_000) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.temperature = temperature
        self.seed = seed
        self.max_batch = max_batch
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[str, int, int], Evaluation] = OrderedDict()
        self.network_calls = 0
        self.cache_hits = 0

    @classmethod
    def from_checkpoint(cls, directory: str | Path, temperature: float = 1.0, seed: int = 0,
                        threads: int = 0, max_batch: int = 32) -> "NetworkEvaluator":
        if threads:
            torch.set_num_threads(threads)
        model, tokenizer, _ = load_checkpoint(directory)
        return cls(model, tokenizer, temperature=temperature, seed=seed, max_batch=max_batch)

    def evaluate(self, requests: Sequence[EvalRequest]) -> list[Evaluation]:
        results: list[Evaluation | None] = []
        missing: dict[tuple[str, int, int], list[int]] = {}
        for index, request in enumerate(requests):
            key = (request.goal, request.round, request.num_samples)
            cached = self._cache.get(key)
            if cached is not None:
                self.cache_hits += 1
                self._cache.move_to_end(key)
            else:
                missing.setdefault(key, []).append(index)
            results.append(cached)
        keys = list(missing)
        # group by (round, num_samples): one generate call per group and batch
        groups: dict[tuple[int, int], list[tuple[str, int, int]]] = {}
        for key in keys:
            groups.setdefault((key[1], key[2]), []).append(key)
        for (round_, num_samples), group in groups.items():
            for start in range(0, len(group), self.max_batch):
                chunk = group[start : start + self.max_batch]
                seed = self.seed + 1_000_003 * round_ + zlib.crc32("\x00".join(k[0] for k in chunk).encode())
                out = evaluate_goals(self.model, self.tokenizer, [k[0] for k in chunk], num_samples,
                                     self.temperature, seed)
                self.network_calls += 1
                for key, tactics, value in zip(chunk, out.tactics, out.values):
                    evaluation = Evaluation(tuple(tactics), float(value))
                    self._remember(key, evaluation)
                    for index in missing[key]:
                        results[index] = evaluation
        return [r for r in results if r is not None]

    def _remember(self, key: tuple[str, int, int], evaluation: Evaluation) -> None:
        self._cache[key] = evaluation
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
