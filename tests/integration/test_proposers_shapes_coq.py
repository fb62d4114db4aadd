"""The shape proposers close generic goals of their shapes on real Coq and the proofs verify from
scratch (module compile + statement check + coqchk + axiom audit); a goal where a proposal would be
wrong is not closed, and the prelude's `positivity` refuses what is not positive."""

from __future__ import annotations

import pytest

from lean_interface.coq import CoqEnv, theorem_from_proposition
from search.proposers.field_side import PROPOSERS as FIELD
from search.proposers.instantiate import PROPOSERS as INSTANTIATE
from search.proposers.positivity import PROPOSERS as POSITIVITY
from search.proposers.unfold_defs import PROPOSERS as UNFOLD
from proposer_checks import assert_closes_and_verifies

pytestmark = pytest.mark.integration

REALS = "Require Import Reals.\nOpen Scope R_scope."
ARITH = "Require Import Arith."
LOGB = REALS + "\nDefinition lg (a x : R) : R := ln x / ln a."
CASES = [
    ("field_side", FIELD, "forall u v : R, u <> 0 -> v <> 0 -> u + v = 3 * (u * v) -> 1 / u + 1 / v = 3", REALS),
    ("field_side_hyp", FIELD, "forall p q : R, p <> 2 * q -> p <> q -> (p + q) / (p - 2 * q) = 4 -> p = 3 * q", REALS),
    ("field_side_positivity", FIELD, "forall t : R, 0 < t -> t / (t ^ 2 + 1) * (t ^ 2 + 1) = t", REALS),
    ("positivity", POSITIVITY, "forall u v : R, 0 < u -> 0 <= v -> 0 < u * sqrt u + v ^ 2 + v / u", REALS),
    ("positivity_ne", POSITIVITY, "forall m : nat, INR m + Rabs 2 <> 0", REALS),
    ("instantiate", INSTANTIATE,
     "forall (p q : R) (g : R -> R), (forall t : R, g (t - 1) = p * t + q) -> g 0 = 5 -> g 1 = 7 -> p = 2", REALS),
    ("instantiate_nat", INSTANTIATE,
     "forall w : nat -> nat, (forall k : nat, w (k + 2) = w (k + 1) + 2 * w k) -> w 0 = 1 -> w 1 = 1 -> w 4 = 11",
     ARITH),
    ("unfold_defs", UNFOLD, "forall x : R, 0 < x -> lg 2 x = ln x / ln 2", LOGB),
    ("unfold_lcm", UNFOLD, "forall m k : nat, Nat.gcd m k = 3 -> Nat.lcm m k = 18 -> k = 6 -> m = 9", ARITH),
]


@pytest.fixture(scope="module")
def env():
    with CoqEnv(timeout=10.0) as coq:
        yield coq


@pytest.mark.parametrize("label, proposers, proposition, header", CASES, ids=[c[0] for c in CASES])
def test_a_shape_proposer_closes_its_goal_and_the_proof_verifies(env: CoqEnv, label: str, proposers, proposition: str,
                                                                  header: str) -> None:
    assert_closes_and_verifies(env, f"shape_{label}", proposers, proposition, header)


@pytest.mark.parametrize("proposition", ["forall x : R, 0 < x - 1", "forall x : R, 0 <= x ^ 3",
                                         "forall x y : R, 0 < x -> 0 < x * y"])
def test_positivity_fails_on_what_is_not_positive(env: CoqEnv, proposition: str) -> None:
    root = env.start(theorem_from_proposition(proposition, name="not_positive", header=REALS))
    tactics = POSITIVITY[0].tactics(root.text)
    assert tactics and not any(env.apply(root, t).closed for t in tactics)


def test_a_wrong_goal_of_each_shape_is_not_closed(env: CoqEnv) -> None:
    """Same shapes with a false conclusion: the proposals run and fail in the prover."""
    wrong = [(FIELD, "forall u v : R, u <> 0 -> v <> 0 -> u + v = 3 * (u * v) -> 1 / u + 1 / v = 4", REALS),
             (INSTANTIATE, "forall (p q : R) (g : R -> R), (forall t : R, g (t - 1) = p * t + q) -> g 0 = 5 -> "
                           "g 1 = 7 -> p = 3", REALS),
             (UNFOLD, "forall m k : nat, Nat.gcd m k = 3 -> Nat.lcm m k = 18 -> k = 6 -> m = 6", ARITH)]
    for proposers, proposition, header in wrong:
        root = env.start(theorem_from_proposition(proposition, name="wrong_shape", header=header))
        tactics = [t for p in proposers for t in p.tactics(root.text)]
        assert tactics and not any(env.apply(root, t).closed for t in tactics), proposition


def test_positivity_under_a_coquelicot_header(env: CoqEnv) -> None:
    header = "Require Import Reals.\nRequire Import Coquelicot.Coquelicot.\nOpen Scope R_scope."
    theorem = theorem_from_proposition("forall x : R, 0 < x -> 0 < x / (1 + x ^ 2)", name="pos_coq", header=header)
    root = env.start(theorem)
    tactic = POSITIVITY[0].tactics(root.text)[0]
    assert env.apply(root, tactic).closed
    assert env.verify(theorem, tactic).ok
