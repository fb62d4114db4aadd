"""Open goals of failed competition searches as expert-iteration problems (docs/ARCHITECTURE.md
§Expert iteration, "subgoal problems").

A train problem the loop's search fails on leaves open goals in its tree (`Episode.open_leads`:
goals it expanded and did not prove, highest value first). Most of the hard train problems fail
one step short: `field_simplify` done, the polynomial identity left; `destruct` done, one case
left. After each round's search, up to `subgoals_per_attempt` leads of every failed search of a
`subgoal_sources` problem (not proved so far) are closed over their hypotheses into statements
under the target's header, elaborated and deduplicated in Coq (the maker: `ttrl.variants.from_subgoals`,
passed in by the CLI — self-play imports nothing from ttrl), and become problems of source
`subgoals`, ids `subgoals/<target>_sg<round>_<n>`. A proof of one is a proof of a state the
target's own search reaches, so what it teaches is the step the policy missed there — TTRL's
subgoal variants (AlphaProof) for the whole train split at once. They share their target's
curriculum record (`selfplay.curriculum.target_of` strips the suffix) and search at the base
budget.

The store is `<run_dir>/subgoals.jsonl`: a `problem` row per subgoal problem, a `tried` row per
(target, round) with the goal texts handed to the maker (never handed again), a `round` row when a
round's harvest is complete. A killed harvest redoes its round: names are deterministic and ids
already stored are skipped. Leads come from the round's search rows (`open_leads`); rows written
before they carried leads are matched to the buffer's episode (same problem and weights version).

With a lemma recorder (`iteration.subgoal_lemmas`, on by default), a proved subgoal problem's
proof is recorded as a closing tactic for the open goal it came from (`ttrl.lemmas.SubgoalLemmas`,
the run's `lemmas.json`), which the search actors' evaluators offer first (`WithLemmas`): the next
search of the target that reaches the goal closes it in one step, and the target's proof carries
the subgoal's inline, checked by the kernel with the rest — AlphaProof's TTRL composition. Such a
step stays out of the policy's targets (it is a whole proof in one sentence; its value target stays).

Held out: targets are train problems, and every statement made passes `held_out_problem_of` by its
name (which carries the target's) and by statement, or is dropped with a warning.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Callable, Iterable, Mapping, Protocol, Sequence

from lean_interface.api import EnvError, Theorem
from lean_interface.problems.benchmarks import base_problem_name, held_out_problem_of
from selfplay.actor import SourceProblem
from selfplay.episode import Episode
from selfplay.round_metrics import append_row, read_rows
from selfplay.source_cache import theorem_from_dict, theorem_to_dict
from selfplay.sources import statement_key

log = logging.getLogger(__name__)

#: the source name (and id prefix) of subgoal problems
SUBGOAL_SOURCE = "subgoals"
#: (target theorem, open goal texts, name prefix) → (statement, the goal text it closes) for each
#: goal that elaborates, deduplicated, named `<prefix><n>`; raises EnvError when the target itself
#: does not elaborate. An object with a `close()` is closed after each round's harvest.
SubgoalMaker = Callable[[Theorem, list[str], str], list[tuple[Theorem, str]]]


class LemmaRecorder(Protocol):
    """Where a proved subgoal's proof goes (`ttrl.lemmas.SubgoalLemmas`): recorded as a closing
    tactic for its open goal, which later searches of the target are offered first."""

    def __call__(self, theorem: Theorem, goal: str, proof: str) -> bool: ...

    def is_lemma_tactic(self, tactic: str) -> bool: ...


class SubgoalStore:
    """The run's subgoal problems and what was tried, backed by `subgoals.jsonl` (append-only)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problems: dict[str, SourceProblem] = {}
        self.targets: dict[str, str] = {}            # subgoal id → target problem id
        self.goals: dict[str, str] = {}              # subgoal id → the open goal text it closes
        self.tried: dict[str, set[str]] = {}         # target problem id → goal texts handed to the maker
        self.harvested: set[int] = set()
        for row in read_rows(path):
            kind = row.get("kind")
            if kind == "problem":
                problem = SourceProblem(row["id"], SUBGOAL_SOURCE, theorem_from_dict(row["theorem"]))
                self.problems[problem.id], self.targets[problem.id] = problem, row["target"]
                self.goals[problem.id] = row.get("goal", "")
            elif kind == "tried":
                self.tried.setdefault(row["target"], set()).update(row["goals"])
            elif kind == "round":
                self.harvested.add(int(row["round"]))

    def count_for(self, target: str) -> int:
        return sum(1 for t in self.targets.values() if t == target)

    def add_problem(self, problem: SourceProblem, target: str, round_index: int, goal: str) -> None:
        append_row(self.path, {"kind": "problem", "id": problem.id, "target": target, "round": round_index,
                               "goal": goal, "theorem": theorem_to_dict(problem.theorem)})
        self.problems[problem.id], self.targets[problem.id] = problem, target
        self.goals[problem.id] = goal

    def mark_tried(self, target: str, round_index: int, goals: Sequence[str]) -> None:
        append_row(self.path, {"kind": "tried", "target": target, "round": round_index, "goals": list(goals)})
        self.tried.setdefault(target, set()).update(goals)

    def mark_harvested(self, round_index: int) -> None:
        append_row(self.path, {"kind": "round", "round": round_index})
        self.harvested.add(round_index)


def failed_leads(rows: Iterable[dict], sources: Iterable[str], proved: set[str],
                 buffer_episodes: Callable[[], Iterable[Episode]] | None = None) -> dict[str, list[str]]:
    """Problem → its failed searches' open leads (in search order, each search's best first) for
    the problems of `sources` not in `proved`. A row without `open_leads` (written before rows
    carried them) takes them from the buffer's failed episode of that problem and weights version."""
    named = set(sources)
    wanted = [row for row in rows if row.get("outcome") == "failed" and row["problem"] not in proved
              and row["problem"].partition("/")[0] in named]
    missing = {(row["problem"], row.get("weights_version")) for row in wanted if "open_leads" not in row}
    from_buffer: dict[tuple[str, object], list[str]] = {}
    if missing and buffer_episodes is not None:
        for episode in buffer_episodes():
            key = (episode.problem, episode.weights_version)
            if key in missing and not episode.proved and episode.open_leads:
                from_buffer[key] = list(episode.open_leads)
    leads: dict[str, list[str]] = {}
    for row in wanted:
        texts = row["open_leads"] if "open_leads" in row else from_buffer.get((row["problem"], row.get("weights_version")), [])
        leads.setdefault(row["problem"], [])
        leads[row["problem"]] += [t for t in texts if t not in leads[row["problem"]]]
    return {problem: texts for problem, texts in leads.items() if texts}


class SubgoalHarvester:
    """Turns a round's failed searches into subgoal problems (see the module docstring)."""

    def __init__(self, store: SubgoalStore, maker: SubgoalMaker, sources: Sequence[str], per_attempt: int,
                 max_per_target: int, lemmas: LemmaRecorder | None = None) -> None:
        self.store, self.maker, self.sources = store, maker, tuple(sources)
        self.per_attempt, self.max_per_target, self.lemmas = per_attempt, max_per_target, lemmas

    def after_search(self, episode: Episode) -> Episode:
        """With a lemma recorder: a proved subgoal problem's proof is recorded for its open goal,
        and a step that replays a recorded proof (a whole proof in one sentence) keeps only its
        value target — the policy learns the subgoal's own steps from the subgoal's proof."""
        if self.lemmas is None:
            return episode
        problem = self.store.problems.get(episode.problem)
        if problem is not None and episode.proved and episode.proof and not episode.disprove \
                and self.store.goals.get(problem.id):
            if self.lemmas(problem.theorem, self.store.goals[problem.id], episode.proof):
                log.info("subgoal %s proved: its goal now closes in one step", problem.id)
        records = tuple(dataclasses.replace(r, tactic=None)
                        if r.tactic is not None and self.lemmas.is_lemma_tactic(r.tactic) else r
                        for r in episode.records)
        return episode if records == episode.records else dataclasses.replace(episode, records=records)

    def harvest(self, round_index: int, rows: Sequence[dict], train: Mapping[str, SourceProblem], proved: set[str],
                buffer_episodes: Callable[[], Iterable[Episode]] | None = None) -> list[SourceProblem]:
        """The new subgoal problems of round `round_index`'s search `rows` (none when the round is
        already harvested); `train` (every problem of the run, subgoals included) names the targets
        and the statements a new one must differ from."""
        if round_index in self.store.harvested:
            return []
        known = {statement_key(p.theorem) for p in train.values()}
        made: list[SourceProblem] = []
        for problem_id, leads in failed_leads(rows, self.sources, proved, buffer_episodes).items():
            target = train.get(problem_id)
            room = self.max_per_target - self.store.count_for(problem_id)
            if target is None or room <= 0:
                continue
            tried = self.store.tried.get(problem_id, set())
            texts = [t for t in leads if t not in tried][: self.per_attempt]
            if not texts:
                continue
            prefix = f"{target.theorem.name}_sg{round_index}_"
            try:
                closed = self.maker(target.theorem, texts, prefix)
            except EnvError as error:
                log.warning("subgoals of %s: %s", problem_id, str(error).splitlines()[0] if str(error) else "EnvError")
                closed = []
            for theorem, goal in closed[:room]:
                new = self._accept(theorem, goal, problem_id, round_index, known)
                if new is not None:
                    made.append(new)
                    known.add(statement_key(theorem))
            self.store.mark_tried(problem_id, round_index, texts)
        close = getattr(self.maker, "close", None)
        if callable(close):
            close()
        self.store.mark_harvested(round_index)
        return made

    def _accept(self, theorem: Theorem, goal: str, target: str, round_index: int,
                known: set[str]) -> SourceProblem | None:
        problem_id = f"{SUBGOAL_SOURCE}/{theorem.name}"
        if problem_id in self.store.problems or statement_key(theorem) in known:
            return None
        reason = held_out_problem_of(theorem.name, theorem)
        if reason is not None or base_problem_name(theorem.name) != base_problem_name(target):
            log.warning("subgoal %s refused: %s", theorem.name, reason or "its name does not carry its target's")
            return None
        problem = SourceProblem(problem_id, SUBGOAL_SOURCE, theorem)
        self.store.add_problem(problem, target, round_index, goal)
        return problem


__all__ = ["SUBGOAL_SOURCE", "LemmaRecorder", "SubgoalHarvester", "SubgoalMaker", "SubgoalStore", "failed_leads"]
