"""Expanding goals: one evaluator call for many goals, one batched prover call for all tactics.

Shared by MCTS and best-first search. Failed tactics are dropped (and remembered, so they are not
tried twice); a duplicate tactic string or a tactic reaching the same goals as an existing one adds
its prior to that edge; a round in which the evaluator proposes no tactic not tried before (or the
round cap) marks the goal exhausted, so it can fail. A round whose new tactics all failed leaves
the goal open for another round.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Sequence

from lean_interface.api import ProofEnv, TacticResult
from search.config import Budget
from search.evaluator import EvalRequest, Evaluator
from search.tree import SearchTree


@dataclass
class SearchStats:
    """Counters and the time split of one search."""

    simulations: int = 0
    expansions: int = 0
    evaluator_calls: int = 0
    prover_calls: int = 0
    prover_errors: int = 0
    evaluator_seconds: float = 0.0
    prover_seconds: float = 0.0
    total_seconds: float = 0.0
    nodes: int = 1
    started: float = field(default_factory=time.monotonic)

    @property
    def search_seconds(self) -> float:
        """Time outside the prover and the evaluator: the search's own overhead."""
        return max(0.0, self.total_seconds - self.prover_seconds - self.evaluator_seconds)

    def as_dict(self) -> dict[str, float]:
        return {
            "simulations": self.simulations, "expansions": self.expansions,
            "evaluator_calls": self.evaluator_calls, "prover_calls": self.prover_calls,
            "prover_errors": self.prover_errors, "nodes": self.nodes,
            "total_seconds": round(self.total_seconds, 4), "prover_seconds": round(self.prover_seconds, 4),
            "evaluator_seconds": round(self.evaluator_seconds, 4), "search_seconds": round(self.search_seconds, 4),
        }


def budget_spent(budget: Budget, stats: SearchStats) -> bool:
    stats.total_seconds = time.monotonic() - stats.started
    return bool(
        (budget.max_simulations and stats.simulations >= budget.max_simulations)
        or (budget.max_seconds and stats.total_seconds >= budget.max_seconds)
        or (budget.max_prover_calls and stats.prover_calls >= budget.max_prover_calls)
    )


def deadline_of(budget: Budget, stats: SearchStats) -> float | None:
    return stats.started + budget.max_seconds if budget.max_seconds else None


def expand(tree: SearchTree, node_ids: Sequence[int], evaluator: Evaluator, env: ProofEnv, num_samples: int,
           prior_temperature: float, max_expansions: int, stats: SearchStats,
           deadline: float | None = None) -> list[float]:
    """Evaluate and expand `node_ids` (one evaluator call, batched `apply_many` calls). Returns each
    node's evaluator value. Past `deadline` no further tactics are tried, and the goals whose
    tactics were cut short are left open (not exhausted) rather than wrongly failed."""
    requests = [EvalRequest(tree.nodes[n].goal.text, num_samples, tree.nodes[n].expansions) for n in node_ids]
    tried = tree.tried_tactics
    proposed_before = {n: len(tried.get(n, ())) for n in node_ids}
    started = time.monotonic()
    evaluations = evaluator.evaluate(requests)
    stats.evaluator_seconds += time.monotonic() - started
    stats.evaluator_calls += 1
    jobs: list[tuple[int, str, float]] = []
    for node_id, evaluation in zip(node_ids, evaluations):
        node = tree.nodes[node_id]
        if node.value is None:
            node.value = min(0.0, evaluation.value)
        node.expansions += 1
        stats.expansions += 1
        known = {e.tactic for e in node.edges} | tried.setdefault(node_id, set())
        for tactic, logprob in evaluation.tactics:
            if tactic in known:
                edge = next((e for e in node.edges if e.tactic == tactic), None)
                if edge is not None:  # sampled again: more prior; a known failure is not retried
                    edge.prior += math.exp(logprob / prior_temperature)
                continue
            known.add(tactic)
            tried[node_id].add(tactic)
            jobs.append((node_id, tactic, logprob))
    started = time.monotonic()
    results: list[TacticResult] = []
    chunk = 8
    for start in range(0, len(jobs), chunk):
        if deadline is not None and time.monotonic() >= deadline:
            break
        results.extend(env.apply_many([(tree.nodes[n].goal, t) for n, t, _ in jobs[start : start + chunk]]))
    stats.prover_seconds += time.monotonic() - started
    stats.prover_calls += len(results)
    cut_short = {n for n, _, _ in jobs[len(results):]}
    jobs = jobs[: len(results)]
    added = {n: 0 for n in node_ids}
    for (node_id, tactic, logprob), result in zip(jobs, results):
        if not result.ok:
            stats.prover_errors += 1
            continue
        index = tree.add_edge(node_id, tactic, logprob, math.exp(logprob / prior_temperature), result.goals)
        if index is not None:
            added[node_id] += 1
    stats.nodes = len(tree.nodes)
    for node_id in node_ids:
        node = tree.nodes[node_id]
        if node_id in cut_short:
            node.expansions -= 1  # not a complete round: ask again if the search goes on
            continue
        nothing_new = len(tried.get(node_id, ())) == proposed_before[node_id]
        if nothing_new or node.expansions >= max_expansions:
            tree.mark_exhausted(node_id)  # the evaluator has no new idea, or the round cap is reached
    return [tree.nodes[n].value or 0.0 for n in node_ids]
