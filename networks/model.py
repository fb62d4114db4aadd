"""The prover network: a T5 encoder-decoder (policy) with a value head on the encoder.

    goal tokens ──► T5 encoder ──► states (B, L, d) ──► T5 decoder ──► tactic tokens (policy)
                                        │
                                        └─ masked mean (B, d) ─► MLP ─► logits (B, 64) (value)

The value head predicts a categorical distribution over "tactics still needed" (1..64 bins, as
AlphaProof's 64-bin head); the value is minus its expectation, so V ≈ −steps-to-go.
Loss = tactic cross-entropy + value_weight × value cross-entropy.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

import torch
from torch import nn
from torch.nn import functional as F
from transformers import T5Config, T5ForConditionalGeneration


@dataclass(frozen=True)
class ProverModelConfig:
    """Architecture and sequence limits; saved as JSON beside the weights."""

    vocab_size: int = 4000
    d_model: int = 256
    d_ff: int = 1024
    num_heads: int = 4
    encoder_layers: int = 4
    decoder_layers: int = 4
    dropout: float = 0.1
    num_value_bins: int = 64
    max_goal_tokens: int = 256
    max_tactic_tokens: int = 48

    @classmethod
    def from_dict(cls, data: dict) -> "ProverModelConfig":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown model config keys: {', '.join(unknown)}")
        return cls(**data)

    def to_dict(self) -> dict:
        return asdict(self)

    def t5_config(self) -> T5Config:
        return T5Config(
            vocab_size=self.vocab_size, d_model=self.d_model, d_kv=self.d_model // self.num_heads,
            d_ff=self.d_ff, num_layers=self.encoder_layers, num_decoder_layers=self.decoder_layers,
            num_heads=self.num_heads, dropout_rate=self.dropout, feed_forward_proj="gated-gelu",
            pad_token_id=0, eos_token_id=1, decoder_start_token_id=0, tie_word_embeddings=True,
        )


class ProverModel(nn.Module):
    """T5 policy + categorical value head."""

    def __init__(self, config: ProverModelConfig) -> None:
        super().__init__()
        self.config = config
        self.t5 = T5ForConditionalGeneration(config.t5_config())
        self.value_head = nn.Sequential(
            nn.Linear(config.d_model, config.d_model), nn.GELU(), nn.Linear(config.d_model, config.num_value_bins)
        )

    def encode(self, input_ids: torch.Tensor, attention_mask: torch.Tensor):
        return self.t5.get_encoder()(input_ids=input_ids, attention_mask=attention_mask)

    def value_logits(self, encoder_states: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        mask = attention_mask.unsqueeze(-1).to(encoder_states.dtype)  # (B, L, 1)
        pooled = (encoder_states * mask).sum(1) / mask.sum(1).clamp(min=1.0)  # (B, d)
        return self.value_head(pooled)  # (B, bins)

    def values(self, value_logits: torch.Tensor) -> torch.Tensor:
        """V = −E[steps], steps of bin i being i + 1."""
        steps = torch.arange(1, self.config.num_value_bins + 1, device=value_logits.device, dtype=value_logits.dtype)
        return -(value_logits.softmax(-1) * steps).sum(-1)  # (B,)

    def steps_to_bins(self, steps: torch.Tensor) -> torch.Tensor:
        return (steps - 1).clamp(0, self.config.num_value_bins - 1)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, labels: torch.Tensor,
                steps: torch.Tensor, value_weight: float) -> dict[str, torch.Tensor]:
        """Losses for a batch. `labels` are tactic ids padded with −100 (a row of only −100 is a
        value-only example, as self-play's unproved goals are; a batch of only those has policy
        loss 0); `steps` ≥ 1."""
        encoder = self.encode(input_ids, attention_mask)
        out = self.t5(encoder_outputs=encoder, attention_mask=attention_mask, labels=labels)
        policy_loss = out.loss if bool((labels != -100).any()) else out.logits.sum() * 0.0
        value_logits = self.value_logits(encoder.last_hidden_state, attention_mask)
        value_loss = F.cross_entropy(value_logits, self.steps_to_bins(steps))
        return {
            "loss": policy_loss + value_weight * value_loss,
            "policy_loss": policy_loss,
            "value_loss": value_loss,
            "logits": out.logits,
            "value_logits": value_logits,
        }

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())
