"""Lemma candidates, pure: `Search` lines parsed, goal and lemma heads, ranking, rendering, the
cache, and the wiring into mixed mode and eval labels (no Coq: the index is written by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alphaprover.config import UsageError
from alphaprover.eval_runner import parse_method_label, split_lemmas
from alphaprover.policy_config import LEMMAS_LABEL_DEFAULT
from alphaprover.runtime import build_evaluator, lemma_count
from lean_interface.coq.guard import canonical_tactic
from search import lemma_index
from search.action_set import ActionMode, MixedEvaluator, action_evaluator
from search.evaluator import EvalRequest
from search.lemma_candidates import LemmaCandidates, goal_heads, lemma_facts, render
from search.lemma_index import IndexedLemma, cache_key, load_index, parse_result
from search.solve import Method
from tests.test_action_set import ScoringPolicy

#: `Search` lines as Coq 8.16 prints them (copied from its output under `Set Printing Width 1000`)
LINES = {
    "sqrt_sqrt": "sqrt_sqrt: forall x : R, (0 <= x)%R -> (sqrt x * sqrt x)%R = x",
    "sqrt_def": "sqrt_def: forall x : R, (0 <= x)%R -> (sqrt x * sqrt x)%R = x",
    "sqrt_pos": "sqrt_pos: forall x : R, (0 <= sqrt x)%R",
    "sqrt_lt_R0": "sqrt_lt_R0: forall x : R, (0 < x)%R -> (0 < sqrt x)%R",
    "sqrt2_neq_0": "sqrt2_neq_0: sqrt 2 <> 0%R",
    "sqrt_0": "sqrt_0: sqrt 0 = 0%R",
    "sqrt_Rsqr_abs": "sqrt_Rsqr_abs: forall x : R, sqrt x² = Rabs x",
    "Nat.mod_mod": "Nat.mod_mod: forall a n : nat, n <> 0%nat -> ((a mod n) mod n)%nat = (a mod n)%nat",
    "Z.mod_mod": "Z.mod_mod: forall a n : Z, n <> 0 -> (a mod n) mod n = a mod n",
    "Nat.mod_upper_bound": "Nat.mod_upper_bound: forall a b : nat, b <> 0%nat -> (a mod b < b)%nat",
    "Z.mod_pos_bound": "Z.mod_pos_bound: forall a b : Z, 0 < b -> 0 <= a mod b < b",
    "Z.pow_0_r": "Z.pow_0_r: forall a : Z, a ^ 0 = 1",
    "Z.pow_2_r": "Z.pow_2_r: forall a : Z, a ^ 2 = a * a",
    "ln_increasing": "ln_increasing: forall x y : R, (0 < x)%R -> (x < y)%R -> (ln x < ln y)%R",
    "ln_exp": "ln_exp: forall x : R, ln (exp x) = x",
}


def lemma(name: str, symbol: str = "sqrt") -> IndexedLemma:
    parsed = parse_result(LINES[name], symbol)
    assert parsed is not None, name
    return parsed


def test_a_search_line_becomes_a_lemma_with_its_shape() -> None:
    sqrt_sqrt = lemma("sqrt_sqrt")
    assert (sqrt_sqrt.name, sqrt_sqrt.premises, sqrt_sqrt.equation, sqrt_sqrt.closed) == ("sqrt_sqrt", 1, True, False)
    assert sqrt_sqrt.statement == LINES["sqrt_sqrt"].split(": ", 1)[1]
    positive = lemma("sqrt_pos")
    assert (positive.premises, positive.equation) == (0, False)
    fact = lemma("sqrt2_neq_0")
    assert (fact.closed, fact.equation, fact.premises) == (True, False, 0)
    bound = lemma("Z.mod_pos_bound", "Z.modulo")  # a chain `0 <= a mod b < b` is a relation, not an equation
    assert (bound.premises, bound.equation) == (1, False)


@pytest.mark.parametrize("line", [
    "sqrt_continuity_pt_R1: continuity_pt sqrt 1",  # a predicate of analysis, not a relation
    "ZifyInst.SatPowNonneg: ZifyClasses.Saturate Z.pow",  # an instance
    "forall x : R, (0 <= sqrt x)%R",  # no name
    "",
])
def test_lines_that_are_not_lemmas_to_offer_are_dropped(line: str) -> None:
    assert parse_result(line, "sqrt") is None


def test_goal_heads_read_notations_and_implied_types() -> None:
    heads = goal_heads("n : nat\nH : n mod 4 = 3\n⊢ n * n mod 4 = 1")
    assert {"mod", "nat"} <= heads and "Z" not in heads
    assert {"sqrt", "R"} <= goal_heads("⊢ sqrt 16 = 4")  # no R printed: sqrt implies it
    assert {"²", "x", "/"} <= goal_heads("x : R\n⊢ x² / 2 >= 0")
    assert {"Z", "Z.of_nat", "nat"} <= goal_heads("⊢ Z.of_nat 3 = 3%Z")


def test_a_lemmas_heads_leave_out_the_names_it_binds() -> None:
    facts = lemma_facts(lemma("sqrt_sqrt"))
    assert facts is not None and facts.heads == {"sqrt", "R"} and facts.core == {"sqrt"}
    facts = lemma_facts(lemma("sqrt_Rsqr_abs"))
    assert facts is not None and facts.core == {"sqrt", "²", "Rabs"}


def candidates(top: int, *names_and_symbols: tuple[str, str]) -> LemmaCandidates:
    return LemmaCandidates([lemma(name, symbol) for name, symbol in names_and_symbols], top)


def test_ranking_relevance_then_equations_then_premises() -> None:
    index = candidates(10, ("sqrt_pos", "sqrt"), ("sqrt_sqrt", "sqrt"), ("sqrt_lt_R0", "sqrt"),
                       ("sqrt_Rsqr_abs", "sqrt"), ("sqrt2_neq_0", "sqrt"), ("sqrt_0", "sqrt"))
    ranked = [found.name for found in index.ranked("x : R\nH : 0 <= x\n⊢ sqrt x * sqrt x = x")]
    # equations first (sqrt_sqrt), then the other relations by premises; sqrt_Rsqr_abs mentions
    # Rabs and ², which the goal does not (tier 1); closed facts about literals the goal lacks last
    assert ranked == ["sqrt_sqrt", "sqrt_pos", "sqrt_lt_R0", "sqrt_Rsqr_abs", "sqrt_0", "sqrt2_neq_0"]
    with_literal = [found.name for found in index.ranked("⊢ 1 / sqrt 2 > 0")]
    assert with_literal.index("sqrt2_neq_0") < with_literal.index("sqrt_0")  # `sqrt 2` occurs: relevant


def test_the_number_type_decides_between_nat_and_z_lemmas() -> None:
    index = candidates(2, ("Z.mod_mod", "Z.modulo"), ("Nat.mod_mod", "Nat.modulo"),
                       ("Nat.mod_upper_bound", "Nat.modulo"), ("Z.mod_pos_bound", "Z.modulo"))
    nat = [found.name for found in index.ranked("n : nat\nH : n mod 4 = 3\n⊢ n * n mod 4 = 1")]
    assert nat == ["Nat.mod_mod", "Nat.mod_upper_bound"]
    integer = [found.name for found in index.ranked("x : Z\n⊢ x mod 4 = 1")]
    assert integer == ["Z.mod_mod", "Z.mod_pos_bound"]


def test_a_lemma_about_a_literal_argument_needs_that_argument_in_the_goal() -> None:
    index = candidates(2, ("Z.pow_0_r", "Z.pow"), ("Z.pow_2_r", "Z.pow"))
    assert [found.name for found in index.ranked("a : Z\n⊢ a ^ 2 mod 4 = 1")] == ["Z.pow_2_r", "Z.pow_0_r"]
    assert [found.name for found in index.ranked("a : Z\n⊢ a ^ 0 + 1 = 2")] == ["Z.pow_0_r", "Z.pow_2_r"]


def test_an_order_relation_target_prefers_lemmas_that_conclude_one() -> None:
    index = candidates(2, ("ln_exp", "ln"), ("ln_increasing", "ln"))
    assert [found.name for found in index.ranked("x : R\nH : 1 < x\n⊢ ln 1 < ln x")] == ["ln_increasing", "ln_exp"]
    assert [found.name for found in index.ranked("x : R\n⊢ ln (exp x) = x")] == ["ln_exp", "ln_increasing"]
    # read after the root goal's binders and premises too
    assert [found.name for found in index.ranked("⊢ forall x : R, 1 < x -> 0 < ln x")][0] == "ln_increasing"


def test_goals_without_an_indexed_function_get_nothing_and_top_zero_is_off() -> None:
    index = candidates(8, ("sqrt_sqrt", "sqrt"))
    assert index.tactics_for("x : R\n⊢ x + 1 > x") == []
    assert candidates(0, ("sqrt_sqrt", "sqrt")).tactics_for("⊢ sqrt 4 = 2") == []
    with pytest.raises(ValueError, match=">= 0"):
        LemmaCandidates([], -1)


def test_rendering_gives_canonical_rewrite_apply_and_pose_proof() -> None:
    assert render(lemma("sqrt_sqrt")) == ["rewrite sqrt_sqrt.", "rewrite <- sqrt_sqrt.", "apply sqrt_sqrt."]
    assert render(lemma("sqrt_pos")) == ["apply sqrt_pos."]
    assert render(lemma("sqrt_0")) == ["rewrite sqrt_0.", "apply sqrt_0.", "pose proof sqrt_0 as hL."]
    assert render(lemma("Nat.mod_mod", "Nat.modulo"))[0] == "rewrite Nat.mod_mod."
    for name in LINES:
        assert all(canonical_tactic(tactic) == tactic for tactic in render(lemma(name)))


def test_lemmas_with_one_statement_are_offered_once() -> None:
    index = candidates(8, ("sqrt_sqrt", "sqrt"), ("sqrt_def", "sqrt"))
    assert [found.name for found in index.ranked("⊢ sqrt 2 * sqrt 2 = 2")] == ["sqrt_def"]


def test_the_index_is_read_from_its_cache_without_coq(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lemma_index, "coq_version", lambda coqtop="coqtop": "8.16.1 test")
    stored = [lemma("sqrt_sqrt"), lemma("Nat.mod_mod", "Nat.modulo")]
    key = cache_key("8.16.1 test", "PRELUDE")
    from dataclasses import asdict

    (tmp_path / f"index-{key}.json").write_text(json.dumps([asdict(item) for item in stored]), encoding="utf-8")

    def no_coq(*args, **kwargs):
        raise AssertionError("a cached index must not run Coq")

    monkeypatch.setattr(lemma_index, "build_index", no_coq)
    assert load_index(tmp_path, prelude="PRELUDE") == stored
    assert cache_key("8.16.1 test", "PRELUDE") != cache_key("8.16.1 test", "OTHER")
    assert cache_key("8.16.1 test") != cache_key("8.17.0 test")


def test_mixed_mode_prices_lemma_candidates_with_the_rest() -> None:
    index = candidates(4, ("sqrt_sqrt", "sqrt"))
    policy = ScoringPolicy([("lra.", -1.0)])
    mixed = action_evaluator(ActionMode.MIXED, policy, lemmas=index.tactics_for)
    assert isinstance(mixed, MixedEvaluator)
    goal = "x : R\nH : 0 <= x\n⊢ sqrt x * sqrt x = x"
    [answer] = mixed.evaluate([EvalRequest(goal, 4, 0)])
    scored = dict(answer.tactics)
    assert {"apply sqrt_sqrt.", "rewrite sqrt_sqrt.", "intros; nra."} <= set(scored)
    assert scored["apply sqrt_sqrt."] == -float(len("apply sqrt_sqrt."))  # priced by the policy
    for mode in (ActionMode.NETWORK, ActionMode.FIXED):
        with pytest.raises(ValueError, match="mixed"):
            action_evaluator(mode, policy, lemmas=index.tactics_for)


def test_method_labels_carry_the_lemma_switch() -> None:
    assert split_lemmas("mcts-mixed+lemmas") == ("mcts-mixed", LEMMAS_LABEL_DEFAULT)
    assert split_lemmas("mcts-mixed+lemmas16") == ("mcts-mixed", 16)
    assert split_lemmas("mcts-mixed+lemmas0") == ("mcts-mixed", 0)
    assert split_lemmas("mcts-mixed") == ("mcts-mixed", None)
    assert parse_method_label("bfs-mixed+lemmas4") == (Method.BEST_FIRST, ActionMode.MIXED)
    for label in ("mcts-fixed+lemmas", "mcts+lemmas", "portfolio+lemmas"):
        with pytest.raises(ValueError, match="mixed"):
            parse_method_label(label)


def test_the_config_key_is_checked_and_only_mixed_reads_it() -> None:
    assert lemma_count({}) == 0
    assert lemma_count({"lemma_candidates": 12}) == 12
    for bad in (-1, "8", 1.5, True):
        with pytest.raises(UsageError, match="lemma_candidates"):
            lemma_count({"lemma_candidates": bad})
    cfg = {"backend": {"name": "coq"}, "lemma_candidates": 8}
    evaluator, _ = build_evaluator(cfg, Method.MCTS, ActionMode.FIXED)  # the fixed list ignores the key
    assert evaluator is not None
    with pytest.raises(UsageError, match="mixed"):
        build_evaluator(cfg, Method.MCTS, ActionMode.FIXED, lemmas=8)


def test_training_actors_read_the_key_in_mixed_mode_only() -> None:
    from alphaprover.train_setup import EvaluatorRecipe

    plain = {"backend": {"name": "coq"}, "seed": 0, "threads": 1, "lemma_candidates": 8}
    assert EvaluatorRecipe.from_config("mixed", plain).lemma_candidates == 8
    assert EvaluatorRecipe.from_config("fixed", plain).lemma_candidates == 0
    assert EvaluatorRecipe.from_config("mixed", {**plain, "lemma_candidates": 0}).lemma_candidates == 0
