"""Search configurations. Defaults are AlphaProof's published constants where it has them.

Built from the Hydra `search` group; `from_dict` rejects unknown keys so a typo in an override
is an error, not a silently ignored setting.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, TypeVar

T = TypeVar("T")


def _from_dict(cls: type[T], data: dict[str, Any]) -> T:
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown {cls.__name__} keys: {', '.join(unknown)}")
    return cls(**data)


@dataclass(frozen=True)
class Budget:
    """Whichever ends first. 0 means "no limit" for that resource (not all three may be 0)."""

    max_simulations: int = 400
    max_seconds: float = 60.0
    max_prover_calls: int = 0

    def __post_init__(self) -> None:
        if self.max_simulations < 0 or self.max_seconds < 0 or self.max_prover_calls < 0:
            raise ValueError("budgets must be non-negative")
        if not (self.max_simulations or self.max_seconds or self.max_prover_calls):
            raise ValueError("at least one budget (simulations, seconds, prover calls) must be set")


@dataclass(frozen=True)
class MCTSConfig:
    """AND-OR MCTS with progressive sampling (AlphaProof's rules).

    pb_c_base, pb_c_init:   PUCT exploration `log((N + base + 1)/base) + init`.
    prior_temperature:      prior = exp(logp / T), renormalised over the node's tactics.
    value_discount:         γ in the value score γ^(−1 − (reward + V)).
    c_and:                  multiplier on exploration when choosing a child at an AND node.
    unvisited_penalty:      an unvisited tactic is valued V(parent) − penalty.
    no_legal_actions_value: value backed up from a goal with no working tactic.
    ps_c, ps_alpha:         sample again at an OR node while expansions <= ps_c · visits^ps_alpha.
    max_expansions:         at most this many sampling rounds per goal.
    num_samples:            tactics requested per expansion.
    num_parallel:           leaves selected (with virtual loss) per evaluator call.
    virtual_loss:           value counted for each in-flight visit.
    """

    pb_c_base: float = 3200.0
    pb_c_init: float = 0.001
    prior_temperature: float = 200.0
    value_discount: float = 0.99
    c_and: float = 1.0
    unvisited_penalty: float = 0.5
    no_legal_actions_value: float = -40.0
    ps_c: float = 0.01
    ps_alpha: float = 0.6
    max_expansions: int = 4
    num_samples: int = 16
    num_parallel: int = 8
    virtual_loss: float = -40.0

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "MCTSConfig":
        return _from_dict(cls, data)


@dataclass(frozen=True)
class BestFirstConfig:
    """ReProver-style best-first search: expand the open goal with the highest cumulative log-prob."""

    num_samples: int = 16
    num_parallel: int = 8

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BestFirstConfig":
        return _from_dict(cls, data)


@dataclass(frozen=True)
class PortfolioConfig:
    """Decision procedures tried in turn on the whole goal, each with the env's time limit."""

    tactics: tuple[str, ...] = (
        "reflexivity", "lia", "nia", "lra", "nra", "field", "ring", "firstorder", "auto", "intuition", "tauto",
        "congruence", "easy", "intros; reflexivity", "intros; lia", "intros; nia", "intros; lra", "intros; nra",
        "intros; field", "intros; ring", "intros; subst; lia", "intros; subst; nia", "intros; subst; lra",
        "intros; subst; nra", "intros; simpl; lia", "intros; simpl; ring", "intros; compute; lia",
        "intros; split; lia", "intros; repeat split; lra", "intros; intuition lia", "intros; intuition nia",
        "intros; field_simplify; lra", "intros; auto with arith", "intros; firstorder",
    )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PortfolioConfig":
        data = dict(data)
        if "tactics" in data:
            data["tactics"] = tuple(data["tactics"])
        return _from_dict(cls, data)
