"""The one loop runner: submit attempts to a pool of actors, poll it, collect the episodes, and
let the learner step and publish between polls (docs/ARCHITECTURE.md §Self-play, §Expert
iteration, §Test-time RL).

Three drivers keep actors busy: the continuous self-play loop (`selfplay.loop`), the phases of
expert iteration (`selfplay.iteration_phases`) and TTRL's slices (`ttrl.loop`). They differ only
in which attempt goes next, what an episode is for and what the learner does between polls, so
each says that in a `Feed` and `run_pool(pool, feed)` runs the loop itself:

    while the feed is submitting: an attempt for every idle actor (until the feed has none)
    otherwise: return once nothing is in flight (or the feed is finished or gives up waiting)
    poll the pool → `collect` each episode, `lost` each attempt whose actor died
    return when the feed is finished, else `between_polls` (the learner's turn)

`run_batch` is the feed of a fixed list of attempts (expert iteration's phases): lost ones are
retried, and nothing new is submitted after a deadline.

`LearnerService` is the one place that owns the learner: it samples the batches (replay mixed
with the supervised records), takes the steps, logs their losses, publishes weights (every
`publish_every` steps for the continuous loops, when told for expert iteration) and saves the
resumable state. Drivers talk to the learner only through it, so the learner can move elsewhere
(a Ray actor on a GPU node, weights shipped through Ray) by replacing this one class.
"""

from __future__ import annotations

import abc
import random
import time
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

from selfplay.actor import Actor
from selfplay.episode import Episode, TrainingRecord
from selfplay.learner import Learner, LearnerConfig
from selfplay.matchmaker import Attempt
from selfplay.replay_buffer import GroupedSampler, MixedSampler, ReplayBuffer


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


class Feed(abc.ABC):
    """What one driver loop tells `run_pool`: what to submit and what to do with an episode (the
    two a loop must say); the other hooks' defaults suit a loop without a learner."""

    def submitting(self, in_flight: int) -> bool:
        """Whether attempts may still be submitted; False: wind down (wait for those in flight)."""
        return True

    @abc.abstractmethod
    def next_attempt(self, in_flight: int) -> Attempt | None:
        """The attempt for an idle actor, or None when there is none to submit now."""

    @abc.abstractmethod
    def collect(self, attempt: Attempt, episode: Episode) -> None:
        """A finished attempt's episode."""

    def lost(self, attempt: Attempt) -> None:
        """An attempt whose actor died mid-search: nothing of it was stored."""

    def finished(self) -> bool:
        """True: leave now, even with attempts in flight (what the loop was for is done)."""
        return False

    def gave_up_waiting(self) -> bool:
        """While winding down: True to leave without the attempts still in flight."""
        return False

    def poll_timeout(self) -> float:
        """How long one poll may wait for a finished attempt (seconds)."""
        return 1.0

    def between_polls(self, actors_busy: bool) -> None:
        """After each poll: the learner's turn (`actors_busy`: no actor is idle)."""


def run_pool(pool: ActorPool, feed: Feed) -> None:
    """Submit, poll and collect until `feed` is done (see the module docstring); the caller
    closes the pool."""
    in_flight = 0
    while True:
        if feed.submitting(in_flight):
            while pool.idle() > 0 and (attempt := feed.next_attempt(in_flight)) is not None:
                pool.submit(attempt)
                in_flight += 1
        elif in_flight == 0 or feed.finished() or feed.gave_up_waiting():
            return
        for attempt, episode in pool.poll(timeout=feed.poll_timeout()):
            in_flight -= 1
            if episode is None:
                feed.lost(attempt)
            else:
                feed.collect(attempt, episode)
        if feed.finished():
            return
        feed.between_polls(actors_busy=pool.idle() == 0)


#: (kind, attempts stored so far, attempts in all, whether this one proved its problem)
ProgressHook = Callable[[str, int, int, bool], None]


class _Batch(Feed):
    """A fixed list of attempts: each lost one retried up to `retries` times; after `deadline`
    nothing new is submitted and the rest is dropped."""

    def __init__(self, kind: str, attempts: Sequence[Attempt], store: Callable[[Episode], None], deadline: float,
                 on_progress: ProgressHook | None, retries: int) -> None:
        self.kind, self.total, self.store, self.deadline = kind, len(attempts), store, deadline
        self.on_progress, self.retries = on_progress, retries
        self.queue = list(attempts)
        self.lost_count: dict[str, int] = {}
        self.complete = True
        self.stored = 0

    def submitting(self, in_flight: int) -> bool:
        if self.queue and time.monotonic() >= self.deadline:
            self.complete = False
            self.queue.clear()
        return bool(self.queue)

    def next_attempt(self, in_flight: int) -> Attempt | None:
        return self.queue.pop(0) if self.queue and time.monotonic() < self.deadline else None

    def lost(self, attempt: Attempt) -> None:
        self.lost_count[attempt.problem] = self.lost_count.get(attempt.problem, 0) + 1
        if self.lost_count[attempt.problem] <= self.retries and self.complete:
            self.queue.append(attempt)

    def collect(self, attempt: Attempt, episode: Episode) -> None:
        self.store(episode)
        self.stored += 1
        if self.on_progress is not None:
            self.on_progress(self.kind, self.stored, self.total, episode.proved)


def run_batch(open_pool: Callable[[], ActorPool], kind: str, attempts: Sequence[Attempt],
              store: Callable[[Episode], None], deadline: float, on_progress: ProgressHook | None = None,
              retries: int = 2) -> bool:
    """Every attempt through a pool from `open_pool` (none is opened for no attempts; closed at
    the end), each episode to `store`; True when all were stored, False when the deadline came
    first or an attempt was lost more than `retries` times."""
    if not attempts:
        return True
    batch = _Batch(kind, attempts, store, deadline, on_progress, retries)
    pool = open_pool()
    try:
        run_pool(pool, batch)
    finally:
        pool.close()
    return batch.complete and all(count <= retries for count in batch.lost_count.values())


class LearnerService:
    """The learner as the driver loops see it (see the module docstring): steps on batches
    mixed from `buffer`, `supervised` and `library` (a `config.library_fraction` of every batch),
    publication, the resumable state.

    `publish_every`: publish after every step whose count is a multiple of it (0: only when
    `publish` is called). Losses go to `writer` as `learner/<name>` per step, periodic
    publications as `learner/version`.
    """

    def __init__(self, run_dir: str | Path, checkpoint: str | Path, config: LearnerConfig, seed: int,
                 buffer: ReplayBuffer, supervised: Sequence[TrainingRecord], writer: Any = None,
                 publish_every: int = 0, library: Sequence[TrainingRecord] = (),
                 make_learner: Callable[..., Any] = Learner) -> None:
        self.config = config
        # `Learner` in this process, or a `selfplay.ray_learner.RemoteLearner` (the same methods) on a GPU node
        self.learner = make_learner(run_dir, checkpoint, config, seed=seed)
        self.buffer = buffer
        self.sampler = MixedSampler(buffer, list(supervised), config.replay_fraction,
                                    random.Random(seed + self.learner.step), list(library), config.library_fraction)
        # the batches: each a random draw, or `length_window` draws at a time grouped by goal length
        self.batches = GroupedSampler(self.sampler, config.length_window) if config.length_window else self.sampler
        self.writer = writer
        self.publish_every = publish_every

    @property
    def step(self) -> int:
        return self.learner.step

    @property
    def version(self) -> int:
        return self.learner.version

    @property
    def has_supervised(self) -> bool:
        """Whether batches can be drawn with an empty buffer (supervised or library records are mixed in)."""
        return bool(self.sampler.supervised) or bool(self.sampler.library)

    def train_step(self) -> dict[str, float]:
        """One step on a fresh batch; publishes when a periodic publication is due."""
        losses = self.learner.train_batch(self.batches.sample(self.config.batch_size))
        if self.writer is not None:
            for name, value in losses.items():
                self.writer.add_scalar(f"learner/{name}", value, self.learner.step)
        if self.publish_every and self.learner.step % self.publish_every == 0:
            version, _ = self.learner.publish()
            if self.writer is not None:
                self.writer.add_scalar("learner/version", version, self.learner.step)
        return losses

    def publish(self) -> tuple[int, Path]:
        """Publish the current weights as the next version (actors load it before their next attempt)."""
        return self.learner.publish()

    def publish_unpublished(self) -> None:
        """Publish unless the periodic publication already holds the current step's weights."""
        if self.learner.step % self.config.publish_every != 0:
            self.learner.publish()

    def latest_weights(self) -> tuple[int, Path] | None:
        """(version, directory) of the newest published weights, or None."""
        return self.learner.latest_weights()

    def save(self) -> None:
        """The resumable learner state (optimizer, step, version, rng) to disk."""
        self.learner.save()

    def close(self) -> None:
        """Release a learner that holds a process of its own (a Ray actor); a plain one holds none."""
        close = getattr(self.learner, "close", None)
        if callable(close):
            close()

    def fresh_losses(self) -> dict[str, float]:
        """Mean policy and value loss of a fresh batch at the current weights (no step taken;
        NaN with an empty buffer)."""
        if len(self.buffer) == 0:
            return {"policy_loss": float("nan"), "value_loss": float("nan")}
        return self.learner.losses(self.sampler.sample(self.config.batch_size))

__all__ = ["ActorPool", "Feed", "InlineActors", "LearnerService", "ProgressHook", "run_batch", "run_pool"]
