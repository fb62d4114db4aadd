"""The problem factory on real Coq: every family's statements elaborate and are mostly distinct by
Coq's printing; sampled statements of every family (train and held-out seeds) are proved by their
own scripts, which end in decision procedures (lra, lia, nra, field, ring); the dev-subset guard
refuses a dev problem restated in another binder style; a small build writes what it reports."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Iterator, Sequence

import pytest

from lean_interface.coq.prelude import DEFAULT_PRELUDE, with_prelude
from lean_interface.coq.process import CoqProcess
from lean_interface.coq.text import split_sentences
from lean_interface.problems.factory import FAMILIES, family_named, multistep
from lean_interface.problems.factory import build as B
from lean_interface.problems.factory.elaborate import CoqElaborator
from lean_interface.problems.factory.family import (HELDOUT, HELDOUT_SEED_START, TRAIN, Candidate, Draft, Family,
                                                    candidate)
from lean_interface.problems.factory.surface import uses_minif2f_surface

pytestmark = pytest.mark.integration

PER_FAMILY = 50
PROVED_SEEDS = (0, 1, 2, 3, HELDOUT_SEED_START)


@pytest.fixture(scope="module")
def elaborator() -> Iterator[CoqElaborator]:
    with CoqElaborator() as coq:
        yield coq


@pytest.fixture(scope="module")
def dev_keys(elaborator: CoqElaborator) -> set[str]:
    return B.dev_keys(elaborator)


def test_every_family_elaborates_and_is_mostly_distinct(elaborator: CoqElaborator) -> None:
    for family in FAMILIES:
        items = [candidate(family, seed) for seed in range(PER_FAMILY)]
        statements = [item.statement for item in items]
        # a statement about a function its file defines needs that definition: its own header
        keys = [elaborator.keys(item.header, [item.statement])[0] for item in items] \
            if family.draft(0).definitions else elaborator.keys(family.header, statements)
        failed = [s for s, k in zip(statements, keys) if k is None]
        assert not failed, f"{family.name}: {failed[:2]}"
        assert len(set(keys)) >= 0.8 * PER_FAMILY, f"{family.name}: {len(set(keys))} distinct of {PER_FAMILY}"
    assert elaborator.restarts == 0


class Prover:
    """One coqtop; a header is loaded once and every proof starts from its state."""

    def __init__(self) -> None:
        self.process = CoqProcess()
        self.header: str | None = None
        self.state = 0

    def proves(self, item: Candidate) -> str | None:
        """None when `item.proof` proves `item.statement` (each tactic under a 30 s Coq timeout,
        then Qed: the kernel checks the term), else what went wrong."""
        process = self.process
        if item.header != self.header:
            process.back_to(process.initial_state)
            for sentence in split_sentences(with_prelude(DEFAULT_PRELUDE, item.header)):
                reply = process.run(sentence.text, timeout=120)
                assert not reply.error, reply.error
            self.header, self.state = item.header, process.state
        process.back_to(self.state)
        for sentence in [item.statement, *(f"Timeout 30 {s.text}" for s in split_sentences(item.proof)), "Qed."]:
            reply = process.run(sentence, timeout=60)
            if reply.error:
                return f"{sentence}: {reply.error}"
        return None if process.proof == "Coq" else f"goals left after the script ({process.proof})"


@pytest.fixture(scope="module")
def prover() -> Iterator[Prover]:
    coq = Prover()
    yield coq
    coq.process.close()


def test_sampled_statements_are_true_by_their_proofs(prover: Prover) -> None:
    failures = []
    for family in FAMILIES:
        for seed in PROVED_SEEDS:
            item = candidate(family, seed)
            problem = prover.proves(item)
            if problem is not None:
                failures.append(f"{item.statement}\n  {problem}")
    assert not failures, "\n".join(failures)


def test_every_family_in_minif2f_form_is_proved_by_its_script_after_intros(prover: Prover) -> None:
    """The surface (`factory/surface.py`): for every family with binders or hypotheses, its first
    seed rendered as `forall …, H -> … -> C` under a train-split header is proved by the family's
    script opened with `intros.`, the hypotheses named H, H0, … as Coq names them."""
    failures = []
    for family in FAMILIES:
        draft = family.draft(0)
        if not (draft.binders or draft.hypotheses):
            continue
        seed = next(s for s in range(200) if uses_minif2f_surface(family.name, s))
        item = candidate(family, seed)
        assert item.proof.startswith("intros.") and ": forall " in item.statement or not draft.binders, item.statement
        problem = prover.proves(item)
        if problem is not None:
            failures.append(f"{item.header!r} {item.statement}\n  {problem}")
    assert not failures, "\n".join(failures)


#: the single decision-procedure calls the multi-step families must not be closed by
ONE_CALL = ("lra", "nra", "lia", "nia", "field", "ring", "intuition", "psatz R 2")


def assert_proved_by_script_and_by_no_single_call(items: Sequence[Candidate]) -> None:
    """Each item's own script proves it (kernel-checked at Qed), and no ONE_CALL after intros does."""
    prover = Prover()
    try:
        closed = []
        for item in items:
            assert prover.proves(item) is None, item.statement
            closed += [f"{item.statement} by {tactic}" for tactic in ONE_CALL
                       if prover.proves(dataclasses.replace(item, proof=f"intros; {tactic}.")) is None]
        assert not closed, "\n".join(closed)
    finally:
        prover.process.close()


def test_multistep_statements_are_not_closed_by_one_call(prover: Prover) -> None:
    """The multi-step families exist because one call does not prove them (multistep.py): none
    of ONE_CALL, after intros, closes a sampled statement of any of them."""
    closed = []
    for family in multistep.FAMILIES:
        for seed in (0, 1, HELDOUT_SEED_START):
            item = candidate(family, seed)
            closed += [f"{item.statement} by {tactic}" for tactic in ONE_CALL
                       if prover.proves(dataclasses.replace(item, proof=f"intros; {tactic}.")) is None]
    assert not closed, "\n".join(closed)


def test_a_wrong_answer_is_not_proved(prover: Prover) -> None:
    """The proof check above can fail: the same script on a statement with a changed answer does not close it."""
    item = candidate(family_named("linear_system_2"), 0)
    head, _, answer = item.statement.rstrip(".").rpartition(" = ")
    wrong = dataclasses.replace(item, statement=f"{head} = {answer} + 1.")
    assert prover.proves(wrong) is not None
    assert prover.proves(item) is None


def test_dev_problem_restated_is_refused_by_its_coq_key(elaborator: CoqElaborator, dev_keys: set[str]) -> None:
    assert len(dev_keys) >= 20
    # amc12a_2011_p18 (dev) states `forall (x y : R), … -> …`; binder style and extra parentheses print alike
    restated = Draft((("x", "R"), ("y", "R")), ("(Rabs (x + y) + Rabs (x - y)) = 2",), "(x^2 - 6 * x) + y^2 <= 8",
                     "lra.")
    echo = Family("dev_echo", "test", "R", 1, lambda rng: restated)
    assert not B.is_dev_text(candidate(echo, 0))                    # the text differs from the dev problem's
    vieta = family_named("vieta")
    config = B.FactoryConfig(scale=5 / vieta.seeds, heldout_seeds=2)
    items, report = B.build([echo, vieta], config, elaborator, refused_keys=dev_keys)
    assert report.dev_refused == len(B.seeds_of(echo, config)) == 3 and all(i.family == "vieta" for i in items)
    assert report.items == len(items) == 7 - report.duplicates
    assert {i.split for i in items} == {TRAIN, HELDOUT}


def test_small_build_writes_items_that_coq_accepts(tmp_path: Path, elaborator: CoqElaborator,
                                                   dev_keys: set[str]) -> None:
    families = [family_named(name) for name in ("gcd_lcm", "fe_symmetric", "list_sum_product")]
    items, report = B.build(families, B.FactoryConfig(scale=0.01, heldout_seeds=3), elaborator, refused_keys=dev_keys)
    path = tmp_path / "factory.jsonl"
    B.write_items(items, path, report)
    assert B.read_items(path, split=None) == items and report.not_elaborating == 0
    assert {i.family for i in B.read_items(path, split=HELDOUT)} == {"gcd_lcm", "fe_symmetric", "list_sum_product"}
    assert all(i.family != "fe_symmetric" for i in B.read_items(path))   # a held-out family is never train
    by_header: dict[str, list[str]] = {}
    for item in items:
        by_header.setdefault(item.header, []).append(item.statement)
    for header, statements in by_header.items():
        keys = elaborator.keys(header, statements)
        assert None not in keys and len(set(keys)) == len(keys) and not set(keys) & dev_keys
