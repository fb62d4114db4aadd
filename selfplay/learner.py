"""The learner: trains the prover network on replay batches and publishes numbered weights.

Loss = the pretraining loss, `ProverModel.forward` (tactic cross-entropy on records with a tactic
+ value_weight × value cross-entropy on every record), on batches drawn by a `MixedSampler` (replay + supervised data).
Engines: `torch` (AdamW, any device) or `deepspeed` (ZeRO stage 1/2 with DeepSpeed's optimizer;
on CPU here, with a one-process gloo group; on a GPU cluster unchanged).

`ema_decay` > 0 publishes an exponential moving average of the weights (Polyak averaging) instead
of the last step's: actors and the held-out curve then see the average of the last ~1/(1 − decay)
steps, not wherever a constant learning rate's last step left the weights. The learner itself keeps
training the raw weights; the average is part of the resumable state.

`precision="bf16"` runs each step's forward and backward passes under bfloat16 autocast on the
learner's device, CPU included (weights, optimizer and the published average stay float32): on a
CPU with AVX512-BF16 a step of the shipped 19.4 M network takes about two thirds of the float32
time (`benchmarks/learner_precision.py`, BENCHMARKS.md §Speed).

`lr_half_life` > 0 decays the learning rate (halved every that many steps, floored at `lr_min`),
so the later rounds of expert iteration move the weights less; run 6 used it (BENCHMARKS.md: its
curve still flattens after round 2, within the measurement's noise).

`keep_weight` > 0 adds keep_weight × KL(start ‖ policy), the divergence of the policy's next-token
distributions from those of the run's version 0 (its starting weights, loaded once and frozen),
teacher-forced on every tactic of the batch: the regulariser of KL-constrained fine-tuning, here
against forgetting — replay moves the policy toward the loop's proofs, the term holds its whole
distribution elsewhere (the pretraining's proposals on stdlib and factory goals, not only the one
reference tactic the cross-entropy sees) near where it started. Costs one forward pass of the
frozen weights a step; `benchmarks/keep_weight.py` measures what it keeps and what it slows.

Files under `<run_dir>`:
  learner/            the resumable state: weights + tokenizer + `learner_state.pt`
                      (optimizer, step, version); rewritten every `checkpoint_every` steps.
  weights/v000007/    a published checkpoint (+ its CTranslate2 copy, converted here so actors
                      never convert concurrently); `weights/LATEST` names the newest, written
                      atomically after the directory is complete.
"""

from __future__ import annotations

import copy
import json
import os
import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import torch

from lean_interface.durable import write_atomic
from networks.checkpoint import is_checkpoint, load_checkpoint, save_checkpoint
from networks.model import ProverModel
from networks.tokenizer import ProofTokenizer, tactic_identifiers
from search.config import config_from_dict
from selfplay.episode import TrainingRecord

ENGINES = ("torch", "deepspeed")
PRECISIONS = ("fp32", "bf16")
PLACEMENTS = ("auto", "driver", "cluster")


@dataclass(frozen=True)
class LearnerConfig:
    """Learner settings (Hydra `train.learner`)."""

    engine: str = "torch"
    batch_size: int = 32
    lr: float = 3e-4
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    value_weight: float = 0.1
    replay_fraction: float = 0.5
    library_fraction: float = 0.2   # of every batch, stdlib records (the library's lemma names: docs/ARCHITECTURE.md §Expert iteration)
    length_window: int = 8          # > 0: draw this many batches at once and group them by goal length, so a batch
                                    # pads to its own records' length (selfplay.replay_buffer.GroupedSampler: 0.36x
                                    # the step time, the same learning, benchmarks/learner_batching.py); 0 = each
                                    # batch a random draw
    publish_every: int = 50
    checkpoint_every: int = 50
    zero_stage: int = 1
    threads: int = 0
    quantization: str = "float32"  # the engine copy published beside each version ("" = none)
    device: str = "auto"            # auto = cuda when a GPU is present, else cpu; or cpu / cuda / cuda:1
    placement: str = "auto"         # auto: a Ray actor on the cluster's GPU when attached to one with a GPU
                                    # (selfplay.ray_learner), else in the driver; driver; cluster (always a Ray actor)
    ema_decay: float = 0.0          # > 0: publish the moving average of the weights (0 = the raw weights)
    lr_half_life: int = 0           # > 0: the learning rate halves every this many learner steps (0 = constant)
    lr_min: float = 0.0             # the floor a decaying learning rate stops at
    precision: str = "fp32"         # fp32 | bf16 (bfloat16 autocast for forward and backward, any device)
    keep_weight: float = 0.0        # > 0: + this × KL(start weights' policy ‖ the policy) on every tactic token
                                    # of a batch, so the skills the run started with are not overwritten (0 = off)
    short_names: bool = False       # a computed proposer's tactic is trained as its short name (`propose NAME.`,
                                    # search/proposers/short_names.py); train.yaml ties it to the policy key

    def __post_init__(self) -> None:
        if self.placement not in PLACEMENTS:
            raise ValueError(f"learner placement must be one of {', '.join(PLACEMENTS)}, not {self.placement!r}")
        if self.precision not in PRECISIONS:
            raise ValueError(f"learner precision must be one of {', '.join(PRECISIONS)}, not {self.precision!r}")
        if self.engine not in ENGINES:
            raise ValueError(f"learner engine must be one of {', '.join(ENGINES)}, not {self.engine!r}")
        if not 0.0 <= self.replay_fraction <= 1.0:
            raise ValueError("replay_fraction must be within [0, 1]")
        if not 0.0 <= self.library_fraction <= 1.0 - self.replay_fraction:
            raise ValueError("library_fraction must be within [0, 1 - replay_fraction]")
        if self.length_window < 0:
            raise ValueError("length_window must be 0 (off) or a number of batches")
        if not 0.0 <= self.ema_decay < 1.0:
            raise ValueError("ema_decay must be within [0, 1)")
        if self.keep_weight < 0.0:
            raise ValueError("keep_weight must be >= 0")
        if self.lr_half_life < 0 or not 0.0 <= self.lr_min <= self.lr:
            raise ValueError("lr_half_life must be >= 0 and lr_min within [0, lr]")
        if self.batch_size < 1 or self.publish_every < 1 or self.checkpoint_every < 1:
            raise ValueError("batch_size, publish_every and checkpoint_every must be >= 1")

    @classmethod
    def from_dict(cls, data: dict) -> "LearnerConfig":
        return config_from_dict(cls, data, "learner config")


def _target(goal: str, tactic: str, short_names: bool) -> str:
    if not short_names:
        return tactic
    from search.proposers.short_names import training_target

    return training_target(goal, tactic)


def collate_records(records: Sequence[TrainingRecord], tokenizer: ProofTokenizer, model: ProverModel,
                    short_names: bool = False) -> dict[str, torch.Tensor]:
    """Padded tensors; a value-only record's label row is all −100 (no tactic loss). So is the
    row of a tactic longer than `max_tactic_tokens`: cut short it would teach the policy to stop
    in the middle of a tactic (a long hint list), so only its value target is kept. With
    `short_names`, a computed proposer's tactic is the target under its short name
    (`search.proposers.short_names.training_target`)."""
    cfg = model.config
    targets = [_target(r.goal, r.tactic, short_names) if r.tactic else "" for r in records]
    goals = [tokenizer.encode_goal(r.goal, cfg.max_goal_tokens, tactic_identifiers(t)) for r, t in zip(records, targets)]
    tactics = [tokenizer.encode_tactic(t, cfg.max_tactic_tokens + 1, r.goal) if t else [] for r, t in zip(records, targets)]
    tactics = [ids if len(ids) <= cfg.max_tactic_tokens else [] for ids in tactics]
    input_ids = torch.full((len(records), max(len(g) for g in goals)), tokenizer.pad_id, dtype=torch.long)
    labels = torch.full((len(records), max(1, max(len(t) for t in tactics))), -100, dtype=torch.long)
    for row, (goal, tactic) in enumerate(zip(goals, tactics)):
        input_ids[row, : len(goal)] = torch.tensor(goal)
        if tactic:
            labels[row, : len(tactic)] = torch.tensor(tactic)
    attention_mask = (input_ids != tokenizer.pad_id).long()
    attention_mask[:, 0] = 1
    steps = torch.tensor([max(1, r.steps) for r in records], dtype=torch.long)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels, "steps": steps}


class Learner:
    """Plain class (Ray wraps it): `train(n)` steps on sampled batches, `publish()` new weights."""

    def __init__(self, run_dir: str | Path, start_checkpoint: str | Path, config: LearnerConfig,
                 seed: int = 0) -> None:
        self.config = config
        self.run_dir = Path(run_dir)
        self.state_dir = self.run_dir / "learner"
        self.weights_dir = self.run_dir / "weights"
        if config.threads:
            torch.set_num_threads(config.threads)
        resume = is_checkpoint(self.state_dir) and (self.state_dir / "learner_state.pt").is_file()
        self.device = learner_device(config.device)
        self.model, self.tokenizer, _ = load_checkpoint(self.state_dir if resume else start_checkpoint, self.device)
        self.model.train()
        self.step = 0
        self.version = 0
        self.rng = random.Random(seed)
        self._engine = _deepspeed_engine(self.model, config) if config.engine == "deepspeed" else None
        self.optimizer = self._engine.optimizer if self._engine is not None else \
            torch.optim.AdamW(self.model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        state = torch.load(self.state_dir / "learner_state.pt", map_location=self.device, weights_only=False) \
            if resume else None
        if state is not None and state.get("engine", "torch") == config.engine:  # moments of the same engine only
            self.optimizer.load_state_dict(state["optimizer"])
        if state is not None:
            self.step, self.version = int(state["step"]), int(state["version"])
            self.rng.setstate(state["rng"])
        # the average starts from the weights it is switched on at (a resumed run without one included)
        self.average: dict[str, torch.Tensor] | None = None
        if config.ema_decay > 0:
            saved = state.get("ema") if state is not None else None
            self.average = {name: (saved[name].to(self.device) if saved and name in saved else p.detach().clone())
                            for name, p in self.model.named_parameters()}
            self._averaged = (list(self.average.values()), [p.detach() for p in self.model.parameters()])
        # the policy the KL term keeps the learner near: the run's version 0 (its starting weights)
        self.keeper: ProverModel | None = None
        if config.keep_weight > 0:
            start = self.weights_dir / "v000000"
            self.keeper, _, _ = load_checkpoint(start if is_checkpoint(start) else start_checkpoint, self.device)
            self.keeper.eval().requires_grad_(False)
        if self.version == 0 and self.latest_weights() is None:
            self.publish()  # version 0 = the starting weights, so actors always have a checkpoint

    # ---- training ---------------------------------------------------------------------------------
    def train_batch(self, records: Sequence[TrainingRecord]) -> dict[str, float]:
        """One optimisation step on `records`; returns the losses."""
        batch = collate_records(records, self.tokenizer, self.model, self.config.short_names)
        device = next(self.model.parameters()).device
        batch = {k: v.to(device) for k, v in batch.items()}
        for group in self.optimizer.param_groups:
            group["lr"] = self.learning_rate()
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=self.config.precision == "bf16"):
            out = self.model(batch["input_ids"], batch["attention_mask"], batch["labels"], batch["steps"],
                             self.config.value_weight)
            if self.keeper is not None:
                with torch.no_grad():
                    kept = self.keeper(batch["input_ids"], batch["attention_mask"], batch["labels"], batch["steps"],
                                       self.config.value_weight)["logits"]
                out["keep_kl"] = token_kl(kept, out["logits"], batch["labels"])
                out["loss"] = out["loss"] + self.config.keep_weight * out["keep_kl"]
        if self._engine is not None:
            self._engine.backward(out["loss"])
            self._engine.step()
        else:
            self.optimizer.zero_grad(set_to_none=True)
            out["loss"].backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.grad_clip)
            self.optimizer.step()
        if self.average is not None:
            self._update_average()
        self.step += 1
        if self.step % self.config.checkpoint_every == 0:
            self.save()
        return {k: float(out[k].item()) for k in ("loss", "policy_loss", "value_loss", "keep_kl") if k in out}

    def losses(self, records: Sequence[TrainingRecord]) -> dict[str, float]:
        """Mean policy and value loss on `records` at the current weights (no step taken)."""
        batch = collate_records(records, self.tokenizer, self.model, self.config.short_names)
        device = next(self.model.parameters()).device
        self.model.eval()
        with torch.no_grad():
            out = self.model(*(batch[k].to(device) for k in ("input_ids", "attention_mask", "labels", "steps")),
                             self.config.value_weight)
        self.model.train()
        return {"policy_loss": round(float(out["policy_loss"]), 4), "value_loss": round(float(out["value_loss"]), 4)}

    def learning_rate(self) -> float:
        """The learning rate of the next step: `lr`, halved every `lr_half_life` steps down to
        `lr_min` (a function of the step count alone, so a resumed run continues the schedule)."""
        if self.config.lr_half_life <= 0:
            return self.config.lr
        return max(self.config.lr_min, self.config.lr * 0.5 ** (self.step / self.config.lr_half_life))

    @torch.no_grad()
    def _update_average(self) -> None:
        averages, params = self._averaged   # same order: both follow named_parameters()
        torch._foreach_mul_(averages, self.config.ema_decay)
        torch._foreach_add_(averages, params, alpha=1.0 - self.config.ema_decay)

    def published_model(self) -> ProverModel:
        """The model `publish` writes: the moving average when `ema_decay` > 0, else the live model."""
        if self.average is None:
            return self.model
        averaged = copy.deepcopy(self.model)
        with torch.no_grad():
            for name, param in averaged.named_parameters():
                param.copy_(self.average[name])
        return averaged.eval()

    # ---- persistence ------------------------------------------------------------------------------
    def save(self) -> None:
        """The resumable learner state (written to a sibling, then swapped in)."""
        staging = self.run_dir / "learner.tmp"
        save_checkpoint(staging, self.model, self.tokenizer, {"step": self.step, "version": self.version})
        torch.save({"optimizer": self.optimizer.state_dict(), "step": self.step, "version": self.version,
                    "rng": self.rng.getstate(), "engine": self.config.engine,
                    "ema": ({name: t.detach().cpu() for name, t in self.average.items()}
                            if self.average is not None else None)}, staging / "learner_state.pt")
        swap_in(staging, self.state_dir)

    def publish(self) -> tuple[int, Path]:
        """Write the current weights as the next version; actors pick it up via `latest_weights`."""
        version = self.version + (1 if self.latest_weights() is not None else 0)
        target = self.weights_dir / f"v{version:06d}"
        staging = self.weights_dir / f".v{version:06d}.tmp"
        save_checkpoint(staging, self.published_model(), self.tokenizer,
                        {"version": version, "learner_step": self.step, "ema_decay": self.config.ema_decay})
        swap_in(staging, target)
        if self.config.quantization:
            from networks.engine import converted_model

            converted_model(target, self.config.quantization)
        mark_latest(self.weights_dir, version, target)
        self.version = version
        self.save()
        return version, target

    def latest_weights(self) -> tuple[int, Path] | None:
        return latest_weights(self.weights_dir)


def token_kl(reference_logits: torch.Tensor, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean over the tactic tokens (`labels` ≠ −100) of KL(reference ‖ model) between the two
    models' next-token distributions, both teacher-forced on the same tactic: the divergence of the
    policy from the reference's where the batch has a tactic (0 for a batch with none). Computed
    in float32 whatever the autocast, so bf16 logits do not bias it."""
    mask = labels != -100
    if not bool(mask.any()):
        return logits.sum() * 0.0
    reference = torch.log_softmax(reference_logits[mask].float(), dim=-1)
    model = torch.log_softmax(logits[mask].float(), dim=-1)
    return (reference.exp() * (reference - model)).sum(-1).mean()


def learner_device(name: str) -> torch.device:
    """`auto` → the GPU when torch sees one, else the CPU; anything else as torch reads it. The
    state on disk is device-free (safetensors weights, a map_location'd optimizer state), so a run
    moves between a GPU machine and a CPU one and resumes exactly."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def latest_weights(weights_dir: str | Path) -> tuple[int, Path] | None:
    """(version, checkpoint directory) of the newest published weights, or None."""
    path = Path(weights_dir)
    try:
        data = json.loads((path / "LATEST").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return int(data["version"]), path / str(data["path"])


def mark_latest(weights_dir: str | Path, version: int, target: Path) -> None:
    """Name `target` (a complete `vNNNNNN/` under `weights_dir`) the newest version: what
    `latest_weights` reads. Written atomically, after the directory is in place."""
    write_atomic(Path(weights_dir) / "LATEST", json.dumps({"version": version, "path": target.name}))


def swap_in(staging: Path, target: Path) -> None:
    """Replace `target` by the complete directory `staging` (old copy removed after the swap)."""
    old = target.with_name(target.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        os.replace(target, old)
    os.replace(staging, target)
    shutil.rmtree(old, ignore_errors=True)


def _deepspeed_engine(model: ProverModel, config: LearnerConfig):
    """A DeepSpeed engine around `model` (ZeRO `zero_stage`); on CPU, a one-process gloo group."""
    import deepspeed
    import torch.distributed as dist

    if not dist.is_initialized():
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", str(29500 + os.getpid() % 1000))
        os.environ.setdefault("RANK", "0")
        os.environ.setdefault("LOCAL_RANK", "0")
        os.environ.setdefault("WORLD_SIZE", "1")
        deepspeed.init_distributed(dist_backend="nccl" if torch.cuda.is_available() else "gloo")
    ds_config = {
        "train_micro_batch_size_per_gpu": config.batch_size,
        "gradient_accumulation_steps": 1,
        "gradient_clipping": config.grad_clip,
        "optimizer": {"type": "AdamW", "params": {"lr": config.lr, "weight_decay": config.weight_decay,
                                                   "torch_adam": True}},
        "zero_optimization": {"stage": config.zero_stage},
    }
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=ds_config)
    return engine
