"""The proposer interface: a goal read once (binders, premises, names after `intros`), and a proposer
that cannot read a goal proposes nothing instead of raising."""

from __future__ import annotations

from search.proposers.base import Proposer, ProposerSkipped, goal_context

ROOT = "⊢ forall (a b : R) (f : R -> R), (forall x, f x = a * x + b) -> f 6 - f 2 = 12 -> f 12 - f 2 = 30"
INNER = "x, y : R\nh0 : x + y = 10\nH : x - y = 2\n⊢ x = 6"


def test_a_root_goal_is_read_into_binders_premises_and_conclusion() -> None:
    context = goal_context(ROOT)
    assert context.binders == (("a", "R"), ("b", "R"), ("f", "R -> R"))
    assert context.premises == ("(forall x, f x = a * x + b)", "f 6 - f 2 = 12")
    assert context.conclusion == "f 12 - f 2 = 30"
    assert context.variables == {"a": "R", "b": "R"}
    assert not context.introduced


def test_premises_get_the_names_intros_gives_them_skipping_names_in_use() -> None:
    assert [n for n, _ in goal_context(ROOT).facts_after_intros()] == ["H", "H0"]
    taken = goal_context("H : 0 < 1\n⊢ forall n : nat, n = 1 -> n < 2")
    assert [n for n, _ in taken.facts_after_intros()] == ["H", "H0"]
    inner = goal_context(INNER)
    assert inner.introduced and inner.facts_after_intros() == [("h0", "x + y = 10"), ("H", "x - y = 2")]


def test_nested_arrows_stay_inside_their_premise() -> None:
    context = goal_context("⊢ forall n : nat, (n = 1 -> False) -> n < 5 -> n = 2")
    assert context.premises == ("(n = 1 -> False)", "n < 5")
    assert context.conclusion == "n = 2"


def test_a_proposer_wraps_its_tactics_in_its_time_limit_in_canonical_form() -> None:
    proposer = Proposer("demo", 2, lambda c: [f"intros; assert (h : {c.conclusion}) by lra", "lra."])
    assert proposer.tactics(INNER) == ["timeout 2 (intros; assert (h : x = 6) by lra).", "timeout 2 (lra)."]


def test_a_proposer_that_cannot_read_a_goal_proposes_nothing() -> None:
    def skips(_):
        raise ProposerSkipped("not my shape")

    def crashes(_):
        raise KeyError("a bug in a CAS call")

    assert Proposer("skips", 1, skips).tactics(INNER) == []
    assert Proposer("crashes", 1, crashes).tactics(INNER) == []


def test_a_refused_tactic_is_dropped_not_raised() -> None:
    proposer = Proposer("bad", 0, lambda c: ["admit", "lra (* hidden *)", "lia"])
    assert proposer.tactics(INNER) == ["lia."]


def test_a_tactic_ending_in_star_keeps_its_closing_parenthesis_apart() -> None:
    proposer = Proposer("star", 3, lambda c: ["intros; simpl in *"])
    assert proposer.tactics(INNER) == ["timeout 3 (intros; simpl in * )."]
