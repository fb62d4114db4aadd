"""The replay buffer: every episode on disk, the most recent distinct records in memory.

Actors hand finished `Episode`s to `ReplayBuffer.add`; the learner draws batches with `sample`
(or `MixedSampler`, which mixes in the supervised data so the policy does not forget it).

On disk (docs/ARCHITECTURE.md §Parts, "actors ─► replay buffer ─► learner"): a directory of
shards `shard-000000.jsonl`, `shard-000001.jsonl`, …, one JSON line per episode
(`Episode.to_dict`), `shard_episodes` episodes per shard. Every `add` flushes and fsyncs before it
returns (`lean_interface.durable.Appender`), so an episode whose `add` returned survives a
`kill -9` of the process (and the directory is fsynced when a shard is created, so a new shard's
name survives too). Shards are only
ever appended to, never rewritten: the files are the run's complete record (the matchmaker
rebuilds its state from them with `episodes_iter`), and the window is derived from them.

In memory: a window of at most `capacity` `TrainingRecord`s keyed by `TrainingRecord.key`
(goal, tactic). A record whose key is already in the window replaces the older one and becomes
the most recent (its value target is the newer search's); when the window is full the least
recently added key is evicted. Reopening a directory replays every shard in order and rebuilds
exactly the same window and counters.

A crash can leave the last line of a shard torn (partial JSON). It is skipped with a logged
warning, and the next `add` starts a new shard, so nothing is ever appended after a torn line. A
malformed line that is *not* the last of its shard is corruption, not a crash, and raises (the
reader's `skip_torn_last` policy).

Not thread-safe: one owner (the Ray wrapper's actor) calls it.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import OrderedDict
from pathlib import Path
from typing import Callable, Iterator, Sequence

from lean_interface.durable import Appender, BadLine, JsonlError, ends_cleanly, read_jsonl, skip_torn_last
from selfplay.episode import Episode, TrainingRecord

_SHARD = re.compile(r"^shard-(\d{6,})\.jsonl$")


def shard_name(index: int) -> str:
    """File name of shard `index`: `shard-000123.jsonl`."""
    return f"shard-{index:06d}.jsonl"


def _shards(directory: Path) -> list[tuple[int, Path]]:
    """(index, path) of every shard in `directory`, in index order."""
    found = []
    for path in directory.iterdir():
        match = _SHARD.match(path.name)
        if match and path.is_file():
            found.append((int(match.group(1)), path))
    return sorted(found)


def read_episodes(directory: str | os.PathLike[str]) -> Iterator[Episode]:
    """Every episode stored under a buffer `directory`, in the order added, read without opening the
    buffer (nothing is created or written: for readers of a finished or running run)."""
    for _, path in _shards(Path(directory)):
        yield from _read_shard(path)[0]


def _read_shard(path: Path) -> tuple[list[Episode], bool]:
    """The episodes of one shard, and whether it can be appended to (it ends with a complete,
    readable line). A torn last line is skipped with a warning; a bad line before the last raises."""
    skipped: list[int] = []

    def torn(line: BadLine) -> None:
        skip_torn_last(line)
        skipped.append(line.number)

    try:
        episodes = read_jsonl(path, Episode.from_dict, torn, "a replay episode")
    except JsonlError as error:
        bad = error.line
        raise ValueError(f"corrupt replay shard {bad.path}:{bad.number}: {bad.error.__class__.__name__}: "
                         f"{bad.error}") from None
    # complete JSON missing its newline is kept, but is still not safe to append after
    return episodes, ends_cleanly(path) and not skipped


class ReplayBuffer:
    """Episodes appended to JSONL shards in `directory`; a window of the `capacity` most recent
    distinct records in memory. Reopening the directory restores the same state.

    Counters: `episodes`, `proofs` (episodes with a verified proof), and per problem source
    `episodes_by_source` / `proofs_by_source`; `len(buffer)` is the number of records in the window.
    """

    def __init__(self, directory: str | os.PathLike[str], capacity: int, shard_episodes: int = 256) -> None:
        if capacity < 1:
            raise ValueError(f"replay buffer capacity must be >= 1, got {capacity}")
        if shard_episodes < 1:
            raise ValueError(f"shard_episodes must be >= 1, got {shard_episodes}")
        self.directory = Path(directory)
        self.capacity = capacity
        self.shard_episodes = shard_episodes
        self.episodes = 0
        self.proofs = 0
        self._episodes_by_source: dict[str, int] = {}
        self._proofs_by_source: dict[str, int] = {}
        # the window: key → record in recency order, plus an array of keys for O(1) uniform sampling
        self._window: OrderedDict[tuple[str, str], TrainingRecord] = OrderedDict()
        self._slots: list[tuple[str, str]] = []
        self._slot_of: dict[tuple[str, str], int] = {}
        self._handle: Appender | None = None
        self.directory.mkdir(parents=True, exist_ok=True)
        self._shard_index, self._shard_count = -1, 0   # the shard `add` appends to, and its episodes
        self._reload()

    # -- loading ---------------------------------------------------------------------------

    def _reload(self) -> None:
        appendable = False
        for index, path in _shards(self.directory):
            episodes, appendable = _read_shard(path)
            for episode in episodes:
                self._insert(episode)
            self._shard_index, self._shard_count = index, len(episodes)
        if not appendable:  # no shard yet, or the last one ends torn: never append to it
            self._shard_count = self.shard_episodes

    def episodes_iter(self) -> Iterator[Episode]:
        """Every stored episode, read back from disk in the order they were added."""
        return read_episodes(self.directory)

    # -- adding ----------------------------------------------------------------------------

    def add(self, episode: Episode) -> int:
        """Store `episode` durably (one fsynced JSON line), then put its records in the window.

        Returns how many of its records had keys not already in the window.
        """
        self._writable_shard().write(json.dumps(episode.to_dict(), ensure_ascii=False, separators=(",", ":")))
        self._shard_count += 1
        return self._insert(episode)

    def _writable_shard(self) -> Appender:
        if self._handle is not None and self._shard_count < self.shard_episodes:
            return self._handle
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        if self._shard_count >= self.shard_episodes:
            self._shard_index, self._shard_count = self._shard_index + 1, 0
        self._handle = Appender(self.directory / shard_name(self._shard_index))   # fsyncs a new shard's name
        return self._handle

    def _insert(self, episode: Episode) -> int:
        """Count `episode` and put its records in the window; return the number of new keys."""
        self.episodes += 1
        self._episodes_by_source[episode.source] = self._episodes_by_source.get(episode.source, 0) + 1
        if episode.proved:
            self.proofs += 1
            self._proofs_by_source[episode.source] = self._proofs_by_source.get(episode.source, 0) + 1
        new = 0
        for record in episode.records:
            key = record.key
            if key in self._window:
                self._window.move_to_end(key)
            else:
                new += 1
                self._slot_of[key] = len(self._slots)
                self._slots.append(key)
            self._window[key] = record
            if len(self._window) > self.capacity:
                self._evict(next(iter(self._window)))
        return new

    def _evict(self, key: tuple[str, str]) -> None:
        del self._window[key]
        slot = self._slot_of.pop(key)
        last = self._slots.pop()
        if last != key:   # move the last key into the freed slot
            self._slots[slot] = last
            self._slot_of[last] = slot

    # -- reading ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._window)

    def records(self) -> list[TrainingRecord]:
        """The window's records, oldest first."""
        return list(self._window.values())

    @property
    def episodes_by_source(self) -> dict[str, int]:
        return dict(self._episodes_by_source)

    @property
    def proofs_by_source(self) -> dict[str, int]:
        return dict(self._proofs_by_source)

    def sample(self, n: int, rng: random.Random) -> list[TrainingRecord]:
        """`n` records drawn uniformly from the window: without replacement when `n <= len(self)`,
        with replacement otherwise. Raises ValueError when the window is empty and `n > 0`."""
        if n < 0:
            raise ValueError(f"cannot sample {n} records")
        if n == 0:
            return []
        if not self._slots:
            raise ValueError("cannot sample from an empty replay buffer")
        keys = rng.sample(self._slots, n) if n <= len(self._slots) else rng.choices(self._slots, k=n)
        return [self._window[key] for key in keys]

    def close(self) -> None:
        """Close the open shard (every `add` is already on disk). Idempotent; a later `add` reopens it."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> "ReplayBuffer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _draw(pool: Sequence[TrainingRecord], n: int, rng: random.Random) -> list[TrainingRecord]:
    return rng.sample(pool, n) if n <= len(pool) else rng.choices(pool, k=n)


class MixedSampler:
    """Learner batches mixing self-play records with the supervised data and the library.

    `sample(n)` takes `round(n * library_fraction)` records from `library` (the stdlib's own proofs,
    so the policy keeps the lemma names it can only learn there: docs/ARCHITECTURE.md §Expert
    iteration), `round(n * replay_fraction)` from the replay buffer, and the rest from
    `supervised`, shuffled together. While the buffer is empty its share comes from the
    supervised data; with no supervised data the rest comes from the buffer (or, while that is
    empty too, from the library). Within each source, draws are uniform (without replacement when
    the source is large enough). With no library the mix is replay + supervised as before.
    """

    def __init__(self, buffer: ReplayBuffer, supervised: Sequence[TrainingRecord], replay_fraction: float,
                 rng: random.Random, library: Sequence[TrainingRecord] = (), library_fraction: float = 0.0) -> None:
        if not 0.0 <= replay_fraction <= 1.0:
            raise ValueError(f"replay_fraction must be in [0, 1], got {replay_fraction}")
        if not 0.0 <= library_fraction <= 1.0 - replay_fraction:
            raise ValueError(f"library_fraction must be in [0, 1 - replay_fraction], got {library_fraction}")
        self.buffer = buffer
        self.supervised = supervised
        self.replay_fraction = replay_fraction
        self.library = library
        self.library_fraction = library_fraction
        self.rng = rng

    def shares(self, n: int) -> tuple[int, int, int]:
        """(library, replay, supervised) record counts of a batch of `n`, as `sample` draws them."""
        if n < 0:
            raise ValueError(f"cannot sample {n} records")
        library = round(n * self.library_fraction) if self.library else 0
        replay = min(n - library, round(n * self.replay_fraction)) if len(self.buffer) else 0
        supervised = n - library - replay
        if supervised and not self.supervised:
            if len(self.buffer):
                replay, supervised = replay + supervised, 0
            elif self.library:
                library, supervised = library + supervised, 0
            else:
                raise ValueError("cannot sample: the replay buffer and the supervised data are both empty, and no library")
        return library, replay, supervised

    def sample(self, n: int) -> list[TrainingRecord]:
        """`n` records (shares as above), in random order."""
        library, replay, supervised = self.shares(n)
        if n == 0:
            return []
        batch = (self.buffer.sample(replay, self.rng) + _draw(self.supervised, supervised, self.rng)
                 + _draw(self.library, library, self.rng))
        self.rng.shuffle(batch)
        return batch


def length_grouped(records: Sequence[TrainingRecord], batch_size: int, window: int, rng: random.Random,
                   key: Callable[[TrainingRecord], int] = lambda record: len(record.goal)) -> list[list[TrainingRecord]]:
    """`records` (already in random order) cut into batches of `batch_size`, grouped by `key` (the
    goal's length) within windows of `window` batches, the batches of each window then shuffled:
    the usual bucketing trick (`networks.dataset.batches` does it for pretraining), so a batch pads
    to a length near its records' own rather than to the longest goal of a random draw. Every record
    lands in exactly one batch; a last partial batch is kept."""
    if batch_size < 1 or window < 1:
        raise ValueError(f"batch_size and window must be at least 1, got {batch_size} and {window}")
    span = batch_size * window
    out: list[list[TrainingRecord]] = []
    for start in range(0, len(records), span):
        chunk = sorted(records[start:start + span], key=key)
        groups = [chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size)]
        rng.shuffle(groups)
        out.extend(groups)
    return out


class GroupedSampler:
    """`MixedSampler`'s batches grouped by goal length: it draws `window` batches' worth of records at
    once (the mix's shares over the window are the sampler's), groups them with `length_grouped` and
    hands them out one batch at a time. The pending batches are not saved: a resumed learner draws
    afresh, as it would anyway."""

    def __init__(self, sampler: MixedSampler, window: int) -> None:
        if window < 1:
            raise ValueError(f"window must be at least 1, got {window}")
        self.sampler = sampler
        self.window = window
        self.pending: list[list[TrainingRecord]] = []

    def sample(self, n: int) -> list[TrainingRecord]:
        """The next batch of `n` records (a fresh window is drawn when none is pending)."""
        if not self.pending or len(self.pending[-1]) != n:
            self.pending = length_grouped(self.sampler.sample(n * self.window), n, self.window, self.sampler.rng)
        return self.pending.pop()
