"""`new_run_dir`: every caller gets a directory of its own, even when runs start in the same second
(two `alphaprover eval` processes started together once collided on one name and crashed)."""

from __future__ import annotations

import datetime
import threading
from pathlib import Path

from alphaprover import config
from alphaprover.config import new_run_dir


class _FrozenClock:
    """`datetime.datetime` whose now() is always the same instant."""

    @staticmethod
    def now(tz=None) -> datetime.datetime:
        return _INSTANT.replace(tzinfo=tz)


_INSTANT = datetime.datetime(2026, 1, 2, 3, 4, 5)


def test_same_second_gets_numbered_names(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(config._dt, "datetime", _FrozenClock)
    first = new_run_dir(tmp_path, "eval")
    second = new_run_dir(tmp_path, "eval")
    assert first.name == "eval-20260102-030405"
    assert second.name == "eval-20260102-030405-2"
    assert first.is_dir() and second.is_dir()


def test_concurrent_callers_never_share_a_directory(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(config._dt, "datetime", _FrozenClock)
    made: list[Path] = []
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def make() -> None:
        start.wait()
        try:
            made.append(new_run_dir(tmp_path / "runs", "eval"))
        except BaseException as error:  # noqa: BLE001 - the test reports any failure
            errors.append(error)

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len(set(made)) == 8
