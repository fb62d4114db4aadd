"""Eval labels that make old and new arms of one run: the proposer set (`+classic`, `+proposers`),
the neutral value (`+neutral`) and short names (`+names`); refusals are one-line ValueErrors (exit 2 at the CLI)."""

from __future__ import annotations

import pytest

from alphaprover.eval_runner import parse_method_label, split_names, split_neutral, split_proposers
from search.action_set import ActionMode, NeutralValue
from search.evaluator import EvalRequest, Evaluation
from search.solve import Method


def test_a_label_names_its_proposer_set_and_keeps_its_other_options() -> None:
    assert split_proposers("mcts-fixed+proposers") == ("mcts-fixed", "all")
    assert split_proposers("mcts-mixed+cost+classic") == ("mcts-mixed+cost", "classic")
    assert split_proposers("mcts-fixed") == ("mcts-fixed", None)
    assert parse_method_label("mcts-fixed+proposers+eager") == (Method.MCTS, ActionMode.FIXED)


def test_the_portfolio_takes_no_proposer_set_and_only_network_searches_take_a_neutral_value() -> None:
    with pytest.raises(ValueError, match="portfolio"):
        parse_method_label("portfolio+proposers")
    with pytest.raises(ValueError, match="neutral"):
        parse_method_label("mcts-fixed+neutral")
    assert split_neutral("mcts-mixed+proposers+neutral") == ("mcts-mixed+proposers", True)
    assert parse_method_label("mcts-mixed+neutral") == (Method.MCTS, ActionMode.MIXED)


def test_short_names_are_a_mixed_searchs_option() -> None:
    assert split_names("mcts-mixed+proposers+names") == ("mcts-mixed+proposers", True)
    assert split_names("mcts-mixed+proposers") == ("mcts-mixed+proposers", False)
    assert parse_method_label("mcts-mixed+proposers+names") == (Method.MCTS, ActionMode.MIXED)
    with pytest.raises(ValueError, match="short names"):
        parse_method_label("mcts-fixed+proposers+names")


class _Policy:
    def evaluate(self, requests):
        return [Evaluation((("lra.", -0.5),), -7.5, glance=r.glance) for r in requests]


def test_the_neutral_value_keeps_the_proposals_and_counts_the_goals() -> None:
    two_goals = "x : R\n⊢ x = x\n\nx : R\n⊢ x <= x"
    answers = NeutralValue(_Policy()).evaluate([EvalRequest("⊢ True", 4), EvalRequest(two_goals, 4, glance=True)])
    assert [a.tactics for a in answers] == [(("lra.", -0.5),), (("lra.", -0.5),)]
    assert [a.value for a in answers] == [-1.0, -2.0]
    assert [a.glance for a in answers] == [False, True]
