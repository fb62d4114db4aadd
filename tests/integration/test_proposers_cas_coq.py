"""The CAS proposers on real Coq: each closes a generic goal of its shape (written here, not a
competition statement) with one of its tactics, and the proof verifies from scratch (module
compile + statement check + coqchk + axiom audit); a goal whose CAS answer would be false gets no
proposal that closes it."""

from __future__ import annotations

import pytest

from lean_interface.coq import CoqEnv, theorem_from_proposition
from search.proposers.linear_combination import LINEAR_COMBINATION
from search.proposers.solve_assert import SOLVE_ASSERT
from search.proposers.witnesses import WITNESSES
from proposer_checks import assert_closes_and_verifies

pytestmark = pytest.mark.integration

REALS = "Require Import Reals.\nOpen Scope R_scope."
ARITH = "Require Import Arith."
ZARITH = "Require Import ZArith.\nOpen Scope Z_scope."
CLOSES = [
    ("solve_linear", SOLVE_ASSERT, "forall u v : R, 2 * u - v = 4 -> u + v = 11 -> u ^ 2 + v ^ 2 = 61", REALS),
    ("solve_nat_quadratic", SOLVE_ASSERT, "forall m : nat, 2 * m * m + m = 21 -> m * m * m = 27", ARITH),
    ("solve_roots", SOLVE_ASSERT, "forall t : R, t ^ 2 + 12 = 7 * t -> t = 3 \\/ t = 4", REALS),
    ("solve_cubic_one_real_root", SOLVE_ASSERT, "forall s w : R, s ^ 3 = 8 -> w = s + 1 -> w = 3", REALS),
    ("combination_symmetric", LINEAR_COMBINATION,
     "forall p q : R, p + q = 5 -> p * q = 6 -> p ^ 3 + q ^ 3 = 35", REALS),
    ("combination_integer", LINEAR_COMBINATION, "forall m n : Z, m * n = 4 -> m + n = 5 -> m ^ 2 * n + m * n ^ 2 = 20",
     ZARITH),
    ("witness_real", WITNESSES, "exists t : R, 3 * t - 2 = 10 /\\ 0 < t", REALS),
    ("witness_pair", WITNESSES, "exists m n : nat, m + n = 9 /\\ m * n = 20", ARITH),
    ("witness_term", WITNESSES, "forall c : R, 0 < c -> exists t : R, t * c = c * c + c", REALS),
    ("witness_sqrt", WITNESSES, "exists t : R, t * t = 3 /\\ 0 < t", REALS),
]


@pytest.fixture(scope="module")
def env():
    with CoqEnv(timeout=10.0) as coq:
        yield coq


@pytest.mark.parametrize("label, proposer, proposition, header", CLOSES, ids=[c[0] for c in CLOSES])
def test_a_cas_proposer_closes_its_shape_and_the_proof_verifies(env: CoqEnv, label, proposer, proposition,
                                                                header) -> None:
    assert_closes_and_verifies(env, f"cas_{label}", [proposer], proposition, header)


def test_the_progress_step_asserts_a_true_value(env: CoqEnv) -> None:
    theorem = theorem_from_proposition("forall x y : R, x + y = 7 -> 3 * x + y = 45 -> x * y < 0",
                                       name="cas_progress", header=REALS)
    root = env.start(theorem)
    step = "timeout 3 (intros; assert (hx_val : (x = 19)%R) by lra)."
    assert step in SOLVE_ASSERT.tactics(root.text)
    result = env.apply(root, step)
    assert result.ok and not result.closed and "hx_val : x = 19" in result.goals[0].text


FALSE = [
    # the conclusion is false at the only solution: no sentence of the proposer may close it
    (SOLVE_ASSERT, "forall x : R, 2 * x = 6 -> x = 4", REALS),
    # not of the shape: no equation to solve
    (SOLVE_ASSERT, "forall x : R, 0 < x -> 0 < x + 1", REALS),
    (LINEAR_COMBINATION, "forall a b : R, a + b = 5 -> a * b = 6 -> a = 1", REALS),
    (WITNESSES, "exists k : nat, k * k = 8", ARITH),
    (WITNESSES, "forall c : R, 0 < c -> exists t : R, t * c = 1 /\\ t < 0", REALS),
]


@pytest.mark.parametrize("proposer, proposition, header", FALSE)
def test_no_closing_proposal_where_the_cas_answer_would_be_false(env: CoqEnv, proposer, proposition,
                                                                  header) -> None:
    theorem = theorem_from_proposition(proposition, name="cas_negative", header=header)
    root = env.start(theorem)
    assert not any(env.apply(root, t).closed for t in proposer.tactics(root.text))
