"""The self-play loop: matchmaker → actors → replay buffer → learner → published weights.

One driver process owns the replay buffer (the only writer: shards on disk, fsynced per
episode), the matchmaker and the learner; actors only search. With `actors = 0` one in-process
actor alternates with the learner (tests, debugging); with `actors ≥ 1` actors run as Ray
actors (`selfplay.ray_workers`) and the learner trains between their episodes. Each stored
episode owes the learner `learner_steps_per_episode` steps (a fixed replay ratio); the learner
publishes every `publish_every` steps and actors pick the new version up before their next
attempt.

Resume (`resume = true`, the default): the learner reloads `<run_dir>/learner`, the buffer its
shards, and the matchmaker replays the stored episodes, so a killed run continues where it was.
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol, Sequence

from lean_interface.problems.benchmarks import held_out_problem_of
from search.config import reject_unknown_keys
from search.outcome import Outcome
from selfplay.actor import Actor, SourceProblem
from selfplay.episode import Episode, TrainingRecord
from selfplay.learner import Learner, LearnerConfig
from selfplay.matchmaker import Attempt, Matchmaker, MatchmakerConfig
from selfplay.replay_buffer import MixedSampler, ReplayBuffer

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SelfPlayConfig:
    """Hydra `train` settings (top level; learner and matchmaker have their own dataclasses)."""

    run_dir: str
    checkpoint: str
    actors: int = 2
    max_minutes: float = 60.0
    max_episodes: int = 0  # 0 = no limit
    learner_steps_per_episode: int = 2
    min_buffer_records: int = 16
    buffer_capacity: int = 200_000
    seed: int = 0
    resume: bool = True
    learner: LearnerConfig = field(default_factory=LearnerConfig)
    matchmaker: MatchmakerConfig = field(default_factory=MatchmakerConfig)

    @classmethod
    def from_dict(cls, data: dict) -> "SelfPlayConfig":
        reject_unknown_keys(cls, data, "train config")
        values = dict(data)
        values["learner"] = LearnerConfig.from_dict(dict(values.get("learner") or {}))
        values["matchmaker"] = MatchmakerConfig.from_dict(dict(values.get("matchmaker") or {}))
        if values.get("actors", 0) < 0:
            raise ValueError("actors must be >= 0")
        return cls(**values)


class ActorPool(Protocol):
    """Where attempts run: `submit` one per idle actor, `poll` finished ones."""

    def idle(self) -> int: ...
    def submit(self, attempt: Attempt) -> None: ...
    def poll(self, timeout: float) -> list[tuple[Attempt, Episode | None]]: ...
    def close(self) -> None: ...


class InlineActors:
    """`actors = 0`: one actor in this process; `poll` runs the submitted attempt to completion."""

    def __init__(self, actor: Actor) -> None:
        self.actor = actor
        self.pending: list[Attempt] = []

    def idle(self) -> int:
        return 0 if self.pending else 1

    def submit(self, attempt: Attempt) -> None:
        self.pending.append(attempt)

    def poll(self, timeout: float) -> list[tuple[Attempt, Episode | None]]:
        done = [(attempt, self.actor.play(attempt)) for attempt in self.pending]
        self.pending.clear()
        return done

    def close(self) -> None:
        self.actor.close()


@dataclass
class Progress:
    """Counters of this session (the buffer holds the run's totals)."""

    episodes: int = 0
    proofs: int = 0
    disproofs: int = 0
    errors: int = 0
    lost_attempts: int = 0
    learner_steps: int = 0
    started: float = field(default_factory=time.monotonic)

    def rate(self) -> float:
        return self.episodes / max(1e-9, time.monotonic() - self.started)


class SelfPlay:
    """The driver: owns buffer, matchmaker and learner; feeds a pool of actors."""

    def __init__(self, cfg: SelfPlayConfig, problems: Sequence[SourceProblem],
                 supervised: Sequence[TrainingRecord], writer=None) -> None:
        self.cfg = cfg
        self.run_dir = Path(cfg.run_dir)
        self.problems = {p.id: p for p in problems}
        dev = [reason for name, problem in self.problems.items() if (reason := held_out_problem_of(name, problem.theorem))]
        if dev:  # the dev subset is for measuring only, the test split held out (docs/ARCHITECTURE.md §Data)
            raise ValueError(f"dev-subset or test-split problems cannot be self-play problems: {', '.join(dev[:3])}")
        if not cfg.resume and (self.run_dir / "buffer").exists():
            raise ValueError(f"{self.run_dir} already holds a run (use resume=true or a new run_dir)")
        self.buffer = ReplayBuffer(self.run_dir / "buffer", cfg.buffer_capacity)
        self.matchmaker = Matchmaker(sorted(self.problems), cfg.matchmaker, seed=cfg.seed)
        self.matchmaker.replay(e for e in self.buffer.episodes_iter() if e.problem in self.problems)
        self.learner = Learner(self.run_dir, cfg.checkpoint, cfg.learner, seed=cfg.seed)
        self.sampler = MixedSampler(self.buffer, list(supervised), cfg.learner.replay_fraction,
                                    random.Random(cfg.seed + self.learner.step))
        self.writer = writer
        self.progress = Progress()
        self.owed_steps = 0

    # ---- one episode --------------------------------------------------------------------------------
    def handle(self, attempt: Attempt, episode: Episode) -> None:
        """Store the episode (fsync), tell the matchmaker, log; the learner owes steps for it."""
        if episode.problem not in self.problems:
            raise ValueError(f"episode for unknown problem {episode.problem}")
        self.buffer.add(episode)
        self.matchmaker.report(attempt, episode.proved)
        progress = self.progress
        progress.episodes += 1
        progress.proofs += episode.proved and not episode.disprove
        progress.disproofs += episode.proved and episode.disprove
        progress.errors += episode.outcome is Outcome.ERROR
        self.owed_steps += self.cfg.learner_steps_per_episode
        if self.writer is not None:
            total = self.buffer.episodes
            self.writer.add_scalar("selfplay/buffer_records", len(self.buffer), total)
            self.writer.add_scalar("selfplay/episodes_per_second", progress.rate(), total)
            self.writer.add_scalar("selfplay/version_lag", self.learner.version - episode.weights_version, total)
            self.writer.add_scalar("selfplay/actor_weights_version", episode.weights_version, total)
            for source, count in self.buffer.episodes_by_source.items():
                proofs = self.buffer.proofs_by_source.get(source, 0)
                self.writer.add_scalar(f"proof_rate/{source}", proofs / max(1, count), total)

    def learn(self, max_steps: int) -> int:
        """Up to `max_steps` owed learner steps (none until the buffer holds enough records)."""
        done = 0
        while self.owed_steps > 0 and done < max_steps and len(self.buffer) >= self.cfg.min_buffer_records:
            losses = self.learner.train_batch(self.sampler.sample(self.cfg.learner.batch_size))
            self.owed_steps -= 1
            done += 1
            self.progress.learner_steps += 1
            if self.writer is not None:
                for name, value in losses.items():
                    self.writer.add_scalar(f"learner/{name}", value, self.learner.step)
            if self.learner.step % self.cfg.learner.publish_every == 0:
                version, _ = self.learner.publish()
                if self.writer is not None:
                    self.writer.add_scalar("learner/version", version, self.learner.step)
        return done

    # ---- the loop ----------------------------------------------------------------------------------
    def run(self, pool: ActorPool, on_progress: Callable[["SelfPlay"], None] | None = None) -> Progress:
        """Until `max_minutes` or `max_episodes` (this session); ends with a checkpoint."""
        deadline = time.monotonic() + 60 * self.cfg.max_minutes if self.cfg.max_minutes > 0 else float("inf")
        in_flight = 0
        try:
            while True:
                finished = self.cfg.max_episodes and self.progress.episodes >= self.cfg.max_episodes
                if time.monotonic() < deadline and not finished:
                    while pool.idle() > 0 and not (self.cfg.max_episodes and self.progress.episodes + in_flight
                                                   >= self.cfg.max_episodes):
                        pool.submit(self.matchmaker.next_attempt())
                        in_flight += 1
                elif in_flight == 0:
                    break
                for attempt, episode in pool.poll(timeout=0.05 if self.owed_steps else 1.0):
                    in_flight -= 1
                    if episode is None:  # the actor died mid-attempt: nothing was stored, try again later
                        self.progress.lost_attempts += 1
                        continue
                    self.handle(attempt, episode)
                    if on_progress is not None:
                        on_progress(self)
                # actors busy: one step between polls; inline (no one searching): all owed steps
                self.learn(max_steps=1 if pool.idle() == 0 else self.owed_steps)
        finally:
            pool.close()
            self.learner.save()
            self.buffer.close()
        return self.progress
