"""CoqEnv on real Coq: goals in any order, AND splits, coupling, failures, time limits, crashes."""

from __future__ import annotations

import os
import signal

import pytest

from lean_interface.api import EnvError, ProofStep
from lean_interface.coq.axioms import CLASSICAL
from lean_interface.coq import CoqEnv, theorem_from_proposition
from lean_interface.coq.process import CoqProcess, exhausted

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def env():
    with CoqEnv(timeout=2.0) as coq:
        yield coq


def test_induction_proof_in_any_order_and_verified(env: CoqEnv) -> None:
    thm = theorem_from_proposition("forall n m : nat, n + m = m + n", name="add_comm_demo")
    root = env.start(thm)
    assert root.text == "⊢ forall n m : nat, n + m = m + n"
    intro = env.apply(root, "intros n m").goals[0]
    base, step = env.apply(intro, "induction n").goals
    assert step.text == "n, m : nat\nIHn : n + m = m + n\n⊢ S n + m = m + S n"
    assert env.apply(step, "simpl; rewrite IHn; lia").closed      # second goal first
    assert env.apply(base, "simpl").goals[0].text == "m : nat\n⊢ m = m + 0"
    assert env.apply(root, "intros a b").goals[0].text == "a, b : nat\n⊢ a + b = b + a"  # back to the root
    assert env.apply(base, "lia").closed                          # an earlier goal again
    proof = ProofStep("intros n m", (ProofStep("induction n", (ProofStep("lia"), ProofStep("simpl; rewrite IHn; lia"))),))
    script = env.render(thm, proof)
    assert script == "intros n m.\ninduction n.\n{ lia. }\n{ simpl; rewrite IHn; lia. }"
    verdict = env.verify(thm, script)
    assert verdict.ok and set(verdict.axioms) <= set(CLASSICAL)


def test_a_timeout_step_that_runs_out_in_the_replay_is_told_apart(env: CoqEnv) -> None:
    """coqc's own message for a `timeout` step that ran out is what `search.solve` verifies again
    (`replay_timed_out`); a wrong step is not mistaken for one."""
    from search.solve import replay_timed_out

    thm = theorem_from_proposition("True", name="replay_timeout_demo")
    slow = env.verify(thm, "timeout 1 (repeat (pose proof I)). exact I.")
    assert not slow.ok and replay_timed_out(slow), slow.message
    wrong = env.verify(thm, "exact 0.")
    assert not wrong.ok and not replay_timed_out(wrong), wrong.message
    assert env.verify(thm, "timeout 5 (exact I).").ok


def test_split_gives_independent_goals(env: CoqEnv) -> None:
    thm = theorem_from_proposition("forall P Q : Prop, P -> Q -> P /\\ Q")
    goal = env.apply(env.start(thm), "intros P Q HP HQ").goals[0]
    left, right = env.apply(goal, "split").goals
    assert left.text.endswith("⊢ P") and right.text.endswith("⊢ Q")
    assert env.apply(right, "exact HQ").closed and env.apply(left, "exact HP").closed
    assert not env.apply(left, "exact HQ").ok


def test_goals_sharing_an_evar_stay_coupled(env: CoqEnv) -> None:
    thm = theorem_from_proposition("exists n : nat, n = 0 /\\ 0 = n")
    witness = env.apply(env.start(thm), "eexists").goals[0]
    coupled = env.apply(witness, "split").goals
    assert len(coupled) == 1 and coupled[0].num_goals == 2
    assert coupled[0].text == "⊢ ?n = 0\n\n⊢ 0 = ?n"
    rest = env.apply(coupled[0], "reflexivity").goals
    assert [g.text for g in rest] == ["⊢ 0 = 0"]


def test_no_progress_errors_and_refusals_are_failures(env: CoqEnv) -> None:
    goal = env.start(theorem_from_proposition("forall n : nat, n = n + 1"))
    assert env.apply(goal, "simpl").error == "no progress"
    assert "not found" in env.apply(goal, "apply no_such_lemma").error
    assert env.apply(goal, "admit").error.startswith("refused")


def test_statement_that_does_not_elaborate_is_an_env_error(env: CoqEnv) -> None:
    with pytest.raises(EnvError, match="does not elaborate"):
        env.start(theorem_from_proposition("forall x : real_number, x = x"))


def test_timeout_then_kill_are_survived() -> None:
    with CoqEnv(timeout=1.0) as coq:
        goal = coq.start(theorem_from_proposition("forall n : nat, n + 0 = n"))
        assert coq.apply(goal, "do 100000000 (try reflexivity; try reflexivity)").error == "timeout"
        assert coq.apply(goal, "intros n").ok
        os.kill(coq.pids[0], signal.SIGKILL)
        crashed = coq.apply(goal, "intros n")
        assert crashed.error.startswith("prover crashed")
        assert coq.crashes == 1
        after = coq.apply(goal, "intros n")  # restarted and replayed transparently
        assert after.ok and after.goals[0].text == "n : nat\n⊢ n + 0 = n"


def test_memory_cap_is_in_force_on_coqtop() -> None:
    """RLIMIT_AS is set on every coqtop we start (and survives a restart)."""
    with CoqEnv(memory_mb=1500) as coq:
        goal = coq.start(theorem_from_proposition("True", header=""))
        for _ in range(2):
            limits = open(f"/proc/{coq.pids[0]}/limits", encoding="utf-8").read()
            line = next(l for l in limits.splitlines() if l.startswith("Max address space"))
            assert line.split()[3] == str(1500 * 1024 * 1024)
            os.kill(coq.pids[0], signal.SIGKILL)
            coq.apply(goal, "exact I")  # crash noticed, process restarted
        assert coq.apply(goal, "exact I").closed


def test_out_of_memory_is_a_crash_and_a_tactic_cannot_forge_it(env: CoqEnv) -> None:
    """coqtop's "Out of memory." (the whole reply, as a 2-worker eval recorded it: `header of
    mathd_algebra_48 fails: Out of memory.`) restarts the process; a tactic failing with those
    words is refused by the guard (no strings), and on a bare process it reads "Tactic failure:
    Out of memory.." — an ordinary error on the same, live process."""
    assert exhausted("Out of memory.") and exhausted("Out of memory.\n")
    assert not exhausted(None) and not exhausted("Tactic failure: Out of memory..")
    goal = env.start(theorem_from_proposition("forall n : nat, n = n"))
    assert env.apply(goal, 'fail "Out of memory."').error.startswith("refused")
    process = CoqProcess(memory_mb=2000)
    try:
        process.run("Goal forall n : nat, n = n.", timeout=30.0)
        pid = process.pid
        forged = process.run('fail "Out of memory.".', timeout=30.0)
        assert forged.error == "Tactic failure: Out of memory.." and process.alive and process.pid == pid
        assert process.run("intros n.", timeout=30.0).error is None
    finally:
        process.close()


def test_pool_applies_in_parallel() -> None:
    with CoqEnv(pool_size=2) as coq:
        goal = coq.start(theorem_from_proposition("forall n : nat, n + 0 = n"))
        results = coq.apply_many([(goal, "intros n"), (goal, "lia"), (goal, "nonsense_tactic"), (goal, "intros")])
        assert [r.ok for r in results] == [True, True, False, True]
        assert results[1].closed
