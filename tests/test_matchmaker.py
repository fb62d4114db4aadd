"""selfplay.matchmaker: weight rules, budgets, disprove share, dev refusal, state and replay."""

from __future__ import annotations

import collections
import json
import random
from pathlib import Path

import pytest

from lean_interface.problems.benchmarks import dev_problem_names, load_benchmark
from search.outcome import Outcome
from selfplay.episode import Episode
from selfplay.matchmaker import Attempt, Matchmaker, MatchmakerConfig, NoProblemsLeft
from selfplay.replay_buffer import ReplayBuffer

#: every rule its own weight, so a test sees which rule applied
DISTINCT = MatchmakerConfig(min_attempts=3, recent_window=4, weight_untried=0.9, weight_few=0.8,
                            weight_undecided=0.1, weight_mastered=0.001, weight_default=0.7)


def attempt(problem: str, disprove: bool = False) -> Attempt:
    return Attempt(problem, disprove, 20.0, 200)


def results(mm: Matchmaker, problem: str, outcomes: str) -> None:
    """Report a sequence: P proved, F failed proof, D disproved, N failed disproof."""
    for ch in outcomes:
        mm.report(attempt(problem, disprove=ch in "DN"), proved=ch in "PD")


def test_each_weight_rule() -> None:
    cases = {
        "": 0.9,                  # untried
        "F": 0.8,                 # fewer than min_attempts
        "P": 0.8,                 # proved, but still fewer than min_attempts
        "FN": 0.8,
        "FNF": 0.1,               # undecided after min_attempts
        "FNFFNFFF": 0.1,
        "D": 0.0,                 # disproved: precedence over "few attempts"
        "FFFFPD": 0.0,
        "FFP": 0.7,               # proved sometimes
        "PPP": 0.7,               # all proved but fewer than recent_window attempts
        "FPPPP": 0.001,           # the last recent_window all proved
        "PPPPPF": 0.7,            # ... until one fails
        "PPPPPFPPPP": 0.001,
    }
    mm = Matchmaker([f"gen/p{i}" for i in range(len(cases))], DISTINCT)
    for i, (outcomes, weight) in enumerate(cases.items()):
        results(mm, f"gen/p{i}", outcomes)
        assert mm.weight(f"gen/p{i}") == weight, outcomes


def test_the_default_weights_are_alphaproofs() -> None:
    mm = Matchmaker(["gen/a", "gen/b", "gen/c", "gen/d", "gen/e"])
    results(mm, "gen/b", "F" * 8)
    results(mm, "gen/c", "P" * 12)
    results(mm, "gen/d", "P" * 11 + "F")
    results(mm, "gen/e", "FN")
    assert [mm.weight(p) for p in mm.problem_ids] == [1.0, 0.1, 1e-3, 1.0, 1.0]


def test_problems_are_sampled_in_proportion_to_their_weight() -> None:
    mm = Matchmaker(["gen/hard", "gen/open", "gen/done"], DISTINCT, seed=1)
    results(mm, "gen/hard", "FFF")     # 0.1
    results(mm, "gen/open", "FFP")     # 0.7
    results(mm, "gen/done", "PPPP")    # 0.001
    counts = collections.Counter(mm.next_attempt().problem for _ in range(4000))
    assert 3400 <= counts["gen/open"] <= 3600          # 0.7 / 0.801 → 3496 expected
    assert 400 <= counts["gen/hard"] <= 600            # 0.1 / 0.801 → 499
    assert counts["gen/done"] <= 20                    # ~5


def test_disproved_problems_are_never_chosen_again() -> None:
    mm = Matchmaker(["gen/a", "gen/b", "gen/c"], seed=3)
    results(mm, "gen/b", "FND")
    assert "gen/b" not in {mm.next_attempt().problem for _ in range(3000)}
    results(mm, "gen/a", "D")
    results(mm, "gen/c", "PPD")
    with pytest.raises(NoProblemsLeft, match="all 3 problems have weight 0"):
        mm.next_attempt()


def test_budget_grows_with_consecutive_failures_and_is_capped() -> None:
    mm = Matchmaker(["gen/a"])
    first = mm.next_attempt()
    assert (first.problem, first.max_seconds, first.max_simulations) == ("gen/a", 20.0, 200)
    for failures in range(1, 9):
        results(mm, "gen/a", "F" if failures % 2 else "N")   # failed disproofs count too
        seconds, simulations = mm.budget("gen/a")
        assert seconds == pytest.approx(20.0 * 1.17 ** failures)
        assert simulations == round(200 * 1.17 ** failures)
    results(mm, "gen/a", "F")                                 # 1.17 ** 9 = 4.11 > 4: capped
    assert mm.budget("gen/a") == (80.0, 800)
    chosen = mm.next_attempt()
    assert (chosen.max_seconds, chosen.max_simulations) == (80.0, 800)
    results(mm, "gen/a", "P")                                 # a success resets the budget
    assert mm.budget("gen/a") == (20.0, 200)
    results(mm, "gen/a", "F")
    assert mm.budget("gen/a") == pytest.approx((23.4, 234))


def test_the_budget_cap_survives_a_very_long_failure_streak() -> None:
    mm = Matchmaker(["gen/a"], MatchmakerConfig(base_seconds=10.0, base_simulations=50, max_budget_factor=2.5))
    state = mm.state_dict()
    state["problems"]["gen/a"] = {"attempts": 10**6, "proofs": 0, "disproofs": 0, "failures": 10**6, "recent": []}
    mm.load_state_dict(state)
    assert mm.budget("gen/a") == (25.0, 125)   # 1.17 ** 10**6 would overflow a float


def test_only_undecided_problems_are_attempted_as_negations_at_the_disprove_fraction() -> None:
    mm = Matchmaker(["gen/undecided", "gen/proved"], seed=11)
    results(mm, "gen/proved", "FNFP")
    by_problem: dict[str, list[bool]] = collections.defaultdict(list)
    for _ in range(4000):
        chosen = mm.next_attempt()
        by_problem[chosen.problem].append(chosen.disprove)
    share = sum(by_problem["gen/undecided"]) / len(by_problem["gen/undecided"])
    assert len(by_problem["gen/undecided"]) > 1500 and 0.45 <= share <= 0.55, share
    assert len(by_problem["gen/proved"]) > 1500 and not any(by_problem["gen/proved"])

    hard = Matchmaker(["gen/hard"], seed=12)
    results(hard, "gen/hard", "FNFNFNFNFN")       # undecided after many attempts: weight 0.1, still disproved half
    share = sum(hard.next_attempt().disprove for _ in range(3000)) / 3000
    assert 0.45 <= share <= 0.55, share

    quarter = Matchmaker(["gen/x"], MatchmakerConfig(disprove_fraction=0.2), seed=5)
    share = sum(quarter.next_attempt().disprove for _ in range(4000)) / 4000
    assert 0.17 <= share <= 0.23
    assert not any(Matchmaker(["gen/x"], MatchmakerConfig(disprove_fraction=0.0)).next_attempt().disprove
                   for _ in range(200))


def simulate(mm: Matchmaker, steps: int, seed: int) -> list[tuple[Attempt, bool]]:
    """Drive `mm` with random outcomes (each problem has its own success odds)."""
    rng = random.Random(seed)
    odds = {p: rng.random() * (i % 3 != 0) for i, p in enumerate(mm.problem_ids)}   # every 3rd never proved
    false_odds = {p: 0.0 if odds[p] else 0.1 for p in mm.problem_ids}                  # and sometimes disproved
    log = []
    for _ in range(steps):
        chosen = mm.next_attempt()
        proved = rng.random() < (false_odds if chosen.disprove else odds)[chosen.problem]
        mm.report(chosen, proved)
        log.append((chosen, proved))
    return log


def test_state_round_trips_through_json_and_continues_identically() -> None:
    ids = [f"gen/p{i}" for i in range(12)]
    mm = Matchmaker(ids, seed=4)
    simulate(mm, 300, seed=1)
    state = json.loads(json.dumps(mm.state_dict()))
    resumed = Matchmaker(ids, seed=999)
    resumed.load_state_dict(state)
    assert [resumed.stats(p) for p in ids] == [mm.stats(p) for p in ids]
    assert [resumed.next_attempt() for _ in range(50)] == [mm.next_attempt() for _ in range(50)]
    with pytest.raises(ValueError, match="version"):
        resumed.load_state_dict({**state, "version": 99})


def test_replay_from_stored_episodes_rebuilds_the_state(tmp_path: Path) -> None:
    ids = [f"gen/p{i}" for i in range(10)]
    mm = Matchmaker(ids, seed=8)
    log = simulate(mm, 250, seed=2)
    assert any(a.disprove and proved for a, proved in log)   # the run did disprove something
    with ReplayBuffer(tmp_path, capacity=10) as buffer:
        buffer.add(Episode("gen/retired", "gen", False, Outcome.PROVED))   # no longer in the problem set
        for chosen, proved in log:
            buffer.add(Episode(chosen.problem, "gen", chosen.disprove, Outcome.PROVED if proved else Outcome.FAILED))
        resumed = Matchmaker(ids, seed=8)
        assert resumed.replay(buffer.episodes_iter()) == len(log)
    for problem in ids:
        assert resumed.stats(problem) == mm.stats(problem)
        assert resumed.weight(problem) == mm.weight(problem)
        assert resumed.budget(problem) == mm.budget(problem)


def test_an_error_episode_counts_as_a_failed_attempt() -> None:
    mm = Matchmaker(["gen/a"])
    mm.replay([Episode("gen/a", "gen", False, Outcome.ERROR, error="does not elaborate")])
    assert mm.stats("gen/a") == {"attempts": 1, "proofs": 0, "disproofs": 0, "failures": 1, "recent": [False]}


def test_dev_problems_are_refused() -> None:
    dev = sorted(dev_problem_names())[0]
    train = load_benchmark("minif2f-rocq-train")[0].name
    for problem_id in (dev, f"minif2f-rocq-valid/{dev}", f"anything/{dev}"):
        with pytest.raises(ValueError) as info:
            Matchmaker([f"minif2f-rocq-train/{train}", problem_id])
        assert "dev-subset" in str(info.value) and problem_id in str(info.value)
        assert "\n" not in str(info.value)
    assert Matchmaker([f"minif2f-rocq-train/{train}"]).next_attempt().problem == f"minif2f-rocq-train/{train}"


def test_bad_inputs_are_one_line_value_errors() -> None:
    with pytest.raises(ValueError, match="at least one problem"):
        Matchmaker([])
    with pytest.raises(ValueError, match="duplicate problem ids: gen/a"):
        Matchmaker(["gen/a", "gen/b", "gen/a"])
    with pytest.raises(ValueError, match="unknown problem 'gen/z'"):
        Matchmaker(["gen/a"]).report(attempt("gen/z"), True)
    with pytest.raises(ValueError, match="unknown MatchmakerConfig keys: budget_grow"):
        MatchmakerConfig.from_dict({"budget_grow": 1.2})
    with pytest.raises(ValueError, match="disprove_fraction"):
        MatchmakerConfig.from_dict({"disprove_fraction": 1.5})
    with pytest.raises(ValueError, match="weight_mastered"):
        MatchmakerConfig(weight_mastered=-1.0)
    assert MatchmakerConfig.from_dict({"budget_growth": 1.3, "min_attempts": 4}) == MatchmakerConfig(
        budget_growth=1.3, min_attempts=4)


def test_attempt_round_trips() -> None:
    chosen = Attempt("gen/a", True, 23.4, 234)
    assert Attempt.from_dict(json.loads(json.dumps(chosen.to_dict()))) == chosen
    with pytest.raises(ValueError, match="unknown Attempt keys: seconds"):
        Attempt.from_dict({**chosen.to_dict(), "seconds": 1})
