"""Replaying real proofs from Coq's standard library into (goal, tactic, steps) records."""

from __future__ import annotations

from pathlib import Path

import pytest

from lean_interface.coq.proof_replay import ProofReplayer

pytestmark = pytest.mark.integration

SOURCE = """
Require Import Arith.
Lemma two_goals : forall P Q : Prop, P -> Q -> P /\\ Q.
Proof.
  intros P Q HP HQ.
  split.
  - exact HP.
  - exact HQ.
Qed.
Lemma with_braces (n : nat) : n + 0 = n /\\ 0 + n = n.
Proof. split. { induction n. { reflexivity. } { simpl. rewrite IHn. reflexivity. } } { reflexivity. } Qed.
Lemma given_up : 1 = 2.
Proof. Admitted.
Lemma broken : 1 = 1.
Proof. all: reflexivity. Qed.
"""


def test_replay_records_goals_tactics_and_steps_to_go() -> None:
    replayer = ProofReplayer()
    try:
        records, stats = replayer.replay_file(SOURCE, "inline.v")
    finally:
        replayer.close()
    assert stats.lemmas_ok == 2 and stats.lemmas_dropped == 2 and not stats.file_failed
    by_tactic = {(r.lemma, r.tactic): r for r in records}
    assert by_tactic[("two_goals", "intros P Q HP HQ.")].steps == 3
    assert by_tactic[("two_goals", "split.")].steps == 2
    exact = by_tactic[("two_goals", "exact HP.")]
    assert exact.steps == 1 and exact.goal == "P, Q : Prop\nHP : P\nHQ : Q\n⊢ P"
    assert by_tactic[("with_braces", "split.")].steps == 5  # split, induction, simpl, rewrite, reflexivity
    assert by_tactic[("with_braces", "rewrite IHn.")].goal.endswith("⊢ S (n + 0) = S n")
    assert not any(r.lemma in ("given_up", "broken") for r in records)


def test_stdlib_file_replays() -> None:
    path = Path("/usr/lib/ocaml/coq/theories/Arith/PeanoNat.v")
    if not path.exists():
        pytest.skip("Coq standard library sources not installed")
    replayer = ProofReplayer()
    try:
        records, stats = replayer.replay_file(path.read_text(), str(path))
    finally:
        replayer.close()
    assert stats.lemmas_ok > 100 and len(records) > 400
    assert all(r.steps >= 1 and r.goal and r.tactic.endswith(".") for r in records)


def test_each_dropped_lemma_says_why_in_one_line() -> None:
    failing = "Lemma wrong_step (n : nat) : n + 0 = n.\nProof. intros. reflexivity. Qed.\n"
    with ProofReplayer() as replayer:
        _, stats = replayer.replay_file(SOURCE + failing, "inline.v")
    assert stats.lemmas_dropped == 3 and len(stats.drop_reasons) == 3
    assert stats.drop_reasons[0] == "Admitted" and stats.drop_reasons[1] == "multi-goal selector"
    assert stats.drop_reasons[2].startswith("`reflexivity.` failed on replay: ") and "\n" not in stats.drop_reasons[2]


def test_a_preamble_is_loaded_not_replayed() -> None:
    """A prelude that proves lemmas of its own (the shipped one does) adds no records and no
    counted lemma; what it defines is in scope for the replayed text; a broken preamble fails the
    file with the sentence named."""
    from lean_interface.coq.prelude import DEFAULT_PRELUDE

    preamble = DEFAULT_PRELUDE + "\nLemma prelude_helper (n : nat) : n + 0 = n.\nProof. lia. Qed.\n"
    text = "Lemma uses_helper : 3 + 0 = 3.\nProof.\n  apply prelude_helper.\nQed.\n"
    with ProofReplayer() as replayer:
        records, stats = replayer.replay_file(text, "inline.v", preamble=preamble)
        assert (stats.lemmas_ok, stats.lemmas_dropped, stats.file_failed) == (1, 0, "")
        assert {r.lemma for r in records} == {"uses_helper"} and [r.tactic for r in records] == ["apply prelude_helper."]
        _, broken = replayer.replay_file(text, "inline.v", preamble="Require Import NoSuchLibrary.")
    assert broken.lemmas_ok == 0 and broken.file_failed.startswith("preamble: Require Import NoSuchLibrary.")
