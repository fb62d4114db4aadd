"""The searches against real Coq: MCTS with the fixed evaluator proves small theorems, the script
is checked by `coqc` (via `solve`), and the proofs have the expected shape (AND split, induction)."""

from __future__ import annotations

import random
import shutil

import pytest

from lean_interface.coq.axioms import CLASSICAL
from search.config import Budget, MCTSConfig
from search.evaluator import Evaluation
from search.fixed_evaluator import COQ_VOCABULARY, FixedTacticEvaluator, TacticVocabulary
from search.solve import Method, SearchSettings, solve
from search.tree import Status

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("coqtop") is None, reason="Coq is not installed"),
]

coq = pytest.importorskip("lean_interface.coq")

BUDGET = Budget(max_simulations=300, max_seconds=60)

#: no automation at all: the search itself must split, introduce, induct and rewrite
BARE = TacticVocabulary(
    generic=("intros", "split", "simpl", "reflexivity"),
    inductive=("induction {h}",),
    case_only=(),
    hypothesis=("exact {h}", "apply {h}"),
    equation=("rewrite {h}",),
    rewrite_in="rewrite {h} in {g}",
    inductive_types=COQ_VOCABULARY.inductive_types,
    case_types=(),
    data_types=COQ_VOCABULARY.data_types,
)


@pytest.fixture(scope="module")
def env():  # type: ignore[no-untyped-def]
    with coq.CoqEnv(timeout=5.0) as coq_env:
        yield coq_env


def test_mcts_proves_a_conjunction_by_splitting(env) -> None:  # type: ignore[no-untyped-def]
    theorem = coq.theorem_from_proposition("forall P Q : Prop, P -> Q -> P /\\ Q", name="and_intro_demo",
                                           header="")
    outcome = solve(theorem, env, FixedTacticEvaluator(BARE), Method.MCTS, SearchSettings(), BUDGET,
                    random.Random(0))
    assert outcome.proved, outcome.stats.as_dict()
    assert outcome.verdict is not None and outcome.verdict.ok
    assert set(outcome.verdict.axioms) <= set(CLASSICAL)  # the prelude's Reals, nothing else
    assert outcome.script is not None and "split." in outcome.script
    assert "Qed." in outcome.verdict.script
    tree = outcome.tree
    assert tree is not None
    tree.check_invariants()
    split_edges = [e for n in tree.nodes for e in n.edges if e.tactic == "split." and e.status is Status.PROVED]
    assert split_edges and len(split_edges[0].children) == 2  # the AND node: both halves proved


def test_mcts_proves_n_plus_zero_by_induction(env) -> None:  # type: ignore[no-untyped-def]
    theorem = coq.theorem_from_proposition("forall n : nat, n + 0 = n", name="plus_n_O_demo", header="")
    outcome = solve(theorem, env, FixedTacticEvaluator(BARE), Method.MCTS, SearchSettings(), BUDGET)
    assert outcome.proved, outcome.stats.as_dict()
    assert outcome.script is not None and "induction n" in outcome.script and "rewrite IHn" in outcome.script
    assert outcome.verdict is not None and outcome.verdict.ok
    assert outcome.stats.prover_calls > 0 and outcome.stats.evaluator_calls > 0


def test_full_fixed_evaluator_and_every_method(env) -> None:  # type: ignore[no-untyped-def]
    theorem = coq.theorem_from_proposition("forall a b : nat, a <= b -> a < S b", name="lt_succ_demo")
    for method in Method:
        evaluator = FixedTacticEvaluator() if method.needs_evaluator else None
        outcome = solve(theorem, env, evaluator, method, SearchSettings(mcts=MCTSConfig(num_parallel=4)), BUDGET)
        assert outcome.proved and outcome.verdict is not None and outcome.verdict.ok, method
        assert outcome.incident == ""


def test_a_false_statement_is_not_proved(env) -> None:  # type: ignore[no-untyped-def]
    theorem = coq.theorem_from_proposition("forall n : nat, n + 1 = n", name="false_demo")
    outcome = solve(theorem, env, FixedTacticEvaluator(), Method.MCTS, SearchSettings(),
                    Budget(max_simulations=60, max_seconds=30))
    assert not outcome.proved and outcome.script is None and outcome.incident == ""


class _Spellings:
    """Proposes one Coq tactic in two spellings (as the automation list and the network did)."""

    def evaluate(self, requests):  # type: ignore[no-untyped-def]
        return [Evaluation((("intros; lra.", -7.0), ("intros; lra", -21.1), ("intros;  lra", -30.0)), -1.0)
                if r.round == 0 else Evaluation((), -1.0) for r in requests]


def test_two_spellings_of_a_tactic_reach_coq_once(env) -> None:  # type: ignore[no-untyped-def]
    theorem = coq.theorem_from_proposition("forall x : R, x + 1 > x", name="lra_once_demo",
                                           header="Require Import Reals Lra. Open Scope R_scope.")
    sent: list[str] = []
    real_apply_many = env.apply_many

    def counting(requests):  # type: ignore[no-untyped-def]
        sent.extend(tactic for _, tactic in requests)
        return real_apply_many(requests)

    env.apply_many = counting
    try:
        outcome = solve(theorem, env, _Spellings(), Method.MCTS, SearchSettings(), BUDGET)
    finally:
        del env.apply_many
    assert outcome.proved and outcome.verdict is not None and outcome.verdict.ok
    assert sent == ["intros; lra."] and outcome.stats.prover_calls == 1
    assert outcome.script is not None and "intros; lra." in outcome.script
