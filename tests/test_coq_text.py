"""Coq text handling without a prover: sentence splitting, the guard, goal parsing, files."""

from __future__ import annotations

from pathlib import Path

import pytest

from lean_interface.api import EnvError
from lean_interface.coq.files import theorem_from_file, theorem_from_proposition, theorem_from_text
from lean_interface.coq.goals import hypothesis_names, parse_goals, parse_show
from lean_interface.coq.guard import TacticRefused, check_script, normalise_tactic
from lean_interface.coq.sentences import SentenceError, sentence_texts

DATA = Path(__file__).resolve().parent.parent / "data" / "minif2f-rocq" / "valid"


def test_sentences_respect_comments_strings_and_qualified_names() -> None:
    text = 'Require Import Coq.Arith.PeanoNat. (* a. b. (* nested. *) *) Definition s := "a. ""b."". c".\nLemma x : 1.5 = 1.5.'
    assert sentence_texts(text) == ["Require Import Coq.Arith.PeanoNat.", 'Definition s := "a. ""b."". c".',
                                    "Lemma x : 1.5 = 1.5."]


def test_bullets_braces_and_selectors_are_sentences() -> None:
    text = "split. - lia. + auto. { reflexivity. } 2: { lia. } -- now. all: lia. exists {| x := 1 |}."
    assert sentence_texts(text) == ["split.", "-", "lia.", "+", "auto.", "{", "reflexivity.", "}", "2: {",
                                    "lia.", "}", "--", "now.", "all: lia.", "exists {| x := 1 |}."]


@pytest.mark.parametrize("text", ["lia", "(* open comment lia.", 'idtac "open string.'])
def test_unterminated_input_is_reported(text: str) -> None:
    with pytest.raises(SentenceError):
        sentence_texts(text)


@pytest.mark.parametrize("tactic", [
    "admit", "Admitted", "give_up", "exact I. Qed", "Axiom x : False", "idtac. Admitted", "lia (* . *)",
    'idtac "Closed under the global context"', "abstract admit", "Abort", "Fail lia", "Timeout 1 admit",
    "all: admit", "2: lia", "{", "}", "-", "native_compute", "shelve", "exact_no_check I", "fix f 1",
    "Qed", "Require Import Classical", "", "lia..",
])
def test_guard_refuses_tricks(tactic: str) -> None:
    with pytest.raises(TacticRefused):
        normalise_tactic(tactic)


def test_guard_accepts_and_normalises_real_tactics() -> None:
    assert normalise_tactic("  intros n   m ") == "intros n m."
    assert normalise_tactic("simpl; rewrite IHn; lia.") == "simpl; rewrite IHn; lia."
    assert normalise_tactic("destruct l as [|x xs]; [easy|cbn; split]") == "destruct l as [|x xs]; [easy|cbn; split]."
    assert check_script("intros.\n{ lia. }\n{ auto. }") is None
    assert "forbidden" in check_script("intros.\nadmit.")


def test_goal_output_is_parsed_into_canonical_goals() -> None:
    output = ("2 goals (ID 8)\n  \n  n, m : nat\n  IHn : n + m = m + n\n  ============================\n"
              "  S n + m = m + S n\n\ngoal 2 (ID 12) is:\n True")
    view = parse_goals(output)
    assert view.count == 2 and view.conclusions == ("S n + m = m + S n", "True")
    assert view.first.text == "n, m : nat\nIHn : n + m = m + n\n⊢ S n + m = m + S n"
    assert hypothesis_names(view.first.text) == ["n", "m", "IHn"]
    shelved = parse_goals("1 focused goal (shelved: 1) (ID 7)\n  \n  ============================\n  ?n = 0")
    assert shelved.shelved == 1 and shelved.first.evars == frozenset({"?n"})
    assert parse_goals("No more goals.").whole_proof_done
    assert parse_goals('This subproof is complete, but there are some unfocused goals.\nTry "}".').count == 0
    assert parse_show("goal 2 (ID 7) is:\n  \n  n : nat\n  ============================\n  True").text == "n : nat\n⊢ True"


def test_theorems_from_propositions_and_files() -> None:
    thm = theorem_from_proposition("forall n : nat, n + 0 = n.", name="t")
    assert thm.statement == "Theorem t : forall n : nat, n + 0 = n." and thm.name == "t"
    with pytest.raises(EnvError):
        theorem_from_proposition("True. Axiom f : False")
    file_thm = theorem_from_file(DATA / "mathd_algebra_10.v")
    assert file_thm.name == "mathd_algebra_10" and file_thm.header.startswith("Require Import Reals.")
    assert file_thm.statement.startswith("Theorem mathd_algebra_10:")
    with pytest.raises(EnvError, match="no Theorem"):
        theorem_from_text("Definition x := 1.")
    with pytest.raises(EnvError, match="cannot read"):
        theorem_from_file(DATA / "does_not_exist.v")


def test_print_assumptions_reports_are_parsed_fail_closed() -> None:
    from lean_interface.coq.verify import _axiom_names

    real = ("Axioms:\nClassicalDedekindReals.sig_forall_dec\n  : forall P : nat -> Prop,\n    (forall n : nat, {P n} + {~ P n}) ->\n"
            "    {n : nat | ~ P n} + {forall n : nat, P n}\nFunctionalExtensionality.functional_extensionality_dep\n"
            "  : forall (A : Type) (B : A -> Type) (f g : forall x : A, B x),\n    (forall x : A, f x = g x) -> f = g\n")
    assert _axiom_names(real) == ["ClassicalDedekindReals.sig_forall_dec",
                                  "FunctionalExtensionality.functional_extensionality_dep"]
    assert _axiom_names("Axioms:\ncheat : 1 = 2\n") == ["cheat"]
    assert _axiom_names("Closed under the global context\n") == []
    assert _axiom_names("Axioms:\n") is None  # unreadable: never "no axioms"
    assert _axiom_names("something else") is None
