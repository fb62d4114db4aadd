"""`NetworkEvaluator`: the trained network behind search's `Evaluator` interface.

Batched (one network call per batch of requests of a search step, goals of similar length batched
together), cached by (goal text, round, number of samples, set of candidates) so transpositions
and repeated leaves cost nothing. Each answer is the union of `num_samples` sampled tactics and
the request's candidates scored teacher-forced, most likely first, every one in the canonical
form of the evaluator's proof language (`lean_interface.tactic_form`, Coq by default: the form
the training data has), so a candidate `lra` is scored, cached and returned as `lra.`.

Two engines sample the policy: CTranslate2 (`networks.engine`, int8 or float32; the default when
the package imports, several times faster on CPU) and HF `generate` (`networks.sampling`, the
reference and the training path). The value head and candidate scoring always run in PyTorch on
one shared encoder pass: the value costs ~15% of sampling K=16, and the shared-encoder scorer
(`networks.scoring`) beats CTranslate2's `score_batch`, which re-encodes the goal per candidate
(measured in benchmarks/network_throughput.py). With PyTorch, round r of progressive sampling
uses its own seed; CTranslate2 can only be seeded once per engine, so there later rounds differ
because its generator has moved on, and a run is reproducible as a whole (same requests in the
same order) rather than per call.

Round r samples at temperature `temperature · (1 + temperature_step · r)`. Why: a policy trained
by expert iteration becomes confident, and 16 samples at temperature 1 can be one or two distinct
tactics; a later round at the same temperature then proposes nothing new, the goal counts as
exhausted, and the search ends in a second with most of its budget unused (the dev subset's
`mcts-network` failures with the round-4 weights: 1–2 prover calls, docs/experiments.md). Rising
temperature makes each round reach further down the policy's ranking. Priors are unaffected:
log-probs are the untempered sums whatever the sampling temperature.

`decoding` says how the policy proposes: "sample" (K samples per round), "beam" (round r returns
the `K · (r + 1)` most likely tactics found by beam search, distinct by construction, so each
round reaches K further down the policy's ranking) or "both" (the union of the two). Why: a
confident policy's K samples repeat its top one or two tactics, while its top K distinct tactics
hold the reference far more often; but beam search with summed log-probs prunes long tactics
(an automation call with hints) that sampling still finds. Measured in docs/experiments.md ("How the
policy alone proposes").
"""

from __future__ import annotations

import sys
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import torch

from lean_interface.tactic_form import tactic_form
from networks.checkpoint import load_checkpoint
from networks.engine import CT2Policy, ctranslate2_available
from networks.model import ProverModel
from networks.sampling import DECODINGS, BatchOutput, evaluate_goals
from networks.tokenizer import ProofTokenizer
from search.evaluator import EvalRequest, Evaluation

ENGINES = ("ct2-int8", "ct2-float32", "torch")
CacheKey = tuple[str, int, int, tuple[str, ...]]


class NetworkEvaluator:
    """Policy + value from a checkpoint, batched and cached; `policy` = None means PyTorch sampling.
    `language` ("coq" or "lean") chooses the canonical tactic form of samples and candidates."""

    def __init__(self, model: ProverModel, tokenizer: ProofTokenizer, temperature: float = 1.0, seed: int = 0,
                 max_batch: int = 32, cache_size: int = 100_000, policy: CT2Policy | None = None,
                 language: str = "coq", temperature_step: float = 0.0, decoding: str = "sample") -> None:
        if temperature <= 0 or temperature_step < 0:
            raise ValueError("temperature must be > 0 and temperature_step >= 0")
        if decoding not in DECODINGS:
            raise ValueError(f"decoding must be one of {', '.join(DECODINGS)}, not {decoding!r}")
        self.decoding = decoding
        self.model = model
        self.tactic_form = tactic_form(language)
        self.tokenizer = tokenizer
        self.policy = policy
        self.temperature = temperature
        self.temperature_step = temperature_step
        self.seed = seed
        self.max_batch = max_batch
        self.cache_size = cache_size
        self._cache: OrderedDict[CacheKey, Evaluation] = OrderedDict()
        self.network_calls = 0
        self.cache_hits = 0

    @property
    def engine(self) -> str:
        """Which engine samples and scores tactics: "ct2-int8", "ct2-float32" or "torch"."""
        return "torch" if self.policy is None else f"ct2-{self.policy.compute_type}"

    @classmethod
    def from_checkpoint(cls, directory: str | Path, temperature: float = 1.0, seed: int = 0,
                        threads: int = 0, max_batch: int = 32, engine: str | None = None,
                        cache_dir: str | Path | None = None, language: str = "coq",
                        temperature_step: float = 0.0, decoding: str = "sample") -> NetworkEvaluator:
        """Load a checkpoint. `engine`: "ct2-float32" (default when ctranslate2 imports, else
        "torch" with a one-line warning), "ct2-int8" or "torch". Float32 is the default because on
        our 7 M-parameter model int8 measured no faster (41.0 vs 41.5 ms/goal at K=16, 6.2× HF
        generate either way) while its log-probs drift by up to ~1 nat; int8 pays off on larger
        models. `threads` (0 = library default) sets both torch's and CTranslate2's intra-op threads. The CTranslate2 model is converted on
        first load and cached in `<cache_dir or directory>/ct2-<quantization>/`."""
        if engine is None:
            engine = "ct2-float32" if ctranslate2_available() else "torch"
            if engine == "torch":
                print("warning: ctranslate2 not installed; sampling with PyTorch (slower)", file=sys.stderr)
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
        if threads:
            torch.set_num_threads(threads)
        model, tokenizer, _ = load_checkpoint(directory)
        policy = None
        if engine != "torch":
            policy = CT2Policy.load(directory, engine.removeprefix("ct2-"), threads=threads, seed=seed,
                                    cache_dir=cache_dir)
        return cls(model, tokenizer, temperature=temperature, seed=seed, max_batch=max_batch, policy=policy,
                   language=language, temperature_step=temperature_step, decoding=decoding)

    def cache_key(self, request: EvalRequest) -> CacheKey:
        """Requests with the same goal, round, sample count and set of canonical candidates share an
        answer (candidates with no canonical form are left out: they are never scored)."""
        canonical = {c for c in map(self.tactic_form, request.candidates) if c is not None}
        return (request.goal, request.round, request.num_samples, tuple(sorted(canonical)))

    def evaluate(self, requests: Sequence[EvalRequest]) -> list[Evaluation]:
        results: list[Evaluation | None] = []
        missing: dict[CacheKey, list[int]] = {}
        for index, request in enumerate(requests):
            key = self.cache_key(request)
            cached = self._cache.get(key)
            if cached is not None:
                self.cache_hits += 1
                self._cache.move_to_end(key)
            else:
                missing.setdefault(key, []).append(index)
            results.append(cached)
        # group by (round, num_samples): one network call per group and batch
        groups: dict[tuple[int, int], list[CacheKey]] = {}
        for key in missing:
            groups.setdefault((key[1], key[2]), []).append(key)
        for (round_, num_samples), group in groups.items():
            group.sort(key=lambda k: len(k[0]))  # similar lengths batch together: less padding
            for start in range(0, len(group), self.max_batch):
                chunk = group[start : start + self.max_batch]
                seed = self.seed + 1_000_003 * round_ + zlib.crc32("\x00".join(k[0] for k in chunk).encode())
                out = self._run([k[0] for k in chunk], *self.round_proposals(round_, num_samples), seed,
                                [k[3] for k in chunk], self.round_temperature(round_))
                self.network_calls += 1
                for key, tactics, value in zip(chunk, out.tactics, out.values):
                    evaluation = Evaluation(tuple(tactics), float(value))
                    self._remember(key, evaluation)
                    for index in missing[key]:
                        results[index] = evaluation
        return [r for r in results if r is not None]

    def round_temperature(self, round_: int) -> float:
        """The sampling temperature of progressive-sampling round `round_` (0 = first expansion)."""
        return self.temperature * (1.0 + self.temperature_step * round_)

    def round_proposals(self, round_: int, num_samples: int) -> tuple[int, int]:
        """(samples, beam width) that round `round_` asks the policy for: K = `num_samples` samples
        and/or a beam K · (round_ + 1) wide (each round reaches further down), by `decoding`."""
        samples = num_samples if self.decoding in ("sample", "both") else 0
        width = num_samples * (round_ + 1) if self.decoding in ("beam", "both") else 0
        return samples, width

    def _run(self, goals: list[str], num_samples: int, beam_width: int, seed: int,
             candidates: list[tuple[str, ...]], temperature: float) -> BatchOutput:
        """Samples + scored candidates + values for one batch of goals, on the chosen engine. Values
        and candidate scores come from one PyTorch encoder pass (the shared-encoder scorer beats
        CTranslate2's `score_batch`, which re-encodes the goal per candidate)."""
        policy = self.policy
        sampler = None if policy is None else (lambda g, k: policy.sample(g, k, temperature))
        return evaluate_goals(self.model, self.tokenizer, goals, num_samples, temperature, seed, candidates,
                              sampler=sampler, tactic_form=self.tactic_form, beam_width=beam_width,
                              beamer=None if policy is None else policy.beam)

    def _remember(self, key: CacheKey, evaluation: Evaluation) -> None:
        self._cache[key] = evaluation
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
