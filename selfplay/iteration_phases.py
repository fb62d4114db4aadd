"""The four phases of expert iteration and the plan of a round's search (docs/ARCHITECTURE.md
§Expert iteration).

  reference  once: the held-out slice searched by the automation alone → `references.jsonl`
  evaluate   the held-out slice with the current weights → `rounds/rNNN/heldout.jsonl`
  search     the round's train problems (`search_batch`), a `policy_search_share` of them with
             the policy alone → the replay buffer, then `rounds/rNNN/search.jsonl`
  subgoals   with `subgoal_sources`: the round's failed searches' open goals → new train problems
             (`selfplay.subgoals`), before the round's learn phase
  learn      learner steps up to the step the phase recorded at its start, then publish

Each phase runs its attempts through `selfplay.runner.run_batch` on a pool of its own kind and
returns True once its work is all on disk (False: the deadline came first; rerun, it skips what
its file holds).
"""

from __future__ import annotations

import logging
import random
import time
from typing import Callable, Collection, Iterable, Mapping, Sequence

from search.value_units import UNPROVED_STEPS
from selfplay.actor import SourceProblem
from selfplay.curriculum import budget_factor, family_records, frontier_weight, target_of, weighted_by_family
from selfplay.episode import Episode
from selfplay.iteration_state import LEARN, REFERENCE, SEARCH, RunFiles, tally
from selfplay.loop_config import ExpertIterationConfig
from selfplay.matchmaker import Attempt
from selfplay.replay_buffer import ReplayBuffer
from selfplay.round_metrics import append_row, family_of, read_rows
from selfplay.runner import ActorPool, LearnerService, ProgressHook, run_batch
from selfplay.subgoals import SUBGOAL_SOURCE, SubgoalHarvester

log = logging.getLogger(__name__)

#: the pool kind of the search phase's policy-alone share
SEARCH_POLICY = "search-policy"
#: the source whose share `curriculum: family` draws by family and budgets (its ids carry a family)
CURRICULUM_SOURCE = "factory"
#: goals per held-out search kept for the value AUC (proved and unproved alike)
AUC_GOALS_PER_PROBLEM = 24

#: (pool kind, the problems it will be asked about) → a pool of actors for that job; the kinds are
#: "reference" (automation alone), "heldout" and "search-policy" (the held-out action set, i.e. the
#: policy alone by default) and "search" (the search's action set)
PoolFactory = Callable[[str, list[SourceProblem]], ActorPool]


def balanced_by_source(problems: Sequence[str], source_of: Callable[[str], str],
                       weights: Mapping[str, float] | None = None) -> list[str]:
    """`problems` reordered so that the sources take turns (in order of first appearance), each
    keeping its own order: a prefix of any length shares itself among the sources that still have
    problems in proportion to their `weights` (a source not named weighs 1). Stride order: a
    source's k-th problem comes at time k / weight, ties in order of first appearance — with equal
    weights the plain turns (one each, a source that runs out drops out), and a weight-2 source
    beside two weight-1 ones takes every other place. One source: the order is unchanged."""
    queues: dict[str, list[str]] = {}
    for problem in problems:
        queues.setdefault(source_of(problem), []).append(problem)
    timed = [(k / float((weights or {}).get(source, 1.0)), rank, problem)
             for rank, (source, queue) in enumerate(queues.items()) for k, problem in enumerate(queue)]
    return [problem for _, _, problem in sorted(timed, key=lambda entry: entry[:2])]


class Phases:
    """The phases over one run's files, buffer and learner; `on_progress` hears of every stored
    attempt and learner step."""

    def __init__(self, cfg: ExpertIterationConfig, files: RunFiles, train: dict[str, SourceProblem],
                 heldout: Mapping[str, SourceProblem], heldout_slice: Sequence[str], buffer: ReplayBuffer,
                 learner: LearnerService, make_pool: PoolFactory, writer=None,
                 harvester: SubgoalHarvester | None = None, known_proved: Collection[str] = ()) -> None:
        self.cfg, self.files, self.train, self.heldout_slice = cfg, files, train, heldout_slice
        self.known_proved = frozenset(known_proved)
        self.heldout, self.harvester = heldout, harvester
        self.buffer, self.learner, self.make_pool, self.writer = buffer, learner, make_pool, writer
        self.on_progress: ProgressHook | None = None

    def _run(self, kind: str, attempts: list[Attempt], store: Callable[[Episode], None], deadline: float) -> bool:
        problems = [self.train.get(a.problem) or self.heldout[a.problem] for a in attempts]
        return run_batch(lambda: self.make_pool(kind, problems), kind, attempts, store, deadline, self.on_progress)

    # ---- reference and evaluate: the held-out slice ---------------------------------------------------
    def reference(self, deadline: float) -> bool:
        """The held-out slice by the automation alone; pruned proof steps → references.jsonl."""
        path = self.files.run_dir / "references.jsonl"
        done = {row["problem"] for row in read_rows(path)}
        attempts = [Attempt(p, False, self.cfg.heldout_seconds, self.cfg.search_simulations)
                    for p in self.heldout_slice if p not in done]

        def store(episode: Episode) -> None:
            steps = [(r.goal, r.tactic) for r in episode.records if r.tactic is not None] if episode.proved else []
            append_row(path, {"problem": episode.problem, "proved": episode.proved, "steps": steps})

        return self._run(REFERENCE, attempts, store, deadline)

    def evaluate(self, round_index: int, deadline: float) -> bool:
        """The held-out slice with the current weights; True once every problem has a row."""
        path = self.files.heldout_path(round_index)
        done = {row["problem"] for row in read_rows(path)}
        todo = [p for p in self.heldout_slice if p not in done]
        attempts = [Attempt(p, False, self.cfg.heldout_seconds, self.cfg.heldout_simulations) for p in todo]

        def store(episode: Episode) -> None:
            goals = [(r.goal, r.steps < UNPROVED_STEPS) for r in episode.records][:AUC_GOALS_PER_PROBLEM]
            append_row(path, {"problem": episode.problem, "proved": episode.proved, "outcome": episode.outcome.value,
                              "seconds": round(episode.seconds, 3), "simulations": episode.simulations,
                              "weights_version": episode.weights_version, "proof": episode.proof, "goals": goals})

        return self._run("heldout", attempts, store, deadline)

    # ---- search: the round's train problems -------------------------------------------------------------
    def search_batch(self, round_index: int) -> list[str]:
        """This round's search problems not searched yet: of the train problems unproved when the
        round began, fewest attempts first, ties in an order drawn from (seed, round), and every
        source an equal share, or the share its `source_weights` give it (`balanced_by_source`:
        27,814 factory items beside 213 miniF2F train problems would otherwise leave the latter one
        attempt a round). With
        `curriculum: family` the factory's share is drawn family by family, weighed by each
        family's search record, and every other source's share target by target (a competition
        problem with its variants), weighed toward targets proved sometimes, not always
        (`selfplay.curriculum.frontier_weight`). A competition target in `known_proved` (another
        run's proof, `iteration.known_proofs`) counts as proved: neither it nor its variants or
        subgoals are planned. The plan depends on the rounds before this one (and the ledger) only,
        so a resumed round searches what it planned."""
        count = self.cfg.problems_per_round
        history = self.files.search_history(before_round=round_index)
        attempts, proved = tally(history)
        candidates = [p for p in sorted(self.train) if p not in proved and not self.proved_elsewhere(p)]
        random.Random(f"{self.cfg.seed}/{round_index}").shuffle(candidates)
        candidates.sort(key=lambda p: attempts.get(p, 0))
        if self.cfg.curriculum == "family":
            records = family_records(history, family_of, self.cfg.curriculum_window)
            targets = family_records(history, target_of, self.cfg.curriculum_window)
            rng = random.Random(f"{self.cfg.seed}/{round_index}/curriculum")
            by_source: dict[str, list[str]] = {}
            for problem in candidates:
                by_source.setdefault(self.train[problem].source, []).append(problem)
            candidates = [p for source, problems in by_source.items()
                          for p in (weighted_by_family(problems, family_of, records, rng, count, attempts)
                                    if source == CURRICULUM_SOURCE else
                                    weighted_by_family(problems, target_of, targets, rng, count, attempts,
                                                       weight=frontier_weight))]
        plan = balanced_by_source(candidates, lambda p: self.train[p].source, self.cfg.source_weights)[:count]
        done_now = {row["problem"] for row in read_rows(self.files.search_path(round_index))}
        return [p for p in plan if p not in done_now]

    def proved_elsewhere(self, problem: str) -> bool:
        """Whether `problem` is a competition target, or a variant or subgoal of one, that
        `known_proved` lists (factory items never are: their names are not targets)."""
        return bool(self.known_proved) and self.train[problem].source != CURRICULUM_SOURCE \
            and target_of(problem) in self.known_proved

    def searched_by_policy(self, round_index: int, problem: str) -> bool:
        """Whether `problem` is searched with the policy alone in round `round_index`: a draw from
        (seed, round, problem), so a resumed round splits its batch the same way. A subgoal
        problem's share is `subgoal_policy_share` (default 0: it is there to be proved, and in run
        17's rounds 12–13 the policy alone proved none of 23, the search's actions 5 of 29)."""
        draw = random.Random(f"{self.cfg.seed}/{round_index}/{problem}").random()
        subgoal = problem in self.train and self.train[problem].source == SUBGOAL_SOURCE
        return draw < (self.cfg.subgoal_policy_share if subgoal else self.cfg.policy_search_share)

    def budget_factors(self, round_index: int, problems: Sequence[str]) -> dict[str, float]:
        """Per problem, the multiple of the base search budget it gets this round (searches before
        this round decide; `selfplay.curriculum.budget_factor`): a factory item's family record with
        `curriculum: family` and `curriculum_max_budget` > 1; a competition problem's or variant's
        target record (the target and its variants, `target_of`) with `target_max_budget` > 1 —
        a train problem its variants and earlier searches never prove gets up to that many times
        the seconds, since a base-budget search that keeps failing it teaches nothing and the
        problems worth a proof are the ones longer baselines miss. 1 otherwise."""
        family_budget = self.cfg.curriculum == "family" and self.cfg.curriculum_max_budget != 1.0
        target_budget = self.cfg.target_max_budget != 1.0
        if not (family_budget or target_budget):
            return dict.fromkeys(problems, 1.0)
        history = self.files.search_history(before_round=round_index)
        families = family_records(history, family_of, self.cfg.curriculum_window) if family_budget else {}
        targets = family_records(history, target_of, self.cfg.curriculum_window) if target_budget else {}
        factors: dict[str, float] = {}
        for p in problems:
            if self.train[p].source == CURRICULUM_SOURCE:
                factors[p] = budget_factor(*families.get(family_of(p), (0, 0)), self.cfg.curriculum_max_budget) \
                    if family_budget else 1.0
            elif self.train[p].source == SUBGOAL_SOURCE:
                factors[p] = 1.0     # one open goal of a target: a step, searched at the base budget
            else:
                factors[p] = budget_factor(*targets.get(target_of(p), (0, 0)), self.cfg.target_max_budget) \
                    if target_budget else 1.0
        return factors

    def search(self, round_index: int, deadline: float) -> bool:
        """This round's train problems, the policy-alone share first; proofs (pruned by the
        actors) into the buffer."""
        path = self.files.search_path(round_index)
        batch = self.search_batch(round_index)
        by_policy = [p for p in batch if self.searched_by_policy(round_index, p)]
        by_search = [p for p in batch if not self.searched_by_policy(round_index, p)]

        def store_as(actions: str) -> Callable[[Episode], None]:
            def store(episode: Episode) -> None:
                if self.harvester is not None:   # a proved subgoal's lemma; lemma steps out of the policy targets
                    episode = self.harvester.after_search(episode)
                self.buffer.add(episode)   # first the buffer (fsynced), then the row that marks it done
                row = {"problem": episode.problem, "proved": episode.proved,
                       "outcome": episode.outcome.value, "actions": actions,
                       "seconds": round(episode.seconds, 3), "records": len(episode.records),
                       "weights_version": episode.weights_version, "proof": episode.proof}
                if episode.open_leads and self.train[episode.problem].source != CURRICULUM_SOURCE:
                    row["open_leads"] = list(episode.open_leads)   # what `subgoals` makes problems of
                append_row(path, row)
                if self.writer is not None:
                    self.writer.add_scalar("search/buffer_records", len(self.buffer), self.buffer.episodes)
            return store

        factors = self.budget_factors(round_index, batch)

        def attempts(problems: list[str]) -> list[Attempt]:
            return [Attempt(p, False, self.cfg.search_seconds * factors[p],
                            max(1, round(self.cfg.search_simulations * factors[p]))) for p in problems]

        if not self._run(SEARCH_POLICY, attempts(by_policy), store_as("policy"), deadline):
            return False
        return self._run(SEARCH, attempts(by_search), store_as("search"), deadline)

    # ---- subgoals: open goals of the round's failed searches ---------------------------------------------
    def subgoals(self, round_index: int, buffer_episodes: Callable[[], Iterable[Episode]] | None = None
                 ) -> list[SourceProblem]:
        """With a harvester: every round up to `round_index` not harvested yet (a run that turns
        subgoals on harvests its earlier rounds first) → new problems, added to `train`."""
        if self.harvester is None:
            return []
        pending = [index for index in range(round_index + 1)
                   if index not in self.harvester.store.harvested and self.files.search_path(index).is_file()]
        if not pending:          # the usual case before a search: nothing to read
            return []
        made: list[SourceProblem] = []
        _, proved = tally(self.files.search_history(before_round=round_index + 1))
        for index in pending:
            new = self.harvester.harvest(index, read_rows(self.files.search_path(index)), self.train, proved,
                                         buffer_episodes)
            self.train.update((p.id, p) for p in new)
            made += new
        return made

    # ---- learn ----------------------------------------------------------------------------------------
    def learn(self, learn_until: int, deadline: float) -> bool:
        """Learner steps up to step `learn_until`; True once there (then publish)."""
        steps = self.cfg.learner_steps_per_round
        while self.learner.step < learn_until:
            if time.monotonic() > deadline:
                self.learner.save()
                return False
            if len(self.buffer) < self.cfg.min_buffer_records and not self.learner.has_supervised:
                log.warning("learn: %d records in the buffer, fewer than %d: no steps this round",
                            len(self.buffer), self.cfg.min_buffer_records)
                break
            self.learner.train_step()
            if self.on_progress is not None:
                self.on_progress(LEARN, steps - (learn_until - self.learner.step), steps, False)
        self.learner.publish()
        return True


__all__ = ["AUC_GOALS_PER_PROBLEM", "CURRICULUM_SOURCE", "SEARCH_POLICY", "Phases", "PoolFactory",
           "balanced_by_source"]
