"""MCTS end to end on table environments: AND/OR proving and failing, transpositions, progressive
sampling, virtual loss, budgets, merging, invariants after every step, and `solve`."""

from __future__ import annotations

import logging
import random

import pytest

import search.mcts as mcts_module
from fake_env import TableEnv, TableEvaluator, provable, random_world
from lean_interface.api import Goal, ProofStep, TacticResult, Theorem, Verdict
from search.config import Budget, MCTSConfig
from search.evaluator import EvalRequest, Evaluation
from search.expansion import expand
from search.mcts import run_mcts
from search.solve import REPLAY_TIMEOUT_ERROR, RUNNERS, Method, SearchSettings, replay_timed_out, solve
from search.tree import SearchTree, Status

THM = Theorem("t", "", "t")
BUDGET = Budget(max_simulations=200, max_seconds=30)


@pytest.fixture(autouse=True)
def invariants_after_every_step(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every MCTS expansion checks the whole graph before and after (backups happen in between)."""
    checks: list[int] = []

    def checked_expand(tree: SearchTree, *args, **kwargs):  # type: ignore[no-untyped-def]
        tree.check_invariants()
        values = expand(tree, *args, **kwargs)
        tree.check_invariants()
        checks.append(len(tree))
        return values

    monkeypatch.setattr(mcts_module, "expand", checked_expand)
    return checks


def run(table, proposals, config=MCTSConfig(), budget=BUDGET, values=None):  # type: ignore[no-untyped-def]
    env = TableEnv(table)
    evaluator = TableEvaluator(proposals, values)
    result = run_mcts(Goal("A", "A"), env, evaluator, config, budget)
    result.tree.check_invariants()
    return env, evaluator, result


def test_and_node_needs_every_goal(invariants_after_every_step: list[int]) -> None:
    """
        A ──bad (likely)──► AND(B, D)     B ──b──► ∎      D: no tactic works → FAILED
        A ──split─────────► AND(B, C)     C ──c──► ∎      → proof: split; b; c
    """
    table = {("A", "split"): ["B", "C"], ("A", "bad"): ["B", "D"], ("B", "b"): [], ("C", "c"): []}
    proposals = {"A": [("bad", -0.1), ("split", -2.0)], "B": [("b", -0.1)], "C": [("c", -0.1)], "D": [("x", -0.1)]}
    env, _, result = run(table, proposals, config=MCTSConfig(max_expansions=1))
    assert result.proved and env.check_proof("A", result.proof)
    assert result.proof == ProofStep("split", (ProofStep("b"), ProofStep("c")))
    tree = result.tree
    assert tree.nodes[tree.node_id("D")].status is Status.FAILED
    assert next(e for e in tree.root.edges if e.tactic == "bad").status is Status.FAILED
    assert invariants_after_every_step  # the invariant check really ran


def test_root_fails_when_every_route_dies() -> None:
    """A ──t──► B ──u──► C (no tactic works): C, B, A all FAILED; the search stops on its own."""
    table = {("A", "t"): ["B"], ("B", "u"): ["C"]}
    proposals = {"A": [("t", -0.1)], "B": [("u", -0.1)], "C": [("nothing", -0.1)]}
    _, evaluator, result = run(table, proposals, config=MCTSConfig(max_expansions=2))
    assert not result.proved and result.tree.root.status is Status.FAILED
    assert result.stats.simulations < BUDGET.max_simulations
    # C's only tactic failed, so C was sampled again; round 1 had nothing new: C failed
    assert [(r.goal, r.round) for r in evaluator.requests if r.goal == "C"] == [("C", 0), ("C", 1)]


def test_transpositions_in_search_share_the_node() -> None:
    """
        A ──p──► B ──r──► D ──z──► ∎
        A ──q──► C ──s──► D            D evaluated once although two routes reach it
        B ──back──► A                  refused (cycle)
    """
    table = {("A", "p"): ["B"], ("A", "q"): ["C"], ("B", "r"): ["D"], ("C", "s"): ["D"], ("D", "z"): [],
             ("B", "back"): ["A"]}
    proposals = {"A": [("p", -0.1), ("q", -0.1)], "B": [("back", -0.01), ("r", -0.1)], "C": [("s", -0.1)],
                 "D": [("z", -0.1)]}
    env, evaluator, result = run(table, proposals, config=MCTSConfig(num_parallel=1))
    assert result.proved and result.proof.size() == 3 and env.check_proof("A", result.proof)
    assert [r.goal for r in evaluator.requests].count("D") == 1
    assert result.stats.refused_cycles == 1


class ChainWorld:
    """A root whose every sampling round brings one new tactic t<r> to a goal B<r>, from which a
    never-ending chain B<r>.1, B<r>.1.1, … goes on: nothing is ever proved, so only the
    progressive-sampling rule decides when the root is sampled again."""

    def __init__(self) -> None:
        self.root_rounds: list[int] = []

    def evaluate(self, requests):  # type: ignore[no-untyped-def]
        out = []
        for r in requests:
            if r.goal == "A":
                self.root_rounds.append(r.round)
                out.append(Evaluation(((f"t{r.round}", -1.0),), -1.0))
            else:
                out.append(Evaluation((("next", -1.0),) if r.round == 0 else (), -1.0))
        return out


class ChainEnv(TableEnv):
    def __init__(self) -> None:
        super().__init__({})

    def apply(self, goal: Goal, tactic: str) -> TacticResult:
        self.calls.append((goal.text, tactic))
        text = f"B{tactic[1:]}" if goal.text == "A" else f"{goal.text}.1"
        return TacticResult(goals=(Goal(text, text),))


@pytest.mark.parametrize("simulations", [1, 2, 4, 5, 9, 10, 17, 30])
def test_progressive_sampling_counts(simulations: int) -> None:
    """ps_c = 1, ps_alpha = 0.5: the root is sampled again while expansions <= sqrt(visits).
    Its visits before simulation s are s − 1, so rounds happen at simulations 1, 2, 5, 10, 17, 26, …
    i.e. after N simulations it has had floor(sqrt(N − 1)) + 1 rounds."""
    world = ChainWorld()
    config = MCTSConfig(ps_c=1.0, ps_alpha=0.5, max_expansions=100, num_parallel=1)
    result = run_mcts(Goal("A", "A"), ChainEnv(), world, config, Budget(max_simulations=simulations, max_seconds=30))
    expected = int((simulations - 1) ** 0.5) + 1
    assert result.tree.root.expansions == expected
    assert world.root_rounds == list(range(expected))
    assert len(result.tree.root.edges) == expected


def test_alphaprovers_constants_sample_a_goal_once_in_a_small_search() -> None:
    """With AlphaProof's ps_c = 0.01, ps_alpha = 0.6 a second round needs 2155 visits: 300
    simulations keep one (why our default is ps_c = 0.2)."""
    world = ChainWorld()
    result = run_mcts(Goal("A", "A"), ChainEnv(), world, MCTSConfig(num_parallel=1, ps_c=0.01),
                      Budget(max_simulations=300, max_seconds=30))
    assert world.root_rounds == [0] and result.stats.simulations == 300


def test_our_defaults_sample_the_root_again_within_a_small_search() -> None:
    """ps_c = 0.2, ps_alpha = 0.6: round k+1 once 0.2 · visits^0.6 >= k+1, i.e. at ~15, ~47, ~91
    visits: 100 simulations give the root 4 rounds."""
    world = ChainWorld()
    run_mcts(Goal("A", "A"), ChainEnv(), world, MCTSConfig(num_parallel=1), Budget(max_simulations=100, max_seconds=30))
    assert world.root_rounds == [0, 1, 2, 3]


def test_a_goal_whose_tactics_all_failed_is_sampled_again() -> None:
    """Round 0 proposes only a failing tactic for B; round 1 brings one that works."""
    table = {("A", "t"): ["B"], ("B", "good"): []}
    proposals = {"A": [("t", -0.1)], ("B", 0): [("bad", -0.1)], ("B", 1): [("bad", -0.1), ("good", -0.5)]}
    env, evaluator, result = run(table, proposals, config=MCTSConfig(num_parallel=1))
    assert result.proved and result.proof == ProofStep("t", (ProofStep("good"),))
    assert [(r.goal, r.round) for r in evaluator.requests] == [("A", 0), ("B", 0), ("B", 1)]
    assert env.calls.count(("B", "bad")) == 1  # a failed tactic sampled again is not retried


def test_duplicate_samples_add_prior_and_same_goal_tactics_merge() -> None:
    """Round 1 samples `t` again (its prior grows) and `t2`, which leaves the same goal B (merged)."""
    table = {("A", "t"): ["B"], ("A", "t2"): ["B"]}
    proposals = {("A", 0): [("t", 0.0)], ("A", 1): [("t", 0.0), ("t2", 0.0)], "B": [("u", -1.0)]}
    config = MCTSConfig(ps_c=1.0, ps_alpha=0.5, num_parallel=1, max_expansions=2)
    _, _, result = run(table, proposals, config=config, budget=Budget(max_simulations=3, max_seconds=30))
    root = result.tree.root
    assert root.expansions == 2 and len(root.edges) == 1
    assert root.edges[0].prior == pytest.approx(3.0)  # exp(0/200) three times
    assert root.tried == {"t": 0, "t2": 0}


def test_virtual_loss_spreads_parallel_simulations() -> None:
    """Eight parallel walks from a root with four equal tactics reach four different leaves:
    A ──t0..t3──► B0..B3; the second evaluator call serves all four at once."""
    table = {("A", f"t{i}"): [f"B{i}"] for i in range(4)}
    proposals = {"A": [(f"t{i}", -1.0) for i in range(4)]}
    _, evaluator, result = run(table, proposals, config=MCTSConfig(num_parallel=8),
                               budget=Budget(max_simulations=5, max_seconds=30))
    assert evaluator.calls == 2
    assert sorted(r.goal for r in evaluator.requests[1:]) == ["B0", "B1", "B2", "B3"]
    assert result.stats.simulations == 5  # 1 + 4; the other walks collided and were dropped
    assert all(e.in_flight == 0 for e in result.tree.root.edges) and result.tree.root.in_flight == 0


def test_parallel_walks_spread_over_and_goals() -> None:
    """A ──split──► AND(B, C, D): one batch evaluates all three goals."""
    table = {("A", "split"): ["B", "C", "D"], ("B", "b"): [], ("C", "c"): [], ("D", "d"): []}
    proposals = {"A": [("split", -1.0)], "B": [("b", -1.0)], "C": [("c", -1.0)], "D": [("d", -1.0)]}
    env, evaluator, result = run(table, proposals, config=MCTSConfig(num_parallel=4))
    assert result.proved and evaluator.calls == 2 and env.check_proof("A", result.proof)
    assert sorted(r.goal for r in evaluator.requests[1:]) == ["B", "C", "D"]


def test_budgets_stop_the_search() -> None:
    """An endless chain A ─► A1 ─► A2 ─► …: each limit ends it."""
    table = {("A", "t"): ["A1"]} | {(f"A{i}", "t"): [f"A{i + 1}"] for i in range(1, 500)}
    proposals = {"A": [("t", -0.1)]} | {f"A{i}": [("t", -0.1)] for i in range(1, 500)}
    _, _, result = run(table, proposals, budget=Budget(max_simulations=7, max_seconds=0))
    assert result.stats.simulations == 7 and not result.proved
    _, _, result = run(table, proposals, budget=Budget(max_simulations=0, max_seconds=0, max_prover_calls=5))
    assert result.stats.prover_calls == 5
    _, _, result = run(table, proposals, budget=Budget(max_simulations=0, max_seconds=0.05))
    assert result.stats.total_seconds >= 0.05 and not result.proved  # it ran until the clock, then stopped


def test_rng_only_breaks_ties_and_search_is_deterministic_without_it() -> None:
    table = {("A", f"t{i}"): [f"B{i}"] for i in range(6)} | {(f"B{i}", "c"): [] for i in range(6)}
    proposals = {"A": [(f"t{i}", -1.0) for i in range(6)]} | {f"B{i}": [("c", -1.0)] for i in range(6)}
    firsts = set()
    for seed in range(8):
        env = TableEnv(table)
        result = run_mcts(Goal("A", "A"), env, TableEvaluator(proposals), MCTSConfig(num_parallel=1), BUDGET,
                          random.Random(seed))
        assert result.proved and env.check_proof("A", result.proof)
        firsts.add(result.proof.tactic)
    assert len(firsts) > 1  # different seeds break the six-way tie differently
    plain = [run_mcts(Goal("A", "A"), TableEnv(table), TableEvaluator(proposals), MCTSConfig(num_parallel=1),
                      BUDGET).proof for _ in range(2)]
    assert plain[0] == plain[1] == ProofStep("t0", (ProofStep("c"),))


@pytest.mark.parametrize("seed", range(25))
def test_random_worlds_agree_with_exhaustive_search(seed: int) -> None:
    """With a budget large enough to exhaust the graph, MCTS proves exactly the provable roots,
    its proofs check against the table, and unprovable roots end FAILED."""
    table, proposals = random_world(seed)
    env = TableEnv(table, root="G0")
    result = run_mcts(Goal("G0", "G0"), env, TableEvaluator(proposals), MCTSConfig(num_parallel=3, max_expansions=1),
                      Budget(max_simulations=2000, max_seconds=30))
    result.tree.check_invariants()
    expected = provable(table, proposals, "G0", {})
    assert result.proved == expected
    if expected:
        assert env.check_proof("G0", result.proof) and result.proof.size() == result.tree.root.proof_size
    else:
        assert result.tree.root.status is Status.FAILED


def test_evaluator_answer_count_is_checked() -> None:
    class Broken:
        def evaluate(self, requests):  # type: ignore[no-untyped-def]
            return []

    with pytest.raises(ValueError, match="0 answers for 1 goals"):
        run_mcts(Goal("A", "A"), TableEnv({}), Broken(), MCTSConfig(), BUDGET)


def test_expansion_requests_carry_rounds_and_sample_counts() -> None:
    table = {("A", "t"): ["B"]}
    evaluator = TableEvaluator({"A": [("t", -0.1)]})
    run_mcts(Goal("A", "A"), TableEnv(table), evaluator, MCTSConfig(num_samples=5, max_expansions=1), BUDGET)
    # the default expansion ("glance") offers a goal below the root a cheap first answer
    assert evaluator.requests[:2] == [EvalRequest("A", 5, 0), EvalRequest("B", 5, 0, glance=True)]


# ---- solve ---------------------------------------------------------------------------------------
def test_solve_reports_only_verified_proofs(caplog: pytest.LogCaptureFixture) -> None:
    table = {("A", "split"): ["B", "C"], ("B", "b"): [], ("C", "c"): []}
    evaluator = TableEvaluator({"A": [("split", -0.1)], "B": [("b", -0.1)], "C": [("c", -0.1)]})
    outcome = solve(THM, TableEnv(table), evaluator, Method.MCTS, SearchSettings(), BUDGET)
    assert outcome.proved and outcome.verdict is not None and outcome.verdict.ok
    assert outcome.script == "split\n  b\n  c" and outcome.tree is not None
    assert outcome.stats.simulations >= 1 and outcome.incident == ""

    class LyingEnv(TableEnv):
        """Claims `b` closes B, but its verifier (the table, without that lie) disagrees."""

        def apply(self, goal: Goal, tactic: str) -> TacticResult:
            if (goal.text, tactic) == ("B", "b"):
                return TacticResult()
            return super().apply(goal, tactic)

    liar = LyingEnv({("A", "split"): ["B", "C"], ("C", "c"): []})
    with caplog.at_level(logging.ERROR, logger="search.solve"):
        outcome = solve(THM, liar, evaluator, Method.MCTS, SearchSettings(), BUDGET)
    assert not outcome.proved and outcome.script is None
    assert outcome.incident.startswith("SOUNDNESS INCIDENT") and outcome.verdict is not None
    assert "SOUNDNESS INCIDENT" in caplog.text


def test_a_replay_timeout_is_verified_again_and_never_reported_as_proved(caplog: pytest.LogCaptureFixture) -> None:
    """A `timeout` step that ran out in the replay (coqc's own message, checked on real Coq in
    tests/integration/test_coq_env.py) is load, not a wrong proof: one more check from scratch
    decides; two timeouts are a VERIFY TIMEOUT, not proved, and not a soundness incident."""
    table = {("A", "split"): ["B", "C"], ("B", "b"): [], ("C", "c"): []}
    evaluator = TableEvaluator({"A": [("split", -0.1)], "B": [("b", -0.1)], "C": [("c", -0.1)]})

    class SlowReplayEnv(TableEnv):
        """Its verifier times out the first `timeouts` times, then checks as the table does."""

        def __init__(self, timeouts: int) -> None:
            super().__init__(table)
            self.timeouts, self.checks = timeouts, 0

        def verify(self, theorem: Theorem, script: str) -> Verdict:
            self.checks += 1
            if self.checks <= self.timeouts:
                return Verdict(False, REPLAY_TIMEOUT_ERROR + ".", script=script)
            return super().verify(theorem, script)

    once = SlowReplayEnv(timeouts=1)
    outcome = solve(THM, once, evaluator, Method.MCTS, SearchSettings(), BUDGET)
    assert outcome.proved and outcome.verdict is not None and outcome.verdict.ok and outcome.incident == ""
    assert once.checks == 2
    twice = SlowReplayEnv(timeouts=2)
    with caplog.at_level(logging.WARNING, logger="search.solve"):
        outcome = solve(THM, twice, evaluator, Method.MCTS, SearchSettings(), BUDGET)
    assert not outcome.proved and outcome.script is None and twice.checks == 2
    assert outcome.incident.startswith("VERIFY TIMEOUT") and "SOUNDNESS INCIDENT" not in caplog.text
    assert replay_timed_out(outcome.verdict) and not replay_timed_out(Verdict(False, "coqc rejected the proof: Error: foo"))


def test_solve_runs_every_method_from_the_registry() -> None:
    assert set(RUNNERS) == set(Method)
    table = {("A", "lia"): []}
    for method in Method:
        evaluator = TableEvaluator({"A": [("lia", -0.1)]}) if method.needs_evaluator else None
        outcome = solve(THM, TableEnv(table), evaluator, method, budget=BUDGET)
        assert outcome.proved and outcome.script == "lia" and outcome.method is method
    with pytest.raises(ValueError, match="needs an evaluator"):
        solve(THM, TableEnv(table), None, Method.BEST_FIRST)
    with pytest.raises(ValueError, match="unknown method 'dfs'"):
        Method.parse("dfs")
    assert Method.parse("bfs") is Method.BEST_FIRST
