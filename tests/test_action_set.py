"""The action set (network | fixed | mixed), best-first's rounds rule, and the dev subset."""

from __future__ import annotations

from typing import Sequence

import pytest

from alphaprover.eval_runner import parse_method_label, split_checkpoint, split_expansion
from lean_interface.api import Goal
from lean_interface.problems.benchmarks import dev_problem_names, is_dev_problem, load_benchmark
from search.action_set import ActionMode, MixedEvaluator, action_evaluator
from search.best_first import run_best_first
from search.config import BestFirstConfig, Budget
from search.evaluator import EvalRequest, Evaluation
from search.fixed_evaluator import FixedTacticEvaluator
from search.solve import Method
from tests.fake_env import TableEnv, TableEvaluator

GOAL = "n : nat\nH : n = 0\n⊢ n + 1 = 1"


class ScoringPolicy:
    """A policy stand-in that samples `sampled` and scores any candidate by its length (a pure,
    deterministic rule, so the test can state which candidate must rank first)."""

    def __init__(self, sampled: Sequence[tuple[str, float]]) -> None:
        self.sampled = tuple(sampled)
        self.requests: list[EvalRequest] = []

    def evaluate(self, requests: Sequence[EvalRequest]) -> list[Evaluation]:
        self.requests.extend(requests)
        out = []
        for request in requests:
            tactics = dict(self.sampled)
            for candidate in request.candidates:
                tactics.setdefault(candidate, -float(len(candidate)))
            ranked = tuple(sorted(tactics.items(), key=lambda item: -item[1]))
            out.append(Evaluation(ranked, -1.0))
        return out


def test_mixed_adds_the_automation_list_at_round_zero_only() -> None:
    policy = ScoringPolicy([("intros10.", -0.5), ("lia.", -3.0)])
    mixed = MixedEvaluator(policy, FixedTacticEvaluator().tactics_for)
    first, later = mixed.evaluate([EvalRequest(GOAL, 4, 0), EvalRequest(GOAL, 4, 1)])
    fixed_list = FixedTacticEvaluator().tactics_for(GOAL)
    assert set(policy.requests[0].candidates) == set(fixed_list)
    assert policy.requests[1].candidates == ()
    names = [t for t, _ in first.tactics]
    assert len(names) == len(set(names))  # `lia` both sampled and listed: once, with the sampled log-prob
    assert dict(first.tactics)["lia."] == -3.0
    assert {"rewrite H.", "destruct H.", "intros; nra."} <= set(names)  # hypothesis tactics and automation
    assert [t for t, _ in later.tactics] == ["intros10.", "lia."]


def test_modes_build_the_right_evaluator() -> None:
    policy = ScoringPolicy([])
    assert isinstance(action_evaluator(ActionMode.FIXED, None), FixedTacticEvaluator)
    assert action_evaluator(ActionMode.NETWORK, policy) is policy
    assert isinstance(action_evaluator(ActionMode.MIXED, policy), MixedEvaluator)
    with pytest.raises(ValueError, match="needs a network"):
        action_evaluator(ActionMode.MIXED, None)
    with pytest.raises(ValueError, match="unknown action mode"):
        ActionMode.parse("neural")


def test_eval_method_labels_carry_the_action_mode() -> None:
    assert parse_method_label("mcts") == (Method.MCTS, None)
    assert parse_method_label("mcts-mixed") == (Method.MCTS, ActionMode.MIXED)
    assert parse_method_label("bfs-fixed") == (Method.BEST_FIRST, ActionMode.FIXED)
    assert parse_method_label("portfolio") == (Method.PORTFOLIO, None)
    assert split_checkpoint("mcts-mixed@runs/x/best") == ("mcts-mixed", "runs/x/best")
    assert split_checkpoint("mcts-mixed") == ("mcts-mixed", None)
    for bad in ("portfolio-fixed", "mcts-neural", "dfs"):
        with pytest.raises(ValueError):
            parse_method_label(bad)


def test_best_first_samples_again_once_every_goal_is_expanded() -> None:
    """A ──a──► B, and B's round-0 tactics all fail; its round-1 sample `b1` closes it. Best-first
    used to stop after one round per goal; under the rounds rule it asks B again."""
    table = {("A", "a"): ["B"], ("B", "b1"): []}
    evaluator = TableEvaluator({"A": [("a", -0.1)], "B": [("bad", -0.1)], ("B", 1): [("b1", -0.5)]})
    env = TableEnv(table)
    result = run_best_first(Goal("A", "A"), env, evaluator, BestFirstConfig(num_parallel=1, max_expansions=3),
                            Budget(max_simulations=10, max_seconds=30))
    assert result.proved and env.check_proof("A", result.proof)
    assert [(r.goal, r.round) for r in evaluator.requests] == [("A", 0), ("B", 0), ("B", 1)]


def test_best_first_resamples_an_expanded_goal_with_open_tactics_when_nothing_else_is_left() -> None:
    """A ──a──► B (open, B's tactic loops nowhere new); A gets a second round that finds `a2`."""
    table = {("A", "a"): ["B"], ("B", "b"): ["C"], ("A", "a2"): []}
    evaluator = TableEvaluator({"A": [("a", -0.1)], ("A", 1): [("a2", -1.0)], "B": [("b", -0.1)], "C": []})
    env = TableEnv(table)
    result = run_best_first(Goal("A", "A"), env, evaluator, BestFirstConfig(num_parallel=1, max_expansions=2),
                            Budget(max_simulations=20, max_seconds=30))
    assert result.proved and result.proof.tactic == "a2"
    assert ("A", 1) in [(r.goal, r.round) for r in evaluator.requests]
    result.tree.check_invariants()


def test_the_dev_subset_is_every_eighth_valid_problem_and_disjoint_from_train() -> None:
    dev = load_benchmark("minif2f-rocq-dev")
    train = load_benchmark("minif2f-rocq-train")
    valid = sorted(p.name for p in load_benchmark("minif2f-rocq-valid"))
    assert len(dev) == 31 and len(train) == 213
    assert [p.name for p in dev] == valid[::8]
    assert not {p.name for p in dev} & {p.name for p in train}
    assert all(is_dev_problem(p.name) for p in dev) and not any(is_dev_problem(p.name) for p in train)
    assert is_dev_problem(f"minif2f-rocq-valid/{valid[0]}") and dev_problem_names() == frozenset(valid[::8])


def test_an_mcts_label_may_name_its_expansion_and_a_bad_one_is_one_line() -> None:
    assert split_expansion("mcts-fixed+cost") == ("mcts-fixed", "cost")
    assert split_expansion("mcts+eager") == ("mcts", "eager")
    assert split_expansion("mcts-mixed") == ("mcts-mixed", None)
    assert split_checkpoint("mcts-mixed+cost@runs/x/best") == ("mcts-mixed+cost", "runs/x/best")
    for bad, message in (("mcts-fixed+lazy", "unknown expansion 'lazy'"), ("bfs-fixed+cost", "only mcts"),
                         ("portfolio+eager", "only mcts")):
        with pytest.raises(ValueError, match=message) as error:
            split_expansion(bad)
        assert "\n" not in str(error.value)


def test_a_label_expansion_applies_to_its_method_only_and_overrides_apply_to_all(monkeypatch) -> None:
    import alphaprover.eval_runner as runner_module
    from alphaprover.config import load_config, to_plain
    from lean_interface.api import Theorem

    seen: list[tuple[str, float, int]] = []

    def fake_solve(theorem, env, evaluator, method, settings, budget):  # type: ignore[no-untyped-def]
        seen.append((settings.mcts.expansion, settings.mcts.cost_c, id(evaluator)))
        raise RuntimeError("stop here")   # recorded as an ERROR record: no prover needed

    monkeypatch.setattr(runner_module, "solve", fake_solve)
    cfg = to_plain(load_config("config", ["actions=fixed", "mcts.cost_c=0.7", "mcts.expansion=eager"]))
    runner = runner_module.ProblemRunner(cfg)
    monkeypatch.setattr(runner, "_get_env", lambda: None)
    theorem = Theorem("t", "", "Theorem t : True.")
    labels = ("mcts-fixed+eager", "mcts-fixed+cost", "mcts-fixed")   # the last: the override's
    records = [runner.run("t", theorem, "", label) for label in labels]
    assert all("stop here" in r.message and r.method == label for r, label in zip(records, labels))
    assert [(expansion, c) for expansion, c, _ in seen] == [("eager", 0.7), ("cost", 0.7), ("eager", 0.7)]
    assert len({evaluator for _, _, evaluator in seen[:2]}) == 2   # no cache shared across the comparison


def test_a_label_may_name_its_decoding_and_glance_list_pricing() -> None:
    from alphaprover.eval_runner import split_decoding, split_list_pricing, with_list_pricing
    from search.solve import SearchSettings

    assert split_decoding("mcts-mixed+both+priced") == ("mcts-mixed+priced", "both")
    assert split_decoding("mcts-mixed+cost") == ("mcts-mixed+cost", None)
    assert split_list_pricing("mcts-mixed+both+residual") == ("mcts-mixed+both", "residual")
    assert parse_method_label("mcts-mixed+glance+both+priced+lemmas8")[0].value == "mcts"
    assert parse_method_label("mcts-network+beam")[1] is ActionMode.NETWORK
    priced = with_list_pricing(SearchSettings(), "priced").mcts
    residual = with_list_pricing(SearchSettings(), "residual").mcts
    assert priced.glance_prices_list and not residual.glance_prices_list and residual.glance_list_prior == "residual"
    assert with_list_pricing(SearchSettings(), None) == SearchSettings()
    for bad, message in (("mcts-fixed+both", "only a -mixed or -network search"),
                         ("mcts-network+priced", "mcts-mixed option"), ("bfs-mixed+residual", "mcts-mixed option"),
                         ("mcts-mixed+greedy", "unknown expansion 'greedy'")):
        with pytest.raises(ValueError, match=message) as error:
            parse_method_label(bad)
        assert "\n" not in str(error.value)


def test_a_label_decoding_and_pricing_reach_their_method_only(monkeypatch) -> None:
    import alphaprover.eval_runner as runner_module
    from alphaprover.config import load_config, to_plain
    from lean_interface.api import Theorem

    seen: list[tuple[bool, str]] = []
    built: list[str] = []

    def fake_solve(theorem, env, evaluator, method, settings, budget):  # type: ignore[no-untyped-def]
        seen.append((settings.mcts.glance_prices_list, settings.mcts.glance_list_prior))
        raise RuntimeError("stop here")

    def fake_build(cfg, method, mode, lemmas):  # type: ignore[no-untyped-def]
        built.append(cfg["decoding"])
        return object(), "fake"

    monkeypatch.setattr(runner_module, "solve", fake_solve)
    monkeypatch.setattr(runner_module, "build_evaluator", fake_build)
    runner = runner_module.ProblemRunner(to_plain(load_config("config", [])))
    monkeypatch.setattr(runner, "_get_env", lambda: None)
    theorem = Theorem("t", "", "Theorem t : True.")
    for label in ("mcts-mixed+both+priced", "mcts-mixed+residual", "mcts-mixed"):
        assert "stop here" in runner.run("t", theorem, "", label).message
    assert seen == [(True, "uniform"), (False, "residual"), (False, "uniform")]
    assert built == ["both", "sample", "sample"]


def test_the_cli_and_the_network_know_the_same_decodings() -> None:
    """`alphaprover.policy_config.DECODINGS` checks labels and configs without importing torch; it must
    name what `networks.sampling` implements."""
    from alphaprover.policy_config import DECODINGS
    from networks.sampling import DECODINGS as IMPLEMENTED

    assert DECODINGS == IMPLEMENTED
