"""Factory proof scripts replayed on real Coq: every sentence of a train item's script becomes a
(goal, tactic, steps) record whose goal is the text search itself sees at that point, so what the
learner imitates is what the policy is asked about."""

from __future__ import annotations

import json

import pytest

from lean_interface.coq import CoqEnv
from lean_interface.coq.proof_replay import ProofReplayer
from lean_interface.problems.factory import family_named
from lean_interface.problems.factory.family import candidate
from lean_interface.problems.factory.scripts import SOURCE, script_records

pytestmark = pytest.mark.integration

#: multi-step families (several sentences), one family per header domain among them
SAMPLE = [("fe_instantiate", 0), ("recurrence_unroll", 4), ("exists_witness", 1), ("iter_induction", 2),
          ("linear_system_2", 3)]


@pytest.fixture(scope="module")
def replayed():
    items = [candidate(family_named(family), seed).plain() for family, seed in SAMPLE]
    with ProofReplayer() as replayer:
        records, report = script_records(items, replayer)
    return items, records, report


def test_every_sampled_script_replays(replayed) -> None:
    items, records, report = replayed
    assert (report.items, report.replayed, report.dropped, report.drifted) == (len(items), len(items), 0, 0)
    assert {r.lemma for r in records} == {i.name for i in items}
    assert all(r.source == SOURCE for r in records)


def test_steps_count_down_along_a_linear_script(replayed) -> None:
    items, records, _ = replayed
    script = candidate(family_named("fe_instantiate"), 0).proof
    mine = [r for r in records if r.lemma == items[0].name]
    assert [r.tactic for r in mine] == [s.strip() + "." for s in script.rstrip(".").split(". ")]
    assert [r.steps for r in mine] == list(range(len(mine), 0, -1))


def test_the_first_goal_is_what_search_sees_at_the_root(replayed) -> None:
    items, records, _ = replayed
    with CoqEnv(timeout=10.0) as env:
        for item in items:
            root = env.start(item.theorem())
            first = next(r for r in records if r.lemma == item.name)
            assert first.goal == root.text, item.name
            # and the recorded tactic works there, leaving the goal the next record starts from
            result = env.apply(root, first.tactic)
            assert result.error is None, (item.name, result.error)
            following = [r for r in records if r.lemma == item.name][1:2]
            if following:
                assert [g.text for g in result.goals] == [following[0].goal], item.name


def test_a_runs_script_references_are_its_heldout_items_scripts_only(tmp_path) -> None:
    """`alphaprover train`'s per-round `script_logprob` scores these rows: the held-out item's script,
    step by step; a train item named beside it is not read (its split is not held out)."""
    from alphaprover.iterate_cmd import script_references
    from lean_interface.problems.factory.build import write_items

    held, train = candidate(family_named("fe_instantiate"), 90000), candidate(family_named("fe_instantiate"), 0)
    assert (held.split, train.split) == ("heldout", "train")
    path = tmp_path / "factory.jsonl"
    write_items([held.plain(), train.plain()], path)
    rows = script_references([f"heldout/{held.name}", f"factory/{train.name}"], [path])
    assert {row["problem"] for row in rows} == {f"heldout/{held.name}"}
    assert [row["tactic"] for row in rows] == [s.strip() + "." for s in held.proof.rstrip(".").split(". ")]
    assert [row["steps"] for row in rows] == list(range(len(rows), 0, -1)) and len(rows) >= 3


def test_reuse_with_families_replays_only_those_families_scripts(tmp_path) -> None:
    """`alphaprover factory out=F reuse=true families=[…] scripts=S` (how `focus-scripts.jsonl` is
    built): the items of F outside the named families are not replayed."""
    from alphaprover.config import load_config
    from alphaprover.factory_cmd import run_factory
    from lean_interface.problems.factory.build import write_items

    items = [candidate(family_named(family), seed).plain() for family, seed in SAMPLE[:3]]
    factory, scripts = tmp_path / "factory.jsonl", tmp_path / "focus.jsonl"
    write_items(items, factory)
    run_factory(load_config("factory", [f"out={factory}", "reuse=true", f"scripts={scripts}",
                                        "families=[fe_instantiate,exists_witness]", "workers=1"]))
    lemmas = {json.loads(line)["lemma"] for line in scripts.read_text().splitlines()}
    assert lemmas == {items[0].name, items[2].name}
