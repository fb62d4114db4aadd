"""The induction, floor_values and squares proposers close generic goals of their shapes on real Coq
(divisibility with a computed step witness, induction on a lower bound's proof, a header Fixpoint's
sum; `up`, `Int_part` and Coquelicot's `floor` of closed reals; bounds by completed squares) and the proofs verify from scratch;
a false statement of the same shape is not proved. The goals are written here, not taken
from miniF2F."""

from __future__ import annotations

import pytest

from lean_interface.coq import CoqEnv, theorem_from_proposition
from search.proposers.floor_values import PROPOSERS as FLOORS_PROPOSERS
from search.proposers.induction import PROPOSERS
from search.proposers.squares import PROPOSERS as SQUARES_PROPOSERS
from proposer_checks import assert_closes_and_verifies

pytestmark = pytest.mark.integration

INDUCTION, FLOOR, SQUARES = PROPOSERS[0], FLOORS_PROPOSERS[0], SQUARES_PROPOSERS[0]
ARITH = "Require Import Arith."
WITH_Z = "Require Import Arith.\nRequire Import ZArith.\nOpen Scope Z_scope."  # numerals default to Z
SUM = ("Require Import Arith.\nFixpoint total (f : nat -> nat) (n : nat) : nat :=\n"
       "  match n with\n  | 0 => 0\n  | S m => f m + total f m\n  end.")
CASES = [
    ("polynomial_witness", "forall n : nat, exists k : nat, n ^ 3 + 3 * n ^ 2 + 2 * n = 3 * k", ARITH),
    ("exponential_witness", "forall n : nat, exists k : nat, (5 ^ (2 * n) + 2 = 3 * k)%nat", WITH_Z),
    ("divide_from_a_bound", "forall n : nat, 1 <= n -> Nat.divide 7 (8 ^ n - 1)", ARITH),
    ("sum_of_a_fixpoint", "forall n : nat, total (fun k => 2 * k + 2) n = n * n + n", SUM),
    ("bound_below", "forall n : nat, 5 <= n -> 2 ^ n >= n * n", ARITH),
]


@pytest.fixture(scope="module")
def env():
    with CoqEnv(timeout=10.0) as coq:
        yield coq


@pytest.mark.parametrize("label, proposition, header", CASES, ids=[c[0] for c in CASES])
def test_induction_closes_its_shape_and_the_proof_verifies(env: CoqEnv, label: str, proposition: str,
                                                           header: str) -> None:
    assert_closes_and_verifies(env, label, [INDUCTION], proposition, header)


def test_a_false_statement_of_the_shape_is_not_proved(env: CoqEnv) -> None:
    """n² ≤ n! fails at n = 2, 3: the bound 1 ≤ n is too weak, and Coq refuses every proposal; a sum
    one off its closed form likewise."""
    for proposition, header in (("forall n : nat, 1 <= n -> n ^ 2 <= fact n", ARITH),
                                ("forall n : nat, total (fun k => 2 * k + 2) n = n * n + n + 1", SUM)):
        root = env.start(theorem_from_proposition(proposition, name="false_induction", header=header))
        tactics = INDUCTION.tactics(root.text)
        assert tactics and not any(env.apply(root, t).closed for t in tactics), proposition


def test_a_goal_out_of_shape_gets_no_proposal(env: CoqEnv) -> None:
    for proposition in ("forall n : nat, n * n + 1 > n",               # a polynomial: lia/nia's job
                        "forall n : nat, exists k : nat, 2 ^ n + 1 = 3 * k",  # false at n = 1: no witness
                        "forall x : R, x * x >= 0"):                   # not nat
        header = "Require Import Reals.\nOpen Scope R_scope." if "R," in proposition else ARITH
        root = env.start(theorem_from_proposition(proposition, name="out_of_shape", header=header))
        assert INDUCTION.tactics(root.text) == [], proposition


def test_after_intros_the_bound_and_the_variable_are_reverted_first(env: CoqEnv) -> None:
    """Where the search meets the goal after `intros.`, the proposal generalizes the variable (and so its bound)
    and then inducts as from the root; the two-sentence script verifies."""
    theorem = theorem_from_proposition("forall n : nat, 1 <= n -> Nat.divide 7 (8 ^ n - 1)", name="introduced",
                                       header=ARITH)
    introduced = env.apply(env.start(theorem), "intros.")
    assert introduced.ok and len(introduced.goals) == 1
    tactics = INDUCTION.tactics(introduced.goals[0].text)
    assert tactics and tactics[0].startswith("timeout 5 (generalize dependent n; intros n Hb;")
    assert env.apply(introduced.goals[0], tactics[0]).closed
    verdict = env.verify(theorem, f"intros.\n{tactics[0]}")
    assert verdict.ok, verdict.message


REALS_Z = "Require Import Reals.\nRequire Import ZArith.\nOpen Scope R_scope."
COQUELICOT = "Require Import Reals.\nRequire Import Coquelicot.Coquelicot.\nOpen Scope R_scope."
FLOORS = [
    ("up_of_a_root", "(up (sqrt 50) - up (sqrt 10) = 4)%Z", REALS_Z),
    ("int_part_of_a_fraction", "Int_part (22 / 7) = 3%Z", REALS_Z),
    ("coquelicot_floor", "floor (sqrt 80 + 1 / 3) = 9%Z", COQUELICOT),
    ("floor_in_a_real_goal", "IZR (floor (7 / 2)) + 1 / 2 = 7 / 2", COQUELICOT),
]


@pytest.mark.parametrize("label, proposition, header", FLOORS, ids=[c[0] for c in FLOORS])
def test_floor_values_closes_its_shape_and_the_proof_verifies(env: CoqEnv, label: str, proposition: str,
                                                              header: str) -> None:
    assert_closes_and_verifies(env, label, [FLOOR], proposition, header)


def test_a_wrong_floor_value_is_not_proved(env: CoqEnv) -> None:
    """⌊√27⌋ = 5, so up (√27) is 6, not 5: the computed rewrite leaves `5 + 1 = 5`, which lia refuses."""
    for proposition, header in (("up (sqrt 27) = 5%Z", REALS_Z), ("floor (9 / 160 * 100) = 6%Z", COQUELICOT)):
        root = env.start(theorem_from_proposition(proposition, name="false_floor", header=header))
        tactics = FLOOR.tactics(root.text)
        assert tactics and not any(env.apply(root, t).closed for t in tactics), proposition


REALS = "Require Import Reals.\nOpen Scope R_scope."
SQUARE_CASES = [
    ("vertex_bound", "forall c x : R, 2 * x ^ 2 + 5 * x + c <= 0 -> c <= 25 / 8", REALS),
    ("two_variable_form", "forall a b : R, a ^ 2 + b ^ 2 + 1 >= a * b + a + b", REALS),
    ("shifted_minimum", "forall x y : R, y = x ^ 2 - 6 * x + 11 -> y >= 2", REALS),
]


@pytest.mark.parametrize("label, proposition, header", SQUARE_CASES, ids=[c[0] for c in SQUARE_CASES])
def test_squares_closes_its_shape_and_the_proof_verifies(env: CoqEnv, label: str, proposition: str,
                                                         header: str) -> None:
    assert_closes_and_verifies(env, label, [SQUARES], proposition, header)


def test_a_bound_past_the_vertex_is_not_proved(env: CoqEnv) -> None:
    """The vertex of 2x² + 5x gives c ≤ 25/8 exactly; c ≤ 3 is false (c = 3.1, x = −5/4), and the
    hints, true facts, cannot prove it."""
    root = env.start(theorem_from_proposition("forall c x : R, 2 * x ^ 2 + 5 * x + c <= 0 -> c <= 3",
                                              name="false_square", header=REALS))
    tactics = SQUARES.tactics(root.text)
    assert tactics and not any(env.apply(root, t).closed for t in tactics)


def test_the_computed_square_is_what_nra_lacked(env: CoqEnv) -> None:
    """nra alone fails on each square case (the vertex bound defeats psatz too); the completed square
    makes nra succeed."""
    for _, proposition, header in SQUARE_CASES:
        root = env.start(theorem_from_proposition(proposition, name="plain_nra", header=header))
        assert not env.apply(root, "intros; nra.").closed, proposition
    vertex = env.start(theorem_from_proposition(SQUARE_CASES[0][1], name="plain_psatz", header=REALS))
    assert not env.apply(vertex, "intros; psatz R 2.").closed
