"""`HFEvaluator`: a transformers checkpoint (`networks.hf_policy`) behind search's `Evaluator` interface.

It is a `NetworkEvaluator` with another model: the same cache (by goal, round, sample count and the
set of canonical candidates), the same batching (requests of one round and sample count, goals of
similar length together, `max_batch` a call), the same progressive-sampling schedule (round r at
`temperature · (1 + temperature_step · r)`; `decoding` sample | beam | both, beam round r K·(r+1)
wide) and the same canonical tactic form of the proof language (`lean_interface.tactic_form`): a
proposal or candidate is put into that form, then priced teacher-forced, so `lra` and `lra.` are
one tactic, priced as `lra.`. Only `_run` differs: the transformers model proposes and scores.

Value: a foreign checkpoint has no value head, so the value is neutral: the no-network list's
−(number of goals in the node) (`search.fixed_evaluator.goal_count`), a weak signal that favours
fewer open goals and knows nothing else. A directory exported from our own checkpoint
(`networks.export_hf`) carries the shipped value head beside the model (`value_head.safetensors`):
then the value is that head's on the model's encoder states, as on the native path.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import torch

from networks.evaluator import NetworkEvaluator
from networks.hf_policy import HFPolicy
from networks.hf_value import ValueHead, load_value_head
from networks.sampling import BatchOutput
from search.evaluator import rank_tactics
from search.fixed_evaluator import goal_count


class HFEvaluator(NetworkEvaluator):
    """Policy from a transformers checkpoint; value from our exported head if present, else neutral."""

    def __init__(self, policy: HFPolicy, value_head: ValueHead | None = None, temperature: float = 1.0,
                 seed: int = 0, max_batch: int = 32, cache_size: int = 100_000, language: str = "coq",
                 temperature_step: float = 0.0, decoding: str = "sample", directory: str | Path = "") -> None:
        # the parent's model, tokenizer and CTranslate2 policy are read by its `_run` alone, replaced here
        super().__init__(None, None, temperature=temperature, seed=seed, max_batch=max_batch,  # type: ignore[arg-type]
                         cache_size=cache_size, policy=None, language=language, temperature_step=temperature_step,
                         decoding=decoding)
        self.hf = policy
        self.value_head = value_head.to(policy.device) if value_head is not None else None
        if self.value_head is not None and policy.family != "seq2seq":
            raise ValueError(f"{directory}: a value head reads encoder states, and this checkpoint is causal")
        self.directory = str(directory)

    @property
    def engine(self) -> str:
        """`hf-<family>-<device>`, e.g. hf-seq2seq-cpu (the description `solve` prints)."""
        return f"hf-{self.hf.family}-{self.hf.device.type}"

    @property
    def value_source(self) -> str:
        """Where the values come from: "value head" (an exported checkpoint) or "neutral"."""
        return "value head" if self.value_head is not None else "neutral"

    @classmethod
    def from_directory(cls, directory: str | Path, prompt: str = "auto", stop: Sequence[str] = (),
                       max_new_tokens: int = 0, device: str = "auto", threads: int = 0, temperature: float = 1.0,
                       seed: int = 0, max_batch: int = 32, language: str = "coq", temperature_step: float = 0.0,
                       decoding: str = "sample") -> HFEvaluator:
        """Load the checkpoint in `directory` (locally) and its value head if it has one. ValueError
        (one line) for a missing or incompatible directory, a bad prompt, device or decoding."""
        if threads:
            torch.set_num_threads(threads)
        policy = HFPolicy.load(directory, prompt=prompt, stop=stop, max_new_tokens=max_new_tokens, device=device)
        if policy.device.type == "cpu" and torch.cuda.is_available():
            print("warning: the hf policy runs on the CPU although CUDA is available (device=auto uses it)",
                  file=sys.stderr)
        return cls(policy, load_value_head(directory), temperature=temperature, seed=seed, max_batch=max_batch,
                   language=language, temperature_step=temperature_step, decoding=decoding, directory=directory)

    def _values(self, goals: Sequence[str], states: torch.Tensor | None, mask: torch.Tensor) -> list[float]:
        """The value head's values on the encoder states, or the neutral −(number of goals)."""
        if self.value_head is None or states is None:
            return [-float(goal_count(goal)) for goal in goals]
        return self.value_head(states, mask).tolist()

    def _run(self, goals: list[str], num_samples: int, beam_width: int, seed: int,
             candidates: list[tuple[str, ...]], temperature: float) -> BatchOutput:
        """Proposals ∪ candidates, all in canonical form and scored teacher-forced, and the values,
        for one batch of goals: one prompt encoding serves generation, scoring and the value head.
        A value-only batch (a glance: no samples, beams or candidates) of a neutral evaluator never
        runs the model."""
        if not num_samples and not beam_width and not any(candidates) and self.value_head is None:
            return BatchOutput([[] for _ in goals], [-float(goal_count(goal)) for goal in goals])
        batch = self.hf.batch(goals)
        proposed = self.hf.propose(batch, num_samples, beam_width, temperature, seed)
        to_score = [list(dict.fromkeys(c for c in map(self.tactic_form, (*group, *own)) if c is not None))
                    for group, own in zip(proposed, candidates)]
        scores = self.hf.score(batch, to_score) if any(to_score) else [[] for _ in goals]
        tactics = [rank_tactics(zip(group, totals)) for group, totals in zip(to_score, scores)]
        return BatchOutput(tactics, self._values(goals, batch.states, batch.attention_mask))


__all__ = ["HFEvaluator"]
