"""Nothing false is accepted, on real Coq: every trick is refused before it runs, or rejected by
`verify` (coqc on a fresh file + axiom audit); genuine proofs with stdlib axioms are accepted."""

from __future__ import annotations

import pytest

from lean_interface.api import Theorem
from lean_interface.coq import CoqEnv, theorem_from_proposition

pytestmark = pytest.mark.integration

FALSE = theorem_from_proposition("1 = 2", name="false_claim", header="")

TRICKS = [
    "admit.", "Admitted.", "give_up.", "exact I. Qed.", "Axiom x : False.", "idtac. Admitted", "lia (* . *).",
    'idtac "Closed under the global context".', "abstract admit.", "Abort.", "Fail lia.", "Timeout 1 admit.",
    "all: admit.", "native_compute.", "shelve.", "exact_no_check eq_refl.", "Unshelve.", "Qed.",
    "apply False_rect. Admitted.", "exact (False_rect _ _).",
]


@pytest.fixture(scope="module")
def env():
    with CoqEnv(timeout=3.0) as coq:
        yield coq


@pytest.mark.parametrize("trick", TRICKS)
def test_trick_tactics_never_close_a_false_goal(env: CoqEnv, trick: str) -> None:
    goal = env.start(FALSE)
    assert not env.apply(goal, trick).closed


@pytest.mark.parametrize("script", [
    "admit.", "Admitted.", "exact I.", "reflexivity.", "lia.", "give_up.", "idtac.\nAdmitted",
    "exact_no_check eq_refl.", "shelve.", "Abort.\nTheorem false_claim : 1 = 1.\nreflexivity.",
])
def test_verify_rejects_false_proof_scripts(env: CoqEnv, script: str) -> None:
    verdict = env.verify(FALSE, script)
    assert not verdict.ok, script


def test_verify_rejects_an_axiom_brought_by_the_header(env: CoqEnv) -> None:
    theorem = Theorem("uses_axiom", "Axiom cheat : 1 = 2.", "Theorem uses_axiom : 1 = 2.")
    verdict = env.verify(theorem, "exact cheat.")
    assert not verdict.ok and "outside the standard library" in verdict.message


def test_verify_rejects_a_printed_fake_report(env: CoqEnv) -> None:
    verdict = env.verify(FALSE, 'idtac "Closed under the global context".\nadmit.')
    assert not verdict.ok


def test_genuine_real_arithmetic_proof_is_accepted_with_stdlib_axioms(env: CoqEnv) -> None:
    theorem = theorem_from_proposition("forall x : R, x + 1 > x", name="reals_ok",
                                       header="Require Import Reals Lra.\nOpen Scope R_scope.")
    verdict = env.verify(theorem, "intros x.\nlra.")
    assert verdict.ok, verdict.message
    assert verdict.axioms and all(a.startswith("Coq.") for a in verdict.axioms)


def test_classical_logic_from_the_stdlib_is_accepted(env: CoqEnv) -> None:
    theorem = theorem_from_proposition("forall P : Prop, P \\/ ~ P", name="lem",
                                       header="Require Import Classical.")
    verdict = env.verify(theorem, "intros P.\napply classic.")
    assert verdict.ok and verdict.axioms == ("Coq.Logic.Classical_Prop.classic",)
