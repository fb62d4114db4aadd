"""The TTRL keys of configs/ttrl.yaml (docs/ARCHITECTURE.md §Test-time RL).

Registered with Hydra as `ttrl_defaults` (`alphaprover.config.register_defaults`), so every
default below is written here only; self-play's own keys go to `selfplay.loop_config.SelfPlayConfig`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from search.config import config_from_dict


@dataclass(frozen=True)
class VariantsConfig:
    """`variants:` — variants beyond the ones Coq's structure gives: a language model behind an
    OpenAI-compatible endpoint (`ttrl.variants.llm_variants`), off unless an endpoint is given."""

    llm_endpoint: str = ""   # e.g. http://127.0.0.1:8000 (POST <endpoint>/v1/chat/completions); "" = off
    llm_model: str = ""      # the model name sent with the request
    llm_n: int = 8           # statements asked for per target

    def __post_init__(self) -> None:
        if self.llm_n < 1:
            raise ValueError("variants.llm_n must be >= 1")

    @classmethod
    def from_dict(cls, data: dict) -> "VariantsConfig":
        return config_from_dict(cls, data, "ttrl variants config")


@dataclass(frozen=True)
class TTRLConfig:
    """What makes a slice TTRL rather than plain self-play (`ttrl.loop.TTRLSession`)."""

    max_variants: int = 32            # structural variants generated per target
    max_bridged_variants: int = 8     # bridged variants (a hypothesis instantiated) per target, tried first
    target_every: int = 4             # a dedicated target attempt after every N others (0 = matchmaker only)
    subgoal_variants: bool = True     # failed target attempt → its open subgoals become variants
    subgoals_per_attempt: int = 4     # goal texts taken from one failed attempt
    max_subgoal_variants: int = 32    # subgoal variants per target, in all
    min_attempt_seconds: float = 2.0  # no attempt starts with less of the slice left
    grace_seconds: float = 30.0       # how long past the slice in-flight (Ray) attempts are awaited
    max_target_errors: int = 3        # consecutive ERROR attempts at the target → the target is in error
    final_attempt_fraction: float = 0.0   # the slice's last fraction: one long target attempt (0 = none)
    final_attempt_simulations: int = 1_000_000   # its simulation cap (its time is the real limit)
    variants: VariantsConfig = field(default_factory=VariantsConfig)

    def __post_init__(self) -> None:
        if self.max_variants < 0 or self.max_bridged_variants < 0 or self.target_every < 0 or self.subgoals_per_attempt < 0 \
                or self.max_subgoal_variants < 0:
            raise ValueError("max_variants, max_bridged_variants, target_every, subgoals_per_attempt and "
                             "max_subgoal_variants must be >= 0")
        if self.min_attempt_seconds <= 0 or self.grace_seconds < 0 or self.max_target_errors < 1:
            raise ValueError("min_attempt_seconds must be > 0, grace_seconds >= 0, max_target_errors >= 1")
        if not 0.0 <= self.final_attempt_fraction < 1.0 or self.final_attempt_simulations < 1:
            raise ValueError("final_attempt_fraction must be in [0, 1), final_attempt_simulations >= 1")

    @classmethod
    def from_dict(cls, data: dict) -> "TTRLConfig":
        values = dict(data)
        if "variants" in values:
            values["variants"] = VariantsConfig.from_dict(dict(values["variants"] or {}))
        return config_from_dict(cls, values, "ttrl config")


__all__ = ["TTRLConfig", "VariantsConfig"]
