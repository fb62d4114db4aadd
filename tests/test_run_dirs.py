"""Run directories. `new_run_dir`: every caller gets a directory of its own, even when runs start in
the same second (two `alphaprover eval` processes started together once collided on one name and
crashed). `save_config`: a run resumed with other settings keeps the config it ran under before."""

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


def test_a_resumed_run_with_other_settings_keeps_the_previous_config(tmp_path: Path, capsys) -> None:
    from omegaconf import OmegaConf

    from alphaprover.config import changed_keys, save_config

    first = OmegaConf.create({"learner": {"lr": 3e-4, "batch_size": 32}, "iteration": {"rounds": 0}})
    save_config(first, tmp_path)
    save_config(first, tmp_path)  # same settings: nothing kept, nothing said
    assert not (tmp_path / "config.history").exists() and capsys.readouterr().out == ""
    second = OmegaConf.create({"learner": {"lr": 1e-3, "batch_size": 32}, "iteration": {"rounds": 0, "extra": 1}})
    save_config(second, tmp_path)
    said = capsys.readouterr().out
    assert "iteration.extra, learner.lr" in said and "config.history/1.yaml" in said
    assert OmegaConf.load(tmp_path / "config.history" / "1.yaml").learner.lr == 3e-4
    assert OmegaConf.load(tmp_path / "config.yaml").learner.lr == 1e-3
    save_config(first, tmp_path)  # and back: the numbering goes on
    assert OmegaConf.load(tmp_path / "config.history" / "2.yaml").learner.lr == 1e-3
    assert changed_keys(first, first) == [] and changed_keys(first, second) == ["iteration.extra", "learner.lr"]


def test_a_rerun_train_keeps_the_runs_saved_settings_and_takes_only_what_is_given_now(tmp_path: Path, capsys) -> None:
    from omegaconf import OmegaConf

    from alphaprover.config import load_config, load_run_config, save_config

    run = tmp_path / "run"
    first = [f"run_dir={run}", "learner.replay_fraction=0.25", "iteration.learner_steps_per_round=600"]
    assert load_run_config("train", first).learner.replay_fraction == 0.25  # no run yet: composed as usual
    run.mkdir()
    save_config(load_config("train", first), run)
    saved = OmegaConf.load(run / "config.yaml")
    saved.learner["retired_key"] = 1  # a key a later version of the code no longer has
    (run / "config.yaml").write_text(OmegaConf.to_yaml(saved), encoding="utf-8")

    again = load_run_config("train", [f"run_dir={run}"])  # the plain rerun
    assert again.learner.replay_fraction == 0.25 and again.iteration.learner_steps_per_round == 600
    assert "retired_key" not in again.learner and "resuming" in capsys.readouterr().out
    changed = load_run_config("train", [f"run_dir={run}", "learner.lr=0.001"])
    assert changed.learner.lr == 0.001 and changed.learner.replay_fraction == 0.25
    assert "given now: learner.lr" in capsys.readouterr().out
    fresh = load_run_config("train", [f"run_dir={run}", "resume=false"])  # not resuming: today's defaults
    assert fresh.learner.replay_fraction == load_config("train", []).learner.replay_fraction
