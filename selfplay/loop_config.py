"""The settings of the two `alphaprover train` loops (configs/train.yaml; docs/ARCHITECTURE.md
§Self-play, §Expert iteration).

`RunConfig` holds what train.yaml says once, at its top level, for whichever loop runs (the run
directory, the starting weights, seed, resume, the session's time limit, the learner); a
`LoopConfig` adds the replay buffer that each loop sizes for itself. `SelfPlayConfig` (the
continuous loop, also TTRL's) reads its own keys from the top level too; `ExpertIterationConfig`
reads everything beyond `RunConfig` from `iteration:`. Their defaults are registered with Hydra
(`alphaprover.config.register_defaults`), so each is written here and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

from search.config import reject_unknown_keys
from selfplay.curriculum import CURRICULA
from selfplay.iteration_state import HELDOUT_SELECTIONS
from selfplay.learner import LearnerConfig
from selfplay.matchmaker import MatchmakerConfig

C = TypeVar("C", bound="RunConfig")


@dataclass(frozen=True)
class RunConfig:
    """The keys train.yaml gives once for both loops (its top level)."""

    run_dir: str
    checkpoint: str
    max_minutes: float = 0.0             # this session's limit; 0 = none
    seed: int = 0
    resume: bool = True
    learner: LearnerConfig = field(default_factory=LearnerConfig)

    #: label of this config in error messages
    LABEL = "run config"

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(RunConfig))

    @classmethod
    def nested(cls) -> dict[str, Any]:
        """Fields that are config dataclasses of their own (each with `from_dict`)."""
        return {"learner": LearnerConfig}

    @classmethod
    def from_dict(cls: type[C], data: dict) -> C:
        """The config of a plain dict (one-line ValueError for unknown keys or bad values)."""
        reject_unknown_keys(cls, data, cls.LABEL)
        values = dict(data)
        for name, nested in cls.nested().items():
            values[name] = nested.from_dict(dict(values.get(name) or {}))
        config = cls(**values)
        config.validate()
        return config

    def validate(self) -> None:
        """Raise ValueError for a value the loop cannot run with."""


@dataclass(frozen=True)
class LoopConfig(RunConfig):
    """A run's keys plus the replay buffer each loop sizes for itself."""

    min_buffer_records: int = 16
    buffer_capacity: int = 200_000


@dataclass(frozen=True)
class SelfPlayConfig(LoopConfig):
    """Hydra `train` settings of the continuous loop (`loop: selfplay`; TTRL's slices too)."""

    actors: int = 2
    max_minutes: float = 60.0
    max_episodes: int = 0  # 0 = no limit
    learner_steps_per_episode: int = 2
    matchmaker: MatchmakerConfig = field(default_factory=MatchmakerConfig)

    LABEL = "train config"

    @classmethod
    def nested(cls) -> dict[str, Any]:
        return {**super().nested(), "matchmaker": MatchmakerConfig}

    def validate(self) -> None:
        if self.actors < 0:
            raise ValueError("actors must be >= 0")


@dataclass(frozen=True)
class ExpertIterationConfig(LoopConfig):
    """Hydra `train` settings of the expert-iteration loop (`loop: expert_iteration`): `RunConfig`'s
    keys from the top level, the rest from `iteration:`."""

    # defaults sized so that on 2 CPU cores the first curve point (round 0's evaluation) lands in
    # about a quarter of an hour and a round takes about half an hour; larger machines raise them
    rounds: int = 0                      # 0 = until stopped
    problems_per_round: int = 128
    search_seconds: float = 20.0
    search_simulations: int = 64
    heldout_problems: int = 64
    heldout_seconds: float = 20.0
    heldout_simulations: int = 32
    heldout_selection: str = "by_family"  # a NEW run's slice: by_family (families even) or spread (by name)
    learner_steps_per_round: int = 300
    policy_search_share: float = 0.5     # of each round's search problems, searched with the policy alone
    # a round's search batch shares itself among the sources in proportion to these weights, by the
    # source names of problem ids (factory, minif2f-rocq-train, variants, …); a source not named weighs 1;
    # None (the default; a null leaf so that `iteration.source_weights={minif2f-rocq-train:2}` sets it) = all 1
    source_weights: dict[str, float] | None = None
    curriculum: str = "family"           # which factory items a round searches (selfplay/curriculum.py): family | attempts
    curriculum_window: int = 24          # curriculum=family: a family's record is its last N search attempts
    curriculum_max_budget: float = 1.0   # curriculum=family: a never-proved family's items search with up to N× the budget
    target_max_budget: float = 1.0       # a competition target never proved (itself or a variant) searches with up to N× the budget
    # the open goals of failed searches of these sources' problems become problems of source `subgoals`
    # after each round's search (selfplay/subgoals.py), e.g. [minif2f-rocq-train]; [] = none
    subgoal_sources: tuple[str, ...] = ()
    subgoals_per_attempt: int = 2        # open goals taken from each failed search (its best by value first)
    max_subgoals_per_target: int = 12    # subgoal problems made of one target over the run
    subgoal_lemmas: bool = True          # a proved subgoal's proof closes its open goal in later searches (lemmas.json)
    subgoal_policy_share: float = 0.0    # of the subgoal problems, searched with the policy alone (the rest: the search's actions)
    # hand-checked proofs of train problems (`alphaprover probe` references) whose hardest step's log-prob
    # the curve follows each round (`competition_bottleneck`); "" = not measured
    competition_references: str = "data/probe/train-references.jsonl"
    # a loop-proof ledger (data/loop-proofs/minif2f-rocq-train.jsonl): the competition targets it lists count
    # as proved when a round plans its search — neither they nor their variants or subgoals are searched —
    # so the search goes to targets no run has proved (their proofs reach the learner as demonstrations);
    # "" = off (every target is searched until this run proves it)
    known_proofs: str = ""
    # benchmarks this run never trains on beyond the dev subset and the test split (selfplay/hold_out.py),
    # e.g. [minif2f-rocq-tune]: their problems, variants, subgoals and ledger records are left out of every
    # input, so the run's versions can be compared on competition problems none of them saw
    hold_out: tuple[str, ...] = ()

    LABEL = "expert iteration config"

    def validate(self) -> None:
        if self.rounds < 0 or self.problems_per_round < 1 or self.heldout_problems < 1:
            raise ValueError("rounds must be >= 0, problems_per_round and heldout_problems >= 1")
        if self.learner_steps_per_round < 0 or self.search_simulations < 1 or self.heldout_simulations < 1:
            raise ValueError("learner_steps_per_round must be >= 0, simulations >= 1")
        if not 0.0 <= self.policy_search_share <= 1.0 or not 0.0 <= self.subgoal_policy_share <= 1.0:
            raise ValueError("policy_search_share and subgoal_policy_share must be in [0, 1]")
        bad_weights = [f"{source}={weight}" for source, weight in (self.source_weights or {}).items()
                       if not isinstance(weight, (int, float)) or isinstance(weight, bool) or not weight > 0]
        if bad_weights:
            raise ValueError(f"source_weights must be positive numbers: {', '.join(bad_weights)}")
        if self.curriculum not in CURRICULA or self.curriculum_window < 1 or self.curriculum_max_budget < 1 \
                or self.target_max_budget < 1:
            raise ValueError(f"curriculum must be one of {', '.join(CURRICULA)}, curriculum_window, "
                             "curriculum_max_budget and target_max_budget >= 1")
        if not isinstance(self.subgoal_sources, (list, tuple)) \
                or not all(isinstance(source, str) and source for source in self.subgoal_sources):
            raise ValueError("subgoal_sources must be a list of source names")
        if not isinstance(self.hold_out, (list, tuple)) or not all(isinstance(spec, str) and spec for spec in self.hold_out):
            raise ValueError("hold_out must be a list of benchmark names")
        if self.subgoals_per_attempt < 1 or self.max_subgoals_per_target < 0:
            raise ValueError("subgoals_per_attempt must be >= 1, max_subgoals_per_target >= 0")
        if self.heldout_selection not in HELDOUT_SELECTIONS:
            raise ValueError(f"heldout_selection must be one of {', '.join(HELDOUT_SELECTIONS)}")

    @classmethod
    def from_train_config(cls, plain: dict) -> "ExpertIterationConfig":
        """The config of a composed train config: `RunConfig`'s keys from the top level, the rest
        from `iteration:`."""
        return cls.from_dict({**{key: plain[key] for key in RunConfig.keys()}, **dict(plain.get("iteration") or {})})


__all__ = ["ExpertIterationConfig", "LoopConfig", "RunConfig", "SelfPlayConfig"]
