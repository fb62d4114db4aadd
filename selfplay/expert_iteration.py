"""Expert iteration over the problem factory, in rounds that resume (docs/ARCHITECTURE.md §Expert iteration).

Once, before round 0: **reference** — the held-out slice searched by the automation alone
(`fixed` actions, no network), proofs pruned; their steps are the reference (goal, tactic) pairs
on which every round's policy is scored by exact match (top-8 of an 8-beam) beside the baseline
"the 8 tactics most frequent in the training buffer". They are measurements, never training data.
Likewise (on first need) the slice's own proof scripts, replayed in Coq: each round's
`script_logprob` is the median log-prob the policy gives their steps before the closing call.

Round r (weights version r; version 0 is the starting checkpoint):

  1. evaluate  the current weights on a fixed held-out slice at a fixed budget, with the
               evaluation's action set (`network`, the policy alone, by default) →
               `rounds/r003/heldout.jsonl`; the learning curve's point for round r, and the value
               head's AUC on the goals those searches proved vs. searched without a proof.
  2. search    `problems_per_round` train problems not proved yet, fewest attempts first (what
               the matchmaker calls untried, then undecided: the hardest problems still likely
               solvable), every source an equal share (with `curriculum: family` the factory's
               share drawn family by family, `selfplay.curriculum`), with the current weights; a
               `policy_search_share` of them (drawn per (round, problem)) with the policy alone
               (the evaluation's action set), the rest with the search's action set (`mixed`).
               Each proof is pruned (`selfplay.prune`) before it becomes policy targets → the
               replay buffer and `rounds/r003/search.jsonl`. With `subgoal_sources`, the open
               goals of the round's failed searches of those sources then become new train
               problems (`selfplay.subgoals`).
               The policy-alone share is what makes the value head's targets mean what the
               curve measures: under `mixed` the automation closes nearly every train problem,
               so "unproved" targets would be rare and say nothing about the policy's reach.
  3. learn     `learner_steps_per_round` learner steps on replay + supervised batches, continuing
               the learner's own state; then publish → version r + 1.

`rounds = N` runs N full rounds and the evaluation of the last weights (round N's step 1).

Resume: `iteration.json` names the round and phase and moves on only once a phase's work is on
disk; the phase files skip what they already hold; the learner reloads its state (saved every
`checkpoint_every` steps) and the learn phase runs to the step count it recorded at its start.
Killing the process at any moment loses the attempts in flight and the learner steps since its
last checkpoint, nothing else. `curve.tsv` gets one row per finished round; TensorBoard gets the
same numbers (`curve/*`, x = round) and per-step learner losses.

Held-out problems never reach the buffer or the learner; the driver refuses a dev-subset problem
in either list.

This module is the rounds' state machine; the parts: `selfplay.iteration_state` (iteration.json
and the run's files), `selfplay.iteration_phases` (the four phases and the search plan),
`selfplay.iteration_metrics` (the curve's numbers), `selfplay.runner` (the actor pools and the
learner), `selfplay.loop_config` (`ExpertIterationConfig`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Collection, Sequence

from lean_interface.problems.benchmarks import held_out_problem_of
from selfplay.actor import SourceProblem
from selfplay.episode import TrainingRecord
from selfplay.hold_out import HoldOut
from selfplay.iteration_metrics import Measurements, Scorers
from selfplay.iteration_phases import PoolFactory, Phases
from selfplay.iteration_state import EVALUATE, LEARN, REFERENCE, SEARCH, IterationState, RunFiles
from selfplay.learner import Learner
from selfplay.loop_config import ExpertIterationConfig
from selfplay.replay_buffer import ReplayBuffer
from selfplay.runner import LearnerService, ProgressHook
from selfplay.subgoals import SUBGOAL_SOURCE, LemmaRecorder, SubgoalHarvester, SubgoalMaker, SubgoalStore


def check_source_weights(cfg: ExpertIterationConfig, train: Sequence[SourceProblem]) -> None:
    """ValueError when `source_weights` or `subgoal_sources` names a source none of `train` comes
    from (a typo would otherwise leave the shares equal, or the subgoals unmade, without a word);
    `subgoals` counts as a source when `subgoal_sources` is set."""
    sources = {p.source for p in train} | ({SUBGOAL_SOURCE} if cfg.subgoal_sources else set())
    for key, named in (("source_weights", cfg.source_weights or {}), ("subgoal_sources", cfg.subgoal_sources)):
        unknown = sorted(set(named) - sources)
        if unknown:
            raise ValueError(f"{key} names sources the run does not train on: {', '.join(unknown)} "
                             f"(its sources: {', '.join(sorted(sources))})")


class ExpertIteration:
    """The driver (a plain class; the CLI builds the actor pools, Ray or in-process): the rounds'
    state machine over `Phases` (what each phase does) and `Measurements` (the curve)."""

    def __init__(self, cfg: ExpertIterationConfig, train: Sequence[SourceProblem], heldout: Sequence[SourceProblem],
                 supervised: Sequence[TrainingRecord], make_pool: PoolFactory, writer=None,
                 value_scorer: Callable[[Path, list[str]], list[float]] | None = None,
                 topk_scorer: Callable[[Path, list[tuple[str, str]], int], float] | None = None,
                 logprob_scorer: Callable[[Path, list[tuple[str, str]]], list[float]] | None = None,
                 script_referencer: Callable[[list[str]], list[dict]] | None = None,
                 competition_referencer: Callable[[], list[dict]] | None = None,
                 library: Sequence[TrainingRecord] = (), make_learner: Callable[..., Any] = Learner,
                 competition_sources: Collection[str] = (), subgoal_maker: SubgoalMaker | None = None,
                 subgoal_lemmas: LemmaRecorder | None = None, known_proved: Collection[str] = ()) -> None:
        self.cfg = cfg
        self.run_dir = Path(cfg.run_dir)
        harvester = None
        if cfg.subgoal_sources:
            if subgoal_maker is None:
                raise ValueError("subgoal_sources needs a subgoal maker (alphaprover train passes one)")
            harvester = SubgoalHarvester(SubgoalStore(self.run_dir / "subgoals.jsonl"), subgoal_maker,
                                         cfg.subgoal_sources, cfg.subgoals_per_attempt, cfg.max_subgoals_per_target,
                                         subgoal_lemmas if cfg.subgoal_lemmas else None)
            train = [*train, *harvester.store.problems.values()]   # made in earlier rounds of this run
        by_id = {p.id: p for p in train}
        overlap = sorted(set(by_id) & {p.id for p in heldout})
        if overlap:
            raise ValueError(f"problems both trained on and held out: {', '.join(overlap[:3])}")
        dev = [reason for p in (*train, *heldout) if (reason := held_out_problem_of(p.theorem.name, p.theorem))]
        if dev:
            raise ValueError(f"dev-subset or test-split problems cannot enter expert iteration: {', '.join(dev[:3])}")
        own = HoldOut.of(cfg.hold_out)
        held = [reason for p in train if (reason := own.reason(p.id, p.theorem))]
        if held:
            raise ValueError(f"problems this run holds out (iteration.hold_out) among its train problems: "
                             f"{', '.join(held[:3])}")
        check_source_weights(cfg, train)
        self.files = RunFiles(self.run_dir)
        if not cfg.resume and self.files.state_path.exists():
            raise ValueError(f"{self.run_dir} already holds a run (use resume=true or a new run_dir)")
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.state = IterationState.load(self.files.state_path)
        self.buffer = ReplayBuffer(self.run_dir / "buffer", cfg.buffer_capacity)
        # publishes only when a learn phase ends: version r is the weights round r evaluates
        self.learner = LearnerService(self.run_dir, cfg.checkpoint, cfg.learner, cfg.seed, self.buffer, supervised,
                                      writer, library=library, make_learner=make_learner)
        self.heldout_slice = self.files.fixed_heldout_slice([p.id for p in heldout], cfg.heldout_selection,
                                                            cfg.heldout_problems)
        self.phases = Phases(cfg, self.files, by_id, {p.id: p for p in heldout}, self.heldout_slice, self.buffer,
                             self.learner, make_pool, writer, harvester, known_proved)
        self.measurements = Measurements(self.files, self.heldout_slice, self.buffer, self.learner,
                                         Scorers(value_scorer, topk_scorer, logprob_scorer, script_referencer,
                                                 competition_referencer), writer,
                                         competition=frozenset(p.id for p in train if p.source in competition_sources))

    @property
    def on_progress(self) -> ProgressHook | None:
        """Progress display: (phase kind, done, total, proved) after each stored attempt and
        (learn, steps done, steps of the phase, False) after each learner step."""
        return self.phases.on_progress

    @on_progress.setter
    def on_progress(self, hook: ProgressHook | None) -> None:
        self.phases.on_progress = hook

    # ---- the loop -----------------------------------------------------------------------------------
    def run(self, on_phase: Callable[[int, str], None] | None = None) -> IterationState:
        """Phases until `rounds` are done or `max_minutes` (this session) run out."""
        deadline = time.monotonic() + 60 * self.cfg.max_minutes if self.cfg.max_minutes > 0 else float("inf")
        state, phases = self.state, self.phases
        try:
            while time.monotonic() < deadline:
                if on_phase is not None:
                    on_phase(state.round, state.phase)
                if state.phase == REFERENCE:
                    if not phases.reference(deadline):
                        break
                    state.phase = EVALUATE
                elif state.phase == EVALUATE:
                    if not phases.evaluate(state.round, deadline):
                        break
                    self.measurements.log_evaluation(state.round)
                    if self.cfg.rounds and state.round >= self.cfg.rounds:
                        break
                    state.phase = SEARCH
                elif state.phase == SEARCH:
                    phases.subgoals(state.round - 1, self.buffer.episodes_iter)  # a run that just turned them on
                    if not phases.search(state.round, deadline):
                        break
                    phases.subgoals(state.round, self.buffer.episodes_iter)
                    state.phase, state.learn_until = LEARN, self.learner.step + self.cfg.learner_steps_per_round
                elif state.phase == LEARN:
                    if not phases.learn(state.learn_until, deadline):
                        break
                    self.measurements.finish_round(state.round)
                    state.round, state.phase, state.learn_until = state.round + 1, EVALUATE, -1
                state.save(self.files.state_path)
        finally:
            state.save(self.files.state_path)
            self.learner.save()
            self.learner.close()
            self.buffer.close()
        return state

    # ---- what a phase or a measurement says, for the CLI and the tests -------------------------------
    def search_batch(self, round_index: int) -> list[str]:
        return self.phases.search_batch(round_index)

    def searched_by_policy(self, round_index: int, problem: str) -> bool:
        return self.phases.searched_by_policy(round_index, problem)

    def search(self, round_index: int, deadline: float) -> bool:
        return self.phases.search(round_index, deadline)

    def references(self) -> list[tuple[str, str]]:
        return self.files.references()

    def script_steps(self) -> list[tuple[str, str]]:
        return self.measurements.script_steps()

    def frequent_tactics(self, count: int = 8) -> list[str]:
        return self.measurements.frequent_tactics(count)

    def family_rates(self, round_index: int) -> dict[str, float]:
        return self.measurements.family_rates(round_index)


__all__ = ["ExpertIteration", "ExpertIterationConfig", "IterationState", "check_source_weights"]
