"""ttrl.lemmas on real Coq and a real miniF2F-rocq *train* problem: an open goal of the target becomes
a subgoal variant, the variant's proof (its own hypothesis names, one subgoal or several) becomes one
closing tactic, that tactic closes exactly the goal it came from, and a target proof using it passes
the kernel check and axiom audit from scratch; the same goal reached under other names finds it too."""

from __future__ import annotations

from pathlib import Path

import pytest

from lean_interface.api import ProofStep, Theorem
from lean_interface.coq import CoqEnv
from lean_interface.problems.benchmarks import is_dev_problem, load_benchmark
from ttrl import variants as V
from ttrl.lemmas import LemmaTable, closing_tactic

pytestmark = pytest.mark.integration

NAME = "mathd_algebra_181"   # forall n : R, n <> 3 -> (n + 5) / (n - 3) = 2 -> n = 11


def _chain(*tactics: str) -> ProofStep:
    step = ProofStep(tactics[-1])
    for tactic in reversed(tactics[:-1]):
        step = ProofStep(tactic, (step,))
    return step


#: proofs of the subgoal variant, with names unlike the target's (a b c d for n h0 h1 h2)
STRAIGHT = _chain("intros a b c d", "apply (Rmult_eq_compat_r (a - 3)) in c", "unfold Rdiv in c",
                  "rewrite Rmult_assoc, Rinv_l in c by exact d", "lra")
BRANCHING = ProofStep("intros a b c d", (ProofStep("assert (e : a + 5 = 2 * (a - 3))", (
    _chain("apply (Rmult_eq_compat_r (a - 3)) in c", "unfold Rdiv in c",
           "rewrite Rmult_assoc, Rinv_l in c by exact d", "lra"),
    ProofStep("lra"))),))


@pytest.fixture(scope="module")
def env():
    with CoqEnv(timeout=10.0) as coq:
        yield coq


@pytest.fixture(scope="module")
def target() -> Theorem:
    assert not is_dev_problem(NAME), f"{NAME} is in the dev subset: measuring only"
    return next(p.theorem for p in load_benchmark("minif2f-rocq-train") if p.name == NAME)


@pytest.mark.parametrize("variant_proof", [STRAIGHT, BRANCHING], ids=["straight", "branching"])
def test_a_proved_subgoal_variant_closes_its_goal_and_the_target_proof_verifies(
        env: CoqEnv, target: Theorem, variant_proof: ProofStep, tmp_path: Path) -> None:
    intros = env.apply(env.start(target), "intros n h0 h1")
    asserted = env.apply(intros.goals[0], "assert (h2 : n - 3 <> 0) by lra")
    goal = asserted.goals[0]
    assert goal.text == "n : R\nh0 : n <> 3\nh1 : (n + 5) / (n - 3) = 2\nh2 : n - 3 <> 0\n⊢ n = 11"
    (variant,) = V.from_subgoals(target, [goal.text], env=env)
    assert variant.kind == "subgoal" and variant.goal == goal.text

    script = env.render(variant.theorem, variant_proof)
    assert env.verify(variant.theorem, script).ok          # the variant is proved on its own
    tactic = closing_tactic(variant.proposition, script)

    closed = env.apply(goal, tactic)
    assert closed.error is None and closed.goals == ()
    # the same goal reached with other names: the table finds the tactic and it closes that goal too
    table = LemmaTable(tmp_path / "lemmas.json")
    table.add(goal.text, tactic, origin=variant.theorem.name)
    renamed = env.apply(env.apply(env.start(target), "intros m g0 g1").goals[0],
                        "assert (g2 : m - 3 <> 0) by lra").goals[0]
    assert renamed.text != goal.text and table.tactics_for(renamed.text) == [tactic]
    assert env.apply(renamed, tactic).goals == () and env.apply(renamed, tactic).error is None
    # another goal (without h2) is not the variant's statement: the tactic fails there
    assert env.apply(intros.goals[0], tactic).error is not None

    proof = ProofStep("intros n h0 h1", (ProofStep("assert (h2 : n - 3 <> 0) by lra", (ProofStep(tactic),)),))
    verdict = env.verify(target, env.render(target, proof))
    assert verdict.ok, verdict.message
    assert not any("admit" in axiom.lower() for axiom in verdict.axioms)


def test_a_wrong_variant_proof_gives_a_tactic_that_fails(env: CoqEnv, target: Theorem) -> None:
    intros = env.apply(env.start(target), "intros n h0 h1")
    goal = env.apply(intros.goals[0], "assert (h2 : n - 3 <> 0) by lra").goals[0]
    (variant,) = V.from_subgoals(target, [goal.text], env=env)
    wrong = env.render(variant.theorem, _chain("intros a b c d", "lra"))   # lra alone cannot clear the division
    assert not env.verify(variant.theorem, wrong).ok
    assert env.apply(goal, closing_tactic(variant.proposition, wrong)).error is not None


# ---- bridged variants: a hypothesis instantiated, the variant proved, the target closed -----------

BRIDGED = "amc12a_2013_p7"   # s (n+2) = s (n+1) + s n, s 9 = 110, s 7 = 42 ⊢ s 4 = 10


def test_a_proved_bridged_variant_closes_the_target_root_and_the_proof_verifies(env: CoqEnv, tmp_path: Path) -> None:
    from search.outcome import Outcome
    from selfplay.episode import Episode
    from ttrl.lemmas import record_lemma
    from ttrl.report import VARIANT_PREFIX

    assert not is_dev_problem(BRIDGED), f"{BRIDGED} is in the dev subset: measuring only"
    target = next(p.theorem for p in load_benchmark("minif2f-rocq-train") if p.name == BRIDGED)
    root = env.start(target)
    variants = V.bridged_variants(target, env=env)
    assert variants and all(v.kind == "instantiate" and v.bridge and v.origin == root.text for v in variants)
    # every variant is the goal its bridge reaches, closed: the bridge really leads there
    for variant in variants:
        reached = env.apply(root, variant.bridge)
        assert reached.error is None and len(reached.goals) == 1 and reached.goals[0].text == variant.goal
    unrolled = next(v for v in variants if "every value" in v.description)
    one = next(v for v in variants if "every value" not in v.description)

    # the unrolled recurrence is linear arithmetic; one instance alone is not enough
    proved = env.render(unrolled.theorem, ProofStep("intros", (ProofStep("lra"),)))
    assert env.verify(unrolled.theorem, proved).ok
    assert not env.verify(one.theorem, env.render(one.theorem, ProofStep("intros", (ProofStep("lra"),)))).ok
    assert env.apply(root, "intros; lra").error is not None          # nor is the target as it stands

    table = LemmaTable(tmp_path / "lemmas.json")
    episode = Episode(f"{VARIANT_PREFIX}{unrolled.theorem.name}", "variant", False, Outcome.PROVED, proved)
    assert record_lemma(table, variants, episode) == unrolled.theorem.name
    (tactic,) = table.tactics_for(root.text)
    closed = env.apply(root, tactic)
    assert closed.error is None and closed.goals == ()
    verdict = env.verify(target, env.render(target, ProofStep(tactic)))
    assert verdict.ok, verdict.message
    assert table.used_in(env.render(target, ProofStep(tactic))) == [unrolled.theorem.name]
