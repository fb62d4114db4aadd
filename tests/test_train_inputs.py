"""What `alphaprover train` and `pretrain` mix (alphaprover/train_inputs.py): which missing inputs a
run builds (only those at their default paths, the factory before its scripts), and which library
records it keeps (the roots' files, ssreflect tactics dropped)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import networks.train
from alphaprover import cli
from alphaprover import train_inputs as T
from alphaprover.config import UsageError


def test_supervised_paths_drop_weights() -> None:
    assert T.supervised_paths("data/factory/scripts.jsonl*3, x.jsonl,,") == [Path("data/factory/scripts.jsonl"),
                                                                             Path("x.jsonl")]
    assert T.supervised_paths("") == []


def _record_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record what ensure_inputs asks to build (the builders themselves run for minutes: the
    factory, its script replay and the library extraction have their own integration tests)."""
    built: list[str] = []
    import alphaprover.extract
    import alphaprover.factory_cmd

    monkeypatch.setattr(alphaprover.factory_cmd, "run_factory",
                        lambda cfg: built.append("scripts" if cfg.get("scripts") else "factory"))
    monkeypatch.setattr(alphaprover.extract, "extract", lambda roots, out_dir, **_: built.append(f"extract:{out_dir}"))
    return built


def test_a_fresh_clone_builds_each_default_input_once_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    built = _record_builds(monkeypatch)
    T.ensure_inputs("data/factory/scripts.jsonl", "data/extracted/train.jsonl")
    assert sorted(built) == ["extract:data/extracted", "factory", "scripts"]
    assert built.index("factory") < built.index("scripts")


def test_the_library_extraction_runs_beside_the_factory_and_its_error_surfaces(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The extraction starts before the factory's scripts are replayed and ends after them (it
    waits for them here): the two overlap. An error in the extraction is raised by ensure_inputs."""
    import threading

    import alphaprover.extract
    import alphaprover.factory_cmd

    monkeypatch.chdir(tmp_path)
    events: list[str] = []
    scripts_done = threading.Event()

    def replay(cfg) -> None:
        events.append("scripts" if cfg.get("scripts") else "factory")
        if cfg.get("scripts"):
            scripts_done.set()

    def extract(roots, out_dir, **_) -> None:
        events.append("extract started")
        assert scripts_done.wait(10), "the scripts were not replayed while the extraction ran"
        events.append("extract ended")

    monkeypatch.setattr(alphaprover.factory_cmd, "run_factory", replay)
    monkeypatch.setattr(alphaprover.extract, "extract", extract)
    T.ensure_inputs("data/factory/scripts.jsonl", "data/extracted/train.jsonl")
    assert events.index("extract started") < events.index("scripts") < events.index("extract ended")

    def broken(roots, out_dir, **_) -> None:
        raise ValueError("no Coq sources")

    monkeypatch.setattr(alphaprover.extract, "extract", broken)
    with pytest.raises(ValueError, match="no Coq sources"):
        T.ensure_inputs("data/factory/scripts.jsonl", "data/extracted/train.jsonl")


def test_a_missing_factory_file_of_the_users_own_is_refused_before_anything_is_built(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    built = _record_builds(monkeypatch)
    with pytest.raises(UsageError, match="factory file mine.jsonl not found"):
        T.ensure_inputs("data/factory/scripts.jsonl", "data/extracted/train.jsonl", [Path("mine.jsonl")])
    assert built == []
    T.ensure_inputs("", "", [T.DEFAULT_FACTORY])
    assert built == ["factory"]


def test_present_or_user_named_inputs_are_not_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    built = _record_builds(monkeypatch)
    for path in (T.DEFAULT_FACTORY, T.DEFAULT_SCRIPTS, T.DEFAULT_EXTRACTED):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    T.ensure_inputs("data/factory/scripts.jsonl*2", "data/extracted/train.jsonl")
    T.ensure_inputs("mine/scripts.jsonl", "mine/train.jsonl")   # the loaders say what is missing
    T.ensure_inputs("", "")
    assert built == []
    T.DEFAULT_SCRIPTS.unlink()
    T.ensure_inputs("data/factory/scripts.jsonl", "")
    assert built == ["scripts"]                                  # the factory is there: only its scripts


def test_library_keeps_the_roots_records_and_drops_ssreflect(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    rows = [("/usr/lib/ocaml/coq/theories/Reals/Rsqrt_def.v", "apply sqrt_pos."),
            ("/usr/lib/ocaml/coq/theories/ZArith/Zdiv.v", "rewrite Z.mul_mod by lia."),
            ("/usr/lib/ocaml/coq/theories/Lists/List.v", "induction l."),
            ("/usr/lib/ocaml/coq/theories/Reals/Rfunctions.v", "by rewrite addnC."),
            ("/usr/lib/ocaml/coq/theories/Arith/PeanoNat.v", "lia.")]
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps({"goal": f"g{i}", "tactic": t, "steps": 1, "source": s}) + "\n"
                            for i, (s, t) in enumerate(rows)))
    records = T.load_library(str(path), ["Reals", "ZArith", "Arith"])
    assert [r.tactic for r in records] == ["apply sqrt_pos.", "rewrite Z.mul_mod by lia.", "lia."]
    assert {r.source for r in records} == {T.LIBRARY_SOURCE}
    assert len(T.load_library(str(path), [])) == 4              # every root; ssreflect still dropped
    assert T.load_library("", ["Reals"]) == []
    assert T.load_library(str(tmp_path / "missing.jsonl"), ["Reals"]) == []
    assert "not found" in capsys.readouterr().out
    with pytest.raises(UsageError, match="no records under Flocq"):
        T.load_library(str(path), ["Flocq"])


def _record_ledger_replays(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Record which ledger rows the ledger build replays (the Coq replay itself is
    tests/integration/test_eval_proofs.py's); each replay yields one record per row."""
    import alphaprover.eval_proofs

    replays: list[list[str]] = []

    def replay(rows, benchmark, *_, **__):
        rows = list(rows)
        replays.append([row["problem"] for row in rows])
        records = [{"goal": f"⊢ {row['problem']}", "tactic": row["script"], "steps": 1,
                    "source": benchmark, "lemma": row["problem"]} for row in rows]
        return records, alphaprover.eval_proofs.EvalProofReport(proofs=len(rows), replayed=len(rows),
                                                                records=len(records))

    monkeypatch.setattr(alphaprover.eval_proofs, "eval_proof_records", replay)
    return replays


def test_the_ledger_records_are_built_when_missing_and_rebuilt_when_the_ledger_is_newer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    monkeypatch.chdir(tmp_path)
    replays = _record_ledger_replays(monkeypatch)
    spec = "data/loop-proofs/records.jsonl*60"
    T.ensure_inputs(spec, "")                                    # no ledger in this checkout: nothing to replay
    assert replays == [] and not T.DEFAULT_LEDGER_RECORDS.exists()
    T.DEFAULT_LEDGER.parent.mkdir(parents=True)
    T.DEFAULT_LEDGER.write_text(json.dumps({"problem": "mathd_algebra_48", "script": "ring.", "run": "r1"}) + "\n")
    T.ensure_inputs(spec, "")
    assert replays == [["mathd_algebra_48"]]
    written = [json.loads(line) for line in T.DEFAULT_LEDGER_RECORDS.read_text().splitlines()]
    assert [(r["lemma"], r["tactic"]) for r in written] == [("mathd_algebra_48", "ring.")]
    T.ensure_inputs(spec, "")                                    # up to date: not replayed again
    assert len(replays) == 1
    T.ensure_inputs("", "")                                      # not wanted: never built
    assert len(replays) == 1
    with T.DEFAULT_LEDGER.open("a") as ledger:
        ledger.write(json.dumps({"problem": "mathd_algebra_10", "script": "lra.", "run": "r2"}) + "\n")
    stamp = T.DEFAULT_LEDGER.stat().st_mtime
    os.utime(T.DEFAULT_LEDGER_RECORDS, (stamp - 5, stamp - 5))  # the export came after the last build
    assert T.ledger_records_stale()
    T.ensure_inputs(spec, "")
    assert replays[-1] == ["mathd_algebra_48", "mathd_algebra_10"] and not T.ledger_records_stale()


def test_the_default_train_config_mixes_the_ledger(monkeypatch: pytest.MonkeyPatch) -> None:
    from alphaprover.config import load_config

    spec = str(load_config("train", []).get("supervised_file"))
    assert T.DEFAULT_LEDGER_RECORDS in T.supervised_paths(spec)
    assert T.DEFAULT_SCRIPTS in T.supervised_paths(spec)


def test_the_roots_and_focus_files_are_built_from_their_factory_files(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The derived files runs 18–21 mix, at their default paths: the roots factory (one family),
    its scripts, and the focus families' scripts replayed from the main factory file."""
    import alphaprover.factory_cmd

    monkeypatch.chdir(tmp_path)
    builds: list[tuple[str, str, tuple[str, ...]]] = []

    def run_factory(cfg) -> None:
        out, scripts = str(cfg["out"]), str(cfg.get("scripts") or "")
        builds.append((out, scripts, tuple(cfg.get("families") or ())))
        for path in (out, scripts):
            if path:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
                Path(path).write_text("")

    monkeypatch.setattr(alphaprover.factory_cmd, "run_factory", run_factory)
    T.ensure_inputs("data/factory/focus-scripts.jsonl*4,data/factory/roots-scripts.jsonl*5", "",
                    [T.DEFAULT_FACTORY, T.DEFAULT_ROOTS])
    assert builds == [("data/factory/factory.jsonl", "", ()),
                      ("data/factory/roots.jsonl", "", ("distinct_roots",)),
                      ("data/factory/roots.jsonl", "data/factory/roots-scripts.jsonl", ()),
                      ("data/factory/factory.jsonl", "data/factory/focus-scripts.jsonl", T.FOCUS_FAMILIES)]
    T.ensure_inputs("data/factory/focus-scripts.jsonl*4,data/factory/roots-scripts.jsonl*5", "",
                    [T.DEFAULT_FACTORY, T.DEFAULT_ROOTS])
    assert len(builds) == 4                                      # all present now: nothing built twice
    with pytest.raises(UsageError, match="factory file data/factory/other.jsonl not found"):
        T.ensure_inputs("", "", [Path("data/factory/other.jsonl")])


def test_the_written_proofs_records_are_built_like_the_ledgers_when_a_mix_names_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    replays = _record_ledger_replays(monkeypatch)
    spec = "data/written-proofs/records.jsonl*50"
    T.ensure_inputs(spec, "")                                    # no written proofs here: nothing to replay
    assert replays == [] and not T.DEFAULT_WRITTEN_RECORDS.exists()
    T.DEFAULT_WRITTEN.parent.mkdir(parents=True)
    T.DEFAULT_WRITTEN.write_text(json.dumps({"problem": "mathd_algebra_149", "script": "lra.", "run": "w"}) + "\n")
    T.ensure_inputs("data/loop-proofs/records.jsonl", "")        # the ledger's records named, not these
    assert replays == []
    T.ensure_inputs(spec, "")
    assert replays == [["mathd_algebra_149"]] and not T.ledger_records_stale(T.DEFAULT_WRITTEN_RECORDS)
    written = [json.loads(line) for line in T.DEFAULT_WRITTEN_RECORDS.read_text().splitlines()]
    assert [(r["lemma"], r["tactic"]) for r in written] == [("mathd_algebra_149", "lra.")]
    T.ensure_inputs(spec, "")                                    # up to date: not replayed again
    assert len(replays) == 1


def test_pretrain_builds_the_default_inputs_its_train_file_names(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    replays = _record_ledger_replays(monkeypatch)
    T.DEFAULT_WRITTEN.parent.mkdir(parents=True)
    T.DEFAULT_WRITTEN.write_text(json.dumps({"problem": "mathd_algebra_149", "script": "lra.", "run": "w"}) + "\n")
    trained: list[str] = []
    monkeypatch.setattr(networks.train, "pretrain", lambda settings, keep: trained.append(settings.train_file) or {})
    assert cli.main(["pretrain", "train_file=data/written-proofs/records.jsonl*2", f"out_dir={tmp_path / 'out'}"]) == 0
    assert replays == [["mathd_algebra_149"]] and T.DEFAULT_WRITTEN_RECORDS.is_file()
    assert trained == ["data/written-proofs/records.jsonl*2"]
