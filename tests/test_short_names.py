"""Short names for the computed proposers (search/proposers/short_names.py): the policy prices a
proposer by its name, a sampled name expands into the proposer's tactics, and the learners' targets
become names exactly where the proposer proposes the tactic. Pure tests: the policy here is a small
scoring table (the real network's teacher-forced prices are tested in tests/test_networks.py), so the
assertions are about what the wrapper asks and answers."""

from __future__ import annotations

import math

import pytest

from search.action_set import ActionMode, MixedEvaluator, action_evaluator
from search.evaluator import EvalRequest, Evaluation
from search.fixed_evaluator import FixedTacticEvaluator
from search.proposers import proposer_set
from search.proposers.field_side import PROPOSERS as FIELD
from search.proposers.positivity import PROPOSERS as POSITIVITY
from search.proposers.short_names import (NamedProposals, named_proposer, proposer_of_step, short_name,
                                          training_target)
from alphaprover.runtime import vocabulary_for

FIELD_GOAL = "a, b : R\nH : a <> b\nH1 : (4 * a + 3 * b) / (a - 2 * b) = 5\n⊢ (a + 11 * b) / (a - b) = 2"
POSITIVE_GOAL = "⊢ forall x y : R, 0 < x -> 0 < y -> 0 < x * y + x / y"


class TablePolicy:
    """A policy that samples `samples` and prices every candidate from `prices` (default −5), and
    records what it was asked."""

    def __init__(self, samples: dict[str, float], prices: dict[str, float] | None = None) -> None:
        self.samples, self.prices, self.asked = samples, prices or {}, []

    def evaluate(self, requests):
        self.asked.extend(requests)
        return [Evaluation(tuple({**self.samples, **{c: self.prices.get(c, -5.0) for c in r.candidates}}.items()), -1.0)
                for r in requests]


def test_names_read_back() -> None:
    assert short_name("field_side") == "propose field_side."
    assert named_proposer("propose field_side.") == "field_side" and named_proposer("propose field_side") == "field_side"
    assert named_proposer("lra.") is None and named_proposer("propose (x).") is None


def test_a_proposers_candidates_are_priced_as_its_name_and_share_its_mass() -> None:
    tactics = FIELD[0].tactics(FIELD_GOAL)
    assert len(tactics) >= 2
    policy = TablePolicy({"lra.": -1.0}, {short_name("field_side"): -0.5})
    named = NamedProposals(policy, FIELD)
    [answer] = named.evaluate([EvalRequest(FIELD_GOAL, 4, candidates=("nra.", *tactics))])
    [asked] = policy.asked
    assert asked.candidates == ("nra.", short_name("field_side"))  # the long texts never reach the policy
    prices = dict(answer.tactics)
    assert not any(t.startswith("propose ") for t in prices)
    for tactic in tactics:
        assert prices[tactic] == pytest.approx(-0.5 - math.log(len(tactics)))
    assert math.fsum(math.exp(prices[t]) for t in tactics) == pytest.approx(math.exp(-0.5))
    assert prices["nra."] == -5.0 and prices["lra."] == -1.0
    assert [p for _, p in answer.tactics] == sorted((p for _, p in answer.tactics), reverse=True)


def test_a_sampled_name_expands_at_any_round_and_a_foreign_name_is_dropped() -> None:
    policy = TablePolicy({short_name("positivity"): -0.2, short_name("field_side"): -0.3, "propose nothing.": -0.1,
                          "lra.": -2.0})
    named = NamedProposals(policy, POSITIVITY)  # field_side is not in this search's set
    [answer] = named.evaluate([EvalRequest(POSITIVE_GOAL, 4, round=3)])
    assert dict(answer.tactics) == {"timeout 2 (intros; positivity).": -0.2, "lra.": -2.0}


def test_a_name_with_nothing_to_offer_is_dropped() -> None:
    policy = TablePolicy({short_name("field_side"): -0.1, "lra.": -1.0})
    [answer] = NamedProposals(policy, FIELD).evaluate([EvalRequest("x : R\nH : x + 1 = 3\n⊢ x = 2", 4)])
    assert answer.tactics == (("lra.", -1.0),)


def test_training_targets_are_names_exactly_where_the_proposer_proposes() -> None:
    [tactic, *_] = FIELD[0].tactics(FIELD_GOAL)
    assert proposer_of_step(FIELD_GOAL, tactic) == "field_side"
    assert training_target(FIELD_GOAL, tactic) == short_name("field_side")
    assert training_target(FIELD_GOAL, "lra.") == "lra."
    # the same text at a goal where the proposer would not write it is a plain tactic
    assert training_target("x : R\n⊢ x = x", tactic) == tactic
    assert training_target(FIELD_GOAL, "timeout 3 (nra).") == "timeout 3 (nra)."


def test_mixed_mode_with_short_names_prices_the_configured_computed_proposers() -> None:
    vocabulary = vocabulary_for({"name": "coq"}, "all")
    policy = TablePolicy({})
    evaluator = action_evaluator(ActionMode.MIXED, policy, vocabulary, short_names=True)
    assert isinstance(evaluator, MixedEvaluator) and isinstance(evaluator.policy, NamedProposals)
    [answer] = evaluator.evaluate([EvalRequest(FIELD_GOAL, 2)])
    listed = FixedTacticEvaluator(vocabulary).tactics_for(FIELD_GOAL)
    assert set(dict(answer.tactics)) == set(listed)  # every listed tactic comes back, each once
    assert short_name("field_side") in policy.asked[0].candidates
    assert not any(c in policy.asked[0].candidates for c in FIELD[0].tactics(FIELD_GOAL))
    with pytest.raises(ValueError, match="short names"):
        action_evaluator(ActionMode.FIXED, None, vocabulary, short_names=True)


def test_the_classic_set_has_no_names_to_price() -> None:
    named = NamedProposals(TablePolicy({}), proposer_set("classic"))
    assert named.proposers == {}


def test_pretraining_examples_take_the_names_with_the_switch_only() -> None:
    from networks.dataset import Example
    from networks.train import PretrainConfig, prepare_examples

    [tactic, *_] = FIELD[0].tactics(FIELD_GOAL)
    examples = [Example(FIELD_GOAL, tactic, 3), Example(FIELD_GOAL, "lra.", 1)]
    config = dict(train_file="", valid_file="", out_dir="", source_weights={})
    named = prepare_examples(examples, PretrainConfig(**config, short_names=True), training=True)
    plain = prepare_examples(examples, PretrainConfig(**config), training=False)
    assert [e.tactic for e in named] == [short_name("field_side"), "lra."]
    assert [e.tactic for e in plain] == [tactic, "lra."]
