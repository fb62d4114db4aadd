"""Supervised pre-training of the prover network on extracted (goal, tactic, steps) data.

AdamW with linear warm-up and cosine decay, gradient clipping, periodic evaluation on the valid
file (tactic top-1 / top-K accuracy and value error), TensorBoard logs under `<out_dir>/tb`, and
a resumable checkpoint (`<out_dir>/last`: weights + optimizer + step) plus the best one by valid
top-K accuracy (`<out_dir>/best`). CPU by default, CUDA when present.
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Sequence

import torch
from tqdm import tqdm

from networks.checkpoint import is_checkpoint, load_checkpoint, save_checkpoint
from networks.dataset import Example, batches, encode_examples, read_examples
from networks.model import ProverModel, ProverModelConfig
from networks.sampling import evaluate_goals
from networks.tokenizer import ProofTokenizer


@dataclass(frozen=True)
class PretrainConfig:
    """Everything a pre-training run needs; built from the Hydra `pretrain` config."""

    train_file: str
    valid_file: str
    out_dir: str
    model: ProverModelConfig = field(default_factory=ProverModelConfig)
    vocab_size: int = 4000
    batch_size: int = 32
    lr: float = 1e-3
    weight_decay: float = 0.01
    warmup_steps: int = 200
    max_steps: int = 20000
    max_minutes: float = 0.0  # 0 = no time limit
    value_weight: float = 0.1
    grad_clip: float = 1.0
    eval_every: int = 500
    eval_examples: int = 256
    eval_samples: int = 8
    seed: int = 0
    resume: bool = True
    threads: int = 0  # 0 = torch default

    @classmethod
    def from_dict(cls, data: dict) -> "PretrainConfig":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown pretrain config keys: {', '.join(unknown)}")
        values = dict(data)
        if isinstance(values.get("model"), dict):
            values["model"] = ProverModelConfig.from_dict(values["model"])
        return cls(**values)


def learning_rate(step: int, cfg: PretrainConfig) -> float:
    """Linear warm-up to `lr`, then cosine decay to 10% of it at `max_steps`."""
    if step < cfg.warmup_steps:
        return cfg.lr * (step + 1) / cfg.warmup_steps
    progress = min(1.0, (step - cfg.warmup_steps) / max(1, cfg.max_steps - cfg.warmup_steps))
    return cfg.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def _normalise(tactic: str) -> str:
    return " ".join(tactic.split()).rstrip(".")


@torch.no_grad()
def evaluate(model: ProverModel, tokenizer: ProofTokenizer, examples: Sequence[Example], samples: int,
             seed: int = 0, batch_size: int = 16) -> dict[str, float]:
    """top1: the most likely of the K samples equals the reference tactic; topk: the reference is
    among the K distinct samples; value_mae: |predicted steps − true steps|; policy_loss: mean
    teacher-forced token cross-entropy."""
    model.eval()
    top1 = topk = 0
    value_error = 0.0
    for start in range(0, len(examples), batch_size):
        chunk = examples[start : start + batch_size]
        out = evaluate_goals(model, tokenizer, [e.goal for e in chunk], samples, temperature=1.0, seed=seed + start)
        for example, tactics, value in zip(chunk, out.tactics, out.values):
            reference = _normalise(example.tactic)
            names = [_normalise(t) for t, _ in tactics]
            top1 += bool(names) and names[0] == reference
            topk += reference in names
            value_error += abs(-value - example.steps)
    n = max(1, len(examples))
    return {"top1": top1 / n, "topk": topk / n, "value_mae": value_error / n}


def _device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def pretrain(cfg: PretrainConfig) -> dict[str, float]:
    """Train (or resume) and return the final valid metrics."""
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    out = Path(cfg.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    train_examples = read_examples(cfg.train_file)
    valid_examples = read_examples(cfg.valid_file)
    rng = random.Random(cfg.seed)
    eval_set = rng.sample(valid_examples, min(cfg.eval_examples, len(valid_examples)))
    device = _device()
    torch.manual_seed(cfg.seed)

    last = out / "last"
    state_path = last / "training_state.pt"
    if cfg.resume and is_checkpoint(last) and state_path.is_file():
        model, tokenizer, _ = load_checkpoint(last, device)
        state = torch.load(state_path, map_location=device, weights_only=False)
    else:
        tokenizer = ProofTokenizer.train((t for e in train_examples for t in (e.goal, e.tactic)), cfg.vocab_size)
        model_cfg = ProverModelConfig.from_dict({**cfg.model.to_dict(), "vocab_size": tokenizer.vocab_size})
        model = ProverModel(model_cfg).to(device)
        state = None
    model.train()
    encoded = encode_examples(train_examples, tokenizer, model.config.max_goal_tokens, model.config.max_tactic_tokens)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    step, best, epoch = 0, -1.0, 0
    if state is not None:
        optimizer.load_state_dict(state["optimizer"])
        step, best, epoch = state["step"], state["best"], state["epoch"]

    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(out / "tb"))
    started = time.monotonic()
    metrics: dict[str, float] = {}
    bar = tqdm(total=cfg.max_steps, initial=step, desc="pretrain", unit="step")

    def checkpoint(kind: str) -> None:
        meta = {"step": step, "epoch": epoch, "metrics": metrics, "config": _jsonable(cfg),
                "train_examples": len(train_examples), "valid_examples": len(valid_examples)}
        save_checkpoint(out / kind, model, tokenizer, meta)
        if kind == "last":
            torch.save({"optimizer": optimizer.state_dict(), "step": step, "best": best, "epoch": epoch},
                       out / kind / "training_state.pt")

    def evaluate_and_save() -> None:
        """Valid metrics to TensorBoard; `best` when top-K improves; `last` always."""
        nonlocal metrics, best
        metrics = evaluate(model, tokenizer, eval_set, cfg.eval_samples, cfg.seed)
        model.train()
        for name, value in metrics.items():
            writer.add_scalar(f"valid/{name}", value, step)
        if metrics["topk"] > best:
            best = metrics["topk"]
            checkpoint("best")
        checkpoint("last")

    def out_of_time() -> bool:
        return cfg.max_minutes > 0 and time.monotonic() - started > 60 * cfg.max_minutes

    while step < cfg.max_steps and not out_of_time():
        for batch in batches(encoded, cfg.batch_size, tokenizer.pad_id, seed=cfg.seed + epoch):
            if step >= cfg.max_steps or out_of_time():
                break
            batch = {k: v.to(device) for k, v in batch.items()}
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(step, cfg)
            losses = model(batch["input_ids"], batch["attention_mask"], batch["labels"], batch["steps"], cfg.value_weight)
            optimizer.zero_grad(set_to_none=True)
            losses["loss"].backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
            optimizer.step()
            step += 1
            bar.update(1)
            if step % 20 == 0:
                writer.add_scalar("train/loss", losses["loss"].item(), step)
                writer.add_scalar("train/policy_loss", losses["policy_loss"].item(), step)
                writer.add_scalar("train/value_loss", losses["value_loss"].item(), step)
                writer.add_scalar("train/lr", learning_rate(step, cfg), step)
                bar.set_postfix(policy=f"{losses['policy_loss'].item():.3f}", value=f"{losses['value_loss'].item():.3f}")
            if step % cfg.eval_every == 0:
                evaluate_and_save()
        else:
            epoch += 1
    evaluate_and_save()
    writer.close()
    bar.close()
    (out / "metrics.json").write_text(json.dumps({"step": step, **metrics}, indent=2), encoding="utf-8")
    return {"step": float(step), **metrics}


def _jsonable(cfg: PretrainConfig) -> dict:
    return json.loads(json.dumps(asdict(cfg), default=str))
