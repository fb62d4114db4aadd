"""ttrl.lemmas without a prover: scripts read back into the trees the Coq backend rendered them from,
trees as one Ltac sentence, the lemma table on disk, and the evaluator wrapper that offers a known
proof first. (tests/integration/test_ttrl_lemmas.py runs the tactics on real Coq.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lean_interface.api import ProofStep
from lean_interface.coq.env import _render_lines
from lean_interface.coq.guard import normalise_tactic
from search.evaluator import EvalRequest, Evaluation
from ttrl.lemmas import (REVERT_ALL, LemmaTable, ScriptError, WithLemmas, closing_tactic, goal_key, one_tactic,
                         script_tree)

TREES = [
    ProofStep("lia"),
    ProofStep("intros x h", (ProofStep("nra"),)),
    ProofStep("intros", (ProofStep("split", (ProofStep("lra"), ProofStep("apply Rmult_lt_0_compat",
                                                                       (ProofStep("lra"), ProofStep("lra"))))),)),
    ProofStep("destruct n as [|n]", (ProofStep("simpl", (ProofStep("lia"),)), ProofStep("lia"))),
]


@pytest.mark.parametrize("tree", TREES)
def test_script_tree_reads_back_what_the_coq_backend_renders(tree: ProofStep) -> None:
    assert script_tree("\n".join(_render_lines(tree, 0))) == tree


@pytest.mark.parametrize("script", ["", "{ lia. }", "split. { lra. }", "split. { lra. } { lra.", "lia. }",
                                    "split. { lra. } lia. lia."])
def test_script_tree_refuses_other_shapes(script: str) -> None:
    with pytest.raises(ScriptError):
        script_tree(script)


def test_one_tactic_dispatches_subgoals_in_order() -> None:
    assert one_tactic(TREES[0]) == "(lia)"
    assert one_tactic(TREES[1]) == "(intros x h); ((nra))"
    assert one_tactic(TREES[3]) == "(destruct n as [|n]); [((simpl); ((lia))) | ((lia))]"


def test_closing_tactic_is_one_sentence_the_guard_admits() -> None:
    script = "\n".join(_render_lines(TREES[2], 0))
    tactic = closing_tactic("forall x y : R,\n  0 < x -> 0 < y -> x + y > 0 /\\ x * y > 0", script)
    assert tactic.startswith(f"({REVERT_ALL}); change (forall x y : R, 0 < x -> 0 < y -> x + y > 0 /\\ x * y > 0); ")
    assert normalise_tactic(tactic) == tactic + "."


def test_lemma_table_persists_deduplicates_and_reloads_on_change(tmp_path: Path) -> None:
    path = tmp_path / "t" / "lemmas.json"
    writer, reader = LemmaTable(path), LemmaTable(path)
    assert len(reader) == 0 and reader.tactics_for("⊢ x = 1") == []
    assert writer.add("x : R\n⊢ x = 1", "(lra)") and not writer.add("x : R\n⊢ x = 1", "(lra)")
    assert writer.add("x : R\n⊢ x = 1", "(nra)") and writer.add("⊢ 2 = 2", "(reflexivity)")
    assert json.loads(path.read_text())["lemmas"]["_k0 : R\n⊢ _k0 = 1"] == ["(lra)", "(nra)"]
    reader.reload()
    assert reader.tactics_for("x : R\n⊢ x = 1") == ["(lra)", "(nra)"] and len(reader) == 2


def test_goal_key_forgets_hypothesis_and_variable_names_only() -> None:
    goal = "n : R\nh0 : n <> 3\nh1 : (n + 5) / (n - 3) = 2\n⊢ n = 11"
    renamed = "m : R\nH : m <> 3\nH0 : (m + 5) / (m - 3) = 2\n⊢ m = 11"
    assert goal_key(goal) == goal_key(renamed) == "_k0 : R\n_k1 : _k0 <> 3\n_k2 : (_k0 + 5) / (_k0 - 3) = 2\n⊢ _k0 = 11"
    assert goal_key("n : R\nh0 : n <> 3\n⊢ n = 12") != goal_key("n : R\nh0 : n <> 3\n⊢ n = 11")
    assert goal_key("n, m : nat\n⊢ n <= m") != goal_key("n, m : nat\n⊢ m <= n")
    assert goal_key("x, y : nat\nf := fun k => k + x : nat -> nat\n⊢ f y = y") == \
        goal_key("a, b : nat\ng := fun k => k + a : nat -> nat\n⊢ g b = b")
    assert goal_key("⊢ ?n = 0\n\n⊢ 0 = ?n") == "⊢ ?n = 0\n\n⊢ 0 = ?n"     # coupled goals: the text itself
    table = LemmaTable(Path("/nonexistent/lemmas.json"))
    table.entries[goal_key(goal)] = ["(lra)"]
    assert table.tactics_for(renamed) == ["(lra)"]


def test_lemma_table_names_the_variants_a_proof_replays(tmp_path: Path) -> None:
    table = LemmaTable(tmp_path / "lemmas.json")
    table.add("x : R\n⊢ x = 1", "(intros a b); ((lra))", origin="t_sg1_1")
    table.add("⊢ 2 = 2", "(reflexivity)", origin="t_sg2_1")
    proof = "intros x h.\nsplit.\n{ (intros  a b);\n ((lra)). }\n{ lia. }"
    assert table.used_in(proof) == ["t_sg1_1"] == LemmaTable(tmp_path / "lemmas.json").used_in(proof)
    assert table.used_in("lia.") == []


class Policy:
    """Answers every goal with one sample and value −5; records what it was asked."""

    def __init__(self) -> None:
        self.asked: list[EvalRequest] = []

    def evaluate(self, requests):
        self.asked.extend(requests)
        return [Evaluation((("lia", -0.5), ("(lra)", -9.0)), -5.0) for _ in requests]


def test_with_lemmas_offers_the_known_proof_first_at_round_zero_only(tmp_path: Path) -> None:
    table = LemmaTable(tmp_path / "lemmas.json")
    policy = Policy()
    evaluator = WithLemmas(policy, LemmaTable(tmp_path / "lemmas.json"))
    requests = [EvalRequest("x : R\n⊢ x = 1", 4, 0), EvalRequest("⊢ 2 = 2", 4, 0), EvalRequest("x : R\n⊢ x = 1", 4, 1)]
    before = evaluator.evaluate(requests)
    assert [a.tactics for a in before] == [(("lia", -0.5), ("(lra)", -9.0))] * 3
    table.add("x : R\n⊢ x = 1", "(lra)")       # written by the session; the actor's copy reloads it
    known, other, later = evaluator.evaluate(requests)
    assert known.tactics == (("(lra)", 0.0), ("lia", -0.5)) and known.value == -1.0
    assert other == later == Evaluation((("lia", -0.5), ("(lra)", -9.0)), -5.0)
    assert policy.asked == requests * 2         # the policy still answers every request, unchanged
