"""Expert iteration's subgoal problems (selfplay/subgoals.py): which leads are taken, the store
that a resumed run reads back, the held-out refusals, and the driver's round with them — over a
pool that replays fixed episodes and a maker that closes goal texts by rule (the Coq-backed maker,
`ttrl.variants.SubgoalTheorems`, is tested in tests/integration/test_variants.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lean_interface.api import EnvError, Theorem
from lean_interface.problems.benchmarks import dev_problem_names, load_benchmark
from selfplay.actor import SourceProblem
from selfplay.episode import Episode, Outcome, TrainingRecord
from selfplay.expert_iteration import ExpertIteration, ExpertIterationConfig, check_source_weights
from selfplay.matchmaker import Attempt
from selfplay.round_metrics import read_rows
from selfplay.subgoals import SUBGOAL_SOURCE, SubgoalHarvester, SubgoalStore, failed_leads

CHECKPOINT = Path(__file__).resolve().parent.parent / "checkpoints" / "alphaprover-coq-small"
TRAIN = "minif2f-rocq-train"


def problem(name: str, source: str = TRAIN, statement: str = "1 = 1") -> SourceProblem:
    return SourceProblem(f"{source}/{name}", source, Theorem(name, "Require Import Reals.", f"Theorem {name} : {statement}."))


class RuleMaker:
    """Closes `⊢ C` into `Theorem <prefix>n : C.` (n from 1, texts without `⊢` skipped); records calls."""

    def __init__(self, fail_on: str = "") -> None:
        self.calls: list[tuple[str, list[str], str]] = []
        self.closed = 0
        self.fail_on = fail_on

    def __call__(self, target: Theorem, texts: list[str], prefix: str) -> list[tuple[Theorem, str]]:
        self.calls.append((target.name, list(texts), prefix))
        if target.name == self.fail_on:
            raise EnvError("coqtop died")
        made = [t for t in texts if "⊢" in t]
        return [(Theorem(f"{prefix}{i}", target.header, f"Theorem {prefix}{i} : {t.split('⊢')[1].strip()}."), t)
                for i, t in enumerate(made, 1)]

    def close(self) -> None:
        self.closed += 1


def row(name: str, outcome: str = "failed", leads: list[str] | None = None, source: str = TRAIN,
        version: int = 0) -> dict:
    data = {"problem": f"{source}/{name}", "proved": outcome == "proved", "outcome": outcome, "weights_version": version}
    if leads is not None:
        data["open_leads"] = leads
    return data


def test_failed_leads_take_failed_unproved_searches_of_the_named_sources() -> None:
    rows = [row("a", leads=["⊢ x = 1", "⊢ y = 2"]), row("a", leads=["⊢ y = 2", "⊢ z = 3"]),
            row("b", "proved"), row("c", leads=["⊢ c = 0"]), row("f", leads=["⊢ f = 0"], source="factory"),
            row("e", "error", leads=["⊢ e = 0"]), row("n", leads=[])]
    assert failed_leads(rows, [TRAIN], proved={f"{TRAIN}/c"}) == {f"{TRAIN}/a": ["⊢ x = 1", "⊢ y = 2", "⊢ z = 3"]}
    # a row written before rows carried leads: the buffer's failed episode of that problem and version
    old = [row("a", version=3), row("b", version=3)]
    episodes = [Episode(f"{TRAIN}/a", TRAIN, False, Outcome.FAILED, weights_version=2, open_leads=("⊢ old = 0",)),
                Episode(f"{TRAIN}/a", TRAIN, False, Outcome.FAILED, weights_version=3, open_leads=("⊢ a = 0",)),
                Episode(f"{TRAIN}/b", TRAIN, False, Outcome.PROVED, weights_version=3, open_leads=("⊢ b = 0",))]
    assert failed_leads(old, [TRAIN], set(), lambda: episodes) == {f"{TRAIN}/a": ["⊢ a = 0"]}
    assert failed_leads(old, [TRAIN], set()) == {}


def test_harvest_makes_named_problems_once_and_the_store_reads_them_back(tmp_path: Path) -> None:
    path = tmp_path / "subgoals.jsonl"
    train = {p.id: p for p in (problem("amc12a_2002_p12"), problem("mathd_algebra_327", statement="2 = 2"))}
    maker = RuleMaker()
    harvester = SubgoalHarvester(SubgoalStore(path), maker, [TRAIN], per_attempt=2, max_per_target=3)
    rows = [row("amc12a_2002_p12", leads=["k : R\n⊢ k = 122", "k : R\n⊢ 122 = k", "⊢ k > 0"]),
            row("mathd_algebra_327", leads=["x : R\n⊢ 2 = 2", "⊢ x < -2"])]
    made = harvester.harvest(4, rows, train, proved=set())
    assert [p.id for p in made] == ["subgoals/amc12a_2002_p12_sg4_1", "subgoals/amc12a_2002_p12_sg4_2",
                                    "subgoals/mathd_algebra_327_sg4_2"]          # `2 = 2` is its target's statement
    assert all(p.source == SUBGOAL_SOURCE for p in made) and made[0].theorem.header == "Require Import Reals."
    assert maker.calls[0] == ("amc12a_2002_p12", ["k : R\n⊢ k = 122", "k : R\n⊢ 122 = k"], "amc12a_2002_p12_sg4_")
    assert maker.closed == 1
    assert harvester.harvest(4, rows, train, set()) == []                          # a round is harvested once
    again = SubgoalStore(path)
    assert again.problems == {p.id: p for p in made} and again.harvested == {4}
    assert again.targets["subgoals/mathd_algebra_327_sg4_2"] == f"{TRAIN}/mathd_algebra_327"
    # the next round: goals already tried are not handed again, and a target's cap holds (3 over the run)
    train.update((p.id, p) for p in made)
    later = SubgoalHarvester(again, maker, [TRAIN], per_attempt=2, max_per_target=3)
    made5 = later.harvest(5, [row("amc12a_2002_p12", leads=["k : R\n⊢ k = 122", "⊢ k > 0", "⊢ k < 200"])], train, set())
    assert maker.calls[-1][1] == ["⊢ k > 0", "⊢ k < 200"] and [p.id for p in made5] == ["subgoals/amc12a_2002_p12_sg5_1"]
    # a goal that prints like an existing problem is not made twice
    assert later.harvest(6, [row("mathd_algebra_327", leads=["⊢ k > 0"])], train | {p.id: p for p in made5}, set()) == []


def test_subgoal_of_a_subgoal_keeps_the_first_target_and_prover_errors_do_not_stop_a_harvest(tmp_path: Path) -> None:
    first = SourceProblem("subgoals/amc12a_2002_p12_sg4_1", SUBGOAL_SOURCE,
                          Theorem("amc12a_2002_p12_sg4_1", "", "Theorem amc12a_2002_p12_sg4_1 : 1 = 1."))
    train = {p.id: p for p in (first, problem("broken"))}
    maker = RuleMaker(fail_on="broken")
    harvester = SubgoalHarvester(SubgoalStore(tmp_path / "s.jsonl"), maker, [TRAIN, SUBGOAL_SOURCE], 1, 4)
    made = harvester.harvest(7, [row("broken", leads=["⊢ 3 = 3"]), row("amc12a_2002_p12_sg4_1", leads=["⊢ 4 = 4"],
                                                                      source=SUBGOAL_SOURCE)], train, set())
    assert [p.id for p in made] == ["subgoals/amc12a_2002_p12_sg4_1_sg7_1"]
    assert harvester.store.tried[f"{TRAIN}/broken"] == {"⊢ 3 = 3"}                  # not handed again


def test_a_subgoal_named_after_or_stated_as_a_held_out_problem_is_refused(tmp_path: Path) -> None:
    dev = sorted(dev_problem_names())[0]
    (dev_problem,) = [p for p in load_benchmark("minif2f-rocq-dev") if p.name == dev]
    dev_statement = dev_problem.theorem.statement.replace(dev, "t_sg1_3", 1)

    def misnaming(target: Theorem, texts: list[str], prefix: str) -> list[tuple[Theorem, str]]:
        return [(Theorem(f"{dev}_sg1_1", "", f"Theorem {dev}_sg1_1 : 5 = 5."), texts[0]),
                (Theorem("other_sg1_1", "", "Theorem other_sg1_1 : 6 = 6."), texts[0]),
                (Theorem("t_sg1_3", dev_problem.theorem.header, dev_statement), texts[0])]

    harvester = SubgoalHarvester(SubgoalStore(tmp_path / "s.jsonl"), misnaming, [TRAIN], 2, 4)
    assert harvester.harvest(1, [row("t", leads=["⊢ 5 = 5"])], {f"{TRAIN}/t": problem("t")}, set()) == []
    assert not harvester.store.problems


class LeadingPool:
    """Fails every train search with one open lead per problem (`⊢ <name> = 0`); proves subgoals."""

    def __init__(self, problems: list[SourceProblem], asked: list[str]) -> None:
        self.by_id = {p.id: p for p in problems}
        self.asked, self.pending = asked, []

    def idle(self) -> int:
        return 1

    def submit(self, attempt: Attempt) -> None:
        self.pending.append(attempt)
        self.asked.append(attempt.problem)

    def poll(self, timeout: float):
        done = []
        for attempt in self.pending:
            source = self.by_id[attempt.problem].source
            ok = source in (SUBGOAL_SOURCE, "heldout")
            name = attempt.problem.rpartition("/")[2]
            done.append((attempt, Episode(attempt.problem, source, False, Outcome.PROVED if ok else Outcome.FAILED,
                                          "reflexivity." if ok else None,
                                          (TrainingRecord("⊢ 1 = 1", "reflexivity." if ok else None, 1 if ok else 40, source),),
                                          open_leads=() if ok else (f"n : nat\n⊢ {name} = 0",))))
        self.pending.clear()
        return done

    def close(self) -> None:
        """Nothing to release."""


def test_the_driver_searches_the_subgoals_of_a_round_in_the_next_and_resumes_with_them(tmp_path: Path) -> None:
    train = [problem(f"t{i}") for i in range(3)]
    heldout = [problem("h0", "heldout")]
    settings = {"run_dir": str(tmp_path / "run"), "checkpoint": str(CHECKPOINT), "rounds": 2, "problems_per_round": 3,
                "heldout_problems": 1, "learner_steps_per_round": 1, "min_buffer_records": 1,
                "policy_search_share": 0.0, "subgoal_sources": [TRAIN],
                "learner": {"batch_size": 2, "quantization": "", "checkpoint_every": 1}}
    cfg = ExpertIterationConfig.from_dict(settings)
    asked: list[str] = []
    pools: list[list[str]] = []

    def make_pool(kind: str, problems: list[SourceProblem]) -> LeadingPool:
        pools.append([p.id for p in problems])
        return LeadingPool(problems, asked)

    with pytest.raises(ValueError, match="subgoal maker"):
        ExpertIteration(cfg, train, heldout, [], make_pool)
    maker = RuleMaker()
    ExpertIteration(cfg, train, heldout, [], make_pool, subgoal_maker=maker).run()
    rows = read_rows(tmp_path / "run" / "rounds" / "r000" / "search.jsonl")
    assert all(r["open_leads"] == [f"n : nat\n⊢ {r['problem'][-2:]} = 0"] for r in rows)
    round1 = [r["problem"] for r in read_rows(tmp_path / "run" / "rounds" / "r001" / "search.jsonl")]
    made = [r["id"] for r in read_rows(tmp_path / "run" / "subgoals.jsonl") if r["kind"] == "problem"]
    assert sorted(made) == ["subgoals/t0_sg0_1", "subgoals/t1_sg0_1", "subgoals/t2_sg0_1"]  # in round 0 only
    assert any(p.startswith("subgoals/") for p in round1)                         # searched the next round
    assert any(p.startswith("subgoals/") for pool in pools for p in pool)        # and handed to the actors
    resumed = ExpertIteration(cfg, train, heldout, [], make_pool, subgoal_maker=maker)
    assert set(made) <= set(resumed.phases.train)
    asked.clear()
    resumed.run()
    assert asked == []                                                            # nothing left to do


def test_source_checks_know_the_subgoal_source(tmp_path: Path) -> None:
    base = {"run_dir": str(tmp_path), "checkpoint": str(CHECKPOINT), "learner": {"quantization": ""}}
    train = [problem("t0")]
    check_source_weights(ExpertIterationConfig.from_dict({**base, "subgoal_sources": [TRAIN],
                                                          "source_weights": {SUBGOAL_SOURCE: 2}}), train)
    with pytest.raises(ValueError, match="source_weights names sources"):
        check_source_weights(ExpertIterationConfig.from_dict({**base, "source_weights": {SUBGOAL_SOURCE: 2}}), train)
    with pytest.raises(ValueError, match="subgoal_sources names sources the run does not train on: minif2f-rocq-trian"):
        check_source_weights(ExpertIterationConfig.from_dict({**base, "subgoal_sources": ["minif2f-rocq-trian"]}), train)
    with pytest.raises(ValueError, match="subgoal_sources must be a list"):
        ExpertIterationConfig.from_dict({**base, "subgoal_sources": "minif2f-rocq-train"})


def test_a_proved_subgoal_s_proof_closes_its_goal_and_stays_out_of_the_policy_targets(tmp_path: Path) -> None:
    """With the lemma recorder (`ttrl.lemmas.SubgoalLemmas`, its table a plain file): the proof of
    a subgoal problem becomes a closing tactic for its open goal (under any hypothesis names), and
    a later episode whose step is that tactic keeps the step as a value target only."""
    from ttrl.lemmas import LemmaTable, SubgoalLemmas

    train = {f"{TRAIN}/t": problem("t")}
    lemmas = SubgoalLemmas(tmp_path / "lemmas.json")
    harvester = SubgoalHarvester(SubgoalStore(tmp_path / "s.jsonl"), RuleMaker(), [TRAIN], 1, 4, lemmas)
    (made,) = harvester.harvest(0, [row("t", leads=["x : R\nH : x = 1\n⊢ x + 1 = 2"])], train, set())
    proved = Episode(made.id, SUBGOAL_SOURCE, False, Outcome.PROVED, "lra.",
                     (TrainingRecord("x : R\nH : x = 1\n⊢ x + 1 = 2", "lra.", 1, SUBGOAL_SOURCE),))
    assert harvester.after_search(proved) == proved                       # its own steps stay targets
    (tactic,) = LemmaTable(tmp_path / "lemmas.json").tactics_for("y : R\nh : y = 1\n⊢ y + 1 = 2")
    assert tactic.endswith("change (x + 1 = 2); ((lra))")
    target_episode = Episode(f"{TRAIN}/t", TRAIN, False, Outcome.PROVED, f"intros. {tactic}",
                             (TrainingRecord("⊢ 1 = 1", "intros.", 2, TRAIN), TrainingRecord("x : R ⊢ 1 = 1", tactic, 1, TRAIN)))
    kept = harvester.after_search(target_episode)
    assert [(r.tactic, r.steps) for r in kept.records] == [("intros.", 2), (None, 1)]
    failed = Episode(made.id, SUBGOAL_SOURCE, False, Outcome.FAILED)
    assert harvester.after_search(failed) == failed and len(LemmaTable(tmp_path / "lemmas.json")) == 1


def test_subgoal_problems_are_searched_with_the_search_actions_unless_a_policy_share_is_set(tmp_path: Path) -> None:
    train = [problem("t0")]
    store = SubgoalStore(tmp_path / "run" / "subgoals.jsonl")
    (tmp_path / "run").mkdir()
    subgoal = SourceProblem("subgoals/t0_sg0_1", SUBGOAL_SOURCE, Theorem("t0_sg0_1", "", "Theorem t0_sg0_1 : 2 = 2."))
    store.add_problem(subgoal, f"{TRAIN}/t0", 0, "⊢ 2 = 2")
    settings = {"run_dir": str(tmp_path / "run"), "checkpoint": str(CHECKPOINT), "policy_search_share": 1.0,
                "subgoal_sources": [TRAIN], "learner": {"quantization": ""}}
    driver = ExpertIteration(ExpertIterationConfig.from_dict(settings), train, [], [], lambda kind, problems: None,
                             subgoal_maker=RuleMaker())
    assert driver.searched_by_policy(3, f"{TRAIN}/t0") and not driver.searched_by_policy(3, subgoal.id)
    shared = ExpertIterationConfig.from_dict({**settings, "subgoal_policy_share": 1.0})
    assert ExpertIteration(shared, train, [], [], lambda kind, problems: None,
                           subgoal_maker=RuleMaker()).searched_by_policy(3, subgoal.id)
    with pytest.raises(ValueError, match="subgoal_policy_share must be in"):
        ExpertIterationConfig.from_dict({**settings, "subgoal_policy_share": 2.0})
