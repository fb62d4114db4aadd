"""One tactic form everywhere: each language's canonical form, the network scoring candidates only
in the form its training data has, the search sending two spellings of a tactic once, and the
records made from the tree holding the canonical form."""

from __future__ import annotations

from typing import Sequence

import pytest
import torch

import networks.sampling as sampling
from fake_env import TableEnv, TableEvaluator
from lean_interface.api import Goal
from lean_interface.tactic_form import coq_tactic, lean_tactic, tactic_form
from networks.dataset import Example
from networks.evaluator import NetworkEvaluator
from networks.model import ProverModel, ProverModelConfig
from networks.sampling import score_tactics
from networks.tokenizer import ProofTokenizer
from search.action_set import MixedEvaluator
from search.config import Budget, MCTSConfig
from search.evaluator import EvalRequest, rank_tactics
from search.fixed_evaluator import FixedTacticEvaluator
from search.mcts import run_mcts
from selfplay.targets import episode_records

#: a miniature of the supervised data: every tactic as `alphaprover extract` writes it
DATA = [Example("x : R\n⊢ x + 1 > x", "lra.", 1), Example("n : nat\n⊢ n + 0 = n", "lia.", 1),
        Example("P : Prop\nHP : P\n⊢ P", "exact HP.", 1), Example("⊢ forall n : nat, n = n", "intros n; reflexivity.", 1)]
GOAL = "x : R\nH : x > 0\n⊢ x + 1 > x"


def test_each_language_has_one_canonical_form() -> None:
    assert [coq_tactic(t) for t in ("lra", "lra.", "  intros;\n  lra ", "intros; lra.")] == \
        ["lra.", "lra.", "intros; lra.", "intros; lra."]
    assert coq_tactic("Qed.") is None and coq_tactic("admit") is None and coq_tactic("lra..") is None
    assert lean_tactic("  linarith ") == "linarith" and lean_tactic("sorry") is None  # Lean: no terminator
    assert tactic_form("coq") is coq_tactic and tactic_form("lean") is lean_tactic
    with pytest.raises(ValueError, match="no tactic form"):
        tactic_form("isabelle")
    assert rank_tactics([("lra", -21.1), ("lra.", -7.0), ("lia", -6.8), ("admit", 0.0)], coq_tactic) == \
        [("lia.", -6.8), ("lra.", -7.0)]


def test_two_spellings_of_a_tactic_reach_the_prover_once_and_records_hold_the_canonical_one() -> None:
    table = {("A", "lra."): [], ("A", "intros."): ["B"]}
    proposals = {"A": [("lra", -21.1), ("intros", -3.0), ("lra.", -7.0), ("Qed", -0.5), ("intros.", -9.0)]}
    env = TableEnv(table, form=coq_tactic)
    result = run_mcts(Goal("A", "A"), env, TableEvaluator(proposals), MCTSConfig(num_parallel=1),
                      Budget(max_simulations=5))
    assert result.proved
    assert sorted(env.calls) == [("A", "intros."), ("A", "lra.")]  # `Qed` is refused: never sent
    edges = {e.tactic: e.logprob for e in result.tree.root.edges}
    assert edges == {"intros.": -3.0, "lra.": -7.0}  # each spelling's best log-prob
    assert result.stats.prover_calls == 2
    assert [r.tactic for r in episode_records(result.tree, "test") if r.tactic] == ["lra."]


@pytest.fixture(scope="module")
def tiny() -> tuple[ProverModel, ProofTokenizer]:
    """An untrained tiny model: its prices are arbitrary, the form of what it scores is not."""
    torch.manual_seed(0)
    tokenizer = ProofTokenizer.train([t for e in DATA for t in (e.goal, e.tactic)] * 4, vocab_size=300)
    config = ProverModelConfig(vocab_size=tokenizer.vocab_size, d_model=32, d_ff=64, num_heads=2, encoder_layers=1,
                               decoder_layers=1, dropout=0.0, max_goal_tokens=64, max_tactic_tokens=16)
    return ProverModel(config).eval(), tokenizer


def test_mixed_candidates_are_scored_only_in_the_form_the_data_has(tiny, monkeypatch: pytest.MonkeyPatch) -> None:
    model, tokenizer = tiny
    assert all(coq_tactic(e.tactic) == e.tactic for e in DATA)  # the data's form is the canonical one
    scored: list[str] = []
    real_rows = sampling.candidate_rows

    def spy(tokenizer: ProofTokenizer, max_tokens: int, tactics_per_goal: Sequence[Sequence[str]],  # type: ignore[no-untyped-def]
            goals: Sequence[str]):
        scored.extend(t for group in tactics_per_goal for t in group)
        return real_rows(tokenizer, max_tokens, tactics_per_goal, goals)

    monkeypatch.setattr(sampling, "candidate_rows", spy)
    fixed = FixedTacticEvaluator()

    def candidates(goal: str) -> list[str]:   # the automation list, plus spellings without the dot
        return [*fixed.tactics_for(goal), "lra", "intros;  nra"]

    mixed = MixedEvaluator(NetworkEvaluator(model, tokenizer, seed=3), candidates)
    answer = mixed.evaluate([EvalRequest(GOAL, 8, 0)])[0]
    off_form = [t for t in scored if coq_tactic(t) != t]
    assert scored and not off_form, f"scored in a form the training data never has: {off_form}"
    names = [t for t, _ in answer.tactics]
    assert {"lra.", "intros; nra."} <= set(names) and "lra" not in names and len(names) == len(set(names))
    assert all(coq_tactic(t) == t for t in names)
    (reference,) = score_tactics(model, tokenizer, [GOAL], [["lra."]])[0]
    assert dict(answer.tactics)["lra."] == pytest.approx(reference, abs=1e-4)


def test_lean_evaluator_keeps_lean_tactics_without_a_dot(tiny) -> None:
    model, tokenizer = tiny
    evaluator = NetworkEvaluator(model, tokenizer, language="lean")
    answer = evaluator.evaluate([EvalRequest("x : ℝ\n⊢ x + 1 > x", 0, 0, (" linarith ", "linarith", "sorry"))])[0]
    assert [t for t, _ in answer.tactics] == ["linarith"]


def test_network_cache_is_keyed_on_canonical_candidates(tiny) -> None:
    model, tokenizer = tiny
    evaluator = NetworkEvaluator(model, tokenizer)
    first = evaluator.evaluate([EvalRequest(GOAL, 0, 0, ("lra", "lia."))])[0]
    again = evaluator.evaluate([EvalRequest(GOAL, 0, 0, ("lia", "lra."))])[0]
    assert evaluator.network_calls == 1 and evaluator.cache_hits == 1 and again == first
    assert sorted(t for t, _ in first.tactics) == ["lia.", "lra."]

