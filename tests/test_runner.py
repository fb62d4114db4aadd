"""The one loop runner (selfplay.runner) over scripted pools, the loop configs' shared base, the
policy and TTRL defaults registered with Hydra, and the TTRL keys that switch on a language
model's variants. No prover, no network."""

from __future__ import annotations

from pathlib import Path

import pytest

from lean_interface.api import Theorem
from selfplay.episode import Episode, Outcome
from selfplay.matchmaker import Attempt
from selfplay.runner import Feed, run_batch, run_pool


def episode(attempt: Attempt) -> Episode:
    return Episode(attempt.problem, "factory", False, Outcome.FAILED)


class Pool:
    """`actors` actors; `poll` finishes every submitted attempt, those named in `die` as lost once."""

    def __init__(self, actors: int = 1, die: tuple[str, ...] = ()) -> None:
        self.actors, self.die = actors, list(die)
        self.pending: list[Attempt] = []
        self.submitted: list[str] = []
        self.closed = False

    def idle(self) -> int:
        return self.actors - len(self.pending)

    def submit(self, attempt: Attempt) -> None:
        self.pending.append(attempt)
        self.submitted.append(attempt.problem)

    def poll(self, timeout: float):
        done = []
        for attempt in self.pending:
            lost = attempt.problem in self.die
            if lost:
                self.die.remove(attempt.problem)
            done.append((attempt, None if lost else episode(attempt)))
        self.pending = []
        return done

    def close(self) -> None:
        self.closed = True


class Countdown(Feed):
    """Submits `n` attempts, then winds down; counts what it hears."""

    def __init__(self, n: int, stop_after: int = 0) -> None:
        self.left, self.stop_after = n, stop_after
        self.collected: list[str] = []
        self.lost_ones: list[str] = []
        self.turns: list[bool] = []

    def submitting(self, in_flight: int) -> bool:
        return self.left > 0

    def next_attempt(self, in_flight: int) -> Attempt | None:
        if self.left == 0:
            return None
        self.left -= 1
        return Attempt(f"p{self.left}", False, 1.0, 1)

    def collect(self, attempt: Attempt, episode: Episode) -> None:
        self.collected.append(attempt.problem)

    def lost(self, attempt: Attempt) -> None:
        self.lost_ones.append(attempt.problem)

    def finished(self) -> bool:
        return bool(self.stop_after) and len(self.collected) >= self.stop_after

    def between_polls(self, actors_busy: bool) -> None:
        self.turns.append(actors_busy)


def test_run_pool_fills_idle_actors_collects_and_gives_the_learner_a_turn_after_each_poll() -> None:
    pool, feed = Pool(actors=2, die=("p3",)), Countdown(5)
    run_pool(pool, feed)
    assert pool.submitted == ["p4", "p3", "p2", "p1", "p0"]     # two at a time while two actors are idle
    assert feed.collected == ["p4", "p2", "p1", "p0"] and feed.lost_ones == ["p3"]
    assert feed.turns == [False, False, False] and not pool.closed   # the caller closes the pool
    early = Countdown(5, stop_after=2)
    run_pool(Pool(actors=1), early)
    assert early.collected == ["p4", "p3"] and len(early.turns) == 1   # finished: no turn after that poll


def test_run_batch_retries_a_lost_attempt_twice_and_stops_submitting_at_the_deadline() -> None:
    attempts = [Attempt(p, False, 1.0, 1) for p in ("a", "b")]
    stored: list[str] = []
    progress: list[tuple] = []
    pool = Pool(die=("a", "a"))
    assert run_batch(lambda: pool, "search", attempts, lambda e: stored.append(e.problem), float("inf"),
                     lambda *event: progress.append(event))
    assert pool.submitted == ["a", "b", "a", "a"] and stored == ["b", "a"] and pool.closed
    assert progress == [("search", 1, 2, False), ("search", 2, 2, False)]
    assert not run_batch(lambda: Pool(die=("a",) * 3), "search", attempts, lambda e: None, float("inf"))
    late = Pool()
    assert not run_batch(lambda: late, "search", attempts, lambda e: None, deadline=0.0)
    assert late.submitted == [] and late.closed
    opened: list[int] = []
    assert run_batch(lambda: opened.append(1) or Pool(), "search", [], lambda e: None, 0.0) and opened == []


def test_the_two_train_loops_share_their_run_keys_and_read_them_as_before() -> None:
    from selfplay.loop_config import ExpertIterationConfig, LoopConfig, RunConfig, SelfPlayConfig

    assert issubclass(SelfPlayConfig, LoopConfig) and issubclass(ExpertIterationConfig, LoopConfig)
    assert RunConfig.keys() == ("run_dir", "checkpoint", "max_minutes", "seed", "resume", "learner")
    assert SelfPlayConfig(run_dir="r", checkpoint="c").max_minutes == 60.0
    assert ExpertIterationConfig(run_dir="r", checkpoint="c").max_minutes == 0.0
    plain = {"run_dir": "r", "checkpoint": "c", "seed": 3, "resume": True, "max_minutes": 5, "learner": {"lr": 1e-3},
             "min_buffer_records": 99, "iteration": {"rounds": 2, "min_buffer_records": 4}}
    cfg = ExpertIterationConfig.from_train_config(plain)
    assert (cfg.seed, cfg.max_minutes, cfg.learner.lr, cfg.rounds, cfg.min_buffer_records) == (3, 5, 1e-3, 2, 4)
    with pytest.raises(ValueError, match="unknown train config keys: nope"):
        SelfPlayConfig.from_dict({"run_dir": "r", "checkpoint": "c", "nope": 1})
    with pytest.raises(ValueError, match="actors"):
        SelfPlayConfig.from_dict({"run_dir": "r", "checkpoint": "c", "actors": -1})


def test_policy_and_ttrl_defaults_come_from_their_dataclasses() -> None:
    from alphaprover.config import load_config
    from alphaprover.policy_config import PolicyConfig
    from ttrl.config import TTRLConfig

    policy = PolicyConfig()
    checkpoints = set()
    for name, threads in (("config", 2), ("train", 1), ("ttrl", 1)):
        cfg = load_config(name, [])
        assert (cfg.actions, cfg.engine, cfg.temperature, cfg.temperature_step, cfg.decoding, cfg.seed) == (
            policy.actions, policy.engine, policy.temperature, policy.temperature_step, policy.decoding, policy.seed)
        assert cfg.threads == threads
        checkpoints.add(str(cfg.checkpoint))
    assert len(checkpoints) == 1 and "???" not in checkpoints       # the policy's, not the loops' placeholder
    ttrl = load_config("ttrl", ["target_every=2", "variants.llm_endpoint=http://model.invalid", "variants.llm_n=3"])
    keys = {key: ttrl[key] for key in ("max_variants", "target_every", "final_attempt_simulations")}
    assert keys == {"max_variants": TTRLConfig().max_variants, "target_every": 2,
                    "final_attempt_simulations": TTRLConfig().final_attempt_simulations}
    parsed = TTRLConfig.from_dict({"target_every": 2, "variants": dict(ttrl.variants)})
    assert (parsed.variants.llm_endpoint, parsed.variants.llm_model, parsed.variants.llm_n) == (
        "http://model.invalid", "", 3)
    assert TTRLConfig().variants.llm_endpoint == ""              # off by default
    with pytest.raises(ValueError, match="unknown ttrl variants config keys"):
        TTRLConfig.from_dict({"variants": {"endpoint": "x"}})


class DummyEnv:
    def close(self) -> None:
        pass


@pytest.mark.parametrize("endpoint", ["", "http://model.invalid"])
def test_a_session_asks_the_language_model_for_variants_only_when_given_an_endpoint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, endpoint: str) -> None:
    from selfplay.loop import SelfPlayConfig
    from ttrl import report as R
    from ttrl.config import TTRLConfig, VariantsConfig
    from ttrl.loop import TTRLSession
    from ttrl.variants import Variant

    target = Theorem("t", "Require Import Reals.", "Theorem t : forall x : R, x = x.")
    asked: list[tuple] = []

    def made(name: str, kind: str) -> Variant:
        return Variant(Theorem(name, target.header, f"Theorem {name} : {name} = {name}."), kind, "", 0.5)

    def llm_variants(theorem, endpoint, model, n, env, counts=None):
        asked.append((theorem.name, endpoint, model, n))
        return [made("t_lm1", "llm")]

    monkeypatch.setattr("ttrl.loop.generate_variants", lambda *args, **kwargs: [made("t_v1", "specialise")])
    monkeypatch.setattr("ttrl.loop.bridged_variants", lambda *args, **kwargs: [])
    monkeypatch.setattr("ttrl.loop.llm_variants", llm_variants)
    config = TTRLConfig(variants=VariantsConfig(llm_endpoint=endpoint, llm_model="m", llm_n=3))
    session = TTRLSession("t", target, SelfPlayConfig(run_dir=str(tmp_path), checkpoint="unused"), config, [],
                          lambda problems: None, DummyEnv, R.TargetState("t", target.statement))
    assert session._generate()
    names = [v.theorem.name for v in session.store.variants]
    if endpoint:
        assert asked == [("t", endpoint, "m", 3)] and names == ["t_v1", "t_lm1"]
    else:
        assert asked == [] and names == ["t_v1"]
