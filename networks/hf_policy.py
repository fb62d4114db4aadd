"""Any local transformers tactic generator as the policy: seq2seq or causal, sampled, beamed and scored.

A Lean user's tactic generators are Hugging Face checkpoints: ReProver's (a ByT5 encoder-decoder:
the goal state in, a tactic out, this project's own shape), Lean Copilot's, or a causal step
prover prompted with the goal (llmstep's `[GOAL]{goal}[PROOFSTEP]`). `HFPolicy` loads one from a
directory written by `save_pretrained` (locally only: `local_files_only`, `HF_HUB_OFFLINE`) and
answers what the search needs of a policy (`networks.hf_evaluator` puts it behind `Evaluator`):

* `propose`: per goal, distinct finished tactic texts from K samples (HF `generate`, seeded) and/or
  a beam of width W. The prompt is the family's template (`PROMPTS`, or the user's, with `{goal}`);
  the text is cut at the first stop sequence; a generation that hit `max_new_tokens` before EOS or
  a stop sequence is no complete tactic and is dropped.
* `score`: the summed untempered log-probability of given tactic texts, teacher-forced: the
  tactic's own tokens followed by EOS (the end a seq2seq generator and a LeanDojo/llmstep-style
  causal step prover are trained with; with no EOS token, the first stop sequence). Every
  proposal is priced this way too, so samples, beams and candidates share one meaning of a prior
  whatever the temperature. A tactic longer than `max_new_tokens` tokens cannot be emitted and
  gets `networks.sampling.overlong_logprob`, as on the native path. A `T5ForConditionalGeneration`
  (ReProver's ByT5, our export) is scored by the native shared-encoder scorer (`networks.scoring`:
  cross-attention keys and values once per goal, not once per candidate), which equals a plain
  forward up to float rounding (tested); any other model by a plain transformers forward.

Long goals are cut from the left (the `⊢` target and the template's tail are at the end).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from transformers.modeling_outputs import BaseModelOutput

from networks.hf_dir import hf_problem
from networks.sampling import overlong_logprob
from networks.scoring import score_rows

#: named prompt templates (`hf_prompt=goal`); any other template is a string containing `{goal}`
PROMPTS = {"goal": "{goal}", "proofstep": "[GOAL]{goal}[PROOFSTEP]"}
#: each family's template and stop sequences when the config leaves them to it (`hf_prompt=auto`, `hf_stop=[]`)
FAMILY_PROMPT = {"seq2seq": "goal", "causal": "proofstep"}
FAMILY_STOPS: dict[str, tuple[str, ...]] = {"seq2seq": (), "causal": ("\n",)}
FALLBACK_MAX_NEW_TOKENS = 128   # when neither the config nor the checkpoint's generation_config bounds a tactic
FALLBACK_MAX_INPUT_TOKENS = 2048  # when the tokenizer states no model_max_length
SCORE_POSITIONS = 16384         # token positions (rows × row width) per teacher-forced scoring pass


def unescape(text: str) -> str:
    """`\\n`, `\\t` and `\\\\` written in a config value as the characters (Hydra keeps them literal)."""
    out, index = [], 0
    while index < len(text):
        pair = text[index:index + 2]
        if pair in ("\\n", "\\t", "\\\\"):
            out.append({"\\n": "\n", "\\t": "\t", "\\\\": "\\"}[pair])
            index += 2
        else:
            out.append(text[index])
            index += 1
    return "".join(out)


def prompt_template(prompt: str, family: str) -> str:
    """The template `prompt` names (`auto`: the family's; a `PROMPTS` name; or one with `{goal}`)."""
    name = FAMILY_PROMPT[family] if prompt == "auto" else prompt
    if name in PROMPTS:
        return PROMPTS[name]
    if "{goal}" not in prompt:
        raise ValueError(f"hf_prompt must be auto, {', '.join(PROMPTS)}, or a template containing {{goal}}, "
                         f"not {prompt!r}")
    return unescape(prompt)


def cut_at_stop(text: str, stops: Sequence[str]) -> tuple[str, bool]:
    """(the text before the first stop sequence, whether one was found)."""
    found = [text.index(stop) for stop in stops if stop and stop in text]
    return (text[: min(found)], True) if found else (text, False)


def resolve_device(device: str) -> torch.device:
    """`auto`: CUDA when there is one, else the CPU; otherwise the torch device named (ValueError if none)."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        resolved = torch.device(device)
    except RuntimeError:
        raise ValueError(f"device must be auto, cpu, cuda or cuda:N, not {device!r}") from None
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r}: no CUDA device here (use device=auto or cpu)")
    return resolved


class _T5View:
    """What `networks.scoring.score_rows` reads of a `ProverModel` (`.t5`, `.eval()`), for a bare T5."""

    def __init__(self, t5: Any) -> None:
        self.t5 = t5

    def eval(self) -> _T5View:
        self.t5.eval()
        return self


@dataclass
class Batch:
    """One batch of goals as the model reads them: prompt ids and mask, and (seq2seq) the encoder states."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    states: torch.Tensor | None
    goals: list[str]


class HFPolicy:
    """A loaded transformers checkpoint answering `propose` and `score` for batches of goals."""

    def __init__(self, model: Any, tokenizer: Any, family: str, template: str, stops: Sequence[str],
                 max_new_tokens: int, max_input_tokens: int, device: torch.device) -> None:
        self.model, self.tokenizer, self.family = model, tokenizer, family
        self.template, self.stops = template, tuple(stops)
        self.max_new_tokens, self.max_input_tokens, self.device = max_new_tokens, max_input_tokens, device
        self.eos_id: int | None = tokenizer.eos_token_id
        self.pad_id: int = tokenizer.pad_token_id
        self.shared_scorer = type(model).__name__ == "T5ForConditionalGeneration"  # networks.scoring applies
        self.generate_calls = 0  # HF generate calls (sampling and beams)
        self.score_calls = 0     # teacher-forced scoring passes

    @classmethod
    def load(cls, directory: str | Path, prompt: str = "auto", stop: Sequence[str] = (), max_new_tokens: int = 0,
             device: str = "auto") -> HFPolicy:
        """The checkpoint in `directory`, from local files only. ValueError (one line) when it is
        missing, not a transformers checkpoint, neither seq2seq nor causal, or has no tokenizer."""
        problem = hf_problem(directory)
        if problem is not None:
            raise ValueError(problem)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer
        from transformers.utils import logging as hf_logging

        target = resolve_device(device)
        bars = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()
        try:
            config = AutoConfig.from_pretrained(str(directory), local_files_only=True)
            family = "seq2seq" if getattr(config, "is_encoder_decoder", False) else "causal"
            loader = AutoModelForSeq2SeqLM if family == "seq2seq" else AutoModelForCausalLM
            model = loader.from_pretrained(str(directory), local_files_only=True, dtype="auto")
            tokenizer = AutoTokenizer.from_pretrained(str(directory), local_files_only=True)
        except Exception as error:  # noqa: BLE001 - a foreign checkpoint fails in many ways (safetensors, configs,
            # missing classes): each is the user's directory at fault, reported in one line
            first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise ValueError(f"cannot load the transformers checkpoint at {directory}: {first}") from None
        finally:
            if bars:
                hf_logging.enable_progress_bar()
        if tokenizer.pad_token_id is None:  # GPT-2 style: pad with EOS (masked out everywhere)
            if tokenizer.eos_token is None:
                raise ValueError(f"{directory}: the tokenizer has neither a pad nor an EOS token")
            tokenizer.pad_token = tokenizer.eos_token
        tokenizer.truncation_side = "left"
        generation = getattr(model, "generation_config", None)
        limit = max_new_tokens or getattr(generation, "max_new_tokens", None) or FALLBACK_MAX_NEW_TOKENS
        stated = getattr(tokenizer, "model_max_length", None) or FALLBACK_MAX_INPUT_TOKENS
        max_input = stated if stated < 1_000_000 else FALLBACK_MAX_INPUT_TOKENS
        positions = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", None)
        if family == "causal" and positions:
            max_input = min(max_input, int(positions) - int(limit))
        stops = tuple(unescape(s) for s in stop) or FAMILY_STOPS[family]
        return cls(model.to(target).eval(), tokenizer, family, prompt_template(prompt, family), stops,
                   int(limit), int(max_input), target)

    def batch(self, goals: Sequence[str]) -> Batch:
        """The prompts of `goals` tokenized (left-padded for a causal model, so generation continues
        every row at the same place), and a seq2seq model's encoder states, computed once."""
        self.tokenizer.padding_side = "left" if self.family == "causal" else "right"
        prompts = [self.template.replace("{goal}", goal) for goal in goals]
        encoded = self.tokenizer(prompts, padding=True, truncation=True, max_length=self.max_input_tokens,
                                 return_tensors="pt")
        ids, mask = encoded["input_ids"].to(self.device), encoded["attention_mask"].to(self.device)
        states = None
        if self.family == "seq2seq":
            with torch.no_grad():
                states = self.model.get_encoder()(input_ids=ids, attention_mask=mask).last_hidden_state
        return Batch(ids, mask, states, list(goals))

    def _generate(self, batch: Batch, **options: Any) -> torch.Tensor:
        """HF `generate` on the batch: the generated tokens only (no prompt, no decoder start)."""
        extra = {"stop_strings": list(self.stops), "tokenizer": self.tokenizer} if self.stops else {}
        inputs = ({"encoder_outputs": BaseModelOutput(last_hidden_state=batch.states)} if batch.states is not None
                  else {"input_ids": batch.input_ids})
        self.generate_calls += 1
        with torch.no_grad():
            out = self.model.generate(**inputs, attention_mask=batch.attention_mask, max_new_tokens=self.max_new_tokens,
                                      pad_token_id=self.pad_id, eos_token_id=self.eos_id, **extra, **options)
        sequences = out.sequences if hasattr(out, "sequences") else out
        return sequences[:, 1:] if batch.states is not None else sequences[:, batch.input_ids.shape[1]:]

    def _texts(self, generated: torch.Tensor, per_goal: int) -> list[list[str]]:
        """Per goal, the distinct finished tactic texts of its `per_goal` generated rows."""
        texts: list[list[str]] = [[] for _ in range(generated.shape[0] // per_goal)]
        for row, ids in enumerate(generated.tolist()):
            ended = self.eos_id is not None and self.eos_id in ids
            ids = ids[: ids.index(self.eos_id)] if ended else ids
            text, stopped = cut_at_stop(self.tokenizer.decode(ids, skip_special_tokens=True,
                                                              clean_up_tokenization_spaces=False), self.stops)
            if (ended or stopped) and text.strip():
                texts[row // per_goal].append(text.strip())
        return [list(dict.fromkeys(group)) for group in texts]

    def propose(self, batch: Batch, num_samples: int, beam_width: int = 0, temperature: float = 1.0,
                seed: int = 0) -> list[list[str]]:
        """Per goal, distinct tactic texts: `num_samples` samples at `temperature` (seeded with
        `seed`) and the `beam_width` beams (length_penalty 0: plain summed log-probs), in that order."""
        proposals: list[list[str]] = [[] for _ in batch.goals]
        if num_samples > 0:
            torch.manual_seed(seed)
            sampled = self._generate(batch, do_sample=True, temperature=temperature, top_k=0, top_p=1.0,
                                     num_return_sequences=num_samples, return_dict_in_generate=True)
            proposals = self._texts(sampled, num_samples)
        if beam_width > 0:
            wide = {"length_penalty": 0.0, "early_stopping": False} if beam_width > 1 else {}  # 1: greedy
            beams = self._texts(self._generate(batch, do_sample=False, num_beams=beam_width,
                                               num_return_sequences=beam_width, return_dict_in_generate=True,
                                               **wide), beam_width)
            proposals = [list(dict.fromkeys([*own, *extra])) for own, extra in zip(proposals, beams)]
        return proposals

    def target_ids(self, tactic: str) -> list[int]:
        """The tokens a tactic is scored as: its own, then EOS (or, with no EOS, the first stop sequence)."""
        ids = list(self.tokenizer(tactic, add_special_tokens=False)["input_ids"])
        if self.eos_id is not None:
            return ids + [self.eos_id]
        return ids + (list(self.tokenizer(self.stops[0], add_special_tokens=False)["input_ids"]) if self.stops else [])

    def score(self, batch: Batch, tactics_per_goal: Sequence[Sequence[str]]) -> list[list[float]]:
        """Teacher-forced summed log-prob of each tactic for its goal, in the order given."""
        scores = [[0.0] * len(group) for group in tactics_per_goal]
        rows: list[tuple[int, int, list[int]]] = []
        for goal, group in enumerate(tactics_per_goal):
            for position, tactic in enumerate(group):
                ids = self.target_ids(tactic)
                if len(ids) > self.max_new_tokens:
                    scores[goal][position] = overlong_logprob(len(ids))
                else:
                    rows.append((goal, position, ids))
        if self.shared_scorer and rows:
            assert batch.states is not None
            self.score_calls += 1
            totals = score_rows(_T5View(self.model), batch.states, batch.attention_mask,  # type: ignore[arg-type]
                                [(goal, ids) for goal, _, ids in rows])
            for (goal, position, _), total in zip(rows, totals):
                scores[goal][position] = total
            return scores
        prompt_lengths = batch.attention_mask.sum(1).tolist()
        rows.sort(key=lambda row: prompt_lengths[row[0]] + len(row[2]))
        start = 0
        while start < len(rows):
            end = start + 1
            while end < len(rows) and (end + 1 - start) * (prompt_lengths[rows[end][0]] + len(rows[end][2])) \
                    <= SCORE_POSITIONS:
                end += 1
            chunk = rows[start:end]
            totals = self._score_seq2seq(batch, chunk) if batch.states is not None else self._score_causal(batch, chunk)
            for (goal, position, _), total in zip(chunk, totals):
                scores[goal][position] = total
            start = end
        return scores

    @torch.no_grad()
    def _score_seq2seq(self, batch: Batch, rows: Sequence[tuple[int, int, list[int]]]) -> list[float]:
        """Labels against each row's goal's encoder states (the model shifts in its decoder start)."""
        assert batch.states is not None
        self.score_calls += 1
        index = torch.tensor([goal for goal, _, _ in rows], device=self.device)
        labels = torch.full((len(rows), max(len(ids) for _, _, ids in rows)), -100, dtype=torch.long)
        for row, (_, _, ids) in enumerate(rows):
            labels[row, : len(ids)] = torch.tensor(ids)
        labels = labels.to(self.device)
        logits = self.model(encoder_outputs=BaseModelOutput(last_hidden_state=batch.states[index]),
                            attention_mask=batch.attention_mask[index], labels=labels).logits.float()
        logprobs = logits.log_softmax(-1).gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)
        return logprobs.masked_fill(labels < 0, 0.0).sum(1).tolist()

    @torch.no_grad()
    def _score_causal(self, batch: Batch, rows: Sequence[tuple[int, int, list[int]]]) -> list[float]:
        """Each row is its goal's prompt (unpadded) then the tactic, right-padded; the log-probs of
        the tactic's positions are summed."""
        self.score_calls += 1
        prompts = [batch.input_ids[goal][batch.attention_mask[goal].bool()].tolist() for goal, _, _ in rows]
        width = max(len(p) + len(ids) for p, (_, _, ids) in zip(prompts, rows))
        input_ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        wanted = torch.zeros((len(rows), width), dtype=torch.bool)
        for row, (prompt, (_, _, ids)) in enumerate(zip(prompts, rows)):
            input_ids[row, : len(prompt) + len(ids)] = torch.tensor(prompt + ids)
            mask[row, : len(prompt) + len(ids)] = 1
            wanted[row, len(prompt) : len(prompt) + len(ids)] = True
        input_ids, mask, wanted = input_ids.to(self.device), mask.to(self.device), wanted.to(self.device)
        logits = self.model(input_ids=input_ids, attention_mask=mask).logits[:, :-1].float()
        logprobs = logits.log_softmax(-1).gather(-1, input_ids[:, 1:].unsqueeze(-1)).squeeze(-1)
        return logprobs.masked_fill(~wanted[:, 1:], 0.0).sum(1).tolist()


__all__ = ["FAMILY_PROMPT", "FAMILY_STOPS", "PROMPTS", "Batch", "HFPolicy", "cut_at_stop", "prompt_template",
           "resolve_device", "unescape"]
