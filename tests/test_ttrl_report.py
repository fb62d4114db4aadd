"""ttrl.report and the pure parts of ttrl.loop / alphaprover.ttrl_cmd: atomic state, resume from the
replay buffer, the compute scheduler (a solved target gets no more slices), what the episodes say
(variants proved before the target's proof), the reports, variant store, target loading, the dev
subset refused. No prover, no network."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from alphaprover.config import UsageError
from lean_interface.api import Theorem
from lean_interface.problems.benchmarks import BUNDLED, dev_problem_names
from search.outcome import Outcome
from selfplay.episode import Episode, TrainingRecord
from selfplay.replay_buffer import ReplayBuffer
from ttrl import report as R
from ttrl.loop import TTRLConfig, VariantStore, open_subgoals, reconcile, target_problem, variant_problem
from ttrl.variants import Variant

VALID = BUNDLED["minif2f-rocq-valid"][0]


def ep(problem: str, proved: bool = False, disprove: bool = False, proof: str = "lia.",
       records: tuple[TrainingRecord, ...] = ()) -> Episode:
    return Episode(problem=problem, source="target" if problem.startswith("target/") else "variant",
                   disprove=disprove, outcome=Outcome.PROVED if proved else Outcome.FAILED,
                   proof=proof if proved else None, records=records)


def variant(name: str, proposition: str, kind: str = "specialise") -> Variant:
    return Variant(Theorem(name, "Require Import Reals.", f"Theorem {name} : {proposition}."), kind, "", 0.5)


# ---- state files ------------------------------------------------------------------------------------

def test_state_round_trips_and_is_replaced_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = R.RunState(max_minutes=30)
    target = state.add_target("t1", "Theorem t1 : 1 = 1.")
    target.seconds, target.status, target.proof = 12.5, R.PROVED, "reflexivity."
    state.add_target("t2", "Theorem t2 : 2 = 2.")
    R.save_state(tmp_path, state)
    loaded = R.load_state(tmp_path)
    assert loaded is not None and loaded.to_dict() == state.to_dict()
    assert list(loaded.targets) == ["t1", "t2"]                  # scheduling order survives
    assert not [p for p in tmp_path.iterdir() if p.name != "state.json"]   # no temp file left behind

    # a crash between writing the temp file and the rename leaves the old state whole
    before = (tmp_path / "state.json").read_text()
    state.targets["t2"].seconds = 99.0

    def crash(*args: object) -> None:
        raise OSError("killed")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        R.save_state(tmp_path, state)
    monkeypatch.undo()
    assert (tmp_path / "state.json").read_text() == before
    assert R.load_state(tmp_path).targets["t2"].seconds == 0.0


def test_load_state_missing_and_unreadable(tmp_path: Path) -> None:
    assert R.load_state(tmp_path) is None
    (tmp_path / "state.json").write_text("{\"version\": 1, \"targ")
    with pytest.raises(ValueError, match="not a TTRL state"):
        R.load_state(tmp_path)
    (tmp_path / "state.json").write_text(json.dumps({"version": 99, "targets": {}}))
    with pytest.raises(ValueError):
        R.load_state(tmp_path)
    with pytest.raises(ValueError, match="unknown status"):
        R.TargetState("x", status="maybe")


# ---- scheduling ------------------------------------------------------------------------------------

def test_next_slice_prefers_least_used_open_target_and_cuts_to_budget() -> None:
    state = R.RunState()
    for name, seconds in (("a", 120.0), ("b", 60.0), ("c", 60.0)):
        state.add_target(name, "").seconds = seconds
    assert R.next_slice(state, ["a", "b", "c"], 1000, 300) == ("b", 300)     # fewest seconds, ties by order
    assert R.next_slice(state, ["a", "c", "b"], 1000, 300) == ("c", 300)
    assert R.next_slice(state, ["a", "b", "c"], 100, 300) == ("b", 100)      # the last slice is cut
    assert R.next_slice(state, ["a", "b", "c"], 4, 300, min_seconds=5) is None
    state.targets["b"].status = R.PROVED
    state.targets["c"].status = R.ERROR
    assert R.next_slice(state, ["a", "b", "c"], 1000, 300) == ("a", 300)
    state.targets["a"].status = R.DISPROVED
    assert R.next_slice(state, ["a", "b", "c"], 1000, 300) is None
    assert R.next_slice(state, ["zzz"], 1000, 300) is None                    # unknown names are skipped


def test_compute_moves_from_solved_to_unsolved_targets() -> None:
    """Simulated run: 3 targets, 10 slices of 60 s; 'easy' is proved in its first slice and never
    gets another; the other two share the rest round-robin; a resume continues the same way."""
    def simulate(state: R.RunState, budget: float, proves: dict[str, int]) -> list[str]:
        order = []
        while (pick := R.next_slice(state, ["hard1", "easy", "hard2"], budget - state.elapsed_seconds, 60)):
            name, seconds = pick
            target = state.targets[name]
            used = 20.0 if proves.get(name) == target.slices + 1 else seconds
            target.slices += 1
            target.seconds += used
            state.elapsed_seconds += used
            if proves.get(name) == target.slices:
                target.status = R.PROVED
            order.append(name)
        return order

    state = R.RunState()
    for name in ("hard1", "easy", "hard2"):
        state.add_target(name, "")
    first = simulate(state, 300, {"easy": 1})
    assert first == ["hard1", "easy", "hard2", "hard1", "hard2", "hard1"]   # the last slice cut to 40 s
    assert state.elapsed_seconds == pytest.approx(300) and state.targets["easy"].slices == 1
    assert state.targets["hard1"].seconds == pytest.approx(160) and state.targets["hard2"].seconds == 120
    # a rerun with a larger budget continues from the saved seconds; 'easy' is never scheduled again
    resumed = R.RunState.from_dict(json.loads(json.dumps(state.to_dict())))
    second = simulate(resumed, 500, {"easy": 1, "hard2": 4})
    assert "easy" not in second and second == ["hard2", "hard1", "hard2", "hard1"]
    assert resumed.targets["hard2"].status == R.PROVED and resumed.elapsed_seconds == pytest.approx(500)


# ---- what the episodes say -------------------------------------------------------------------------

def test_episode_summary_records_proof_and_the_variants_proved_before_it() -> None:
    episodes = [ep("variants/t_v1", proved=True), ep("variants/t_v2", proved=True, disprove=True),
                ep("target/t"), ep("target/t", disprove=True), ep("variants/t_v3", proved=True),
                ep("variants/t_v1", proved=True), ep("other/x", proved=True),
                ep("target/t", proved=True, proof="nra."), ep("variants/t_v4", proved=True),
                ep("target/t", proved=True, proof="later.")]
    summary = R.EpisodeSummary("target/t").add_all(episodes)
    assert summary.decided and summary.proof == "nra." and summary.disproof is None
    assert summary.proved_before == ["variants/t_v1", "variants/t_v3"]
    assert summary.variants_proved == ["variants/t_v1", "variants/t_v3", "variants/t_v4"]
    assert summary.variants_disproved == ["variants/t_v2"]
    assert summary.episodes == 9 and summary.target_attempts == 3     # 'other/x' is not this target's
    state = R.TargetState("t", "Theorem t : P.", seconds=42.0)
    summary.apply(state, {"t_v1": "1 = 1", "t_v3": "3 = 3"})
    assert state.status == R.PROVED and state.proof == "nra." and state.proved_at_seconds == 42.0
    assert state.proved_before == [{"name": "t_v1", "statement": "1 = 1"}, {"name": "t_v3", "statement": "3 = 3"}]
    assert state.variants_proved == ["t_v1", "t_v3", "t_v4"] and state.variants_disproved == ["t_v2"]
    state.seconds = 99.0
    summary.apply(state, {})
    assert state.proved_at_seconds == 42.0                          # a proof is dated once


def test_episode_summary_disproof() -> None:
    summary = R.EpisodeSummary("target/t").add_all([ep("target/t", proved=True, disprove=True, proof="intro H.")])
    state = R.TargetState("t")
    summary.apply(state, {})
    assert summary.decided and state.status == R.DISPROVED and state.proof == "intro H."
    assert state.proved_before == []


def test_reconcile_recovers_a_proof_the_state_had_not_recorded(tmp_path: Path) -> None:
    """kill -9 after the buffer's fsync but before state.json: the proof is not lost."""
    target_dir = tmp_path / "t"
    store = VariantStore(target_dir / "variants.json")
    store.add([variant("t_v1", "1 = 1"), variant("t_v2", "2 = 2", "subgoal")])
    store.generated = True
    store.save()
    with ReplayBuffer(target_dir / "buffer", 1000) as buffer:
        for episode in (ep("variants/t_v2", proved=True), ep("target/t"), ep("target/t", proved=True, proof="lra.")):
            buffer.add(episode)
    state = R.TargetState("t", seconds=30.0)
    reconcile(target_dir, state)
    assert state.status == R.PROVED and state.proof == "lra."
    assert state.proved_before == [{"name": "t_v2", "statement": "2 = 2"}]
    assert state.variants_generated == 2 and state.variants_by_kind == {"specialise": 1, "subgoal": 1}
    fresh = R.TargetState("u")
    reconcile(tmp_path / "u", fresh)                                  # no buffer yet: untouched
    assert fresh.status == R.OPEN and not (tmp_path / "u").exists()


# ---- reports ---------------------------------------------------------------------------------------

def test_reports_show_proofs_times_variants(tmp_path: Path) -> None:
    state = R.RunState(max_minutes=10, elapsed_seconds=200)
    done = state.add_target("mathd_a", "Theorem mathd_a : 1 + 1 = 2.")
    done.status, done.proof, done.seconds, done.proved_at_seconds = R.PROVED, "reflexivity.", 80.0, 75.0
    done.variants_generated, done.variants_by_kind = 3, {"specialise": 2, "subgoal": 1}
    done.variants_proved, done.variants_disproved = ["mathd_a_v1", "mathd_a_v2"], ["mathd_a_v3"]
    done.proved_before = [{"name": "mathd_a_v1", "statement": "1 = 1"}]
    open_ = state.add_target("hard_b", "Theorem hard_b : False.")
    open_.seconds = 120.0
    md, js = R.write_report(tmp_path, state)
    data = json.loads(js.read_text())
    assert data["proved"] == 1 and data["targets"] == 2 and data["elapsed_seconds"] == 200
    assert data["results"][0]["proof"] == "reflexivity." and data["results"][1]["status"] == "open"
    text = md.read_text()
    assert "Proved 1 of 2 targets" in text and "```coq\nreflexivity.\n```" in text
    assert "| mathd_a | proved (at 75 s) | 80 s | 0 | 0 | 0 | 3 | 2 | 1 |" in text
    assert "| hard_b | open | 2.0 min |" in text
    assert "- `mathd_a_v1`: `1 = 1`" in text and "Variants disproved: `mathd_a_v3`" in text


# ---- variant store, config, problems ----------------------------------------------------------------

def test_variant_store_deduplicates_and_persists(tmp_path: Path) -> None:
    store = VariantStore(tmp_path / "variants.json")
    assert not store.generated and store.variants == []
    added = store.add([variant("t_v1", "1 = 1"), variant("t_v2", "1  =  1"), variant("t_v1", "2 = 2"),
                       variant("t_sg1_1", "3 = 3", "subgoal")])
    assert [v.theorem.name for v in added] == ["t_v1", "t_sg1_1"]
    store.generated, store.rounds, store.used_goals = True, 1, ["x : R\n⊢ 3 = 3"]
    store.save()
    again = VariantStore(tmp_path / "variants.json")
    assert again.generated and again.rounds == 1 and again.used_goals == ["x : R\n⊢ 3 = 3"]
    assert again.statements() == {"t_v1": "1 = 1", "t_sg1_1": "3 = 3"} and again.subgoal_count() == 1
    assert variant_problem(again.variants[0]).id == "variants/t_v1"
    assert variant_problem(again.variants[0]).source == "variant"
    assert target_problem("t", again.variants[0].theorem).id == "target/t"


def test_open_subgoals_are_the_unproved_visited_goals() -> None:
    records = (TrainingRecord("⊢ root", None, 40), TrainingRecord("⊢ a", "lia", 1), TrainingRecord("⊢ b", None, 40),
               TrainingRecord("⊢ b", None, 40))
    assert open_subgoals(ep("target/t", records=records)) == ["⊢ root", "⊢ b"]
    led = Episode(problem="target/t", source="target", disprove=False, outcome=Outcome.FAILED, records=records,
                  open_leads=("⊢ c", "⊢ b"))
    assert open_subgoals(led) == ["⊢ c", "⊢ b", "⊢ root"]                 # the actor's ranked leads first
    assert Episode.from_dict(led.to_dict()) == led and Episode.from_dict(ep("x").to_dict()).open_leads == ()


def test_ttrl_config_rejects_unknown_and_bad_values() -> None:
    assert TTRLConfig.from_dict({"target_every": 2}).target_every == 2
    with pytest.raises(ValueError, match="unknown ttrl config keys: nope"):
        TTRLConfig.from_dict({"nope": 1})
    with pytest.raises(ValueError):
        TTRLConfig(target_every=-1)


def test_targets_from_directory_and_competition_file(tmp_path: Path) -> None:
    from alphaprover.ttrl_cmd import load_targets

    folder = tmp_path / "comp"
    folder.mkdir()
    for name in ("mathd_numbertheory_35", "mathd_algebra_119"):
        (folder / f"{name}.v").write_text((VALID / f"{name}.v").read_text())
    assert [t.name for t in load_targets(str(folder), "coq")] == ["mathd_algebra_119", "mathd_numbertheory_35"]
    listing = tmp_path / "comp.txt"
    listing.write_text("# competition\ncomp/mathd_numbertheory_35.v\n\nforall n : nat, n + 0 = n\n")
    targets = load_targets(str(listing), "coq")
    assert [t.name for t in targets] == ["mathd_numbertheory_35", "comp_4"]
    assert targets[1].theorem is not None and "n + 0 = n" in targets[1].theorem.statement
    listing.write_text("comp/mathd_numbertheory_35.v\ncomp/mathd_numbertheory_35.v\n")
    with pytest.raises(UsageError, match="duplicate target names"):
        load_targets(str(listing), "coq")


def test_dev_subset_targets_are_refused_by_name_and_by_statement(tmp_path: Path) -> None:
    from alphaprover.ttrl_cmd import Target, load_targets, refuse_held_out_targets

    dev = sorted(dev_problem_names())[1]
    with pytest.raises(UsageError, match="dev subset"):
        refuse_held_out_targets(load_targets(dev, "coq"))
    renamed = tmp_path / "innocent.v"                                  # the same statement, another name
    text = (VALID / f"{dev}.v").read_text().replace(f"Theorem {dev}", "Theorem innocent")
    renamed.write_text(text)
    targets = load_targets(str(renamed), "coq")
    assert targets[0].name == "innocent"
    with pytest.raises(UsageError, match=f"{dev} is in the dev subset"):
        refuse_held_out_targets(targets)
    refuse_held_out_targets(load_targets("mathd_numbertheory_35", "coq"))   # a train problem passes
    refuse_held_out_targets([Target("broken", None, "cannot parse")])


# ---- the session loop, with a scripted actor pool (no prover) ----------------------------------------

class ScriptedActor:
    def __init__(self, problems: dict) -> None:
        self.problems = problems


class ScriptedPool:
    """An `ActorPool` with one in-process 'actor' whose episodes come from `play(attempt)`; every
    attempt advances the fake clock by its budget."""

    def __init__(self, problems, play, clock) -> None:
        self.actor = ScriptedActor({p.id: p for p in problems})
        self.play, self.clock = play, clock
        self.pending: list = []
        self.attempts: list = []
        self.closed = False

    def idle(self) -> int:
        return 0 if self.pending else 1

    def submit(self, attempt) -> None:
        assert attempt.problem in self.actor.problems, attempt.problem
        self.pending.append(attempt)

    def poll(self, timeout: float):
        done = []
        for attempt in self.pending:
            self.attempts.append(attempt)
            self.clock.now += attempt.max_seconds
            done.append((attempt, self.play(attempt)))
        self.pending = []
        return done

    def close(self) -> None:
        self.closed = True


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class DummyEnv:
    def close(self) -> None:
        pass


@pytest.fixture()
def tiny_checkpoint(tmp_path: Path) -> Path:
    import torch

    from networks.checkpoint import save_checkpoint
    from networks.model import ProverModel, ProverModelConfig
    from networks.tokenizer import ProofTokenizer

    torch.manual_seed(0)
    tokenizer = ProofTokenizer.train(["x : R\n⊢ x = 1", "lia.", "⊢ 1 = 1", "reflexivity."] * 4, vocab_size=300)
    config = ProverModelConfig(vocab_size=tokenizer.vocab_size, d_model=32, d_ff=64, num_heads=2, encoder_layers=1,
                               decoder_layers=1, dropout=0.0, max_goal_tokens=32, max_tactic_tokens=16)
    return save_checkpoint(tmp_path / "start", ProverModel(config), tokenizer)


def _session(tmp_path: Path, checkpoint: Path, play, clock: FakeClock, state: R.TargetState,
             config: TTRLConfig, pools: list):
    from selfplay.learner import LearnerConfig
    from selfplay.loop import SelfPlayConfig
    from selfplay.matchmaker import MatchmakerConfig
    from ttrl.loop import TTRLSession

    target_dir = tmp_path / "run" / "t"
    if not (target_dir / "variants.json").exists():
        store = VariantStore(target_dir / "variants.json")
        store.add([variant("t_v1", "1 = 1"), variant("t_v2", "2 = 3")])
        store.generated = True
        store.save()
    selfplay = SelfPlayConfig(run_dir=str(target_dir), checkpoint=str(checkpoint), actors=0, min_buffer_records=1,
                              learner_steps_per_episode=1,
                              learner=LearnerConfig(batch_size=2, publish_every=2, checkpoint_every=2, quantization=""),
                              matchmaker=MatchmakerConfig(base_seconds=10, base_simulations=8, disprove_fraction=0.0))

    def make_pool(problems):
        pools.append(ScriptedPool(problems, play, clock))
        return pools[-1]

    theorem = Theorem("t", "Require Import Reals.", "Theorem t : 1 = 1.")
    saves: list[float] = []
    session = TTRLSession("t", theorem, selfplay, config, [], make_pool, DummyEnv, state,
                          on_update=lambda: saves.append(state.seconds), clock=clock)
    return session, saves


def test_session_attacks_the_target_periodically_and_stops_at_its_proof(
        tmp_path: Path, tiny_checkpoint: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    played = []

    def play(attempt) -> Episode:
        played.append(attempt)
        records = (TrainingRecord("x : R\n⊢ x = 1", None, 40), TrainingRecord("⊢ 1 = 1", "reflexivity.", 1))
        if attempt.problem == "target/t":        # proved at the third dedicated attempt (the 7th attempt)
            return ep("target/t", proved=len(played) == 7, proof="reflexivity.", records=records)
        return ep(attempt.problem, proved=attempt.problem == "variants/t_v1", records=records)

    made = []

    def fake_subgoals(target, texts, env, name_prefix=None, counts=None):
        made.append(list(texts))
        return [variant(f"{name_prefix}1", f"forall x : R, x = {len(made)}", "subgoal")]

    monkeypatch.setattr("ttrl.loop.from_subgoals", fake_subgoals)
    state = R.TargetState("t", "Theorem t : 1 = 1.")
    pools: list = []
    session, saves = _session(tmp_path, tiny_checkpoint, play, clock, state, TTRLConfig(target_every=2), pools)
    result = session.run(600)
    problems = [a.problem for a in pools[0].attempts]
    # the first attempt of the slice, then every third (after 2 matchmaker picks), is at the target
    assert len(problems) == 7 and problems[0] == problems[3] == problems[6] == "target/t"
    assert result.stopped == "proved" and result.target_attempts == problems.count("target/t")
    assert state.status == R.PROVED and state.proof == "reflexivity." and state.target_attempts >= 3
    if "variants/t_v1" in problems:
        assert state.proved_before == [{"name": "t_v1", "statement": "1 = 1"}]
    # a failed target attempt's open subgoal became a variant that joined the running slice; the same
    # goal text is never used twice
    assert made == [["x : R\n⊢ x = 1"]] and result.new_variants == 1
    assert "variants/t_sg1_1" in pools[0].actor.problems and state.variants_by_kind.get("subgoal") == 1
    assert pools[0].closed and len(saves) >= len(problems)            # state persisted after every episode
    assert (tmp_path / "run" / "t" / "learner" / "learner_state.pt").is_file()
    assert result.learner_steps > 0
    # a proved target: the next slice stops before making any actor
    again = session.run(600)
    assert again.stopped == "decided-before" and len(pools) == 1 and state.slices == 2


def test_session_respects_its_time_and_resumes_from_the_buffer(tmp_path: Path, tiny_checkpoint: Path) -> None:
    clock = FakeClock()
    state = R.TargetState("t", "Theorem t : 1 = 1.")
    pools: list = []
    config = TTRLConfig(target_every=3, subgoal_variants=False)
    session, _ = _session(tmp_path, tiny_checkpoint, lambda a: ep(a.problem, proved=a.problem == "variants/t_v1"),
                          clock, state, config, pools)
    result = session.run(35)
    attempts = pools[0].attempts
    assert result.stopped == "time" and state.status == R.OPEN
    assert all(a.max_seconds <= 35 for a in attempts) and sum(a.max_seconds for a in attempts) <= 35
    assert attempts[-1].max_seconds == pytest.approx(5)               # the last attempt cut to what was left
    assert state.seconds == pytest.approx(35) and state.variants_proved == (
        ["t_v1"] if any(a.problem == "variants/t_v1" for a in attempts) else [])
    # a new session (as after a kill) rebuilds the counts from the buffer before it starts
    fresh = R.TargetState("t", "Theorem t : 1 = 1.")
    session2, _ = _session(tmp_path, tiny_checkpoint, lambda a: ep(a.problem), clock, fresh, config, pools)
    session2.run(12)
    assert fresh.episodes == len(attempts) + len(pools[1].attempts)
    assert pools[1].attempts[0].problem == "target/t"


def test_final_attempt_takes_the_end_of_the_slice_with_the_newest_weights(tmp_path: Path,
                                                                            tiny_checkpoint: Path) -> None:
    from selfplay.learner import latest_weights

    clock = FakeClock()
    state = R.TargetState("t", "Theorem t : 1 = 1.")
    pools: list = []
    published_at_final: list = []
    weights = tmp_path / "run" / "t" / "weights"

    def play(attempt) -> Episode:
        if attempt.max_simulations == 5000:       # the final attempt: what weights can the actor see?
            published_at_final.append(latest_weights(weights))
        return ep(attempt.problem, records=(TrainingRecord("⊢ 1 = 1", "reflexivity.", 1),))

    config = TTRLConfig(target_every=2, subgoal_variants=False, final_attempt_fraction=0.5,
                        final_attempt_simulations=5000)
    session, _ = _session(tmp_path, tiny_checkpoint, play, clock, state, config, pools)
    result = session.run(100)
    attempts = pools[0].attempts
    final = attempts[-1]
    assert result.stopped == "time" and final.problem == "target/t" and not final.disprove
    assert final.max_simulations == 5000 and final.max_seconds == pytest.approx(50)
    assert sum(a.max_seconds for a in attempts[:-1]) == pytest.approx(50)   # self-play ends where it starts
    assert all(a.max_simulations != 5000 for a in attempts[:-1])
    # every owed learner step was taken, and the weights published, before the final attempt
    import torch

    learner = torch.load(tmp_path / "run" / "t" / "learner" / "learner_state.pt", weights_only=False)
    _, seen = published_at_final[0]
    metadata = json.loads((seen / "config.json").read_text())["metadata"]
    assert learner["step"] == len(attempts) - 1 == metadata["learner_step"]
    assert learner["step"] % 2 == 1     # not a multiple of publish_every: published for the final attempt
    with pytest.raises(ValueError):
        TTRLConfig(final_attempt_fraction=1.0)


def test_a_proved_subgoal_variant_gives_its_goal_a_closing_tactic(tmp_path: Path, tiny_checkpoint: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from ttrl.lemmas import LemmaTable, closing_tactic

    clock = FakeClock()
    open_goal = "x : R\nh : x = 1\n⊢ x = 1"
    variant_proof = "intros y hy.\nsplit.\n{ lra. }\n{ lra. }"
    expected = closing_tactic("forall x : R, x = 1 -> x = 1", variant_proof)
    lemmas = tmp_path / "run" / "t" / "lemmas.json"

    def fake_subgoals(target, texts, env, name_prefix=None, counts=None):
        made = variant(f"{name_prefix}1", "forall x : R, x = 1 -> x = 1", "subgoal")
        return [Variant(made.theorem, made.kind, made.description, made.similarity, goal=texts[0])]

    def play(attempt) -> Episode:
        if attempt.problem == "variants/t_sg1_1":            # the subgoal variant: proved, bullets and all
            return ep(attempt.problem, proved=True, proof=variant_proof)
        if attempt.problem == "target/t" and LemmaTable(lemmas).tactics_for(open_goal):
            # what an actor's search does once the goal has a known proof: close it with that tactic
            return ep(attempt.problem, proved=True, proof=f"intros x h.\n{expected}.")
        return ep(attempt.problem, records=(TrainingRecord(open_goal, None, 40),))

    monkeypatch.setattr("ttrl.loop.from_subgoals", fake_subgoals)
    state = R.TargetState("t", "Theorem t : 1 = 1.")
    pools: list = []
    session, _ = _session(tmp_path, tiny_checkpoint, play, clock, state, TTRLConfig(target_every=1), pools)
    assert session.run(600).stopped == "proved"
    table = LemmaTable(lemmas)
    assert table.tactics_for(open_goal) == [expected] and len(table) == 1
    assert expected.endswith("((intros y hy); ((split); [((lra)) | ((lra))]))")
    assert state.lemmas_used == ["t_sg1_1"] and {"name": "t_sg1_1", "statement": "forall x : R, x = 1 -> x = 1"} \
        in state.proved_before
    assert "replays the proofs of these variants (lemmas): `t_sg1_1`" in R.render_markdown(
        R.RunState({"t": state}))
    # after a crash that lost lemmas.json, reconcile rebuilds it from the buffer and finds the lemma again
    lemmas.unlink()
    fresh = R.TargetState("t", "Theorem t : 1 = 1.")
    reconcile(tmp_path / "run" / "t", fresh)
    assert LemmaTable(lemmas).tactics_for(open_goal) == [expected] and fresh.lemmas_used == ["t_sg1_1"]


def test_bridged_variants_are_tried_first_and_their_proof_becomes_a_closing_tactic_for_the_target(
        tmp_path: Path, tiny_checkpoint: Path) -> None:
    import dataclasses

    from ttrl.lemmas import LemmaTable

    clock = FakeClock()
    root = "⊢ 1 = 1"
    bridged = dataclasses.replace(variant("t_b1", "forall x : R, x = 1 -> 1 = 1", "instantiate"),
                                  goal="x : R\nh : x = 1\n⊢ 1 = 1",
                                  bridge="intros; pose proof (h 1) as h_i; pose proof (h 0) as h_j",
                                  origin=root)

    def play(attempt) -> Episode:
        return ep(attempt.problem, proved=attempt.problem == "variants/t_b1", proof="intros.\nreflexivity.")

    state = R.TargetState("t", "Theorem t : 1 = 1.")
    pools: list = []
    session, _ = _session(tmp_path, tiny_checkpoint, play, clock, state, TTRLConfig(target_every=3), pools)
    single = dataclasses.replace(variant("t_b2", "forall x : R, 1 = 1", "instantiate"), goal="x : R\n⊢ 1 = 1",
                                 bridge="intros; pose proof (h 2) as h_i", origin=root)
    session.store.add([single, bridged])     # most instances first; the single one is not proved here
    session.store.save()
    session.run(60)
    problems = [a.problem for a in pools[0].attempts]
    # the target, then the bridged variant with more instances; once it is proved, the target again
    # (its root now has a closing tactic), then the other bridged variant
    assert problems[:4] == ["target/t", "variants/t_b1", "target/t", "variants/t_b2"]
    table = LemmaTable(tmp_path / "run" / "t" / "lemmas.json")
    (tactic,) = table.tactics_for(root)
    prefix = "(intros; pose proof (h 1) as h_i; pose proof (h 0) as h_j); "
    assert tactic.startswith(prefix) and "change (forall x : R, x = 1 -> 1 = 1)" in tactic
    assert table.tactics_for(bridged.goal) == [tactic[len(prefix):]]
    # a resumed session knows the variant was tried: it is not put first again
    pools.clear()
    session2, _ = _session(tmp_path, tiny_checkpoint, play, clock, state, TTRLConfig(target_every=3), pools)
    session2.run(30)
    assert [a.problem for a in pools[0].attempts][:2] != ["target/t", "variants/t_b1"]


def test_test_split_targets_are_refused_by_name_and_by_statement(tmp_path: Path) -> None:
    from alphaprover.ttrl_cmd import load_targets, refuse_held_out_targets
    from lean_interface.problems.benchmarks import BUNDLED, load_benchmark

    test = next(p for p in load_benchmark("minif2f-rocq-test") if p.theorem is not None)
    with pytest.raises(UsageError, match=f"{test.name} is in the test split"):
        refuse_held_out_targets(load_targets(test.name, "coq"))
    renamed = tmp_path / "innocent.v"
    text = (BUNDLED["minif2f-rocq-test"][0] / f"{test.name}.v").read_text().replace(test.name, "innocent")
    renamed.write_text(text)
    with pytest.raises(UsageError, match=f"{test.name} is in the test split"):
        refuse_held_out_targets(load_targets(str(renamed), "coq"))
