"""Factory proof scripts as demonstrations (lean_interface/problems/factory/scripts.py) and the
learner's supervised files (alphaprover.train_setup.load_supervised), without Coq; the replay itself
runs on real Coq in tests/integration/test_factory_scripts.py."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from alphaprover.config import UsageError
from alphaprover.train_setup import load_supervised
from lean_interface.problems.factory import family_named
from lean_interface.problems.factory.family import HELDOUT, HELDOUT_SEED_START, candidate
from lean_interface.problems.factory.scripts import ScriptReport, proof_file, scripts_of


def _item(family: str, seed: int):
    return candidate(family_named(family), seed).plain()


def test_scripts_are_regenerated_from_family_and_seed() -> None:
    report = ScriptReport()
    pairs = scripts_of([_item("fe_instantiate", 3), _item("linear_system_2", 5)], report)
    assert [script for _, script in pairs] == [candidate(family_named("fe_instantiate"), 3).proof,
                                             candidate(family_named("linear_system_2"), 5).proof]
    assert (report.items, report.drifted) == (2, 0)


def test_a_held_out_item_is_refused_not_skipped() -> None:
    with pytest.raises(ValueError, match="held out"):
        scripts_of([_item("linear_system_2", 1), _item("linear_system_2", HELDOUT_SEED_START)], ScriptReport())
    whole_family = _item("fe_symmetric", 2)
    assert whole_family.split == HELDOUT
    with pytest.raises(ValueError, match="held out"):
        scripts_of([whole_family], ScriptReport())


def test_an_item_whose_generator_changed_is_counted_not_replayed() -> None:
    item = _item("vieta", 7)
    changed = dataclasses.replace(item, statement=item.statement.replace("=", "<=", 1))
    report = ScriptReport()
    assert scripts_of([changed, item], report) == [(item, candidate(family_named("vieta"), 7).proof)]
    assert (report.items, report.drifted) == (2, 1)


def test_proof_file_puts_the_prelude_and_header_first_and_closes_every_proof() -> None:
    items = [_item("fe_two_points", 1), _item("fe_two_points", 2)]
    text = proof_file("Require Import Lra.", items[0].header, [(i, f"script_{n}.") for n, i in enumerate(items)])
    assert text.startswith("Require Import Lra.\n" + items[0].header)
    assert text.count("\nProof.\n") == 2 and text.count("\nQed.") == 2
    assert text.index(items[0].statement) < text.index("script_0.") < text.index(items[1].statement)


def _write(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return str(path)


def test_supervised_files_are_comma_separated_and_a_missing_one_is_skipped(tmp_path: Path, capsys) -> None:
    stdlib = _write(tmp_path / "train.jsonl", [{"goal": "⊢ True", "tactic": "trivial.", "steps": 1}])
    scripts = _write(tmp_path / "scripts.jsonl", [{"goal": "x : R\n⊢ x = x", "tactic": "lra.", "steps": 1},
                                                  {"goal": "⊢ 1 = 1", "tactic": "move => h.", "steps": 1}])
    records = load_supervised(f"{stdlib}, {scripts},{tmp_path / 'absent-scripts.jsonl'}")
    assert [(r.goal, r.tactic) for r in records] == [("⊢ True", "trivial."), ("x : R\n⊢ x = x", "lra.")]
    assert "alphaprover factory reuse=true scripts=" in capsys.readouterr().out
    assert load_supervised("") == []
    weighted = load_supervised(f"{stdlib},{scripts}*3")  # the demonstrations counted three times
    assert [r.tactic for r in weighted] == ["trivial.", "lra.", "lra.", "lra."]
    for bad in (f"{scripts}*0", f"{scripts}*x", f"{scripts}*1.5"):
        with pytest.raises(UsageError, match="whole number"):
            load_supervised(bad)


def test_a_malformed_supervised_file_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"goal": "⊢ True"}\n', encoding="utf-8")
    with pytest.raises(UsageError, match="bad.jsonl:1"):
        load_supervised(str(bad))
