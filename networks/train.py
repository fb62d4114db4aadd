"""Supervised pre-training of the prover network on extracted (goal, tactic, steps) data.

AdamW with linear warm-up and cosine decay over `max_steps`, gradient clipping, TensorBoard logs
under `<out_dir>/tb`, a resumable checkpoint `<out_dir>/last` (weights + optimizer + step + the
position in the epoch's data order, so a resumed run sees exactly the batches it would have seen)
and `<out_dir>/best`, the checkpoint with the lowest teacher-forced tactic loss on the whole
validation file. Metrics: `networks.train_eval`. Data: ssreflect tactics dropped, sources
reweighted (`networks.dataset`). CPU by default, CUDA when present; `precision=bf16` runs the
forward and backward passes under bfloat16 autocast on the device, CPU included (weights and
optimizer stay float32; on a CPU with AVX512-BF16 a step takes about two thirds of the float32 time).

A run sized by time rather than steps (`max_steps=0`, `max_minutes=M`, e.g. a lent GPU for a few
minutes): the first `calibration_steps` steps (inside the warm-up) measure the seconds a step
takes, and the cosine schedule is then laid over the steps that fit in what is left of the M
minutes (less a reserve for evaluations); at the warm-up's end it is laid out again over the
longer window, since the first steps run slow (a lent H200 timed 0.22 s a step over steps 12–60
against 0.15 over the run, so one layout used 70% of the minutes). The cosine starts after the
warm-up, so the second layout changes no learning rate already used. The resolved `max_steps` is
saved with the run, so a resumed run keeps the same schedule.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import time
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Callable

import torch
from tqdm import tqdm

from networks.checkpoint import is_checkpoint, load_checkpoint, save_checkpoint
from networks.dataset import (Example, batches, encode_examples, is_ssreflect_tactic, read_example_files, read_examples,
                              reweight)
from networks.model import ProverModel, ProverModelConfig
from networks.tokenizer import ProofTokenizer, slotted_texts
from networks.train_eval import ValueBaseline, beam_exact_match, teacher_forced_metrics

#: Sources closer to competition mathematics, repeated per epoch (path substring → weight).
DEFAULT_SOURCE_WEIGHTS = {
    "theories/Reals/": 3.0, "theories/ZArith/": 3.0, "theories/Arith/": 3.0, "theories/micromega/": 2.0,
    "theories/NArith/": 2.0, "theories/PArith/": 2.0, "theories/QArith/": 2.0, "Coqprime": 2.0, "Flocq": 1.5,
}


@dataclass(frozen=True)
class PretrainConfig:
    """Everything a pre-training run needs; built from the Hydra `pretrain` config.

    The learning-rate schedule is a function of `step` and `max_steps` only, so a resumed run
    continues it exactly (keep `max_steps` when resuming); `max_minutes` only stops a session.
    """

    train_file: str  # comma-separated: several files train together
    valid_file: str
    out_dir: str
    model: ProverModelConfig = field(default_factory=ProverModelConfig)
    vocab_size: int = 4000
    whole_identifiers: bool = True  # tokenizer of a NEW run: identifiers stay whole (networks.tokenizer)
    split_digits: bool = False  # tokenizer of a NEW run: one token per digit (networks.tokenizer)
    number_placeholders: int = 0  # tokenizer of a NEW run: the goal's numbers as slots ⟨n0⟩… (networks.numbers)
    batch_size: int = 32
    lr: float = 1e-3
    weight_decay: float = 0.01
    warmup_steps: int = 200
    max_steps: int = 20000  # 0 = size the schedule by `max_minutes` (calibrated, see the module doc)
    max_minutes: float = 0.0  # 0 = no time limit for this session
    calibration_steps: int = 50  # with max_steps=0: steps timed before the schedule is laid out
    precision: str = "fp32"  # fp32 | bf16 (bfloat16 autocast on the device, CPU included)
    session_steps: int = 0  # 0 = no limit; else stop this session after that many steps
    value_weight: float = 0.1
    grad_clip: float = 1.0
    eval_every: int = 1000
    save_every: int = 200
    eval_examples: int = 256
    eval_beams: int = 8
    drop_ssreflect: bool = True
    source_weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_SOURCE_WEIGHTS))
    init_from: str = ""  # start a NEW run from this checkpoint's weights and tokenizer (fine-tuning)
    seed: int = 0
    resume: bool = True
    threads: int = 0  # 0 = torch default
    # benchmarks whose problems' records (by `lemma`) are left out of training and validation, e.g.
    # ["minif2f-rocq-tune"]: the caller turns them into `pretrain`'s `keep_lemma` (`alphaprover
    # pretrain` does, with `selfplay.hold_out.HoldOut`); kept here so the run's config records them
    hold_out: list[str] = field(default_factory=list)
    # a computed proposer's tactic is trained as its short name (`propose NAME.`, search/proposers/short_names.py),
    # so a search with `short_names=true` can rank the proposers by the policy
    short_names: bool = False

    @classmethod
    def from_dict(cls, data: dict) -> "PretrainConfig":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown pretrain config keys: {', '.join(unknown)}")
        values = dict(data)
        if isinstance(values.get("model"), dict):
            values["model"] = ProverModelConfig.from_dict(values["model"])
        if "source_weights" in values:  # null = no reweighting (a Hydra `{}` override merges, it cannot empty a map)
            values["source_weights"] = {str(k): float(v) for k, v in dict(values["source_weights"] or {}).items()}
        if values.get("hold_out") is not None:
            values["hold_out"] = [str(name) for name in values["hold_out"]]
        config = cls(**values)
        if config.precision not in ("fp32", "bf16"):
            raise ValueError(f"precision must be fp32 or bf16, not {config.precision!r}")
        if config.max_steps <= 0 and config.max_minutes <= 0:
            raise ValueError("max_steps=0 sizes the run by time: give max_minutes > 0")
        if config.max_steps <= 0 and config.calibration_steps >= config.warmup_steps:
            raise ValueError("calibration_steps must be below warmup_steps (the schedule is laid out after them)")
        return config


def steps_that_fit(step: int, seconds_per_step: float, seconds_left: float, reserve: float = 0.08) -> int:
    """The `max_steps` of a time-sized run: the steps taken so far plus those that fit in
    `seconds_left` at `seconds_per_step`, keeping a `reserve` fraction for evaluations and saves."""
    return step + max(1, int(seconds_left * (1 - reserve) / max(seconds_per_step, 1e-6)))


def learning_rate(step: int, cfg: PretrainConfig) -> float:
    """Linear warm-up to `lr`, then cosine decay to 10% of it at `max_steps`."""
    if step < cfg.warmup_steps:
        return cfg.lr * (step + 1) / cfg.warmup_steps
    progress = min(1.0, (step - cfg.warmup_steps) / max(1, cfg.max_steps - cfg.warmup_steps))
    return cfg.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def prepare_examples(examples: list[Example], cfg: PretrainConfig, training: bool) -> list[Example]:
    """Drop ssreflect tactics (train and valid alike); a computed proposer's tactic under its short
    name with `short_names` (both); reweight sources (training only)."""
    if cfg.drop_ssreflect:
        examples = [e for e in examples if not is_ssreflect_tactic(e.tactic)]
    if cfg.short_names:
        from search.proposers.short_names import training_target

        examples = [dataclasses.replace(e, tactic=training_target(e.goal, e.tactic)) for e in examples]
    return reweight(examples, cfg.source_weights, cfg.seed) if training else examples


def _device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def pretrain(cfg: PretrainConfig, keep_lemma: Callable[[str], bool] | None = None) -> dict[str, float]:
    """Train (or resume) and return the final valid metrics, the step reached, and the mean
    seconds per training step of this session (start-up and evaluations excluded). `keep_lemma`
    filters the train and valid records by problem (`read_examples`); a config that names
    `hold_out` benchmarks must come with it, so a held-out problem is never trained on silently."""
    if cfg.hold_out and keep_lemma is None:
        raise ValueError(f"hold_out {cfg.hold_out} given without the filter that applies it (keep_lemma)")
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    raw_train = read_example_files(cfg.train_file, keep_lemma)
    train_examples = prepare_examples(raw_train, cfg, training=True)
    valid_examples = prepare_examples(read_examples(cfg.valid_file, keep_lemma), cfg, training=False)
    rng = random.Random(cfg.seed)
    exact_match_set = rng.sample(valid_examples, min(cfg.eval_examples, len(valid_examples)))
    device = _device()
    torch.manual_seed(cfg.seed)

    last = out / "last"
    state_path = last / "training_state.pt"
    if cfg.resume and is_checkpoint(last) and state_path.is_file():
        model, tokenizer, _ = load_checkpoint(last, device)
        state = torch.load(state_path, map_location=device, weights_only=False)
    elif cfg.init_from:
        model, tokenizer, _ = load_checkpoint(cfg.init_from, device)
        state = None
    else:
        texts = slotted_texts(((e.goal, e.tactic) for e in train_examples), cfg.number_placeholders)
        tokenizer = ProofTokenizer.train(texts, cfg.vocab_size, cfg.whole_identifiers, cfg.split_digits,
                                         cfg.number_placeholders)
        model_cfg = ProverModelConfig.from_dict({**cfg.model.to_dict(), "vocab_size": tokenizer.vocab_size})
        model = ProverModel(model_cfg).to(device)
        state = None
    model.train()
    limits = (model.config.max_goal_tokens, model.config.max_tactic_tokens)
    encoded = encode_examples(train_examples, tokenizer, *limits)
    encoded_valid = encode_examples(valid_examples, tokenizer, *limits)
    baseline = ValueBaseline.fit([e.steps for e in raw_train], model.config.num_value_bins)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    step, best, epoch, batch_in_epoch = 0, math.inf, 0, 0
    laid_out_at = 0  # the step at which a time-sized schedule was last laid out (0: given, or not yet)
    if state is not None:
        optimizer.load_state_dict(state["optimizer"])
        step, epoch = state["step"], state["epoch"]
        best = state.get("best_policy_loss", math.inf)
        batch_in_epoch = state.get("batch_in_epoch", 0)
        if cfg.max_steps <= 0 and state.get("max_steps"):
            cfg = replace(cfg, max_steps=int(state["max_steps"]))  # the schedule this run laid out
            laid_out_at = state.get("schedule_laid_out_at", 0)
    use_bf16 = cfg.precision == "bf16"
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True

    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(out / "tb"))
    started = time.monotonic()
    metrics: dict[str, float] = {}
    bar = tqdm(total=cfg.max_steps or None, initial=step, desc="pretrain", unit="step")

    def checkpoint(kind: str) -> None:
        meta = {"step": step, "epoch": epoch, "metrics": metrics, "config": _jsonable(cfg),
                "train_examples": len(encoded), "valid_examples": len(encoded_valid),
                "value_baseline_median_steps": baseline.median_steps}
        save_checkpoint(out / kind, model, tokenizer, meta)
        if kind == "last":
            torch.save({"optimizer": optimizer.state_dict(), "step": step, "best_policy_loss": best,
                        "epoch": epoch, "batch_in_epoch": batch_in_epoch, "max_steps": cfg.max_steps,
                        "schedule_laid_out_at": laid_out_at},
                       out / kind / "training_state.pt")

    def evaluate_and_save() -> None:
        """Valid metrics to TensorBoard; `best` when the teacher-forced tactic loss improves."""
        nonlocal metrics, best
        metrics = teacher_forced_metrics(model, encoded_valid, tokenizer.pad_id, baseline)
        metrics.update(beam_exact_match(model, tokenizer, exact_match_set, cfg.eval_beams))
        model.train()
        for name, value in metrics.items():
            writer.add_scalar(f"valid/{name}", value, step)
        bar.write(f"step {step}: " + ", ".join(f"{k} {v:.4f}" for k, v in metrics.items()))
        if metrics["policy_loss"] < best:
            best = metrics["policy_loss"]
            checkpoint("best")
        checkpoint("last")

    session_start_step = step
    aside_seconds = 0.0  # time in evaluations and checkpoints inside the loop (not training)

    def out_of_time() -> bool:
        if cfg.session_steps and step - session_start_step >= cfg.session_steps:
            return True
        return cfg.max_minutes > 0 and time.monotonic() - started > 60 * cfg.max_minutes

    loop_started = time.monotonic()
    calibration_from, calibration_started = max(1, cfg.calibration_steps // 5), loop_started
    sized_here = cfg.max_steps <= 0  # this session lays out the schedule (a resumed one keeps its own)

    def unfinished() -> bool:
        return (cfg.max_steps <= 0 or step < cfg.max_steps) and not out_of_time()

    while unfinished():
        for index, batch in enumerate(batches(encoded, cfg.batch_size, tokenizer.pad_id, seed=cfg.seed + epoch)):
            if index < batch_in_epoch:
                continue  # resumed mid-epoch: these batches were trained on before the stop
            if not unfinished():
                break
            batch = {k: v.to(device) for k, v in batch.items()}
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(step, cfg)
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=use_bf16):
                losses = model(batch["input_ids"], batch["attention_mask"], batch["labels"], batch["steps"],
                               cfg.value_weight)
            optimizer.zero_grad(set_to_none=True)
            losses["loss"].backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
            optimizer.step()
            step += 1
            batch_in_epoch = index + 1
            bar.update(1)
            since = step - session_start_step
            # laid out at `calibration_steps`, then again at the warm-up's end (an absolute step: the
            # cosine starts there, so no rate already used changes) over the longer window (the first
            # steps run slower: data, allocator, a neighbour starting up)
            if sized_here and (since in (calibration_from, cfg.calibration_steps)
                               or (step == cfg.warmup_steps and since > cfg.calibration_steps)):
                if device.type == "cuda":
                    torch.cuda.synchronize()
                if since == calibration_from:  # the first steps (warm-up of kernels) not timed
                    calibration_started = time.monotonic()
                else:
                    per_step = (time.monotonic() - calibration_started) / (since - calibration_from)
                    cfg = replace(cfg, max_steps=steps_that_fit(step, per_step,
                                                                60 * cfg.max_minutes - (time.monotonic() - started)))
                    laid_out_at = step
                    bar.total = cfg.max_steps
                    bar.write(f"calibrated over steps {calibration_from}-{since}: "
                              f"{per_step:.4f} s/step -> max_steps {cfg.max_steps}")
            if step % 20 == 0:
                writer.add_scalar("train/loss", losses["loss"].item(), step)
                writer.add_scalar("train/policy_loss", losses["policy_loss"].item(), step)
                writer.add_scalar("train/value_loss", losses["value_loss"].item(), step)
                writer.add_scalar("train/lr", learning_rate(step, cfg), step)
                writer.add_scalar("train/epoch", epoch, step)
                bar.set_postfix(policy=f"{losses['policy_loss'].item():.3f}", value=f"{losses['value_loss'].item():.3f}",
                                epoch=epoch)
            aside_started = time.monotonic()
            if step % cfg.eval_every == 0:
                evaluate_and_save()
            elif step % cfg.save_every == 0:
                checkpoint("last")
            aside_seconds += time.monotonic() - aside_started
        else:
            epoch += 1
            batch_in_epoch = 0
    train_seconds = time.monotonic() - loop_started - aside_seconds
    evaluate_and_save()
    writer.close()
    bar.close()
    (out / "metrics.json").write_text(json.dumps({"step": step, "epoch": epoch, **metrics}, indent=2), encoding="utf-8")
    trained = step - session_start_step
    return {"step": float(step), "seconds_per_step": train_seconds / trained if trained else float("nan"), **metrics}


def _jsonable(cfg: PretrainConfig) -> dict:
    return json.loads(json.dumps(asdict(cfg), default=str))
