"""Our value head as a file beside a transformers checkpoint: `value_head.safetensors` + `value_head.json`.

A transformers `T5ForConditionalGeneration` has no place for `ProverModel`'s value head (an MLP on
the masked mean of the encoder's last hidden state, giving 64 logits over "tactics still needed",
`networks.model`), so the export (`networks.export_hf`) writes it beside the model, and the hf
evaluator (`networks.hf_evaluator`) reads it back when it is there: then the exported policy's
value is the shipped network's, not the neutral one a foreign checkpoint gets.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file
from torch import nn

from networks.hf_dir import VALUE_HEAD_CONFIG, VALUE_HEAD_FILE

#: how the head reads the encoder (written to value_head.json, checked on load)
POOLING = "masked-mean"


class ValueHead(nn.Module):
    """Linear → GELU → Linear on the masked mean of encoder states; V = −E[steps], bin i = i + 1 steps."""

    def __init__(self, d_model: int, num_value_bins: int) -> None:
        super().__init__()
        self.d_model = d_model
        self.num_value_bins = num_value_bins
        self.mlp = nn.Sequential(nn.Linear(d_model, d_model), nn.GELU(), nn.Linear(d_model, num_value_bins))

    @torch.no_grad()
    def forward(self, states: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Values (B,) of encoder `states` (B, L, d) under `attention_mask` (B, L), as
        `ProverModel.values(ProverModel.value_logits(...))` computes them."""
        mask = attention_mask.unsqueeze(-1).to(states.dtype)
        pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        logits = self.mlp(pooled.to(self.mlp[0].weight.dtype)).float()
        steps = torch.arange(1, self.num_value_bins + 1, device=logits.device, dtype=logits.dtype)
        return -(logits.softmax(-1) * steps).sum(-1)


def save_value_head(directory: str | Path, mlp: nn.Sequential, d_model: int, num_value_bins: int) -> None:
    """Write `ProverModel.value_head` (`mlp`) as the two files of a value head in `directory`."""
    path = Path(directory)
    state = {name: tensor.detach().float().contiguous().cpu() for name, tensor in mlp.state_dict().items()}
    save_file(state, str(path / VALUE_HEAD_FILE))
    (path / VALUE_HEAD_CONFIG).write_text(json.dumps({
        "d_model": d_model, "num_value_bins": num_value_bins, "pooling": POOLING,
        "value": "-(expected tactics still needed): softmax over bins, bin i means i + 1 tactics",
    }, indent=2), encoding="utf-8")


def load_value_head(directory: str | Path) -> ValueHead | None:
    """The value head saved in `directory`, in eval mode; None when it has none. ValueError (one
    line) on a head whose files do not match each other."""
    path = Path(directory)
    if not (path / VALUE_HEAD_FILE).is_file() or not (path / VALUE_HEAD_CONFIG).is_file():
        return None
    config = json.loads((path / VALUE_HEAD_CONFIG).read_text(encoding="utf-8"))
    if config.get("pooling") != POOLING:
        raise ValueError(f"{path / VALUE_HEAD_CONFIG}: unknown pooling {config.get('pooling')!r}")
    head = ValueHead(int(config["d_model"]), int(config["num_value_bins"]))
    try:
        head.mlp.load_state_dict(load_file(str(path / VALUE_HEAD_FILE)))
    except RuntimeError as error:
        reason = str(error).splitlines()[0]
        raise ValueError(f"{path / VALUE_HEAD_FILE}: does not match its config ({reason})") from None
    return head.eval()


__all__ = ["POOLING", "ValueHead", "load_value_head", "save_value_head"]
