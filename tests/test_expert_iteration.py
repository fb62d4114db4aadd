"""Expert iteration's pure parts: the AUC, the held-out spread, the round state, the search order,
and the driver's phase bookkeeping over a pool that replays fixed episodes (no prover, no network:
the Coq-backed run is tests/integration/test_expert_iteration.py)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from lean_interface.api import Theorem
from selfplay.actor import SourceProblem
from selfplay.episode import Episode, Outcome, TrainingRecord
from selfplay.expert_iteration import ExpertIteration, ExpertIterationConfig, IterationState
from selfplay.iteration_phases import balanced_by_source
from selfplay.learner import LearnerConfig
from selfplay.matchmaker import Attempt
from selfplay.round_metrics import (CURVE_COLUMNS, append_curve_row, append_row, auc, family_of, median, read_rows, spread,
                                    spread_by_family)

CHECKPOINT = Path(__file__).resolve().parent.parent / "checkpoints" / "alphaprover-coq-small"


def test_auc_counts_pairs_ranked_right_and_ties_as_half() -> None:
    assert auc([0.9, 0.8, 0.1, 0.2], [True, True, False, False]) == 1.0
    assert auc([0.1, 0.2, 0.9, 0.8], [True, True, False, False]) == 0.0
    assert auc([0.5, 0.5], [True, False]) == 0.5
    assert auc([3, 1, 2, 0], [True, False, True, False]) == 1.0
    assert auc([2, 1, 3, 0], [True, True, False, False]) == 0.5
    with pytest.raises(ValueError):
        auc([1, 2], [True, True])


def test_spread_takes_evenly_from_the_whole_list() -> None:
    names = [f"p{i:02d}" for i in range(10)]
    assert spread(names, 5) == ["p00", "p02", "p04", "p06", "p08"]
    assert spread(names, 20) == names


def test_spread_by_family_evens_out_the_families() -> None:
    assert family_of("heldout/fam_abs_cases_90000") == "abs_cases"
    assert family_of("heldout/fam_fe_symmetric_00067") == "fe_symmetric"
    assert family_of("factory/fam_x_1") == "x" and family_of("plain") == "plain" and family_of("h/_7") == "_7"
    names = ([f"heldout/fam_big_{i:05d}" for i in range(10)] + ["heldout/fam_pair_00001", "heldout/fam_pair_00002",
             "heldout/fam_one_90000"])
    chosen = spread_by_family(names, 6)
    assert [family_of(n) for n in chosen].count("big") == 3  # one each in turn, then the larger first
    assert {n for n in chosen if "big" not in n} == set(names[10:])
    assert chosen == sorted(chosen) and len(set(chosen)) == 6
    assert [n for n in chosen if "big" in n] == spread(names[:10], 3)  # a family's share spread over it
    assert spread_by_family(names, 99) == sorted(names)
    assert sum("big" in n for n in spread(names, 6)) == 5  # by name alone, the big family takes most


def test_the_heldout_slice_is_chosen_once_and_kept(tmp_path: Path) -> None:
    heldout = [problem(f"fam_big_{i:05d}", "heldout") for i in range(12)] + [problem("fam_small_90000", "heldout")]
    settings = {"run_dir": str(tmp_path / "run"), "checkpoint": str(CHECKPOINT), "heldout_problems": 4,
                "learner": {"quantization": ""}}
    driver = ExpertIteration(ExpertIterationConfig.from_dict(settings), [], heldout, [], lambda kind, ids: None)
    assert "heldout/fam_small_90000" in driver.heldout_slice and len(driver.heldout_slice) == 4
    saved = json.loads((tmp_path / "run" / "heldout_slice.json").read_text())
    assert saved == {"selection": "by_family", "problems": driver.heldout_slice}
    changed = ExpertIterationConfig.from_dict({**settings, "heldout_problems": 8, "heldout_selection": "spread"})
    assert ExpertIteration(changed, [], heldout, [], lambda kind, ids: None).heldout_slice == driver.heldout_slice
    with pytest.raises(ValueError, match="lack: heldout/fam_small_90000"):
        ExpertIteration(changed, [], heldout[:12], [], lambda kind, ids: None)
    # a run begun before the slice was kept (it has iteration.json, no heldout_slice.json) used spread
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    IterationState(2, "search").save(legacy / "iteration.json")
    old = ExpertIteration(ExpertIterationConfig.from_dict({**settings, "run_dir": str(legacy)}), [], heldout, [],
                          lambda kind, ids: None)
    assert old.heldout_slice == spread(sorted(p.id for p in heldout), 4)
    assert "heldout/fam_small_90000" not in old.heldout_slice
    with pytest.raises(ValueError, match="heldout_selection"):
        ExpertIterationConfig.from_dict({**settings, "heldout_selection": "random"})


def test_state_round_trips_and_a_torn_line_is_skipped(tmp_path: Path) -> None:
    state = IterationState(3, "learn", 900)
    state.save(tmp_path / "s.json")
    assert IterationState.load(tmp_path / "s.json") == state
    assert IterationState.load(tmp_path / "missing.json") == IterationState()
    rows = tmp_path / "rows.jsonl"
    append_row(rows, {"problem": "a"})
    rows.write_text(rows.read_text() + '{"problem": "b", "pro')  # a killed writer
    append_row(rows, {"problem": "c"})
    assert [r["problem"] for r in read_rows(rows)] == ["a", "c"]


def test_config_refuses_bad_values() -> None:
    with pytest.raises(ValueError):
        ExpertIterationConfig.from_dict({"run_dir": "r", "checkpoint": "c", "problems_per_round": 0})
    with pytest.raises(ValueError):
        ExpertIterationConfig.from_dict({"run_dir": "r", "checkpoint": "c", "no_such_key": 1})


def problem(name: str, source: str = "factory") -> SourceProblem:
    return SourceProblem(f"{source}/{name}", source, Theorem(name, "", f"Theorem {name} : 1 = 1."))


class ReplayPool:
    """Answers each attempt with a fixed outcome per problem; counts what it was asked."""

    def __init__(self, proved: set[str], asked: list[tuple[str, str]], kind: str) -> None:
        self.proved, self.asked, self.kind = proved, asked, kind
        self.pending: list[Attempt] = []

    def idle(self) -> int:
        return 1

    def submit(self, attempt: Attempt) -> None:
        self.pending.append(attempt)
        self.asked.append((self.kind, attempt.problem))

    def poll(self, timeout: float):
        done = []
        for attempt in self.pending:
            ok = attempt.problem in self.proved
            records = (TrainingRecord("⊢ 1 = 1", "reflexivity.", 1, "factory"),) if ok else \
                (TrainingRecord("⊢ 1 = 1", None, 40, "factory"),)
            done.append((attempt, Episode(attempt.problem, "factory", False,
                                          Outcome.PROVED if ok else Outcome.FAILED,
                                          "reflexivity." if ok else None, records)))
        self.pending.clear()
        return done

    def close(self) -> None:
        """Nothing to release: no processes behind it."""


def test_rounds_evaluate_search_learn_and_resume_where_they_stopped(tmp_path: Path) -> None:
    train = [problem(f"t{i}") for i in range(6)]
    heldout = [problem(f"h{i}", "heldout") for i in range(3)]
    asked: list[tuple[str, str]] = []
    proved = {"factory/t1", "factory/t4", "heldout/h0"}
    cfg = ExpertIterationConfig.from_dict({
        "run_dir": str(tmp_path / "run"), "checkpoint": str(CHECKPOINT), "rounds": 2, "problems_per_round": 3,
        "heldout_problems": 2, "learner_steps_per_round": 2, "min_buffer_records": 1, "policy_search_share": 0.0,
        "learner": {"batch_size": 2, "quantization": "", "checkpoint_every": 1}})

    def make_pool(kind: str, ids: list[str]) -> ReplayPool:
        return ReplayPool(proved, asked, kind)

    referenced: list[list[str]] = []

    def script_referencer(ids: list[str]) -> list[dict]:  # each slice item's script: one opening step, then lra
        referenced.append(ids)
        return [row for i in ids for row in ({"problem": i, "goal": f"{i} goal", "tactic": f"pose proof {i}.", "steps": 2},
                                             {"problem": i, "goal": f"{i} after", "tactic": "lra.", "steps": 1})]

    scored: list[list[tuple[str, str]]] = []

    def logprob_scorer(checkpoint: Path, steps: list[tuple[str, str]]) -> list[float]:
        scored.append(steps)
        return [-10.0 - index for index, _ in enumerate(steps)]

    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(tmp_path / "tb"))
    driver = ExpertIteration(cfg, train, heldout, [], make_pool, writer=writer, logprob_scorer=logprob_scorer,
                             script_referencer=script_referencer)
    progress: list[tuple[str, int, int, bool]] = []
    driver.on_progress = lambda *event: progress.append(event)
    phases: list[tuple[int, str]] = []
    state = driver.run(on_phase=lambda r, p: phases.append((r, p)))
    assert phases == [(0, "reference"), (0, "evaluate"), (0, "search"), (0, "learn"), (1, "evaluate"), (1, "search"), (1, "learn"),
                      (2, "evaluate")]
    assert (state.round, state.phase) == (2, "evaluate")
    assert ("search", 3, 3) in [e[:3] for e in progress] and ("learn", 2, 2, False) in progress
    assert [e for e in progress if e[0] == "reference"] == [("reference", 1, 2, True), ("reference", 2, 2, False)]
    searched = [p for kind, p in asked if kind == "search"]
    assert len(searched) == 6 and len(set(searched)) == 6  # round 1 takes the problems round 0 did not
    assert all(kind in ("heldout", "reference") for kind, p in asked if p.startswith("heldout/"))
    assert [p for kind, p in asked if kind == "reference"] == ["heldout/h0", "heldout/h1"]  # the slice, once
    assert driver.references() == [("⊢ 1 = 1", "reflexivity.")]  # the proved one's steps
    assert driver.frequent_tactics() == ["reflexivity."]
    assert driver.learner.step == 4 and driver.learner.version == 2
    rows = (tmp_path / "run" / "curve.tsv").read_text().splitlines()
    frequent = rows[0].split("\t").index("frequent8_top8")
    assert [r.split("\t")[frequent] for r in rows[1:]] == ["nan", "1.0"]  # each round as evaluated: empty buffer at 0
    assert rows[0].startswith("round\t") and [r.split("\t")[0] for r in rows[1:]] == ["0", "1"]
    summary = json.loads((tmp_path / "run" / "rounds" / "r002" / "heldout.summary.json").read_text())
    assert summary["heldout_proved"] == 1 and summary["frequent8_top8"] == 1.0
    # the slice's scripts replayed once; only the steps before the closing call are scored, each round
    assert referenced == [["heldout/h0", "heldout/h1"]] and len(scored) == 3
    assert scored[0] == [("heldout/h0 goal", "pose proof heldout/h0."), ("heldout/h1 goal", "pose proof heldout/h1.")]
    assert summary["script_logprob"] == -10.5
    column = rows[0].split("\t").index("script_logprob")
    assert [r.split("\t")[column] for r in rows[1:]] == ["-10.5", "-10.5"]
    assert all(not e.problem.startswith("heldout/") for e in driver.buffer.episodes_iter())
    assert driver.family_rates(1) == {"h0": 1.0, "h1": 0.0}  # per family (here each item its own)
    writer.close()
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(tmp_path / "tb"))
    events.Reload()
    assert [(e.step, e.value) for e in events.Scalars("heldout_family/h0")] == [(0, 1.0), (1, 1.0), (2, 1.0)]
    assert [e.value for e in events.Scalars("heldout_family/h1")] == [0.0, 0.0, 0.0]

    asked.clear()  # a rerun of a finished run does nothing new
    again = ExpertIteration(cfg, train, heldout, [], make_pool, script_referencer=script_referencer)
    again.run()
    assert asked == [] and again.learner.step == 4
    assert again.script_steps() == [(g, t) for g, t in scored[0]] and len(referenced) == 1  # read back, not replayed

    def crashing(ids: list[str]) -> list[dict]:
        raise RuntimeError("coqtop died")

    other = cfg.__class__.from_dict({**{k: getattr(cfg, k) for k in ("checkpoint", "rounds")},
                                     "run_dir": str(tmp_path / "other"), "learner": {"quantization": ""}})
    assert ExpertIteration(other, train, heldout, [], make_pool, script_referencer=crashing).script_steps() == []
    assert not (tmp_path / "other" / "script_references.jsonl").exists()  # a crash is retried, not cached


def test_the_curve_counts_the_competition_problems_proved_apart_from_the_generated_ones(tmp_path: Path) -> None:
    """`train_proved_total` counts every source; `competition_proved_total` only the problems of
    the run's benchmark sources (the miniF2F train split), not the factory's nor the variants'."""
    from alphaprover.iterate_cmd import benchmark_sources

    sources = benchmark_sources(["factory:data/factory/factory.jsonl", "minif2f-rocq-train",
                                 "variants:minif2f-rocq-train:4"])
    assert sources == {"minif2f-rocq-train"}
    train = [problem("t0"), problem("t1"), problem("m0", "minif2f-rocq-train"), problem("m1", "minif2f-rocq-train"),
             problem("m0_v1", "variants")]
    proved = {"factory/t0", "factory/t1", "minif2f-rocq-train/m1", "variants/m0_v1"}
    cfg = ExpertIterationConfig.from_dict({
        "run_dir": str(tmp_path / "run"), "checkpoint": str(CHECKPOINT), "rounds": 1, "problems_per_round": 5,
        "heldout_problems": 1, "learner_steps_per_round": 1, "min_buffer_records": 1, "policy_search_share": 0.0,
        "learner": {"batch_size": 2, "quantization": "", "checkpoint_every": 1}})
    driver = ExpertIteration(cfg, train, [problem("h0", "heldout")], [],
                             lambda kind, ids: ReplayPool(proved, [], kind), competition_sources=sources)
    driver.run()
    header, row = [line.split("\t") for line in (tmp_path / "run" / "curve.tsv").read_text().splitlines()]
    assert row[header.index("train_proved_total")] == "4"
    assert row[header.index("competition_proved_total")] == "1"


def test_the_curve_follows_the_hardest_step_of_each_competition_reference(tmp_path: Path) -> None:
    """`competition_bottleneck`: the references replayed once, every step scored each round, per
    reference its lowest log-prob, the median of those; a failing replay leaves the column empty."""
    from selfplay.iteration_metrics import bottleneck

    assert bottleneck(["a", "b", "a", "c", "b"], [-1.0, -4.0, -9.0, -2.0, -0.5]) == -4.0  # lows -9, -4, -2
    replays: list[int] = []

    def competition_referencer() -> list[dict]:
        replays.append(1)
        return [{"problem": "p", "goal": "⊢ easy", "tactic": "intros.", "steps": 2},
                {"problem": "p", "goal": "⊢ hard", "tactic": "unfold f.", "steps": 1},
                {"problem": "q", "goal": "⊢ q", "tactic": "lra.", "steps": 1}]

    def logprob_scorer(checkpoint: Path, steps: list[tuple[str, str]]) -> list[float]:
        return [{"intros.": -0.1, "unfold f.": -20.0, "lra.": -3.0}[tactic] for _, tactic in steps]

    def small(run_dir: Path, rounds: int) -> ExpertIterationConfig:
        return ExpertIterationConfig.from_dict({
            "run_dir": str(run_dir), "checkpoint": str(CHECKPOINT), "rounds": rounds, "problems_per_round": 1,
            "heldout_problems": 1, "learner_steps_per_round": 1, "min_buffer_records": 1, "policy_search_share": 0.0,
            "learner": {"batch_size": 2, "quantization": "", "checkpoint_every": 1}})

    cfg = small(tmp_path / "run", 2)
    driver = ExpertIteration(cfg, [problem("t0")], [problem("h0", "heldout")], [],
                             lambda kind, ids: ReplayPool(set(), [], kind), logprob_scorer=logprob_scorer,
                             competition_referencer=competition_referencer)
    driver.run()
    header, *rows = [line.split("\t") for line in (tmp_path / "run" / "curve.tsv").read_text().splitlines()]
    assert [row[header.index("competition_bottleneck")] for row in rows] == ["-11.5", "-11.5"]  # median of -20, -3
    assert replays == [1]  # replayed once, kept in the run directory
    assert (tmp_path / "run" / "competition_references.jsonl").is_file()

    def broken() -> list[dict]:
        raise RuntimeError("coqtop died")

    cfg = small(tmp_path / "other", 1)
    ExpertIteration(cfg, [problem("t0")], [problem("h0", "heldout")], [], lambda kind, ids: ReplayPool(set(), [], kind),
                    logprob_scorer=logprob_scorer, competition_referencer=broken).run()
    header, row = [line.split("\t") for line in (tmp_path / "other" / "curve.tsv").read_text().splitlines()]
    assert row[header.index("competition_bottleneck")] == "nan"


def test_an_older_curve_gets_the_new_columns_and_keeps_its_rows(tmp_path: Path) -> None:
    curve = tmp_path / "curve.tsv"
    old_columns = [c for c in CURVE_COLUMNS if c != "script_logprob"]
    curve.write_text("\t".join(old_columns) + "\n" + "\t".join(str(i) for i in range(len(old_columns))) + "\n")
    assert append_curve_row(curve, {"round": 1, "heldout_proved": 35, "script_logprob": -14.6})
    assert not append_curve_row(curve, {"round": 1, "heldout_proved": 99})  # a round is written once
    header, first, second = [line.split("\t") for line in curve.read_text().splitlines()]
    assert header == list(CURVE_COLUMNS)
    assert first[header.index("heldout_proved")] == str(old_columns.index("heldout_proved"))  # kept under its name
    assert first[header.index("script_logprob")] == ""  # not measured then
    assert second[header.index("round")] == "1" and second[header.index("script_logprob")] == "-14.6"
    assert median([3.0, 1.0, 2.0]) == 2.0 and median([4.0, 1.0]) == 2.5 and median([]) != median([])


def test_a_share_of_the_search_goes_to_the_policy_alone_and_a_resumed_round_splits_the_same(tmp_path: Path) -> None:
    train = [problem(f"t{i:02d}") for i in range(40)]
    asked: list[tuple[str, str]] = []
    cfg = ExpertIterationConfig.from_dict({
        "run_dir": str(tmp_path / "run"), "checkpoint": str(CHECKPOINT), "problems_per_round": 40,
        "heldout_problems": 1, "policy_search_share": 0.5, "learner": {"quantization": ""}})
    driver = ExpertIteration(cfg, train, [problem("h0", "heldout")], [],
                             lambda kind, ids: ReplayPool({"factory/t03"}, asked, kind))
    assert driver.search(0, deadline=float("inf"))
    by_kind = {kind: {p for k, p in asked if k == kind} for kind in ("search", "search-policy")}
    assert by_kind["search"] and by_kind["search-policy"]  # both halves non-empty at 40 problems
    assert not by_kind["search"] & by_kind["search-policy"]
    assert by_kind["search"] | by_kind["search-policy"] == {p.id for p in train}
    assert all(driver.searched_by_policy(0, p) for p in by_kind["search-policy"])
    assert all(not driver.searched_by_policy(0, p) for p in by_kind["search"])
    rows = read_rows(tmp_path / "run" / "rounds" / "r000" / "search.jsonl")
    assert {r["problem"]: r["actions"] for r in rows} == {
        **{p: "policy" for p in by_kind["search-policy"]}, **{p: "search" for p in by_kind["search"]}}
    again = ExpertIteration(cfg, train, [problem("h0", "heldout")], [], lambda kind, ids: None)
    assert [again.searched_by_policy(0, p.id) for p in train] == [driver.searched_by_policy(0, p.id) for p in train]
    assert [driver.searched_by_policy(1, p.id) for p in train] != [driver.searched_by_policy(0, p.id) for p in train]
    for share, expected in ((0.0, False), (1.0, True)):
        fixed = ExpertIterationConfig.from_dict({"run_dir": str(tmp_path / f"s{share}"), "checkpoint": str(CHECKPOINT),
                                                 "policy_search_share": share, "learner": {"quantization": ""}})
        split = ExpertIteration(fixed, train, [], [], lambda kind, ids: None)
        assert {split.searched_by_policy(0, p.id) for p in train} == {expected}
    with pytest.raises(ValueError, match="policy_search_share"):
        ExpertIterationConfig.from_dict({"run_dir": "r", "checkpoint": "c", "policy_search_share": 1.5})


def test_heldout_and_train_may_not_overlap(tmp_path: Path) -> None:
    cfg = ExpertIterationConfig.from_dict({"run_dir": str(tmp_path), "checkpoint": str(CHECKPOINT),
                                           "learner": {"quantization": ""}})
    same = problem("p")
    with pytest.raises(ValueError, match="both trained on and held out"):
        ExpertIteration(cfg, [same], [same], [], lambda kind, ids: None)


def test_sources_take_turns_and_keep_their_own_order() -> None:
    problems = ["factory/a", "factory/b", "factory/c", "factory/d", "minif2f/x", "minif2f/y"]
    assert balanced_by_source(problems, lambda p: p.split("/")[0]) == [
        "factory/a", "minif2f/x", "factory/b", "minif2f/y", "factory/c", "factory/d"]
    assert balanced_by_source(problems[:4], lambda p: p.split("/")[0]) == problems[:4]
    assert balanced_by_source([], str) == []


def test_a_weighted_source_takes_its_share_of_every_prefix_and_the_rest_when_others_run_out() -> None:
    problems = [f"factory/f{i}" for i in range(6)] + [f"train/t{i}" for i in range(6)] + ["variants/v0", "variants/v1"]
    order = balanced_by_source(problems, lambda p: p.split("/")[0], {"train": 2.0})
    assert order[:8] == ["factory/f0", "train/t0", "variants/v0", "train/t1",
                         "factory/f1", "train/t2", "variants/v1", "train/t3"]
    assert sorted(order) == sorted(problems)  # every problem once
    assert [p for p in order if p.startswith("factory/")] == [f"factory/f{i}" for i in range(6)]  # own order kept
    # equal weights: one each in turn, and a source that runs out drops out of the turns
    uneven = ["a/1", "a/2", "b/1", "c/1", "c/2"]
    assert balanced_by_source(uneven, lambda p: p.split("/")[0]) == ["a/1", "b/1", "c/1", "a/2", "c/2"]
    # equal weights named or not: the plain turns
    assert balanced_by_source(problems, lambda p: p.split("/")[0], {"train": 1.0, "factory": 1.0}) == \
        balanced_by_source(problems, lambda p: p.split("/")[0])


def test_source_weights_must_be_positive_and_name_a_source_the_run_trains_on(tmp_path: Path) -> None:
    base = {"run_dir": str(tmp_path), "checkpoint": str(CHECKPOINT), "learner": {"quantization": ""}}
    with pytest.raises(ValueError, match="source_weights must be positive numbers: train=0"):
        ExpertIterationConfig.from_dict({**base, "source_weights": {"train": 0}})
    from alphaprover.config import load_config, to_plain

    composed = to_plain(load_config("train", ["iteration.source_weights={minif2f-rocq-train:2}",
                                              f"run_dir={tmp_path}", f"checkpoint={CHECKPOINT}"]))
    assert ExpertIterationConfig.from_train_config(composed).source_weights == {"minif2f-rocq-train": 2}
    assert ExpertIterationConfig.from_train_config(to_plain(load_config("train", []))).source_weights is None
    cfg = ExpertIterationConfig.from_dict({**base, "source_weights": {"minif2f-rocq-trian": 2.0}})
    with pytest.raises(ValueError, match="names sources the run does not train on: minif2f-rocq-trian"):
        ExpertIteration(cfg, [problem("p")], [], [], lambda kind, ids: None)


def test_a_round_gives_every_source_an_equal_share_and_a_resumed_round_searches_its_plan(tmp_path: Path) -> None:
    """40 factory items beside 4 miniF2F problems, 8 searched a round: the small source gets
    half the round, not 4/44 of it; a round stopped half way searches the rest of the same plan."""
    train = [problem(f"t{i:02d}") for i in range(40)] + [problem(f"m{i}", "minif2f-rocq-train") for i in range(4)]
    cfg = ExpertIterationConfig.from_dict({
        "run_dir": str(tmp_path / "run"), "checkpoint": str(CHECKPOINT), "problems_per_round": 8,
        "heldout_problems": 1, "learner": {"quantization": ""}})
    driver = ExpertIteration(cfg, train, [problem("h0", "heldout")], [], lambda kind, ids: None)
    plan = driver.search_batch(0)
    assert len(plan) == 8 and sum(p.startswith("minif2f-rocq-train/") for p in plan) == 4
    path = tmp_path / "run" / "rounds" / "r000" / "search.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps({"problem": p, "proved": p == plan[0]}) + "\n" for p in plan[:3]))
    assert driver.search_batch(0) == plan[3:]   # a proof found this round does not reshuffle the plan
    nxt = driver.search_batch(1)
    unproved_minif2f = 4 - plan[0].startswith("minif2f-rocq-train/")
    assert plan[0] not in nxt and sum(p.startswith("minif2f-rocq-train/") for p in nxt) == unproved_minif2f


def test_a_family_curriculum_spends_the_factory_share_on_families_not_yet_mastered(tmp_path: Path) -> None:
    """Two factory families of 60 items, one proved in every earlier search, one in none: with
    `curriculum: family` the round's factory share goes mostly to the second; miniF2F keeps its
    half (drawn target by target, `test_a_family_curriculum_draws_competition_targets_near_the_frontier`);
    the `attempts` plan is the one it always was."""
    train = [problem(f"fam_{family}_{i:05d}") for family in ("done", "open") for i in range(60)] + \
        [problem(f"m{i}", "minif2f-rocq-train") for i in range(20)]
    earlier = [(f"factory/fam_{family}_{i:05d}", family == "done") for family in ("done", "open") for i in range(12)]
    plans = {}
    for curriculum in ("attempts", "family"):
        run = tmp_path / curriculum
        cfg = ExpertIterationConfig.from_dict({
            "run_dir": str(run), "checkpoint": str(CHECKPOINT), "problems_per_round": 40, "heldout_problems": 1,
            "curriculum": curriculum, "learner": {"quantization": ""}})
        driver = ExpertIteration(cfg, train, [problem("h0", "heldout")], [], lambda kind, ids: None)
        path = run / "rounds" / "r000" / "search.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text("".join(json.dumps({"problem": p, "proved": ok}) + "\n" for p, ok in earlier))
        plans[curriculum] = driver.search_batch(1)
        assert driver.search_batch(1) == plans[curriculum]       # a resumed round plans the same
    for plan in plans.values():
        assert len(plan) == 40 and sum(p.startswith("minif2f-rocq-train/") for p in plan) == 20
    factory = {name: Counter(family_of(p) for p in plan if p.startswith("factory/")) for name, plan in plans.items()}
    assert factory["family"]["open"] >= 17 and factory["family"]["open"] > 4 * factory["family"]["done"]
    assert factory["attempts"]["open"] < 17                      # a uniform draw over the two families
    minif2f = {name: [p for p in plan if not p.startswith("factory/")] for name, plan in plans.items()}
    assert sorted(minif2f["family"]) == sorted(minif2f["attempts"])   # all 20 untried: the same half
    with pytest.raises(ValueError):
        ExpertIterationConfig.from_dict({"run_dir": "r", "checkpoint": "c", "curriculum": "hardest"})


def test_a_family_curriculum_draws_competition_targets_near_the_frontier(tmp_path: Path) -> None:
    """Variants of two train problems, 60 each, all untried: `near` had half of its earlier
    variant searches proved, `far` none. The variants' share of the round goes mostly to `near`
    (frontier weights 1.0 vs 0.27), and its target problem keeps its place beside them."""
    train = [problem(f"{target}_v{i}", "variants") for target in ("near", "far") for i in range(1, 61)] + \
        [problem("near", "minif2f-rocq-train"), problem("far", "minif2f-rocq-train")]
    earlier = [(f"variants/{target}_v{100 + i}", target == "near" and i % 2 == 0)
               for target in ("near", "far") for i in range(12)]
    cfg = ExpertIterationConfig.from_dict({
        "run_dir": str(tmp_path / "run"), "checkpoint": str(CHECKPOINT), "problems_per_round": 42,
        "heldout_problems": 1, "curriculum": "family", "learner": {"quantization": ""}})
    driver = ExpertIteration(cfg, train, [problem("h0", "heldout")], [], lambda kind, ids: None)
    path = tmp_path / "run" / "rounds" / "r000" / "search.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps({"problem": p, "proved": ok}) + "\n" for p, ok in earlier))
    plan = driver.search_batch(1)
    assert driver.search_batch(1) == plan
    variants = Counter(p.split("/")[1].rsplit("_v", 1)[0] for p in plan if p.startswith("variants/"))
    assert sum(variants.values()) == 40 and variants["near"] >= 26, variants   # ~31 expected
    assert {"minif2f-rocq-train/near", "minif2f-rocq-train/far"} <= set(plan)


def test_targets_another_run_proved_are_not_planned(tmp_path: Path) -> None:
    """`known_proved` (`iteration.known_proofs`, a loop-proof ledger's targets): a listed train
    problem, its variants and its subgoals drop out of the plan, so the competition share goes to
    targets no run has proved; a factory item that happens to share a listed name stays; the same
    run without the ledger plans them all."""
    train = [problem("known"), problem("open_0")] + \
        [problem(target, "minif2f-rocq-train") for target in ("known", "open")] + \
        [problem(f"{target}_v{i}", "variants") for target in ("known", "open") for i in (1, 2)] + \
        [problem(f"{target}_sg0_1", "subgoals") for target in ("known", "open")]
    plans = {}
    for name, known in (("off", ()), ("ledger", {"known", "elsewhere"})):
        cfg = ExpertIterationConfig.from_dict({
            "run_dir": str(tmp_path / name), "checkpoint": str(CHECKPOINT), "problems_per_round": 40,
            "heldout_problems": 1, "curriculum": "family", "learner": {"quantization": ""}})
        driver = ExpertIteration(cfg, train, [problem("h0", "heldout")], [], lambda kind, ids: None,
                                 known_proved=known)
        plans[name] = driver.search_batch(0)
    assert sorted(plans["off"]) == sorted(p.id for p in train)
    assert sorted(plans["ledger"]) == ["factory/known", "factory/open_0", "minif2f-rocq-train/open",
                                       "subgoals/open_sg0_1", "variants/open_v1", "variants/open_v2"]


def test_known_proofs_reads_the_ledgers_targets_and_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    from alphaprover.config import UsageError, load_config, to_plain
    from alphaprover.iterate_cmd import known_proved_targets

    assert known_proved_targets("") == frozenset()
    committed = known_proved_targets("data/loop-proofs/minif2f-rocq-train.jsonl")   # found from the repository
    assert len(committed) >= 100 and "aime_1984_p15" in committed
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text(json.dumps({"problem": "p1", "script": "lia.", "run": "r"}) + "\n"
                      + json.dumps({"problem": "p1", "script": "nia.", "run": "s"}) + "\n")
    assert known_proved_targets(str(ledger)) == {"p1"}
    with pytest.raises(UsageError, match="known_proofs: .*none.jsonl not found"):
        known_proved_targets(str(tmp_path / "none.jsonl"))
    composed = to_plain(load_config("train", [f"iteration.known_proofs={ledger}"]))
    assert ExpertIterationConfig.from_train_config(composed).known_proofs == str(ledger)


def _round_one_attempts(cfg: ExpertIterationConfig, train: list, earlier: list[tuple[str, bool]]) -> list[Attempt]:
    """The attempts round 1's search submits after a round 0 whose search rows are `earlier`
    ((problem, proved)); the pool replays nothing, it records."""
    submitted: list[Attempt] = []

    class Recording(ReplayPool):
        def submit(self, attempt: Attempt) -> None:
            submitted.append(attempt)
            super().submit(attempt)

    driver = ExpertIteration(cfg, train, [problem("h0", "heldout")], [], lambda kind, ids: Recording(set(), [], kind))
    path = Path(cfg.run_dir) / "rounds" / "r000" / "search.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps({"problem": p, "proved": ok}) + "\n" for p, ok in earlier))
    assert driver.search(1, deadline=float("inf"))
    return submitted


def test_a_never_proved_family_searches_with_a_larger_budget(tmp_path: Path) -> None:
    """`curriculum_max_budget: 4`: after 12 failed searches of family `open` and 12 proofs of
    `done`, the next round's `open` items get ≈ 3.8× the seconds and simulations, `done` items
    and miniF2F problems the base budget; the default (1) changes nothing."""
    train = [problem(f"fam_{family}_{i:05d}") for family in ("done", "open") for i in range(40)] + \
        [problem("m0", "minif2f-rocq-train")]
    earlier = [(f"factory/fam_{family}_{i:05d}", family == "done") for family in ("done", "open") for i in range(12)]
    for max_budget in (1.0, 4.0):
        run = tmp_path / str(max_budget)
        cfg = ExpertIterationConfig.from_dict({
            "run_dir": str(run), "checkpoint": str(CHECKPOINT), "problems_per_round": 12, "heldout_problems": 1,
            "curriculum_max_budget": max_budget, "search_seconds": 10.0, "search_simulations": 50,
            "policy_search_share": 0.0, "learner": {"quantization": ""}})
        submitted = _round_one_attempts(cfg, train, earlier)
        budgets = {family_of(a.problem): (a.max_seconds, a.max_simulations) for a in submitted}
        assert budgets["m0"] == (10.0, 50)
        if max_budget == 1.0:
            assert set(budgets.values()) == {(10.0, 50)}
        else:
            factor = 1 + 3 * (2 * 13 / 14 - 1)
            assert budgets["open"] == (pytest.approx(10.0 * factor), round(50 * factor))
            assert budgets.get("done", (10.0, 50)) == (10.0, 50)
        assert "open" in budgets


def test_a_competition_target_never_proved_searches_with_a_larger_budget(tmp_path: Path) -> None:
    """`target_max_budget: 3`: `hard`'s 12 variant searches all failed and `easy`'s all proved, so
    the next round searches `hard` and its variants with ≈ 2.9× the seconds and simulations,
    `easy`'s variants and the untried `fresh` with the base budget, factory items too (their
    budget is `curriculum_max_budget`'s); the default (1) changes nothing."""
    train = [problem(f"{target}_v{i}", "variants") for target in ("hard", "easy") for i in range(1, 6)] + \
        [problem(name, "minif2f-rocq-train") for name in ("hard", "fresh")] + [problem("fam_open_00001")]
    earlier = [(f"variants/{target}_v{100 + i}", target == "easy") for target in ("hard", "easy") for i in range(12)]
    for max_budget in (1.0, 3.0):
        run = tmp_path / str(max_budget)
        cfg = ExpertIterationConfig.from_dict({
            "run_dir": str(run), "checkpoint": str(CHECKPOINT), "problems_per_round": 20, "heldout_problems": 1,
            "target_max_budget": max_budget, "search_seconds": 10.0, "search_simulations": 50,
            "policy_search_share": 0.0, "learner": {"quantization": ""}})
        submitted = _round_one_attempts(cfg, train, earlier)
        budgets = {a.problem: (a.max_seconds, a.max_simulations) for a in submitted}
        assert len(budgets) == len(train)
        hard = [b for p, b in budgets.items() if p.split("/")[1].startswith("hard")]
        rest = [b for p, b in budgets.items() if not p.split("/")[1].startswith("hard")]
        assert len(hard) == 6 and len(rest) == 7 and set(rest) == {(10.0, 50)}
        if max_budget == 1.0:
            assert set(hard) == {(10.0, 50)}
        else:
            factor = 1 + 2 * (2 * 13 / 14 - 1)
            assert all(b == (pytest.approx(10.0 * factor), round(50 * factor)) for b in hard), hard
    with pytest.raises(ValueError):
        ExpertIterationConfig.from_dict({"run_dir": "r", "checkpoint": "c", "target_max_budget": 0.5})


def test_heldout_goals_are_labelled_alike_whatever_rule_the_run_trains_with() -> None:
    """The curve's value AUC compares proved goals with goals searched without a proof; with
    `actor.unproved_targets=none` a held-out actor would write no negatives (AUC undefined, as
    run 13's first round read) and with `root` only failed roots (an easier test than run 10's)."""
    from alphaprover.iterate_cmd import pool_actor_settings
    from selfplay.actor import ActorConfig

    for rule in ("root", "tree", "none"):
        trained = {"unproved_targets": rule, "min_visits_for_value": 2}
        heldout, search = pool_actor_settings("heldout", trained), pool_actor_settings("search", trained)
        assert ActorConfig.from_dict(heldout) == ActorConfig(min_visits_for_value=2, unproved_targets="tree")
        assert ActorConfig.from_dict(search) == ActorConfig(min_visits_for_value=2, unproved_targets=rule,
                                                            prune_proofs=True)
    assert pool_actor_settings("reference", {})["prune_proofs"] and not pool_actor_settings("heldout", {})["prune_proofs"]
