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

The submit/poll loop and the learner's steps and publications are `selfplay.runner`'s
(`run_pool`, `LearnerService`); this module says what the continuous loop submits, stores and
owes the learner.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from lean_interface.problems.benchmarks import held_out_problem_of
from search.outcome import Outcome
from selfplay.actor import SourceProblem
from selfplay.episode import Episode, TrainingRecord
from selfplay.learner import Learner
from selfplay.loop_config import SelfPlayConfig
from selfplay.matchmaker import Attempt, Matchmaker
from selfplay.replay_buffer import ReplayBuffer
from selfplay.runner import ActorPool, Feed, LearnerService, run_pool


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
                 supervised: Sequence[TrainingRecord], writer=None, library: Sequence[TrainingRecord] = (),
                 make_learner: Callable[..., Any] = Learner) -> None:
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
        self.learner = LearnerService(self.run_dir, cfg.checkpoint, cfg.learner, cfg.seed, self.buffer, supervised,
                                      writer, publish_every=cfg.learner.publish_every, library=library,
                                      make_learner=make_learner)
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
            self.learner.train_step()
            self.owed_steps -= 1
            done += 1
            self.progress.learner_steps += 1
        return done

    # ---- the loop ----------------------------------------------------------------------------------
    def run(self, pool: ActorPool, on_progress: Callable[["SelfPlay"], None] | None = None) -> Progress:
        """Until `max_minutes` or `max_episodes` (this session); ends with a checkpoint."""
        deadline = time.monotonic() + 60 * self.cfg.max_minutes if self.cfg.max_minutes > 0 else float("inf")
        try:
            run_pool(pool, _Continuous(self, deadline, on_progress))
        finally:
            pool.close()
            self.learner.save()
            self.learner.close()
            self.buffer.close()
        return self.progress


class _Continuous(Feed):
    """The matchmaker's next attempt for every idle actor until the deadline or `max_episodes`;
    between polls one owed learner step while every actor searches, all of them when one waits."""

    def __init__(self, driver: SelfPlay, deadline: float, on_progress: Callable[[SelfPlay], None] | None) -> None:
        self.driver, self.deadline, self.on_progress = driver, deadline, on_progress
        self.cap = driver.cfg.max_episodes

    def submitting(self, in_flight: int) -> bool:
        finished = self.cap and self.driver.progress.episodes >= self.cap
        return time.monotonic() < self.deadline and not finished

    def next_attempt(self, in_flight: int) -> Attempt | None:
        if self.cap and self.driver.progress.episodes + in_flight >= self.cap:
            return None
        return self.driver.matchmaker.next_attempt()

    def lost(self, attempt: Attempt) -> None:
        self.driver.progress.lost_attempts += 1   # nothing was stored: the matchmaker offers it again later

    def collect(self, attempt: Attempt, episode: Episode) -> None:
        self.driver.handle(attempt, episode)
        if self.on_progress is not None:
            self.on_progress(self.driver)

    def poll_timeout(self) -> float:
        return 0.05 if self.driver.owed_steps else 1.0

    def between_polls(self, actors_busy: bool) -> None:
        # actors busy: one step between polls; inline (no one searching): all owed steps
        self.driver.learn(max_steps=1 if actors_busy else self.driver.owed_steps)


__all__ = ["Progress", "SelfPlay", "SelfPlayConfig"]
