"""The case-split and chain proposers close generic goals of their shapes on real Coq, and the proofs
verify from scratch (module compile + statement check + coqchk + axiom audit); a goal out of shape
gets no proposal. The goals are written here, not taken from miniF2F."""

from __future__ import annotations

import pytest

from lean_interface.coq import CoqEnv, theorem_from_proposition
from search.proposers.distinct_roots import PROPOSERS as ROOTS
from search.proposers.interval_cases import PROPOSERS as INTERVALS
from search.proposers.nat_numbers import PROPOSERS as NUMBERS
from search.proposers.complex_parts import PROPOSERS as COMPLEXES
from search.proposers.residues import PROPOSERS as RESIDUES
from search.proposers.transcendental import PROPOSERS as CHAINS
from proposer_checks import assert_closes_and_verifies

pytestmark = pytest.mark.integration

REALS = "Require Import Reals.\nOpen Scope R_scope."
ARITH = "Require Import Arith."
ZARITH = "Require Import ZArith.\nOpen Scope Z_scope."
COMPLEX = "Require Import Reals.\nRequire Import Coquelicot.Coquelicot.\nOpen Scope C_scope."
CASES = [
    ("interval_cases", INTERVALS[0], "forall m n : nat, 0 < n -> n < m -> m * n + m + 2 * n = 63 -> m = 11", ARITH),
    ("interval_cases_Z", INTERVALS[0], "forall x : Z, 0 <= x < 9 -> (x * 5) mod 9 = 1 -> x = 2", ZARITH),
    ("residues", RESIDUES[0], "forall n : nat, (n * n + n) mod 2 = 0", ARITH),
    ("residues_Z", RESIDUES[0], "forall a b : Z, (a ^ 2 + b ^ 2) mod 4 <> 3", ZARITH),
    ("sqrt_numeral", CHAINS[0], "sqrt 49 + sqrt (1 / 4) = 15 / 2", REALS),
    ("sqrt_hypothesis", CHAINS[0], "forall x : R, 0 <= x -> sqrt (2 * x + 3) = 5 -> x = 11", REALS),
    ("ln_chain", CHAINS[0], "forall a b : R, 0 < a -> 0 < b -> ln a = 1 -> ln b = 2 -> ln (a ^ 3 * b) = 5", REALS),
    ("rpower_numeral", CHAINS[0], "forall t : R, t = 3 -> Rpower t 2 + 1 = 10", REALS),
    ("distinct_roots", ROOTS[0], "forall (u v : R) (g : R -> R), (forall x, g x = x ^ 2 - 5 * x + 3) -> "
                                 "g u = 0 -> g v = 0 -> u <> v -> 1 / u + 1 / v = 5 / 3", REALS),
    ("distinct_reciprocal", ROOTS[0], "forall x y : R, x <> 0 -> y <> 0 -> x <> y -> "
                                      "3 * x + 6 / x = 3 * y + 6 / y -> x * y = 2", REALS),
    ("nat_literal", NUMBERS[0], "forall n : nat, 123 * n + 17 = 39500 -> n = 321", ARITH),
    ("nat_pow_mod", NUMBERS[0], "(1999 ^ 2000) mod 5 = 1", ARITH),
    ("nat_closed_gcd", NUMBERS[0], "Nat.gcd (fact 12) 7000 = 1400", ARITH),
    ("nat_closed_lcm", NUMBERS[0], "Nat.lcm 6000 10000 = 30000", ARITH),
    ("nat_closed_subst", NUMBERS[0], "forall n : nat, n = 3 * 7 -> 2 ^ (n * 10) mod 1000 = 24", ARITH),
    ("complex_values", COMPLEXES[0], "forall u w : C, u = 3 + 4 * Ci -> w = 1 - 2 * Ci -> u * w = 11 - 2 * Ci", COMPLEX),
    ("complex_system", COMPLEXES[0], "forall a b : C, a - b = 1 -> a + 3 * b = 9 -> a = 3 /\\ b = 2", COMPLEX),
]


@pytest.fixture(scope="module")
def env():
    with CoqEnv(timeout=10.0) as coq:
        yield coq


@pytest.mark.parametrize("label, proposer, proposition, header", CASES, ids=[c[0] for c in CASES])
def test_a_proposer_closes_its_shape_and_the_proof_verifies(env: CoqEnv, label, proposer, proposition: str,
                                                             header: str) -> None:
    assert_closes_and_verifies(env, label, [proposer], proposition, header)


@pytest.mark.parametrize("proposer, proposition, header", [
    (INTERVALS[0], "forall x : nat, x + 1 > x", ARITH),          # nothing bounds x
    (RESIDUES[0], "forall x : R, x * x >= 0", REALS),            # no modulus
    (CHAINS[0], "forall x : R, x + 1 > x", REALS),                # no sqrt/ln/exp/Rpower
    (ROOTS[0], "forall x y : R, x <> y -> x ^ 2 = 1 -> y ^ 2 = 4 -> x + y = 0", REALS),  # two equations
    (NUMBERS[0], "forall n : nat, 3 * n = 12 -> n = 4", ARITH),   # small numbers: lia reads them
    (COMPLEXES[0], "forall x : R, x + 1 > x", COMPLEX),           # nothing over C
])
def test_a_goal_out_of_shape_gets_no_proposal(env: CoqEnv, proposer, proposition: str, header: str) -> None:
    root = env.start(theorem_from_proposition(proposition, name="out_of_shape", header=header))
    assert proposer.tactics(root.text) == []


def test_a_false_bound_does_not_close_a_false_goal(env: CoqEnv) -> None:
    """The split's cases are checked by Coq: a false conclusion is not proved by any proposal."""
    theorem = theorem_from_proposition("forall x : nat, 0 < x -> x < 5 -> x * x > 3 -> x = 2", name="false_value",
                                       header=ARITH)
    root = env.start(theorem)
    tactics = INTERVALS[0].tactics(root.text)
    assert tactics and not any(env.apply(root, t).closed for t in tactics)


def test_the_nat_bridges_do_not_prove_a_false_large_computation(env: CoqEnv) -> None:
    """`1999 ^ 2000 mod 5` is 1, not 4; 39500 = 123 * 321 + 17, so n = 322 is false: nothing closes."""
    for proposition in ("(1999 ^ 2000) mod 5 = 4", "forall n : nat, 123 * n + 17 = 39500 -> n = 322",
                        "Nat.lcm 6000 10000 = 60000", "Nat.gcd (fact 12) 7000 > 1400"):
        root = env.start(theorem_from_proposition(proposition, name="false_number", header=ARITH))
        tactics = NUMBERS[0].tactics(root.text)
        assert tactics and not any(env.apply(root, t).closed for t in tactics), proposition


def test_the_component_split_does_not_prove_a_false_complex_identity(env: CoqEnv) -> None:
    """(3 + 4i)(1 - 2i) = 11 - 2i, not 11 + 2i: the real equations it leaves are false."""
    for proposition in ("forall u w : C, u = 3 + 4 * Ci -> w = 1 - 2 * Ci -> u * w = 11 + 2 * Ci",
                        "forall y : C, 7 * (3 * y + 2) = 21 * y + 15"):
        root = env.start(theorem_from_proposition(proposition, name="false_complex", header=COMPLEX))
        tactics = COMPLEXES[0].tactics(root.text)
        assert tactics and not any(env.apply(root, t).closed for t in tactics), proposition
