"""benchmarks/search_depth.py on a tiny table world: both expansion modes run every problem, and the
table has every field, the right proof counts and the cost/eager ratio row."""

from __future__ import annotations

import pytest

from benchmarks.search_depth import FIELDS, mode_config, run_depth, search_action, table
from fake_env import TableEnv, TableEvaluator
from lean_interface.api import Goal, Theorem
from search.action_set import ActionMode
from search.config import Budget

PSATZ = "timeout 3 (intros; psatz R 2)"


class _NamedRootEnv(TableEnv):
    """Each theorem's root goal is its name."""

    def start(self, theorem: Theorem) -> Goal:
        self.root = theorem.name
        return Goal(theorem.name, ("path", theorem.name))


def _world() -> tuple[_NamedRootEnv, TableEvaluator]:
    # P: `intros` leaves P1, which only psatz closes (sent once P1's cheap `lra` failed);
    # Q: a chain of open goals Q → Q1 → Q2 → … that nothing closes
    table = {("P", "intros"): ["P1"], ("P1", PSATZ): []}
    proposals: dict = {"P": [("intros", -0.1)], "P1": [("lra", -0.1), (PSATZ, -0.2)]}
    for depth in range(30):
        here = "Q" if depth == 0 else f"Q{depth}"
        table[(here, "intros")] = [f"Q{depth + 1}"]
        proposals[here] = [("intros", -0.1), (PSATZ, -0.3)]
    return _NamedRootEnv(table), TableEvaluator(proposals)


def test_both_modes_run_every_problem_and_the_table_has_every_field() -> None:
    env, evaluator = _world()
    problems = [(name, Theorem(name, "", f"Theorem {name} : True.")) for name in ("P", "Q")]
    lines: list[str] = []
    totals = run_depth(problems, env, ["mcts-fixed"], ["eager", "cost"], Budget(max_simulations=12, max_seconds=0),
                       lambda mode: evaluator, report=lines.append)
    assert set(totals) == {("mcts-fixed", "eager"), ("mcts-fixed", "cost")}
    assert len(lines) == 2 and all("mcts-fixed/eager" in line and "mcts-fixed/cost" in line for line in lines)
    for total in totals.values():
        assert total.proved == [True, False] and total.simulations[1] == 12
        metrics = total.metrics()
        assert list(metrics) == list(FIELDS) and metrics["proved"] == 1 and metrics["max depth"] >= 2
    # eager sends psatz at every goal of Q's chain; cost sends it at Q (the root) only
    assert env.calls.count(("Q1", PSATZ)) == 1 and env.calls.count(("Q", PSATZ)) == 2
    text = table(totals, 2)
    header, rows = text.splitlines()[0], text.splitlines()[2:]
    assert all(name in header for name in FIELDS)
    assert [row.split("|")[2].strip() for row in rows] == ["eager", "cost", "cost / eager"]
    assert rows[0].split("|")[3].strip() == "1/2" and rows[2].split("|")[3].strip() == "1.00×"


def test_only_mcts_labels_name_an_action_set() -> None:
    assert search_action("mcts-mixed") is ActionMode.MIXED
    for bad in ("bfs-fixed", "mcts", "mcts-magic"):
        with pytest.raises(ValueError):
            search_action(bad)


def test_a_mode_may_name_the_cheap_width_of_cost_mode() -> None:
    assert mode_config("cost:12").cheap_first_k == 12 and mode_config("cost:12").expansion == "cost"
    assert mode_config("cost").cheap_first_k == mode_config("eager").cheap_first_k   # the default
    assert mode_config("eager").expansion == "eager"
    for bad in ("eager:8", "cost:x", "cost:-1", "lazy"):
        with pytest.raises(ValueError):
            mode_config(bad)


def test_a_mode_may_name_deep_samples_and_the_measured_expansion() -> None:
    config = mode_config("cost:8:16")
    assert (config.expansion, config.cheap_first_k, config.deep_samples) == ("cost", 8, 16)
    assert mode_config("measured:8").expansion == "measured" and mode_config("measured").deep_samples == 0
    for bad in ("cost:8:16:2", "eager:8:16", "cost:8:x"):
        with pytest.raises(ValueError):
            mode_config(bad)


def test_a_mode_may_name_a_pool_of_coqtop_processes() -> None:
    from benchmarks.search_depth import pool_size

    assert pool_size("glance") == 1 and pool_size("glance@2") == 2 and pool_size("cost:8@3") == 3
    assert mode_config("glance@2").expansion == "glance" and mode_config("cost:8@2").cheap_first_k == 8
    for bad in ("glance@", "glance@0", "glance@x"):
        with pytest.raises(ValueError):
            mode_config(bad)


def test_a_pooled_mode_searches_on_its_own_env_and_needs_one() -> None:
    env, evaluator = _world()
    pooled, _ = _world()
    asked: list[int] = []

    def pooled_env(size: int) -> _NamedRootEnv:
        asked.append(size)
        return pooled

    problems = [(name, Theorem(name, "", f"Theorem {name} : True.")) for name in ("P", "Q")]
    budget = Budget(max_simulations=6, max_seconds=0)
    totals = run_depth(problems, env, ["mcts-fixed"], ["glance", "glance@2"], budget, lambda mode: evaluator,
                       report=lambda line: None, pooled_env=pooled_env)
    assert set(asked) == {2} and totals[("mcts-fixed", "glance@2")].proved == [True, False]
    # each env saw its own mode's searches: the same tactics, once per mode
    assert sorted(set(pooled.calls)) == sorted(set(c for c in env.calls))
    with pytest.raises(ValueError, match="coqtop processes"):
        run_depth(problems, env, ["mcts-fixed"], ["glance@2"], budget, lambda mode: evaluator, report=lambda line: None)


def test_a_mode_may_set_any_mcts_setting() -> None:
    config = mode_config("glance/glance_prices_list=1/num_samples=16")
    assert config.expansion == "glance" and config.glance_prices_list and config.num_samples == 16
    assert mode_config("cost:4@2/cost_c=0.5").cost_c == 0.5 and mode_config("cost:4@2/cost_c=0.5").cheap_first_k == 4
    for bad in ("glance/nonsense=1", "glance/glance_prices_list=maybe", "glance/num_samples", "glance/num_samples=x"):
        with pytest.raises(ValueError):
            mode_config(bad)
