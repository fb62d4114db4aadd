"""The one atomic write, the one fsynced append and the one JSONL reader (lean_interface/durable.py):
what a crash can leave behind, and what each reading policy makes of it."""

from __future__ import annotations

import json
import logging
from contextlib import closing
from pathlib import Path

import pytest

from lean_interface.durable import (Appender, BadLine, JsonlError, append_line, ends_cleanly, read_jsonl, refuse,
                                    skip_torn, skip_torn_last, write_atomic)


def test_write_atomic_replaces_whole_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "state.json"
    write_atomic(path, "old\n")
    write_atomic(path, "néw\n")
    assert path.read_text(encoding="utf-8") == "néw\n"
    assert sorted(p.name for p in path.parent.iterdir()) == ["state.json"]


def test_write_atomic_keeps_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    write_atomic(path, "old")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(path, "\udcff")                     # not encodable: fails mid-write
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_an_appender_ends_a_torn_line_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    assert ends_cleanly(path)
    append_line(path, '{"a": 1}')
    path.write_text(path.read_text() + '{"b": ')        # a crash mid-append
    assert not ends_cleanly(path)
    with closing(Appender(path)) as appender:
        appender.write('{"c": 3}')
        appender.write('{"d": 4}')
        with pytest.raises(ValueError, match="newline"):
            appender.write('{"e": 5}\n{"f": 6}')
    assert path.read_text() == '{"a": 1}\n{"b": \n{"c": 3}\n{"d": 4}\n' and ends_cleanly(path)
    with pytest.raises(ValueError, match="closed"):
        appender.write("{}")


def test_refuse_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text('{"x": 1}\n\n{"y": 2}\n')
    assert read_jsonl(path) == [{"x": 1}, {"y": 2}]
    assert read_jsonl(path, lambda row: row["x"], skip_torn) == [1]          # KeyError: a bad line too
    with pytest.raises(JsonlError, match=r"items.jsonl:3: not an x row") as caught:
        read_jsonl(path, lambda row: row["x"], refuse, "an x row")
    assert isinstance(caught.value, ValueError) and caught.value.line.number == 3 and caught.value.line.last


def test_skip_torn_last_skips_only_the_last_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "shard.jsonl"
    full = json.dumps({"goal": "é" * 3}, ensure_ascii=False).encode()
    path.write_bytes(b'{"n": 1}\n' + full[:len(full) - 4])   # torn inside a two-byte character
    with caplog.at_level(logging.WARNING):
        assert read_jsonl(path, on_bad=skip_torn_last) == [{"n": 1}]
    assert "skipping torn last line 2" in caplog.text
    path.write_bytes(b'{"n": 1}\n{not json\n{"n": 3}\n')
    with pytest.raises(JsonlError, match=r"shard.jsonl:2"):
        read_jsonl(path, on_bad=skip_torn_last)
    assert read_jsonl(path, on_bad=skip_torn) == [{"n": 1}, {"n": 3}]       # appended-after files skip it


def test_parse_filters_and_a_policy_can_stand_in(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_text('{"n": 1}\n{"n": 2}\nnope\n{"n": 4}\n')
    seen: list[BadLine] = []

    def stand_in(line: BadLine) -> int:
        seen.append(line)
        return -line.number

    assert read_jsonl(path, lambda row: row["n"] if row["n"] % 2 == 0 else None, stand_in) == [2, -3, 4]
    assert [(line.number, line.last, line.size) for line in seen] == [(3, False, 4)]
