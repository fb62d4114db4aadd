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
               replay buffer and `rounds/r003/search.jsonl`.
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
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from lean_interface.durable import write_atomic
from lean_interface.problems.benchmarks import held_out_problem_of
from search.config import reject_unknown_keys
from search.value_units import UNPROVED_STEPS
from selfplay.actor import SourceProblem
from selfplay.curriculum import CURRICULA, budget_factor, family_records, weighted_by_family
from selfplay.episode import Episode, TrainingRecord
from selfplay.learner import Learner, LearnerConfig
from selfplay.loop import ActorPool
from selfplay.matchmaker import Attempt
from selfplay.replay_buffer import MixedSampler, ReplayBuffer
from selfplay.round_metrics import (CURVE_COLUMNS, append_curve_row, append_row, auc, family_of, median, read_rows,
                                    script_steps, spread, spread_by_family)

log = logging.getLogger(__name__)

REFERENCE, EVALUATE, SEARCH, LEARN = "reference", "evaluate", "search", "learn"
#: how a new run picks its held-out slice from the held-out problems (sorted ids, count)
HELDOUT_SELECTIONS: dict[str, Callable[[Sequence[str], int], list[str]]] = {
    "by_family": spread_by_family, "spread": spread}
#: the pool kind of the search phase's policy-alone share
SEARCH_POLICY = "search-policy"
#: train.yaml keys at the top level that ExpertIterationConfig shares with the selfplay loop; the
#: rest of its fields live under `iteration:`
SHARED_KEYS = ("run_dir", "checkpoint", "seed", "resume", "max_minutes", "learner")
#: the source whose share `curriculum: family` draws by family and budgets (its ids carry a family)
CURRICULUM_SOURCE = "factory"
#: goals per held-out search kept for the value AUC (proved and unproved alike)
AUC_GOALS_PER_PROBLEM = 24


@dataclass(frozen=True)
class ExpertIterationConfig:
    """Hydra `train` settings of the expert-iteration loop (`loop: expert_iteration`)."""

    run_dir: str
    checkpoint: str
    # defaults sized so that on 2 CPU cores the first curve point (round 0's evaluation) lands in
    # about a quarter of an hour and a round takes about half an hour; larger machines raise them
    rounds: int = 0                      # 0 = until stopped
    problems_per_round: int = 128
    search_seconds: float = 20.0
    search_simulations: int = 64
    heldout_problems: int = 64
    heldout_seconds: float = 20.0
    heldout_simulations: int = 32
    heldout_selection: str = "by_family"  # a NEW run's slice: by_family (families even) or spread (by name)
    learner_steps_per_round: int = 300
    policy_search_share: float = 0.5     # of each round's search problems, searched with the policy alone
    curriculum: str = "family"           # which factory items a round searches (selfplay/curriculum.py): family | attempts
    curriculum_window: int = 24          # curriculum=family: a family's record is its last N search attempts
    curriculum_max_budget: float = 1.0   # curriculum=family: a never-proved family's items search with up to N× the budget
    min_buffer_records: int = 16
    buffer_capacity: int = 200_000
    max_minutes: float = 0.0             # this session's limit; 0 = none
    seed: int = 0
    resume: bool = True
    learner: LearnerConfig = field(default_factory=LearnerConfig)

    @classmethod
    def from_dict(cls, data: dict) -> "ExpertIterationConfig":
        reject_unknown_keys(cls, data, "expert iteration config")
        values = dict(data)
        values["learner"] = LearnerConfig.from_dict(dict(values.get("learner") or {}))
        config = cls(**values)
        if config.rounds < 0 or config.problems_per_round < 1 or config.heldout_problems < 1:
            raise ValueError("rounds must be >= 0, problems_per_round and heldout_problems >= 1")
        if config.learner_steps_per_round < 0 or config.search_simulations < 1 or config.heldout_simulations < 1:
            raise ValueError("learner_steps_per_round must be >= 0, simulations >= 1")
        if not 0.0 <= config.policy_search_share <= 1.0:
            raise ValueError("policy_search_share must be in [0, 1]")
        if config.curriculum not in CURRICULA or config.curriculum_window < 1 or config.curriculum_max_budget < 1:
            raise ValueError(f"curriculum must be one of {', '.join(CURRICULA)}, curriculum_window and "
                             "curriculum_max_budget >= 1")
        if config.heldout_selection not in HELDOUT_SELECTIONS:
            raise ValueError(f"heldout_selection must be one of {', '.join(HELDOUT_SELECTIONS)}")
        return config


@dataclass
class IterationState:
    """Where the run is: `round`, `phase`, and the learner step the current learn phase ends at."""

    round: int = 0
    phase: str = REFERENCE
    learn_until: int = -1

    @classmethod
    def load(cls, path: Path) -> "IterationState":
        if not path.is_file():
            return cls()
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(int(data["round"]), str(data["phase"]), int(data.get("learn_until", -1)))

    def save(self, path: Path) -> None:
        write_atomic(path, json.dumps({"round": self.round, "phase": self.phase, "learn_until": self.learn_until}))


#: (pool kind, the problem ids it will be asked about) → a pool of actors for that job; the kinds are
#: "reference" (automation alone), "heldout" and "search-policy" (the held-out action set, i.e. the
#: policy alone by default) and "search" (the search's action set)
PoolFactory = Callable[[str, list[str]], ActorPool]


class ExpertIteration:
    """The driver (a plain class; the CLI builds the actor pools, Ray or in-process)."""

    def __init__(self, cfg: ExpertIterationConfig, train: Sequence[SourceProblem], heldout: Sequence[SourceProblem],
                 supervised: Sequence[TrainingRecord], make_pool: PoolFactory, writer=None,
                 value_scorer: Callable[[Path, list[str]], list[float]] | None = None,
                 topk_scorer: Callable[[Path, list[tuple[str, str]], int], float] | None = None,
                 logprob_scorer: Callable[[Path, list[tuple[str, str]]], list[float]] | None = None,
                 script_referencer: Callable[[list[str]], list[dict]] | None = None) -> None:
        self.cfg = cfg
        self.run_dir = Path(cfg.run_dir)
        self.train = {p.id: p for p in train}
        self.heldout = {p.id: p for p in heldout}
        overlap = sorted(set(self.train) & set(self.heldout))
        if overlap:
            raise ValueError(f"problems both trained on and held out: {', '.join(overlap[:3])}")
        dev = [reason for p in (*train, *heldout) if (reason := held_out_problem_of(p.theorem.name, p.theorem))]
        if dev:
            raise ValueError(f"dev-subset or test-split problems cannot enter expert iteration: {', '.join(dev[:3])}")
        if not cfg.resume and (self.run_dir / "iteration.json").exists():
            raise ValueError(f"{self.run_dir} already holds a run (use resume=true or a new run_dir)")
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.state_path = self.run_dir / "iteration.json"
        self.state = IterationState.load(self.state_path)
        self.buffer = ReplayBuffer(self.run_dir / "buffer", cfg.buffer_capacity)
        self.learner = Learner(self.run_dir, cfg.checkpoint, cfg.learner, seed=cfg.seed)
        self.sampler = MixedSampler(self.buffer, list(supervised), cfg.learner.replay_fraction,
                                    random.Random(cfg.seed + self.learner.step))
        self.make_pool = make_pool
        self.writer = writer
        self.value_scorer = value_scorer
        self.topk_scorer = topk_scorer
        self.logprob_scorer = logprob_scorer
        self.script_referencer = script_referencer
        self.heldout_slice = self.fixed_heldout_slice()
        self.started = time.monotonic()
        #: progress display: (phase kind, done, total, proved) after each stored attempt and
        #: (learn, steps done, steps of the phase, False) after each learner step
        self.on_progress: Callable[[str, int, int, bool], None] | None = None

    def fixed_heldout_slice(self) -> list[str]:
        """The run's held-out slice, chosen once and kept in `heldout_slice.json`, so the curve's
        points are the same problems whatever the config says later. A run that began before the
        file existed (it has `iteration.json`) used `spread` and keeps it."""
        path = self.run_dir / "heldout_slice.json"
        if path.is_file():
            chosen = json.loads(path.read_text(encoding="utf-8"))["problems"]
            missing = [p for p in chosen if p not in self.heldout]
            if missing:
                raise ValueError(f"{path} names problems the held-out sources lack: {', '.join(missing[:3])}")
            return chosen
        selection = "spread" if self.state_path.is_file() else self.cfg.heldout_selection
        chosen = HELDOUT_SELECTIONS[selection](sorted(self.heldout), self.cfg.heldout_problems)
        write_atomic(path, json.dumps({"selection": selection, "problems": chosen}, indent=1))
        return chosen

    # ---- files ----------------------------------------------------------------------------------------
    def round_dir(self, round_index: int) -> Path:
        return self.run_dir / "rounds" / f"r{round_index:03d}"

    def search_history(self, before_round: int | None = None) -> list[tuple[str, bool]]:
        """(problem, proved) of every train search, in the order they happened (the rounds before
        `before_round` only, when given)."""
        history: list[tuple[str, bool]] = []
        for path in sorted((self.run_dir / "rounds").glob("r*/search.jsonl")):
            if before_round is None or int(path.parent.name[1:]) < before_round:
                history += [(row["problem"], bool(row["proved"])) for row in read_rows(path)]
        return history

    def attempts_so_far(self, before_round: int | None = None) -> tuple[dict[str, int], set[str]]:
        """(attempts per train problem, problems proved) over every round's search file (the
        rounds before `before_round` only, when given)."""
        return tally(self.search_history(before_round))

    def search_batch(self, round_index: int) -> list[str]:
        """This round's search problems not searched yet: of the train problems unproved when the
        round began, fewest attempts first, ties in an order drawn from (seed, round), and every
        source an equal share (`balanced_by_source`: 27,814 factory items beside 213 miniF2F
        train problems would otherwise leave the latter one attempt a round). With
        `curriculum: family` the factory's share is drawn family by family, weighed by each
        family's search record (`selfplay.curriculum`). The plan depends on the rounds before
        this one only, so a resumed round searches what it planned."""
        count = self.cfg.problems_per_round
        history = self.search_history(before_round=round_index)
        attempts, proved = tally(history)
        candidates = [p for p in sorted(self.train) if p not in proved]
        random.Random(f"{self.cfg.seed}/{round_index}").shuffle(candidates)
        candidates.sort(key=lambda p: attempts.get(p, 0))
        if self.cfg.curriculum == "family":
            records = family_records(history, family_of, self.cfg.curriculum_window)
            rng = random.Random(f"{self.cfg.seed}/{round_index}/curriculum")
            by_source: dict[str, list[str]] = {}
            for problem in candidates:
                by_source.setdefault(self.train[problem].source, []).append(problem)
            candidates = [p for source, problems in by_source.items()
                          for p in (weighted_by_family(problems, family_of, records, rng, count, attempts)
                                    if source == CURRICULUM_SOURCE else problems[:count])]
        plan = balanced_by_source(candidates, lambda p: self.train[p].source)[:count]
        done_now = {row["problem"] for row in read_rows(self.round_dir(round_index) / "search.jsonl")}
        return [p for p in plan if p not in done_now]

    # ---- phases -------------------------------------------------------------------------------------
    def evaluate(self, round_index: int, deadline: float) -> bool:
        """The held-out slice with the current weights; True once every problem has a row."""
        path = self.round_dir(round_index) / "heldout.jsonl"
        done = {row["problem"] for row in read_rows(path)}
        todo = [p for p in self.heldout_slice if p not in done]
        attempts = [Attempt(p, False, self.cfg.heldout_seconds, self.cfg.heldout_simulations) for p in todo]

        def store(episode: Episode) -> None:
            goals = [(r.goal, r.steps < UNPROVED_STEPS) for r in episode.records][:AUC_GOALS_PER_PROBLEM]
            append_row(path, {"problem": episode.problem, "proved": episode.proved, "outcome": episode.outcome.value,
                              "seconds": round(episode.seconds, 3), "simulations": episode.simulations,
                              "weights_version": episode.weights_version, "proof": episode.proof, "goals": goals})

        return self._run_attempts("heldout", attempts, store, deadline)

    def reference(self, deadline: float) -> bool:
        """The held-out slice by the automation alone; pruned proof steps → references.jsonl."""
        path = self.run_dir / "references.jsonl"
        done = {row["problem"] for row in read_rows(path)}
        attempts = [Attempt(p, False, self.cfg.heldout_seconds, self.cfg.search_simulations)
                    for p in self.heldout_slice if p not in done]

        def store(episode: Episode) -> None:
            steps = [(r.goal, r.tactic) for r in episode.records if r.tactic is not None] if episode.proved else []
            append_row(path, {"problem": episode.problem, "proved": episode.proved, "steps": steps})

        return self._run_attempts("reference", attempts, store, deadline)

    def references(self) -> list[tuple[str, str]]:
        return [(goal, tactic) for row in read_rows(self.run_dir / "references.jsonl") for goal, tactic in row["steps"]]

    def script_steps(self) -> list[tuple[str, str]]:
        """(goal, tactic) of every step before the closing one in the held-out slice's own proof
        scripts, replayed once by `script_referencer` into `script_references.jsonl` (evaluation
        only: nothing in it reaches the learner). Empty without a referencer or scripts."""
        referencer = self.script_referencer
        try:
            return script_steps(self.run_dir / "script_references.jsonl",
                                None if referencer is None else lambda: referencer(list(self.heldout_slice)))
        except Exception as error:  # noqa: BLE001 - a measurement; the replay is retried at the next round
            log.warning("script references: replay failed (%s); script_logprob left empty this round", error)
            return []

    def frequent_tactics(self, count: int = 8) -> list[str]:
        """The `count` most frequent policy targets in the training buffer (the baseline)."""
        counts = Counter(r.tactic for e in self.buffer.episodes_iter() for r in e.records if r.tactic)
        return [tactic for tactic, _ in counts.most_common(count)]

    def searched_by_policy(self, round_index: int, problem: str) -> bool:
        """Whether `problem` is searched with the policy alone in round `round_index`: a draw from
        (seed, round, problem), so a resumed round splits its batch the same way."""
        draw = random.Random(f"{self.cfg.seed}/{round_index}/{problem}").random()
        return draw < self.cfg.policy_search_share

    def search(self, round_index: int, deadline: float) -> bool:
        """This round's train problems, the policy-alone share first; proofs (pruned by the
        actors) into the buffer."""
        path = self.round_dir(round_index) / "search.jsonl"
        batch = self.search_batch(round_index)
        by_policy = [p for p in batch if self.searched_by_policy(round_index, p)]
        by_search = [p for p in batch if not self.searched_by_policy(round_index, p)]

        def store_as(actions: str) -> Callable[[Episode], None]:
            def store(episode: Episode) -> None:
                self.buffer.add(episode)   # first the buffer (fsynced), then the row that marks it done
                append_row(path, {"problem": episode.problem, "proved": episode.proved,
                                  "outcome": episode.outcome.value, "actions": actions,
                                  "seconds": round(episode.seconds, 3), "records": len(episode.records),
                                  "weights_version": episode.weights_version, "proof": episode.proof})
                if self.writer is not None:
                    self.writer.add_scalar("search/buffer_records", len(self.buffer), self.buffer.episodes)
            return store

        factors = self.budget_factors(round_index, batch)

        def attempts(problems: list[str]) -> list[Attempt]:
            return [Attempt(p, False, self.cfg.search_seconds * factors[p],
                            max(1, round(self.cfg.search_simulations * factors[p]))) for p in problems]

        if not self._run_attempts(SEARCH_POLICY, attempts(by_policy), store_as("policy"), deadline):
            return False
        return self._run_attempts(SEARCH, attempts(by_search), store_as("search"), deadline)

    def budget_factors(self, round_index: int, problems: Sequence[str]) -> dict[str, float]:
        """Per problem, the multiple of the base search budget it gets this round: 1, except with
        `curriculum: family` and `curriculum_max_budget` > 1, where a factory item's family record
        (searches before this round) sets it (`selfplay.curriculum.budget_factor`)."""
        if self.cfg.curriculum != "family" or self.cfg.curriculum_max_budget == 1.0:
            return dict.fromkeys(problems, 1.0)
        records = family_records(self.search_history(before_round=round_index), family_of, self.cfg.curriculum_window)
        return {p: budget_factor(*records.get(family_of(p), (0, 0)), self.cfg.curriculum_max_budget)
                if self.train[p].source == CURRICULUM_SOURCE else 1.0 for p in problems}

    def learn(self, deadline: float) -> bool:
        """Learner steps up to `state.learn_until`; True once there (then publish)."""
        while self.learner.step < self.state.learn_until:
            if time.monotonic() > deadline:
                self.learner.save()
                return False
            if len(self.buffer) < self.cfg.min_buffer_records and not self.sampler.supervised:
                log.warning("learn: %d records in the buffer, fewer than %d: no steps this round",
                            len(self.buffer), self.cfg.min_buffer_records)
                break
            step_losses = self.learner.train_batch(self.sampler.sample(self.cfg.learner.batch_size))
            if self.on_progress is not None:
                steps = self.cfg.learner_steps_per_round
                self.on_progress(LEARN, steps - (self.state.learn_until - self.learner.step), steps, False)
            if self.writer is not None:
                for name, value in step_losses.items():
                    self.writer.add_scalar(f"learner/{name}", value, self.learner.step)
        self.learner.publish()
        return True

    def _run_attempts(self, kind: str, attempts: list[Attempt], store: Callable[[Episode], None],
                      deadline: float) -> bool:
        """Every attempt through a pool of `kind` actors (lost ones retried twice); False when the
        deadline came first."""
        if not attempts:
            return True
        pool = self.make_pool(kind, [attempt.problem for attempt in attempts])
        queue = list(attempts)
        retries: dict[str, int] = {}
        in_flight = 0
        finished = True
        stored = 0
        try:
            while queue or in_flight:
                while queue and pool.idle() > 0 and time.monotonic() < deadline:
                    pool.submit(queue.pop(0))
                    in_flight += 1
                if time.monotonic() >= deadline and queue:
                    finished = False
                    queue.clear()
                for attempt, episode in pool.poll(timeout=1.0):
                    in_flight -= 1
                    if episode is None:
                        retries[attempt.problem] = retries.get(attempt.problem, 0) + 1
                        if retries[attempt.problem] <= 2 and finished:
                            queue.append(attempt)
                        continue
                    store(episode)
                    stored += 1
                    if self.on_progress is not None:
                        self.on_progress(kind, stored, len(attempts), episode.proved)
        finally:
            pool.close()
        return finished and all(count <= 2 for count in retries.values())

    # ---- the loop -----------------------------------------------------------------------------------
    def run(self, on_phase: Callable[[int, str], None] | None = None) -> IterationState:
        """Phases until `rounds` are done or `max_minutes` (this session) run out."""
        deadline = time.monotonic() + 60 * self.cfg.max_minutes if self.cfg.max_minutes > 0 else float("inf")
        state = self.state
        try:
            while time.monotonic() < deadline:
                if on_phase is not None:
                    on_phase(state.round, state.phase)
                if state.phase == REFERENCE:
                    if not self.reference(deadline):
                        break
                    state.phase = EVALUATE
                elif state.phase == EVALUATE:
                    if not self.evaluate(state.round, deadline):
                        break
                    self._log_evaluation(state.round)
                    if self.cfg.rounds and state.round >= self.cfg.rounds:
                        break
                    state.phase = SEARCH
                elif state.phase == SEARCH:
                    if not self.search(state.round, deadline):
                        break
                    state.phase, state.learn_until = LEARN, self.learner.step + self.cfg.learner_steps_per_round
                elif state.phase == LEARN:
                    if not self.learn(deadline):
                        break
                    self._finish_round(state.round)
                    state.round, state.phase, state.learn_until = state.round + 1, EVALUATE, -1
                state.save(self.state_path)
        finally:
            state.save(self.state_path)
            self.learner.save()
            self.buffer.close()
        return state

    # ---- reporting ----------------------------------------------------------------------------------
    def evaluation_summary(self, round_index: int) -> dict[str, float]:
        rows = read_rows(self.round_dir(round_index) / "heldout.jsonl")
        proved = sum(1 for row in rows if row["proved"])
        summary = {"heldout_proved": proved, "heldout_attempted": len(rows),
                   "heldout_rate": round(proved / max(1, len(rows)), 4), "value_auc": float("nan"),
                   "reference_top8": float("nan"), "frequent8_top8": float("nan"), "script_logprob": float("nan")}
        references = self.references()
        if references:
            frequent = set(self.frequent_tactics())
            if frequent:
                summary["frequent8_top8"] = round(sum(t in frequent for _, t in references) / len(references), 4)
            version = self.learner.latest_weights()
            if self.topk_scorer is not None and version is not None:
                summary["reference_top8"] = round(self.topk_scorer(version[1], references, 8), 4)
        if self.logprob_scorer is not None:
            steps, version = self.script_steps(), self.learner.latest_weights()
            if steps and version is not None:
                summary["script_logprob"] = round(median(self.logprob_scorer(version[1], steps)), 3)
        if self.value_scorer is not None:
            goals = [(text, label) for row in rows for text, label in row.get("goals", [])]
            labels = [bool(label) for _, label in goals]
            if any(labels) and not all(labels):
                version = self.learner.latest_weights()
                if version is not None:
                    scores = self.value_scorer(version[1], [text for text, _ in goals])
                    summary["value_auc"] = round(auc(scores, labels), 4)
        return summary

    def _log_evaluation(self, round_index: int) -> None:
        summary = self.evaluation_summary(round_index)
        write_atomic(self.round_dir(round_index) / "heldout.summary.json", json.dumps(summary))
        if self.writer is not None:
            self.writer.add_scalar("curve/heldout_rate", summary["heldout_rate"], round_index)
            for name in ("value_auc", "reference_top8", "frequent8_top8", "script_logprob"):
                if summary[name] == summary[name]:  # not NaN
                    self.writer.add_scalar(f"curve/{name}", summary[name], round_index)
            for family, rate in self.family_rates(round_index).items():
                self.writer.add_scalar(f"heldout_family/{family}", rate, round_index)
            self.writer.flush()

    def family_rates(self, round_index: int) -> dict[str, float]:
        """The round's held-out proof rate per factory family (`family_of`): what the curve's one
        number is made of, as TensorBoard's `heldout_family/*` scalars."""
        counts: dict[str, list[int]] = {}
        for row in read_rows(self.round_dir(round_index) / "heldout.jsonl"):
            proved_attempted = counts.setdefault(family_of(row["problem"]), [0, 0])
            proved_attempted[0] += bool(row["proved"])
            proved_attempted[1] += 1
        return {family: round(proved / attempted, 4) for family, (proved, attempted) in sorted(counts.items())}

    def _finish_round(self, round_index: int) -> None:
        # the evaluation as measured at the round's start (written before the round moved on), with the
        # round's own weights: recomputing now would score round r's goals with version r + 1
        evaluation = json.loads((self.round_dir(round_index) / "heldout.summary.json").read_text(encoding="utf-8"))
        rows = read_rows(self.round_dir(round_index) / "search.jsonl")
        _, proved_total = self.attempts_so_far()
        losses = self._recent_losses()
        row = {"round": round_index, "weights_version": round_index, **evaluation,
               "search_attempted": len(rows), "search_proved": sum(1 for r in rows if r["proved"]),
               "train_proved_total": len(proved_total), "learner_step": self.learner.step, **losses,
               "minutes": round((time.monotonic() - self.started) / 60, 1)}
        append_curve_row(self.run_dir / "curve.tsv", row)
        if self.writer is not None:
            self.writer.add_scalar("curve/search_proof_rate", row["search_proved"] / max(1, row["search_attempted"]),
                                   round_index)
            self.writer.add_scalar("curve/train_proved_total", row["train_proved_total"], round_index)
            by_policy = [r for r in rows if r.get("actions") == "policy"]
            if by_policy:
                self.writer.add_scalar("curve/search_policy_proof_rate",
                                       sum(1 for r in by_policy if r["proved"]) / len(by_policy), round_index)
            self.writer.flush()

    def _recent_losses(self) -> dict[str, float]:
        """Mean policy and value loss of a fresh batch at the current weights (no step taken)."""
        if len(self.buffer) == 0:
            return {"policy_loss": float("nan"), "value_loss": float("nan")}
        import torch

        from selfplay.learner import collate_records

        model = self.learner.model
        batch = collate_records(self.sampler.sample(self.cfg.learner.batch_size), self.learner.tokenizer, model)
        device = next(model.parameters()).device
        model.eval()
        with torch.no_grad():
            out = model(*(batch[k].to(device) for k in ("input_ids", "attention_mask", "labels", "steps")),
                        self.cfg.learner.value_weight)
        model.train()
        return {"policy_loss": round(float(out["policy_loss"]), 4), "value_loss": round(float(out["value_loss"]), 4)}


def tally(history: Sequence[tuple[str, bool]]) -> tuple[dict[str, int], set[str]]:
    """(attempts per problem, problems proved) of a search history."""
    return dict(Counter(problem for problem, _ in history)), {problem for problem, proved in history if proved}


def balanced_by_source(problems: Sequence[str], source_of: Callable[[str], str]) -> list[str]:
    """`problems` reordered so that the sources take turns (in order of first appearance), each
    keeping its own order: a prefix of any length shares itself evenly among the sources that
    still have problems. One source: the order is unchanged."""
    queues: dict[str, list[str]] = {}
    for problem in problems:
        queues.setdefault(source_of(problem), []).append(problem)
    ordered: list[str] = []
    for turn in range(max((len(queue) for queue in queues.values()), default=0)):
        ordered += [queue[turn] for queue in queues.values() if turn < len(queue)]
    return ordered


__all__ = ["CURVE_COLUMNS", "ExpertIteration", "ExpertIterationConfig", "IterationState", "auc",
           "balanced_by_source", "read_rows", "spread"]
