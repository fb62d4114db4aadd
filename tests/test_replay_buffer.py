"""selfplay.replay_buffer: durable shards, the dedup window, reload, crashes, sampling."""

from __future__ import annotations

import collections
import json
import logging
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from search.outcome import Outcome
from selfplay.episode import Episode, TrainingRecord
from selfplay.replay_buffer import GroupedSampler, MixedSampler, ReplayBuffer, length_grouped, shard_name

ROOT = Path(__file__).resolve().parent.parent


def rec(goal: str, tactic: str | None = "lia", steps: int = 1, source: str = "train") -> TrainingRecord:
    return TrainingRecord(goal, tactic, steps, source)


def ep(problem: str, *records: TrainingRecord, proved: bool = False, source: str = "train",
       disprove: bool = False) -> Episode:
    return Episode(problem=problem, source=source, disprove=disprove,
                   outcome=Outcome.PROVED if proved else Outcome.FAILED,
                   proof="lia." if proved else None, records=records, weights_version=3, simulations=17,
                   seconds=1.5, actor="actor-0")


def shard_lines(directory: Path) -> dict[str, int]:
    return {p.name: len(p.read_bytes().splitlines()) for p in sorted(directory.glob("shard-*.jsonl"))}


def test_round_trip_one_json_line_per_episode(tmp_path: Path) -> None:
    episodes = [ep("train/a", rec("⊢ 1 = 1", "reflexivity"), rec("⊢ x", None, 40), proved=True),
                ep("train/b", source="gen"), ep("train/c", rec("h₀ : 0 < x\n⊢ x ≠ 0", "lra", 2), disprove=True)]
    with ReplayBuffer(tmp_path, capacity=100) as buffer:
        assert [buffer.add(e) for e in episodes] == [2, 0, 1]
        assert list(buffer.episodes_iter()) == episodes
    lines = (tmp_path / shard_name(0)).read_text(encoding="utf-8").splitlines()
    assert [Episode.from_dict(json.loads(line)) for line in lines] == episodes
    assert "h₀" in lines[2]   # stored as UTF-8 text, not escaped


def test_a_repeated_key_replaces_the_older_record_and_becomes_most_recent(tmp_path: Path) -> None:
    buffer = ReplayBuffer(tmp_path, capacity=10)
    assert buffer.add(ep("p", rec("g1", "t1", 5), rec("g2", None, 40), rec("g3", "t3", 2))) == 3
    assert buffer.add(ep("q", rec("g1", "t1", 3), rec("g1", "t2", 1))) == 1   # (g1, t2) is a new key
    assert len(buffer) == 4
    assert buffer.records() == [rec("g2", None, 40), rec("g3", "t3", 2), rec("g1", "t1", 3), rec("g1", "t2", 1)]
    # a value-only record and a record with an empty tactic share the key (goal, "")
    assert buffer.add(ep("r", rec("g2", "", 7))) == 0
    assert buffer.records()[-1] == rec("g2", "", 7) and len(buffer) == 4


def test_capacity_evicts_the_least_recently_added_keys(tmp_path: Path) -> None:
    buffer = ReplayBuffer(tmp_path, capacity=3)
    for goal in ("a", "b", "c"):
        buffer.add(ep(goal, rec(goal)))
    buffer.add(ep("a again", rec("a", steps=9)))   # refreshes a: b is now the oldest
    assert buffer.add(ep("d", rec("d"), rec("e"))) == 2
    assert [r.goal for r in buffer.records()] == ["a", "d", "e"]
    assert len(buffer) == 3
    assert buffer.records()[0].steps == 9
    # every key left is still sampleable and nothing evicted comes back
    assert {r.goal for r in buffer.sample(300, random.Random(0))} == {"a", "d", "e"}


def test_counters(tmp_path: Path) -> None:
    buffer = ReplayBuffer(tmp_path, capacity=10)
    buffer.add(ep("p", proved=True, source="train"))
    buffer.add(ep("q", source="train"))
    buffer.add(ep("r", proved=True, source="gen"))
    assert (buffer.episodes, buffer.proofs) == (3, 2)
    assert buffer.episodes_by_source == {"train": 2, "gen": 1}
    assert buffer.proofs_by_source == {"train": 1, "gen": 1}


def test_shards_rotate_every_shard_episodes(tmp_path: Path) -> None:
    with ReplayBuffer(tmp_path, capacity=100, shard_episodes=3) as buffer:
        for i in range(7):
            buffer.add(ep(f"p{i}", rec(f"g{i}")))
    assert shard_lines(tmp_path) == {"shard-000000.jsonl": 3, "shard-000001.jsonl": 3, "shard-000002.jsonl": 1}
    # reopened, the buffer fills the partial shard before starting the next
    with ReplayBuffer(tmp_path, capacity=100, shard_episodes=3) as buffer:
        for i in range(7, 10):
            buffer.add(ep(f"p{i}", rec(f"g{i}")))
        assert [e.problem for e in buffer.episodes_iter()] == [f"p{i}" for i in range(10)]
    assert shard_lines(tmp_path) == {"shard-000000.jsonl": 3, "shard-000001.jsonl": 3, "shard-000002.jsonl": 3,
                                     "shard-000003.jsonl": 1}


def test_reload_rebuilds_the_same_window_and_counters(tmp_path: Path) -> None:
    rng = random.Random(7)
    with ReplayBuffer(tmp_path, capacity=25, shard_episodes=4) as buffer:
        for i in range(30):
            records = [rec(f"g{rng.randrange(40)}", rng.choice(["lia", None, "ring"]), rng.randrange(1, 41))
                       for _ in range(rng.randrange(0, 5))]
            buffer.add(ep(f"p{i % 6}", *records, proved=rng.random() < 0.3, source=rng.choice(["a", "b"])))
        state = (buffer.records(), len(buffer), buffer.episodes, buffer.proofs, buffer.episodes_by_source,
                 buffer.proofs_by_source)
        assert len(buffer) == 25
    reloaded = ReplayBuffer(tmp_path, capacity=25, shard_episodes=4)
    assert (reloaded.records(), len(reloaded), reloaded.episodes, reloaded.proofs, reloaded.episodes_by_source,
            reloaded.proofs_by_source) == state
    assert reloaded.sample(10, random.Random(1)) == buffer.sample(10, random.Random(1))
    reloaded.close()


_WRITER = """
import sys
sys.path.insert(0, {root!r})
from search.outcome import Outcome
from selfplay.episode import Episode, TrainingRecord
from selfplay.replay_buffer import ReplayBuffer
buffer = ReplayBuffer(sys.argv[1], capacity=1_000_000, shard_episodes=5)
i = int(sys.argv[2])
while True:
    records = tuple(TrainingRecord(f"goal {{i}} {{k}} " + "x" * 200, "lia", 1) for k in range(3))
    buffer.add(Episode(problem=f"p{{i}}", source="s", disprove=False, outcome=Outcome.FAILED, records=records))
    print(i, flush=True)
    i += 1
"""


def test_kill_9_loses_no_reported_episode(tmp_path: Path) -> None:
    """A writer adds episodes in a loop and reports each returned add; SIGKILL lands anywhere in the
    loop (three times, each run resuming the directory the previous kill left)."""
    script = _WRITER.format(root=str(ROOT))
    reported: list[int] = []
    for _ in range(3):
        start = (reported[-1] + 2) if reported else 0   # +2: one add may have returned unreported
        proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path), str(start)], stdout=subprocess.PIPE,
                                text=True)
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                reported.append(int(line))
                if reported[-1] >= start + 23:
                    break
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        reported.extend(int(line) for line in proc.stdout.read().split())   # printed before the kill
        proc.stdout.close()
    stored = [int(e.problem[1:]) for e in ReplayBuffer(tmp_path, capacity=1_000_000).episodes_iter()]
    assert set(reported) <= set(stored)
    assert len(stored) == len(set(stored))
    assert len(stored) <= len(reported) + 3     # at most one unreported add per run
    assert len(list(tmp_path.glob("shard-*.jsonl"))) >= 3 * 24 // 5


def test_a_torn_last_line_is_skipped_and_never_appended_to(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with ReplayBuffer(tmp_path, capacity=10, shard_episodes=100) as buffer:
        buffer.add(ep("p0", rec("g0")))
        buffer.add(ep("p1", rec("g1")))
    torn = tmp_path / shard_name(0)
    full_line = json.dumps(ep("p2", rec("g2")).to_dict())
    with torn.open("ab") as handle:
        handle.write(full_line[: len(full_line) // 2].encode())
    torn_bytes = torn.read_bytes()
    with caplog.at_level(logging.WARNING, logger="selfplay.replay_buffer"):
        buffer = ReplayBuffer(tmp_path, capacity=10, shard_episodes=100)
    assert "torn last line 3" in caplog.text
    assert [r.goal for r in buffer.records()] == ["g0", "g1"] and buffer.episodes == 2
    buffer.add(ep("p3", rec("g3")))
    buffer.close()
    assert torn.read_bytes() == torn_bytes
    assert shard_lines(tmp_path) == {"shard-000000.jsonl": 3, "shard-000001.jsonl": 1}
    assert [e.problem for e in ReplayBuffer(tmp_path, capacity=10).episodes_iter()] == ["p0", "p1", "p3"]


def test_complete_json_without_its_newline_is_kept_but_not_appended_to(tmp_path: Path) -> None:
    (tmp_path / shard_name(4)).write_text(json.dumps(ep("p0", rec("g0")).to_dict()))
    with ReplayBuffer(tmp_path, capacity=10) as buffer:
        assert buffer.episodes == 1
        buffer.add(ep("p1", rec("g1")))
    assert shard_lines(tmp_path) == {"shard-000004.jsonl": 1, "shard-000005.jsonl": 1}


def test_a_bad_line_before_the_last_is_corruption(tmp_path: Path) -> None:
    good = json.dumps(ep("p0").to_dict())
    (tmp_path / shard_name(0)).write_text(f"{good}\n{{not json\n{good}\n")
    with pytest.raises(ValueError, match=r"corrupt replay shard .*shard-000000.jsonl:2"):
        ReplayBuffer(tmp_path, capacity=10)


def test_sample_is_uniform_without_replacement_up_to_the_window_size(tmp_path: Path) -> None:
    buffer = ReplayBuffer(tmp_path, capacity=10)
    with pytest.raises(ValueError, match="empty"):
        buffer.sample(1, random.Random(0))
    assert buffer.sample(0, random.Random(0)) == []
    buffer.add(ep("p", *(rec(f"g{i}") for i in range(12))))   # g0, g1 evicted
    rng = random.Random(3)
    for n in (1, 5, 10):
        batch = buffer.sample(n, rng)
        assert len(batch) == n and len({r.goal for r in batch}) == n
        assert {r.goal for r in batch} <= {f"g{i}" for i in range(2, 12)}
    assert len(buffer.sample(25, rng)) == 25
    counts = collections.Counter(r.goal for _ in range(2000) for r in buffer.sample(1, rng))
    assert set(counts) == {f"g{i}" for i in range(2, 12)}
    assert all(150 <= c <= 250 for c in counts.values()), counts   # 200 expected each


def test_mixed_sampler_takes_the_replay_fraction_from_the_buffer(tmp_path: Path) -> None:
    buffer = ReplayBuffer(tmp_path, capacity=100)
    supervised = [rec(f"s{i}", source="supervised") for i in range(50)]
    sampler = MixedSampler(buffer, supervised, replay_fraction=0.25, rng=random.Random(5))
    assert all(r.source == "supervised" for r in sampler.sample(40))   # empty buffer: all supervised
    buffer.add(ep("p", *(rec(f"r{i}", source="replay") for i in range(30))))
    batch = sampler.sample(40)
    assert collections.Counter(r.source for r in batch) == {"replay": 10, "supervised": 30}
    assert collections.Counter(r.source for r in sampler.sample(7)) == {"replay": 2, "supervised": 5}  # round(1.75)
    assert [i for i, r in enumerate(batch) if r.source == "replay"] != list(range(10))   # shuffled together
    assert all(r.source == "replay" for r in MixedSampler(buffer, [], 0.25, random.Random(0)).sample(9))
    assert all(r.source == "supervised" for r in MixedSampler(buffer, supervised, 0.0, random.Random(0)).sample(9))
    assert all(r.source == "replay" for r in MixedSampler(buffer, supervised, 1.0, random.Random(0)).sample(9))
    with pytest.raises(ValueError, match="replay_fraction"):
        MixedSampler(buffer, supervised, 1.5, random.Random(0))
    with pytest.raises(ValueError, match="both empty"):
        MixedSampler(ReplayBuffer(tmp_path / "empty", capacity=5), [], 0.5, random.Random(0)).sample(3)


def test_rejects_bad_sizes(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="capacity"):
        ReplayBuffer(tmp_path, capacity=0)
    with pytest.raises(ValueError, match="shard_episodes"):
        ReplayBuffer(tmp_path, capacity=1, shard_episodes=0)


def test_mixed_sampler_keeps_the_library_fraction_in_every_batch(tmp_path: Path) -> None:
    buffer = ReplayBuffer(tmp_path, capacity=100)
    supervised = [rec(f"s{i}", source="supervised") for i in range(50)]
    library = [rec(f"l{i}", source="library") for i in range(50)]
    sampler = MixedSampler(buffer, supervised, 0.25, random.Random(1), library=library, library_fraction=0.2)
    assert collections.Counter(r.source for r in sampler.sample(40)) == {"library": 8, "supervised": 32}
    buffer.add(ep("p", *(rec(f"r{i}", source="replay") for i in range(30))))
    assert sampler.shares(40) == (8, 10, 22)
    assert collections.Counter(r.source for r in sampler.sample(40)) == {"library": 8, "replay": 10, "supervised": 22}
    # no supervised data: the rest from the buffer; an empty buffer too: from the library
    assert MixedSampler(buffer, [], 0.25, random.Random(0), library, 0.2).shares(40) == (8, 32, 0)
    empty = ReplayBuffer(tmp_path / "empty", capacity=5)
    assert MixedSampler(empty, [], 0.25, random.Random(0), library, 0.2).shares(10) == (10, 0, 0)
    # no library records: its share goes to the others, the old mix exactly
    assert MixedSampler(buffer, supervised, 0.25, random.Random(0), [], 0.2).shares(40) == (0, 10, 30)
    with pytest.raises(ValueError, match="library_fraction"):
        MixedSampler(buffer, supervised, 0.75, random.Random(0), library, 0.5)


def test_length_grouped_batches_hold_every_record_once_and_pad_less() -> None:
    rng = random.Random(3)
    records = [rec("x" * rng.randint(1, 200), tactic=f"t{i}.") for i in range(100)]
    batches = length_grouped(records, batch_size=8, window=4, rng=random.Random(0))
    assert sorted(r.tactic for b in batches for r in b) == sorted(r.tactic for r in records)
    assert [len(b) for b in batches].count(8) == 12 and sorted(len(b) for b in batches)[0] == 4  # 100 = 12·8 + 4
    for start in range(0, 96, 32):  # within each window of 4 batches the lengths do not interleave
        window = [b for b in batches if {r.tactic for r in b} <= {r.tactic for r in records[start:start + 32]}]
        spans = sorted((min(len(r.goal) for r in b), max(len(r.goal) for r in b)) for b in window)
        assert len(window) == 4 and all(hi <= lo for (_, hi), (lo, _) in zip(spans, spans[1:]))
    padded = sum(len(b) * max(len(r.goal) for r in b) for b in batches)
    random_padded = sum(8 * max(len(r.goal) for r in records[i:i + 8]) for i in range(0, 96, 8))
    assert padded < random_padded
    with pytest.raises(ValueError, match="window"):
        length_grouped(records, 8, 0, random.Random(0))


def test_grouped_sampler_keeps_the_mix_over_its_window(tmp_path: Path) -> None:
    buffer = ReplayBuffer(tmp_path, capacity=100)
    buffer.add(ep("p", *(rec(f"r{i}" * (i % 7 + 1), source="replay") for i in range(40))))
    supervised = [rec(f"s{i}" * (i % 5 + 1), source="supervised") for i in range(60)]
    library = [rec(f"l{i}", source="library") for i in range(60)]
    grouped = GroupedSampler(MixedSampler(buffer, supervised, 0.25, random.Random(2), library, 0.25), window=4)
    batches = [grouped.sample(8) for _ in range(4)]  # one window
    assert all(len(b) == 8 for b in batches) and not grouped.pending
    assert collections.Counter(r.source for b in batches for r in b) == {"library": 8, "replay": 8, "supervised": 16}
    assert len(grouped.sample(8)) == 8 and len(grouped.pending) == 3  # the next window drawn on demand
