"""Nothing false is accepted, on real Coq.

Three layers, each tested on its own so that no layer's test passes because another one caught
the trick: `apply` (the guard refuses before coqtop sees it), `verify` (guard on the script, then
compile + coqchk + audit), and `check_file` (compile + coqchk + audit only, no guard: the kernel
layer must refuse every trick that reaches the kernel by itself). Genuine proofs with the allowed
classical axioms are accepted.
"""

from __future__ import annotations

import pytest

from lean_interface.api import Theorem
from lean_interface.coq import CoqEnv, theorem_from_proposition
from lean_interface.coq.verify import check_file, proof_file

pytestmark = pytest.mark.integration

FALSE = theorem_from_proposition("1 = 2", name="false_claim", header="")
OFF_BY_ONE = theorem_from_proposition("forall n : nat, n = n + 1", name="off_by_one", header="")

#: issue #8's exploit: a positivity-bypassing inductive declared inside the proof, plus hypotheses
#: named so that `idtac` prints "Closed under the global context" into coqc's output.
POSITIVITY_EXPLOIT = (
    "intros n.\n"
    "#[bypass_check(positivity)] Inductive nat : Type := Mk : (nat -> False) -> nat.\n"
    "pose proof I as context; pose proof I as global; pose proof I as the; pose proof I as under; "
    "pose proof I as Closed; match goal with a : _, b : _, c : _, d : _, e : _ |- _ => idtac e d c b a; "
    "clear a b c d e end; exact (False_ind _ (let f := fun x : nat => match x with Mk g => g x end in f (Mk f))).")
GUARD_EXPLOIT = (
    "#[bypass_check(guard)] Fixpoint loop (n : nat) : False := loop n.\n"
    "exact (False_ind _ (loop 0)).")
UNIVERSE_EXPLOIT = (
    "#[bypass_check(universes)] Definition T := Type.\n"
    "#[bypass_check(universes)] Definition self : T := T.\n"
    "exact (False_ind _ (False_ind _ _)).")
ADMIT_AXIOM = Theorem("admitted_claim", "Require Import Coq.Compat.AdmitAxiom.", "Theorem admitted_claim : 1 = 2.")
HEADER_AXIOM = Theorem("uses_axiom", "Axiom cheat : 1 = 2.", "Theorem uses_axiom : 1 = 2.")

TRICKS = [
    "admit.", "Admitted.", "give_up.", "exact I. Qed.", "Axiom x : False.", "idtac. Admitted", "lia (* . *).",
    'idtac "Closed under the global context".', "abstract admit.", "Abort.", "Fail lia.", "Timeout 1 admit.",
    "all: admit.", "native_compute.", "shelve.", "exact_no_check eq_refl.", "Unshelve.", "Qed.",
    "apply False_rect. Admitted.",
    "#[bypass_check(positivity)] Inductive bad : Type := Mk : (bad -> False) -> bad.",
    "#[bypass_check(guard)] Fixpoint loop (n : nat) : False := loop n.",
    "Local Axiom x : False.", "Global Instance x : False.", "Polymorphic Axiom x : False.",
    "Unset Guard Checking.", "Unset Universe Checking.", "Succeed admit.",
    "match goal with |- ?g => idtac g end.", "time lia.",
]


@pytest.fixture(scope="module")
def env():
    with CoqEnv(timeout=3.0) as coq:
        yield coq


@pytest.mark.parametrize("trick", TRICKS)
def test_trick_tactics_are_refused_by_apply(env: CoqEnv, trick: str) -> None:
    result = env.apply(env.start(FALSE), trick)
    assert not result.closed
    assert result.error is not None and result.error.startswith("refused:"), result


def test_a_well_formed_tactic_that_cannot_prove_false_fails_in_coq(env: CoqEnv) -> None:
    result = env.apply(env.start(FALSE), "exact (False_rect _ _).")
    assert not result.closed and result.error and not result.error.startswith("refused:")


@pytest.mark.parametrize("script", [
    "admit.", "Admitted.", "exact I.", "reflexivity.", "lia.", "give_up.", "idtac.\nAdmitted",
    "exact_no_check eq_refl.", "shelve.", "Abort.\nTheorem false_claim : 1 = 1.\nreflexivity.",
])
def test_verify_rejects_false_proof_scripts(env: CoqEnv, script: str) -> None:
    verdict = env.verify(FALSE, script)
    assert not verdict.ok, script


@pytest.mark.parametrize("theorem, script, reason", [
    (OFF_BY_ONE, POSITIVITY_EXPLOIT, "positivity is assumed"),
    (FALSE, GUARD_EXPLOIT, "unsafe (co)fixpoints"),
    (ADMIT_AXIOM, "exact (False_ind _ proof_admitted).", "Coq.Compat.AdmitAxiom.proof_admitted"),
    (HEADER_AXIOM, "exact cheat.", "Alphaprover.ProofCheck.cheat"),
])
def test_the_kernel_layer_alone_refuses_each_exploit(theorem: Theorem, script: str, reason: str) -> None:
    """No guard here: the compiled module goes straight to coqchk and the audit."""
    verdict = check_file(proof_file(theorem, script), theorem)
    assert not verdict.ok and reason in verdict.message, verdict.message


def test_a_universe_bypass_is_refused_by_the_kernel_layer() -> None:
    """Type : Type via bypassed universe checks: coqchk reports it as type-in-type."""
    text = ("#[bypass_check(universes)] Definition U := Type.\n"
            "#[bypass_check(universes)] Definition u : U := U.\n\n"
            "Theorem uses_u : True.\nProof.\nexact (let _ := u in I).\nQed.\n")
    verdict = check_file(text, Theorem("uses_u", "", "Theorem uses_u : True."))
    assert not verdict.ok and "type-in-type" in verdict.message, verdict.message


@pytest.mark.parametrize("theorem, script", [
    (OFF_BY_ONE, POSITIVITY_EXPLOIT),
    (FALSE, GUARD_EXPLOIT),
    (FALSE, UNIVERSE_EXPLOIT),
    (ADMIT_AXIOM, "exact (False_ind _ proof_admitted)."),
    (HEADER_AXIOM, "exact cheat."),
    (FALSE, 'idtac "Closed under the global context".\nadmit.'),
])
def test_verify_refuses_each_exploit(env: CoqEnv, theorem: Theorem, script: str) -> None:
    assert not env.verify(theorem, script).ok


def test_a_printed_fake_report_is_not_read(env: CoqEnv) -> None:
    """Hypotheses named to spell the old accepted text are printed by idtac during compilation;
    the kernel layer never reads coqc's output, so the (false) proof still fails on its merits."""
    script = ("pose proof I as Closed; pose proof I as under; pose proof I as the; pose proof I as global; "
              "pose proof I as context; match goal with a : _, b : _, c : _, d : _, e : _ |- _ => "
              "idtac a b c d e end.\nadmit.")
    verdict = check_file(proof_file(FALSE, script), FALSE)
    assert not verdict.ok


def test_an_axiom_loaded_but_unused_by_the_header_is_still_refused() -> None:
    """coqchk lists the whole environment's axioms: loading AdmitAxiom is enough to be refused."""
    theorem = Theorem("true_claim", "Require Import Coq.Compat.AdmitAxiom.", "Theorem true_claim : 1 = 1.")
    verdict = check_file(proof_file(theorem, "reflexivity."), theorem)
    assert not verdict.ok and "proof_admitted" in verdict.message


def test_genuine_real_arithmetic_proof_is_accepted_with_listed_axioms(env: CoqEnv) -> None:
    theorem = theorem_from_proposition("forall x : R, x + 1 > x", name="reals_ok",
                                       header="Require Import Reals.\nOpen Scope R_scope.")
    verdict = env.verify(theorem, "intros x.\nlra.")
    assert verdict.ok, verdict.message
    assert "Coq.Logic.Classical_Prop.classic" in verdict.axioms


def test_classical_logic_from_the_stdlib_is_accepted(env: CoqEnv) -> None:
    theorem = theorem_from_proposition("forall P : Prop, P \\/ ~ P", name="lem",
                                       header="Require Import Classical.")
    verdict = env.verify(theorem, "intros P.\napply classic.")
    assert verdict.ok, verdict.message
    assert "Coq.Logic.Classical_Prop.classic" in verdict.axioms


def test_a_proof_of_the_wrong_theorem_name_is_refused() -> None:
    """No constant of our theorem's name: the statement check cannot even find it (and the audit
    would insist coqchk checked it: `audit_report`)."""
    text = "Theorem other : 1 = 1.\nProof.\nreflexivity.\nQed.\n"
    verdict = check_file(text, Theorem("expected_name", "", "Theorem expected_name : 1 = 1."))
    assert not verdict.ok and "Alphaprover.ProofCheck.expected_name" in verdict.message, verdict.message


#: issue #20's swap: end the stated proof, then prove something true under the theorem's name
STATEMENT_SWAPS = [
    "Abort.\nTheorem false_claim : True.\nProof.\nexact I.",
    "Abort.\nLemma false_claim : True.\nProof.\nexact I.",
    "Abort.\nDefinition false_claim : True := I.\nTheorem unrelated : True.\nProof.\nexact I.",
    "Abort.\nDefinition false_claim : 1 = 1 := eq_refl.\nTheorem unrelated : True.\nProof.\nexact I.",
]


@pytest.mark.parametrize("script", STATEMENT_SWAPS)
def test_the_kernel_layer_alone_refuses_a_swapped_statement(script: str) -> None:
    """coqchk checks a constant with the right name whatever its type; the statement-check file
    compares that type with the statement elaborated afresh, so the kernel layer refuses."""
    verdict = check_file(proof_file(FALSE, script), FALSE)
    assert not verdict.ok and "does not have the stated type" in verdict.message, verdict.message


@pytest.mark.parametrize("script", STATEMENT_SWAPS)
def test_verify_and_apply_refuse_a_swapped_statement(env: CoqEnv, script: str) -> None:
    assert not env.verify(FALSE, script).ok
    result = env.apply(env.start(FALSE), script.split("\n")[0])
    assert not result.closed and result.error is not None and result.error.startswith("refused:")


def test_a_proof_of_a_convertible_statement_with_binders_is_accepted() -> None:
    """The statement check compares types up to conversion: binders and `1 + 1` stay fine."""
    theorem = Theorem("with_binders", "", "Theorem with_binders (n : nat) (h : n = 1 + 1) : n = 2.")
    verdict = check_file(proof_file(theorem, "exact h."), theorem)
    assert verdict.ok, verdict.message


def test_a_statement_that_declares_another_name_cannot_be_checked() -> None:
    theorem = Theorem("named", "", "Theorem other_name : 1 = 1.")
    verdict = check_file(proof_file(theorem, "reflexivity."), theorem)
    assert not verdict.ok and "does not declare" in verdict.message
