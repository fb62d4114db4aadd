"""Which directory is a transformers checkpoint, read from its files alone (no torch, no transformers).

`checkpoint=hf:DIR` says so explicitly; a plain `checkpoint=DIR` is one too when DIR holds what
`save_pretrained` writes: a `config.json` that names a `model_type` or `architectures` (our own
`ProverModel` directories have a `config.json` with `model` and `metadata` instead) and weights
(`model.safetensors`, `pytorch_model.bin`, or a sharded index). `hf_problem` says in one line why a
directory cannot be one, so the CLI can refuse it (exit 2) before loading anything. The commands
import this module cheaply to check a checkpoint before any work (`alphaprover eval`'s labels).
"""

from __future__ import annotations

import json
from pathlib import Path

#: the prefix of a `checkpoint` value naming a transformers checkpoint: `checkpoint=hf:DIR`
HF_PREFIX = "hf:"

#: weight files `save_pretrained` writes (one of them, or a sharded index)
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json",
                "pytorch_model.bin.index.json")

#: what our exported value head is called beside the transformers files (networks/export_hf.py)
VALUE_HEAD_FILE = "value_head.safetensors"
VALUE_HEAD_CONFIG = "value_head.json"


def split_hf(spec: str) -> tuple[bool, str]:
    """(whether `spec` says `hf:`, the path without the prefix): `hf:/m/x` → (True, "/m/x")."""
    if spec.startswith(HF_PREFIX):
        return True, spec[len(HF_PREFIX):]
    return False, spec


def _config(directory: Path) -> dict | None:
    try:
        data = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def hf_problem(directory: str | Path) -> str | None:
    """None when `directory` looks like a transformers checkpoint, else the one-line reason it is
    not one (missing, no readable config.json, a config that names no model, no weights)."""
    path = Path(directory)
    if not path.is_dir():
        return f"no transformers checkpoint at {path}: no such directory"
    config = _config(path)
    if config is None:
        return f"no transformers checkpoint at {path}: no readable config.json"
    if not config.get("model_type") and not config.get("architectures"):
        return f"no transformers checkpoint at {path}: its config.json names no model_type or architectures"
    if not any((path / name).is_file() for name in WEIGHT_FILES):
        return f"no transformers checkpoint at {path}: no weights ({', '.join(WEIGHT_FILES[:2])})"
    return None


def is_hf_checkpoint(directory: str | Path) -> bool:
    """Whether `directory` holds a transformers checkpoint (`hf_problem` finds nothing wrong)."""
    return hf_problem(directory) is None


__all__ = ["HF_PREFIX", "VALUE_HEAD_CONFIG", "VALUE_HEAD_FILE", "WEIGHT_FILES", "hf_problem",
           "is_hf_checkpoint", "split_hf"]
