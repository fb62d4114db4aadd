"""The test-time RL loop: self-play restricted to one target and its variants (AlphaProof's TTRL).

One `TTRLSession.run(seconds)` is one slice of compute on one target. It reuses self-play whole:
the same `selfplay.loop.SelfPlay` driver (replay buffer, matchmaker, learner), the same actors
and pools (`InlineActors`, `RayActors`), run over the problems

  target/<name>                 the target itself (source `target`)
  variants/<variant name>       its variants (source `variant`), from `ttrl.variants`

with its own run directory (`<run_dir>/<name>/`: buffer, learner, published weights,
variants.json, lemmas.json: `ttrl.target_files`), which the next slice resumes. Only the choice of
attempts is TTRL's own, so the session hands `selfplay.runner.run_pool` its own feed (`_Slice`,
over `SelfPlay.handle` / `SelfPlay.learn`) instead of calling `SelfPlay.run`:

* the first attempt of every slice, and then one after every `target_every` others, is a
  *dedicated* attempt at the target (so an easy target costs one search), with the matchmaker's
  budget for it; the others are the matchmaker's picks over target + variants (proofs and
  disproofs, budgets growing with failure). Every attempt's seconds are cut to what is left of
  the slice.
* the learner trains on every stored episode (proved variants feed it through the buffer), and
  actors pick its published weights up before their next attempt.
* the slice ends when the target is proved (a PROVED episode: `search.solve` inside the actor has
  already had the proof accepted by the backend's kernel check and axiom audit), or disproved
  (its negation proved), or when the time (or `max_episodes` of the self-play config) is used.
* with `final_attempt_fraction` > 0, the last that fraction of every slice is ONE dedicated
  attempt at the target with every owed learner step taken and the newest weights published
  first: self-play makes the network better on the target's neighbourhood, and this attempt is
  where a long search can use it (the periodic attempts have the matchmaker's short budgets).
  Self-play attempts before it are cut to end when it starts.
* bridged variants (`ttrl.variants.bridged_variants`: the target's goal with instances of a
  universally quantified hypothesis added) get one attempt each before the matchmaker picks:
  once one is proved, its bridge plus its proof is a closing tactic for the target's root goal.
* after a failed attempt at the target, its open subgoals become variants (`from_subgoals`) when
  `subgoal_variants` is on. The actor does not hand out its search tree, but its Episode carries
  the failed search's `open_leads` (open goals it expanded, highest evaluator value first: the
  ones it believed nearest to closed) and a value-only record for every goal it visited without
  proving it; the first `subgoals_per_attempt` new texts, leads first, are used. With an
  in-process actor they join the running slice; with Ray actors (whose problem tables were
  shipped at start) they join at the next slice.
* when a subgoal variant is proved, its goal gets a closing tactic in `<run_dir>/lemmas.json`
  (`ttrl.lemmas`): the actors' evaluators offer it first whenever a search reaches that goal, so
  a later target attempt closes in one step what an earlier one left open.

Variants are generated once per target (`variants.json`) and kept across slices; with
`variants.llm_endpoint` set (`ttrl.config.VariantsConfig`) a language model proposes some too.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from lean_interface.api import EnvError, ProofEnv, Theorem
from selfplay.actor import SourceProblem
from search.outcome import Outcome
from selfplay.episode import Episode, TrainingRecord
from selfplay.loop import SelfPlay, SelfPlayConfig
from selfplay.matchmaker import Attempt, Matchmaker, NoProblemsLeft
from selfplay.runner import ActorPool, Feed, run_pool
from ttrl.config import TTRLConfig
from ttrl.lemmas import LemmaTable, record_lemma
from ttrl.report import ERROR, EpisodeSummary, StopReason, TargetState
from ttrl.target_files import LEMMAS_FILE, VARIANTS_FILE, VariantStore, reconcile, target_problem, variant_problem
from ttrl.variants import Counts, Variant, bridged_variants, from_subgoals, generate_variants, llm_variants

log = logging.getLogger(__name__)


def open_subgoals(episode: Episode) -> list[str]:
    """Goal texts an attempt left open, most promising first: the actor's ranked `open_leads`,
    then the rest of its value-only "not proved" records (every goal visited and not proved)."""
    return list(dict.fromkeys([*episode.open_leads, *(r.goal for r in episode.records if r.tactic is None)]))


@dataclass
class SessionResult:
    """What one slice did."""

    episodes: int = 0
    target_attempts: int = 0
    lost_attempts: int = 0
    learner_steps: int = 0
    new_variants: int = 0
    stopped: StopReason | None = None   # None while the slice runs


PoolFactory = Callable[[Sequence[SourceProblem]], ActorPool]


class TTRLSession:
    """One slice of TTRL on one target (see the module docstring).

    `selfplay` is the self-play config with `run_dir` = the target's directory; `make_pool` builds
    an actor pool over the given problems (weights from `<run_dir>/weights`); `make_env` a Coq env
    for variant generation; `state` is updated in place (seconds, counts, status, proof) and
    `on_update()` is called after every change worth persisting (every episode).
    """

    def __init__(self, name: str, theorem: Theorem, selfplay: SelfPlayConfig, config: TTRLConfig,
                 supervised: Sequence[TrainingRecord], make_pool: PoolFactory, make_env: Callable[[], ProofEnv],
                 state: TargetState, on_update: Callable[[], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name, self.theorem = name, theorem
        self.selfplay = dataclasses.replace(selfplay, resume=True)
        self.config = config
        self.supervised = supervised
        self.make_pool, self.make_env = make_pool, make_env
        self.state = state
        self.on_update = on_update or (lambda: None)
        self.clock = clock
        self.target = target_problem(name, theorem)
        self.store = VariantStore(Path(self.selfplay.run_dir) / VARIANTS_FILE)
        self.lemmas = LemmaTable(Path(self.selfplay.run_dir) / LEMMAS_FILE)
        self._env: ProofEnv | None = None
        self._bridged_sent: set[str] = set()

    # ---- helpers ----------------------------------------------------------------------------------
    def _variant_env(self) -> ProofEnv:
        if self._env is None:
            self._env = self.make_env()
        return self._env

    def _close_env(self) -> None:
        if self._env is not None:
            close = getattr(self._env, "close", None)
            if callable(close):
                close()
            self._env = None

    def _generate(self) -> bool:
        """Make the structural and bridged variants once, and the language model's when
        `variants.llm_endpoint` is set (False: the target does not elaborate)."""
        if self.store.generated:
            return True
        counts = Counts()
        if self.theorem.language != "coq":   # variants are made for Coq statements: the target alone
            log.warning("%s: no variants for a %s theorem", self.name, self.theorem.language)
            self.store.generated = True
            self.store.save()
            return True
        try:
            variants = generate_variants(self.theorem, self.config.max_variants, self._variant_env(), counts=counts) \
                if self.config.max_variants > 0 else []
            variants += bridged_variants(self.theorem, self._variant_env(), self.config.max_bridged_variants, counts)
            model = self.config.variants
            if model.llm_endpoint:
                variants += llm_variants(self.theorem, model.llm_endpoint, model.llm_model, model.llm_n,
                                         self._variant_env(), counts=counts)
        except EnvError as error:
            self.state.status, self.state.error = ERROR, str(error).splitlines()[0] if str(error) else "EnvError"
            return False
        self.store.add(variants)
        self.store.generated = True
        self.store.save()
        log.info("%s: %d variants (%d candidates, %d elaborated, %d vacuous)", self.name, len(variants),
                 counts.candidates, counts.elaborated, counts.vacuous)
        return True

    def _sync_variant_counts(self) -> None:
        self.state.variants_generated = len(self.store.variants)
        self.state.variants_by_kind = self.store.by_kind()

    def _subgoal_variants(self, episode: Episode) -> list[Variant]:
        """New variants from a failed target attempt's open subgoals (stored in variants.json)."""
        cfg = self.config
        room = cfg.max_subgoal_variants - self.store.subgoal_count()
        if not cfg.subgoal_variants or self.theorem.language != "coq" or room <= 0:
            return []
        used = set(self.store.used_goals)
        texts = [t for t in open_subgoals(episode) if t not in used][: cfg.subgoals_per_attempt]
        if not texts:
            return []
        self.store.used_goals.extend(texts)
        self.store.rounds += 1
        try:
            made = from_subgoals(self.theorem, texts, self._variant_env(),
                                 name_prefix=f"{self.theorem.name}_sg{self.store.rounds}_")
        except EnvError as error:
            log.warning("%s: subgoal variants failed: %s", self.name, error)
            made = []
        added = self.store.add(made[:room])
        self.store.save()
        return added

    def _record_lemma(self, episode: Episode) -> bool:
        """Record a proved subgoal/bridged variant's lemma; True when it is a new closing tactic for
        the target's own root goal (a bridged variant): the target should be attacked next."""
        added = record_lemma(self.lemmas, self.store.variants, episode)
        if added:
            log.info("%s: %s proved; its goal now closes in one step", self.name, added)
        return bool(added) and any(v.theorem.name == added and v.bridge for v in self.store.variants)

    @staticmethod
    def _extend(driver: SelfPlay, pool: ActorPool, problems: Sequence[SourceProblem]) -> bool:
        """Add problems to a running in-process actor and the driver (a new matchmaker replayed from
        the buffer). False for pools whose actors cannot take new problems (Ray)."""
        actor = getattr(pool, "actor", None)
        if actor is None or not isinstance(getattr(actor, "problems", None), dict):
            return False
        new = {p.id: p for p in problems}
        actor.problems.update(new)
        driver.problems.update(new)
        driver.matchmaker = Matchmaker(sorted(driver.problems), driver.cfg.matchmaker,
                                       seed=driver.cfg.seed + len(driver.problems))
        driver.matchmaker.replay(driver.buffer.episodes_iter())
        return True

    def _untried_bridged(self, driver: SelfPlay) -> str | None:
        """A bridged variant no attempt has been made at yet (nor handed out in this slice): its
        proof would prove the target outright, so each gets one attempt before the matchmaker's picks."""
        # most instances first: a variant with more hypotheses added is no harder than one with fewer
        for variant in sorted(self.store.variants, key=lambda v: -v.bridge.count(";")):
            problem = variant_problem(variant).id
            if variant.bridge and problem not in self._bridged_sent and problem in driver.problems \
                    and driver.matchmaker.attempts(problem) == 0:
                self._bridged_sent.add(problem)
                return problem
        return None

    def _attempt(self, driver: SelfPlay, dedicated: bool, remaining: float) -> Attempt:
        target = self.target.id
        if dedicated:
            seconds, simulations = driver.matchmaker.budget(target)
            attempt = Attempt(target, False, seconds, simulations)
        elif (untried := self._untried_bridged(driver)) is not None:
            seconds, simulations = driver.matchmaker.budget(untried)
            attempt = Attempt(untried, False, seconds, simulations)
        else:
            try:
                attempt = driver.matchmaker.next_attempt()
            except NoProblemsLeft:   # every variant disproved and the target too: cannot happen while open
                seconds, simulations = driver.matchmaker.budget(target)
                attempt = Attempt(target, False, seconds, simulations)
        return dataclasses.replace(attempt, max_seconds=max(0.5, min(attempt.max_seconds, remaining)))

    # ---- the slice --------------------------------------------------------------------------------
    def run(self, seconds: float) -> SessionResult:
        """Spend up to `seconds` (setup included) on the target; see the module docstring."""
        started = self.clock()
        deadline = started + seconds
        base = self.state.seconds
        self.state.slices += 1
        result = SessionResult()
        summary = EpisodeSummary(self.target.id)
        loaded = []   # non-empty once the summary holds the whole buffer

        def tick() -> None:
            """Seconds used, then what the episodes say, then persist."""
            self.state.seconds = round(base + self.clock() - started, 3)
            if loaded:
                summary.apply(self.state, self.store.statements())
                if summary.proof is not None:
                    self.state.lemmas_used = self.lemmas.used_in(summary.proof)
            self._sync_variant_counts()
            self.on_update()

        driver: SelfPlay | None = None
        pool: ActorPool | None = None
        try:
            if not self._generate():
                result.stopped = StopReason.ERROR
                return result
            problems = [self.target, *(variant_problem(v) for v in self.store.variants)]
            driver = SelfPlay(self.selfplay, problems, self.supervised)
            for episode in driver.buffer.episodes_iter():   # lemmas.json may lag the buffer after a crash
                summary.add(episode)
                self._record_lemma(episode)
            loaded.append(True)
            tick()
            if summary.decided:
                result.stopped = StopReason.DECIDED_BEFORE
                return result
            pool = self.make_pool(problems)
            final_at = deadline - self.config.final_attempt_fraction * seconds \
                if self.config.final_attempt_fraction > 0 else None
            run_pool(pool, _Slice(self, driver, pool, summary, deadline, final_at, result, tick))
            return result
        finally:
            try:
                if pool is not None:
                    pool.close()
                if driver is not None:
                    driver.learner.save()
                    driver.buffer.close()
            finally:
                self._close_env()
                tick()

    def _final_attempt(self, driver: SelfPlay, remaining: float) -> Attempt:
        """The slice's long target attempt, after the owed learner steps and with the newest weights."""
        driver.learn(max_steps=driver.owed_steps)
        driver.learner.publish_unpublished()
        return Attempt(self.target.id, False, max(0.5, remaining), self.config.final_attempt_simulations)


#: how a slice ends before its time: nothing in flight is awaited
DECISIVE = (StopReason.PROVED, StopReason.DISPROVED, StopReason.ERROR)


class _Slice(Feed):
    """One slice through `selfplay.runner.run_pool` (see the module docstring): what it submits
    (dedicated target attempts among the matchmaker's picks, bridged variants first, the final
    attempt), what each episode means for the target, and the learner's owed steps."""

    def __init__(self, session: TTRLSession, driver: SelfPlay, pool: ActorPool, summary: EpisodeSummary,
                 deadline: float, final_at: float | None, result: SessionResult, tick: Callable[[], None]) -> None:
        self.session, self.driver, self.pool, self.summary = session, driver, pool, summary
        self.deadline, self.final_at, self.result, self.tick = deadline, final_at, result, tick
        self.cfg, self.clock = session.config, session.clock
        self.since_target = self.cfg.target_every   # the first attempt of a slice is the target
        self.target_errors = 0

    def _capped(self, in_flight: int) -> bool:
        cap = self.session.selfplay.max_episodes
        return bool(cap) and self.result.episodes + in_flight >= cap

    def _self_play_end(self) -> float:
        """Self-play attempts and learner steps end here: the final attempt's start, or the deadline."""
        return self.final_at if self.final_at is not None else self.deadline

    def submitting(self, in_flight: int) -> bool:
        capped = self._capped(in_flight)
        if not self.result.stopped and self.deadline - self.clock() >= self.cfg.min_attempt_seconds and not capped:
            return True
        if not self.result.stopped:
            self.result.stopped = StopReason.EPISODES if capped else StopReason.TIME
        return False

    def finished(self) -> bool:
        return self.result.stopped in DECISIVE

    def gave_up_waiting(self) -> bool:
        return self.clock() > self.deadline + self.cfg.grace_seconds

    def next_attempt(self, in_flight: int) -> Attempt | None:
        cfg, clock = self.cfg, self.clock
        if self._capped(in_flight):
            return None
        if self.final_at is not None and self.final_at - clock() < cfg.min_attempt_seconds:
            if in_flight:      # the final attempt waits for the in-flight ones (Ray)
                return None
            attempt = self.session._final_attempt(self.driver, self.deadline - clock())
            self.final_at = None    # submitted: from now on the slice ends at the deadline
            return attempt
        dedicated = cfg.target_every > 0 and self.since_target >= cfg.target_every
        self.since_target = 0 if dedicated else self.since_target + 1
        return self.session._attempt(self.driver, dedicated, self._self_play_end() - clock())

    def lost(self, attempt: Attempt) -> None:
        self.result.lost_attempts += 1   # an actor died mid-attempt: nothing stored

    def collect(self, attempt: Attempt, episode: Episode) -> None:
        session, driver, summary, result, cfg = self.session, self.driver, self.summary, self.result, self.cfg
        target = session.target.id
        driver.handle(attempt, episode)
        summary.add(episode)
        if session._record_lemma(episode):   # the target's root now closes in one step: try it next
            self.since_target = cfg.target_every
        result.episodes += 1
        on_target = attempt.problem == target and not attempt.disprove
        result.target_attempts += on_target
        if summary.decided and not result.stopped:
            result.stopped = StopReason.PROVED if summary.proof is not None else StopReason.DISPROVED
        if attempt.problem == target:
            self.target_errors = self.target_errors + 1 if episode.outcome is Outcome.ERROR else 0
            if self.target_errors >= cfg.max_target_errors and not result.stopped:
                # the statement does not elaborate (or the prover cannot start): stop, do not spin
                session.state.status, session.state.error = ERROR, episode.error or "attempts end in error"
                result.stopped = StopReason.ERROR
        if on_target and episode.outcome is Outcome.FAILED and not summary.decided:
            added = session._subgoal_variants(episode)
            if added:
                result.new_variants += len(added)
                if session._extend(driver, self.pool, [variant_problem(v) for v in added]):
                    log.info("%s: %d subgoal variants joined the slice", session.name, len(added))
        self.tick()

    def poll_timeout(self) -> float:
        return 0.05 if self.driver.owed_steps else 1.0

    def between_polls(self, actors_busy: bool) -> None:
        # actors busy: one learner step between polls; in-process actor idle: the owed steps
        if actors_busy:
            self.result.learner_steps += self.driver.learn(max_steps=1)
            return
        while self.driver.owed_steps > 0 and self._self_play_end() - self.clock() >= self.cfg.min_attempt_seconds:
            done = self.driver.learn(max_steps=1)
            self.result.learner_steps += done
            if not done:
                break


# TTRLConfig, VariantStore, reconcile and the problem names lived here before ttrl.config and ttrl.target_files
__all__ = ["LEMMAS_FILE", "SessionResult", "StopReason", "TTRLConfig", "TTRLSession", "VariantStore", "open_subgoals", "reconcile",
           "target_problem", "variant_problem"]
