"""Each automation family closes a goal of its kind on real Coq, and the proof verifies from scratch
(module compile + statement check + coqchk + axiom audit). psatz needs CSDP (`make setup`)."""

from __future__ import annotations

import shutil

import pytest

from lean_interface.coq import CoqEnv, theorem_from_proposition
from search.automation import family_tactics

pytestmark = pytest.mark.integration

REALS = "Require Import Reals.\nOpen Scope R_scope."
CASES = [
    ("hints", "forall a b : R, 0 < a -> 0 < b -> a ^ 4 + b ^ 4 >= a ^ 3 * b + a * b ^ 3", REALS),
    ("psatz", "forall x y : R, x ^ 2 + y ^ 2 >= 2 * x * y", REALS),
    ("cases", "forall x y : R, Rabs (x - y) <= Rabs x + Rabs y", REALS),
    ("rewrite", "forall (a : R) (f : R -> R), (forall x, f x = 3 * x + a) -> f 2 = 7 -> f 5 = 16", REALS),
]


@pytest.fixture(scope="module")
def env():
    with CoqEnv(timeout=10.0) as coq:
        yield coq


@pytest.mark.parametrize("family, proposition, header", CASES, ids=[c[0] for c in CASES])
def test_a_family_closes_its_kind_of_goal_and_the_proof_verifies(env: CoqEnv, family: str, proposition: str,
                                                                  header: str) -> None:
    assert shutil.which("csdp"), "CSDP (coinor-csdp) is installed by `make setup`"
    theorem = theorem_from_proposition(proposition, name=f"family_{family}", header=header)
    root = env.start(theorem)
    mine = [tactic for tactic, name in family_tactics(root.text) if name == family]
    assert mine, f"the {family} family offers nothing for {proposition}"
    closing = next((t for t in mine if env.apply(root, t).closed), None)
    assert closing is not None, f"no {family} tactic closed {proposition}: {mine}"
    verdict = env.verify(theorem, closing)
    assert verdict.ok, verdict.message


@pytest.mark.parametrize("proposition", ["(19 ^ 19 + 99 ^ 99) mod 10 = 8",
                                         "forall n : nat, n mod 9 = 4 -> (5 * n + 2) mod 9 = 4"])
def test_lia_alone_proves_remainder_goals_under_the_prelude(env: CoqEnv, proposition: str) -> None:
    """Why there is no integer/remainder family: with the prelude's ZifyNat, bare lia does it, and
    the proof verifies (under a header that imports neither Lia nor Zify)."""
    theorem = theorem_from_proposition(proposition, name="remainder_by_lia", header="Require Import Arith.")
    root = env.start(theorem)
    assert env.apply(root, "lia.").closed
    verdict = env.verify(theorem, "lia.")
    assert verdict.ok, verdict.message


def test_psatz_without_csdp_fails_in_the_prover_not_in_our_code(tmp_path, monkeypatch) -> None:
    """With no `csdp` on PATH, psatz is an ordinary failed tactic (CsdpNotFound), never a crash."""
    for program in ("coqtop", "csdpcert"):
        found = shutil.which(program)
        if found:
            (tmp_path / program).symlink_to(found)
    monkeypatch.setenv("PATH", str(tmp_path))
    theorem = theorem_from_proposition("forall x y : R, x ^ 2 + y ^ 2 >= 2 * x * y", name="no_csdp", header=REALS)
    with CoqEnv(timeout=10.0) as coq:
        root = coq.start(theorem)
        result = coq.apply(root, "timeout 3 (intros; psatz R 2).")
        assert not result.closed and result.error is not None
