"""Coq text handling without a prover: sentence splitting, the guard, goal parsing, files."""

from __future__ import annotations

from pathlib import Path

import pytest

from lean_interface.api import EnvError
from lean_interface.coq.files import theorem_from_file, theorem_from_proposition, theorem_from_text
from lean_interface.coq.goals import hypothesis_names, parse_goals, parse_show
from lean_interface.coq.guard import TacticRefused, check_script, normalise_tactic
from lean_interface.coq.text import SentenceError, sentence_texts

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
    "Qed", "Require Import Classical", "", "lia..", "#[bypass_check(positivity)] Inductive t := A",
    "Local Ltac x := lia", "Global Opaque plus", "Polymorphic Definition x := 1", "idtac H", "time lia",
    "match goal with h : _ |- _ => idtac h end", "Succeed lia", "_x", "1: lia", "Proof",
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


#: the shape of real `coqchk -o -norec` output (Coq 8.16.1), trimmed
COQCHK_OUTPUT = """Welcome to Chicken 8.16.1
[intern /tmp/x/ProofCheck.vo ...
 done]

Ordered list:
  Coq.Init.Logic
  Alphaprover.ProofCheck
Admitting library: Coq.Init.Logic
Checking library: Alphaprover.ProofCheck
  checking module: Alphaprover.ProofCheck
  checking cst:Alphaprover.ProofCheck.t1
Modules were successfully checked

CONTEXT SUMMARY
===============

* Theory: Set is predicative
  
* Axioms:
    Coq.Logic.Classical_Prop.classic
    Coq.Reals.Rdefinitions.RbaseSymbolsImpl.R
  
* Constants/Inductives relying on type-in-type: <none>
  
* Constants/Inductives relying on unsafe (co)fixpoints: <none>
  
* Inductives whose positivity is assumed:
    Alphaprover.ProofCheck.nat
  
"""


def test_coqchk_reports_are_parsed_strictly() -> None:
    from lean_interface.coq.kernel_check import CheckFailed, parse_report
    from lean_interface.coq.verify import audit_report

    report = parse_report(COQCHK_OUTPUT)
    assert report.axioms == ("Coq.Logic.Classical_Prop.classic", "Coq.Reals.Rdefinitions.RbaseSymbolsImpl.R")
    assert report.assumed_positive == ("Alphaprover.ProofCheck.nat",)
    assert report.checked == ("Alphaprover.ProofCheck.t1",) and report.theory == "Set is predicative"
    assert "positivity" in audit_report(report, "t1")
    clean_text = COQCHK_OUTPUT.replace("    Alphaprover.ProofCheck.nat\n", "").replace(
        "positivity is assumed:\n", "positivity is assumed: <none>\n")
    clean = parse_report(clean_text)
    assert audit_report(clean, "t1") is None
    assert "did not check" in audit_report(clean, "other")
    foreign = parse_report(clean_text.replace("Classical_Prop.classic", "Compat.AdmitAxiom.proof_admitted"))
    assert "AdmitAxiom.proof_admitted" in audit_report(foreign, "t1")
    # fail closed: anything out of shape is an error, never "no axioms"
    for broken in (COQCHK_OUTPUT.replace("Modules were successfully checked", ""),
                   COQCHK_OUTPUT.replace("CONTEXT SUMMARY", "SUMMARY"),
                   COQCHK_OUTPUT.replace("    Coq.Logic.Classical_Prop.classic", "    Closed under the global context"),
                   COQCHK_OUTPUT.replace("* Constants/Inductives relying on type-in-type: <none>\n", "")):
        with pytest.raises(CheckFailed):
            parse_report(broken)
