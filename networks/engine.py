"""The policy served by CTranslate2: the trained T5, converted once, sampled and scored fast on CPU.

PyTorch stays the reference and the training path; this engine only runs inference. The
checkpoint's inner HF T5 (plus a HF tokenizer wrapping our `tokenizer.json`) is converted by
`ctranslate2.converters.TransformersConverter` on first load and cached beside the checkpoint in
`ct2-<quantization>/` (gitignored), stamped with a hash of the weights and config, so a new
checkpoint re-converts and a second load does not. If the checkpoint directory is read-only the
cache goes to `~/.cache/alphaprover/ct2/` instead.

Log-probabilities mean what they mean in `networks.sampling`: the plain sum of untempered token
log-probs, EOS included. CTranslate2's sampling scores are length-normalised by default and
computed from the tempered distribution, so samples are decoded with `length_penalty=0` (a plain
sum) and, when the temperature is not 1, the distinct samples are rescored with `score_batch`.
Beam search (`beam`, the `decoding: beam` option) is decoded with `length_penalty=0` too.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from networks.checkpoint import CONFIG, WEIGHTS, load_checkpoint
from networks.model import ProverModelConfig
from networks.sampling import candidate_rows
from networks.tokenizer import EOS, PAD, UNK, ProofTokenizer
from networks.tokenizer import FILE_NAME as TOKENIZER_FILE
from search.evaluator import rank_tactics

QUANTIZATIONS = ("int8", "float32")
STAMP = "alphaprover-source.json"
FALLBACK_CACHE = Path.home() / ".cache" / "alphaprover" / "ct2"


def ctranslate2_available() -> bool:
    """Whether the `ctranslate2` package imports (it is an optional speed-up, torch always works)."""
    try:
        import ctranslate2  # noqa: F401
    except ImportError:
        return False
    return True


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fingerprint(checkpoint: str | Path, quantization: str) -> dict[str, str]:
    """What a converted model depends on: the weights, the config, the quantization and the
    converter version. A cache whose stamp differs is stale."""
    import ctranslate2

    path = Path(checkpoint)
    return {"weights_sha256": _sha256(path / WEIGHTS), "config_sha256": _sha256(path / CONFIG),
            "quantization": quantization, "ctranslate2": ctranslate2.__version__}


def convert(checkpoint: str | Path, output_dir: str | Path, quantization: str) -> None:
    """Convert a checkpoint's policy (not the value head) to a CTranslate2 model in `output_dir`."""
    import ctranslate2
    from transformers import PreTrainedTokenizerFast
    from transformers.utils import logging as hf_logging

    model, _, _ = load_checkpoint(checkpoint)
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # a conversion on first load should not draw progress bars
    try:
        with tempfile.TemporaryDirectory(prefix="alphaprover-hf-") as hf_dir:
            model.t5.save_pretrained(hf_dir)
            wrapped = PreTrainedTokenizerFast(tokenizer_file=str(Path(checkpoint) / TOKENIZER_FILE),
                                              pad_token=PAD, eos_token=EOS, unk_token=UNK)
            wrapped.save_pretrained(hf_dir)
            converter = ctranslate2.converters.TransformersConverter(hf_dir)
            converter.convert(str(output_dir), quantization=quantization, force=True)
    finally:
        if bars:
            hf_logging.enable_progress_bar()


def _cache_is_fresh(directory: Path, stamp: dict[str, str]) -> bool:
    try:
        return json.loads((directory / STAMP).read_text(encoding="utf-8")) == stamp and \
            (directory / "model.bin").is_file()
    except (OSError, ValueError):
        return False


def converted_model(checkpoint: str | Path, quantization: str = "int8",
                    cache_dir: str | Path | None = None) -> tuple[Path, bool]:
    """(directory of the CTranslate2 model for `checkpoint`, whether it was converted just now).

    The cache is `<cache_dir or checkpoint>/ct2-<quantization>/`; it is reused when its stamp
    matches `fingerprint`, else rebuilt in a temporary sibling and swapped in (so a concurrent
    reader never sees half a model)."""
    if quantization not in QUANTIZATIONS:
        raise ValueError(f"quantization must be one of {', '.join(QUANTIZATIONS)}, not {quantization!r}")
    stamp = fingerprint(checkpoint, quantization)
    roots = [Path(cache_dir)] if cache_dir is not None else \
        [Path(checkpoint), FALLBACK_CACHE / stamp["weights_sha256"][:16]]
    for root in roots:
        target = root / f"ct2-{quantization}"
        if _cache_is_fresh(target, stamp):
            return target, False
    errors = []
    for root in roots:
        target = root / f"ct2-{quantization}"
        try:
            root.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".ct2-{quantization}-", dir=root))
        except OSError as error:
            errors.append(f"{root}: {error}")
            continue
        try:
            convert(checkpoint, staging / "model", quantization)
            (staging / "model" / STAMP).write_text(json.dumps(stamp, indent=2), encoding="utf-8")
            if _cache_is_fresh(target, stamp):   # another process finished first: never pull it from under its readers
                return target, False
            if target.exists():
                shutil.rmtree(target, ignore_errors=True)
            try:
                os.replace(staging / "model", target)
            except OSError:  # another process installed one meanwhile: use it if it is ours
                if not _cache_is_fresh(target, stamp):
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return target, True
    raise OSError("cannot write a CTranslate2 cache: " + "; ".join(errors))


class CT2Policy:
    """Sampling and teacher-forced scoring of tactics with a converted model (no value head)."""

    def __init__(self, model_dir: str | Path, tokenizer: ProofTokenizer, config: ProverModelConfig,
                 compute_type: str = "int8", threads: int = 0, seed: int = 0) -> None:
        """`threads`: CTranslate2 intra-op threads (0 = its default). `seed`: CTranslate2 seeds one
        random generator per worker thread, once, so the engine is reproducible as a stream (the
        same calls in the same order give the same samples) rather than per call."""
        import ctranslate2

        ctranslate2.set_random_seed(seed % 0xFFFFFFFF)  # 2**32 - 1 would mean "random"
        self.translator = ctranslate2.Translator(str(model_dir), device="cpu", compute_type=compute_type,
                                                 intra_threads=threads)
        self.tokenizer = tokenizer
        self.config = config
        self.compute_type = compute_type
        self._tokens: list[str] = json.loads((Path(model_dir) / "shared_vocabulary.json").read_text(encoding="utf-8"))
        self._token_ids = {token: index for index, token in enumerate(self._tokens)}
        self.converted = False  # set by `load`: whether this load converted the checkpoint
        self.conversion_seconds = 0.0
        self.sample_ids(["⊢ True"], 1)  # seeds the worker's generator now, before any other seed is set

    @classmethod
    def load(cls, checkpoint: str | Path, quantization: str = "int8", threads: int = 0, seed: int = 0,
             cache_dir: str | Path | None = None) -> CT2Policy:
        """The engine for a checkpoint directory, converting it first if the cache is missing or stale."""
        started = time.perf_counter()
        model_dir, converted = converted_model(checkpoint, quantization, cache_dir)
        seconds = time.perf_counter() - started
        data = json.loads((Path(checkpoint) / CONFIG).read_text(encoding="utf-8"))
        policy = cls(model_dir, ProofTokenizer.load(checkpoint), ProverModelConfig.from_dict(data["model"]),
                     compute_type=quantization, threads=threads, seed=seed)
        policy.converted, policy.conversion_seconds = converted, seconds if converted else 0.0
        return policy

    def _source(self, goals: Sequence[str]) -> list[list[str]]:
        return [[self._tokens[i] for i in self.tokenizer.encode_goal(g, self.config.max_goal_tokens)] for g in goals]

    def sample_ids(self, goals: Sequence[str], num_samples: int,
                   temperature: float = 1.0) -> list[list[tuple[list[int], float]]]:
        """Per goal, the finished samples (token ids ending with EOS) with their untempered summed
        log-probs; samples that hit the length limit are dropped, duplicates are kept."""
        if not goals or num_samples <= 0:
            return [[] for _ in goals]
        source = self._source(goals)
        results = self.translator.translate_batch(
            source, beam_size=1, num_hypotheses=num_samples, sampling_topk=0, sampling_topp=1.0,
            sampling_temperature=temperature, length_penalty=0.0, return_scores=True, return_end_token=True,
            min_decoding_length=0, max_decoding_length=self.config.max_tactic_tokens, max_input_length=0,
        )
        eos = self.tokenizer.eos_id
        samples = []
        for result in results:
            finished = []
            for tokens, score in zip(result.hypotheses, result.scores):
                ids = [self._token_ids[t] for t in tokens]
                if ids and ids[-1] == eos:
                    finished.append((ids, score))
            samples.append(finished)
        if temperature != 1.0:  # scores came from the tempered distribution: rescore the paths
            samples = self._rescore_paths(source, samples)
        return samples

    def _rescore_paths(self, source: list[list[str]],
                       samples: list[list[tuple[list[int], float]]]) -> list[list[tuple[list[int], float]]]:
        distinct = [list({tuple(ids): None for ids, _ in group}) for group in samples]
        rows = [(goal, ids) for goal, group in enumerate(distinct) for ids in group]
        if not rows:
            return samples
        totals = self._score_rows([source[goal] for goal, _ in rows], [list(ids) for _, ids in rows])
        best = {(goal, ids): total for (goal, ids), total in zip(rows, totals)}
        return [[(ids, best[(goal, tuple(ids))]) for ids, _ in group] for goal, group in enumerate(samples)]

    def _score_rows(self, source: list[list[str]], targets: list[list[int]]) -> list[float]:
        """Summed log-probs of target ids (ending with EOS, which `score_batch` adds itself)."""
        results = self.translator.score_batch(source, [[self._tokens[i] for i in ids[:-1]] for ids in targets],
                                              max_input_length=0)
        return [float(sum(result.log_probs)) for result in results]

    def beam_ids(self, goals: Sequence[str], width: int) -> list[list[tuple[list[int], float]]]:
        """Per goal, the `width` most likely token sequences found by beam search (distinct,
        finished with EOS) with their summed log-probs (`length_penalty=0`: a plain sum, EOS included)."""
        if not goals or width <= 0:
            return [[] for _ in goals]
        results = self.translator.translate_batch(
            self._source(goals), beam_size=width, num_hypotheses=width, length_penalty=0.0,
            return_scores=True, return_end_token=True, min_decoding_length=0,
            max_decoding_length=self.config.max_tactic_tokens, max_input_length=0,
        )
        eos = self.tokenizer.eos_id
        beams = []
        for result in results:
            ids_scores = [([self._token_ids[t] for t in tokens], score)
                          for tokens, score in zip(result.hypotheses, result.scores)]
            beams.append([(ids, score) for ids, score in ids_scores if ids and ids[-1] == eos])
        return beams

    def beam(self, goals: Sequence[str], width: int) -> list[list[tuple[str, float]]]:
        """Per goal, distinct (tactic, log-prob) pairs of a `width`-beam search, most likely first."""
        return [rank_tactics((text, score) for text, score in
                             ((self.tokenizer.decode(ids, goal), score) for ids, score in group) if text)
                for goal, group in zip(goals, self.beam_ids(goals, width))]

    def sample(self, goals: Sequence[str], num_samples: int,
               temperature: float = 1.0) -> list[list[tuple[str, float]]]:
        """Per goal, distinct (tactic, untempered log-prob) pairs from `num_samples` samples, most likely first."""
        out = []
        for goal, group in zip(goals, self.sample_ids(goals, num_samples, temperature)):
            texts = [(self.tokenizer.decode(ids, goal), score) for ids, score in group]
            out.append(rank_tactics((text, score) for text, score in texts if text))
        return out

    def score(self, goals: Sequence[str], tactics_per_goal: Sequence[Sequence[str]]) -> list[list[float]]:
        """Teacher-forced log-prob of each tactic for its goal (as `networks.sampling.score_tactics`):
        one `score_batch` call; tactics longer than `max_tactic_tokens` get `overlong_logprob`.
        `score_batch` re-encodes the goal for every tactic, so for long candidate lists the shared-
        encoder PyTorch scorer (`networks.scoring`) is faster; see benchmarks/network_throughput.py."""
        if len(goals) != len(tactics_per_goal):
            raise ValueError("score: one tactic list per goal")
        scores, rows = candidate_rows(self.tokenizer, self.config.max_tactic_tokens, tactics_per_goal, goals)
        if rows:
            used = sorted({goal for goal, _, _ in rows})
            encoded = dict(zip(used, self._source([goals[g] for g in used])))
            totals = self._score_rows([encoded[goal] for goal, _, _ in rows], [ids for _, _, ids in rows])
            for (goal, position, _), total in zip(rows, totals):
                scores[goal][position] = total
        return scores
