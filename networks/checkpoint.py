"""Checkpoints as directories: `model.safetensors`, `config.json`, `tokenizer.json`.

Loading reads only these local files (no hub, no download). `config.json` holds the model config
and free-form training metadata (data, steps, metrics) so a checkpoint documents itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from networks.model import ProverModel, ProverModelConfig
from networks.tokenizer import FILE_NAME as TOKENIZER_FILE
from networks.tokenizer import ProofTokenizer

WEIGHTS = "model.safetensors"
CONFIG = "config.json"


def save_checkpoint(directory: str | Path, model: ProverModel, tokenizer: ProofTokenizer,
                    metadata: dict | None = None) -> Path:
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    state = {name: tensor.detach().contiguous().cpu() for name, tensor in model.state_dict().items()}
    # tied embeddings share storage: keep one copy (safetensors refuses shared tensors)
    state.pop("t5.lm_head.weight", None)
    state.pop("t5.encoder.embed_tokens.weight", None)
    state.pop("t5.decoder.embed_tokens.weight", None)
    save_file(state, str(path / WEIGHTS))
    tokenizer.save(path)
    (path / CONFIG).write_text(json.dumps({"model": model.config.to_dict(), "metadata": metadata or {}},
                                          indent=2), encoding="utf-8")
    return path


def is_checkpoint(directory: str | Path) -> bool:
    path = Path(directory)
    return all((path / name).is_file() for name in (WEIGHTS, CONFIG, TOKENIZER_FILE))


def require_checkpoint(directory: str | Path) -> Path:
    """`directory` as a Path; ValueError (one line) naming the files it lacks to be a checkpoint."""
    path = Path(directory)
    if not is_checkpoint(path):
        raise ValueError(f"{path} is not a checkpoint directory (needs {WEIGHTS}, {CONFIG}, {TOKENIZER_FILE})")
    return path


def load_checkpoint(directory: str | Path, device: str | torch.device = "cpu") -> tuple[ProverModel, ProofTokenizer, dict]:
    """(model in eval mode, tokenizer, metadata). ValueError (one line) if not a checkpoint."""
    path = require_checkpoint(directory)
    data = json.loads((path / CONFIG).read_text(encoding="utf-8"))
    model = ProverModel(ProverModelConfig.from_dict(data["model"]))
    state = load_file(str(path / WEIGHTS))
    missing, unexpected = model.load_state_dict(state, strict=False)
    tied = {"t5.lm_head.weight", "t5.encoder.embed_tokens.weight", "t5.decoder.embed_tokens.weight"}
    if unexpected or set(missing) - tied:
        raise ValueError(f"{path}: weights do not match the config (missing {sorted(set(missing) - tied)[:3]}, "
                         f"unexpected {unexpected[:3]})")
    model.t5.tie_weights()
    model.to(device).eval()
    return model, ProofTokenizer.load(path), data.get("metadata", {})
