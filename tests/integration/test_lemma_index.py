"""The lemma index on real Coq 8.16: `Search` finds the stdlib lemmas a competition proof names,
and a candidate made from them closes a real goal whose proof then verifies from scratch."""

from __future__ import annotations

import pytest

from lean_interface.coq import CoqEnv, theorem_from_proposition
from search.lemma_candidates import LemmaCandidates
from search.lemma_index import IndexedLemma, build_index

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def index() -> list[IndexedLemma]:
    return build_index(("sqrt", "Rabs", "Nat.modulo"))


def test_search_finds_the_known_stdlib_lemmas(index: list[IndexedLemma]) -> None:
    found = {lemma.name: lemma for lemma in index}
    # names and shapes as Coq 8.16.1 prints them (checked by running coqtop)
    assert found["sqrt_sqrt"].equation and found["sqrt_sqrt"].premises == 1
    assert not found["Rabs_pos"].equation and found["Rabs_pos"].premises == 0
    assert found["Nat.mod_mod"].equation and found["Nat.mod_mod"].symbols == ("Nat.modulo",)
    assert "Rabs" in found["sqrt_Rsqr_abs"].symbols and "sqrt" in found["sqrt_Rsqr_abs"].symbols
    assert not any(name.startswith("ZifyInst.") for name in found)


def test_an_unknown_symbol_contributes_nothing() -> None:
    assert build_index(("no_such_function_here",)) == []


def test_a_candidate_closes_a_real_goal_and_the_proof_verifies(index: list[IndexedLemma]) -> None:
    theorem = theorem_from_proposition("forall x : R, 0 <= x -> sqrt x * sqrt x = x", name="lemma_candidate",
                                       header="Require Import Reals.\nOpen Scope R_scope.")
    with CoqEnv(timeout=10.0) as env:
        root = env.start(theorem)
        [goal] = env.apply(root, "intros.").goals
        offered = LemmaCandidates(index, 8).tactics_for(goal.text)
        closing, left = None, 0
        for tactic in offered:
            result = env.apply(goal, tactic)
            if result.ok and all(env.apply(side, "assumption.").closed for side in result.goals):
                closing, left = tactic, len(result.goals)
                break
        assert closing is not None, f"no candidate closed {goal.text!r}: {offered}"
        assert closing.startswith(("apply sqrt_", "rewrite sqrt_"))
        script = " ".join(["intros.", closing, *["assumption."] * left])
        verdict = env.verify(theorem, script)
        assert verdict.ok, verdict.message
