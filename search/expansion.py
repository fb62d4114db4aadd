"""What every search run shares: statistics, the budget clock, and goal expansion.

Expansion of a goal = send tactics to the prover in batched `apply_many` calls: the most likely
of its pending proposals (`search.widening`: all of them with width 0, else the top k), after one
evaluator call for every goal of the batch with nothing pending (a new round). Every proposal is
first put into the env's canonical form (`ProofEnv.canonical_tactic`), so tree edges, `tried`,
the training records made from them and the prover all see one spelling per tactic (`lra` and
`lra.` are one Coq tactic, sent once); a proposal the env's guard refuses has no canonical form
and is not sent. Failed tactics are dropped (and remembered, so they are never sent again); a
tactic string sampled again, or a tactic reaching the same goals as an existing edge, adds its
prior to that edge. A goal with nothing pending whose last round proposed nothing new, or that
used its last allowed round, is exhausted (it can then fail). An expansion cut short by the
budget is not counted; what it did not send stays pending.

With a `CostModel` (`mcts.expansion = "cost"`, `search.cost`) a goal's expansion sends what the
model chooses instead of the top k: cheap proposals (all of them at the root, the top
`cheap_first_k` by prior elsewhere), and expensive ones only at the root, when every cheap one
failed, or as the goal's visits grant it prover seconds. Cheap tactics go to the
prover before expensive ones and never in the same `apply_many` batch, and every call's measured
seconds feed the model's per-family mean. A goal asks for a new round when no cheap proposal is
pending (expensive ones may still wait).

With `glance` (`mcts.expansion = "glance"`, mixed action set) a goal other than the root is first
expanded from a glance: the automation list at uniform priors and the network's value, no policy
sampling or scoring (≈ 11 ms of network time a goal instead of ≈ 175 ms on one thread). A goal the
search comes back to asks the policy at that expansion (`OrNode.awaiting_policy`): its samples join
the pending list, and its price replaces the glance's uniform one on what it sampled
(`widening.offer(reprice=True)`); with `glance_prices_list` it also scores the whole list again;
with `glance_list_prior = "residual"` what it did not price shares the mass its samples leave.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Sequence

from lean_interface.api import ProofEnv, ProofStep
from search.config import Budget
from search.cost import CostModel, cheap_first, is_expensive, same_class_prefix
from search.evaluator import EvalRequest, Evaluation, Evaluator, rank_tactics
from search.tree import SearchTree, Status, extract_proof
from search.widening import offer, put_back, take

#: at most this many tactics per `apply_many` call; the budget is checked between calls.
PROVER_CHUNK = 16


@dataclass
class SearchStats:
    """Counters and the time split of one search.

    Fields:
      simulations:      MCTS simulations (best-first: goal expansions; portfolio: tactics tried).
      expansions:       goal expansions completed (an evaluator round, or a widening step that
                        sends pending proposals without one).
      evaluator_calls:  calls to `Evaluator.evaluate` (each serves a batch of goals).
      prover_calls:     tactics sent to the prover; prover_errors: how many of them failed. With
                        the search's outcome this gives prover calls per proof found.
      expensive_calls:  of those, tactics of an expensive automation family (`search.cost`).
      collisions:       parallel walks that reached a leaf already taken in the same batch.
      refused_cycles, merged_edges: tactics refused (cycle) or merged into an existing edge.
      evaluator_seconds, prover_seconds, total_seconds: wall time split.
      nodes:            goals in the graph at the end.
      max_depth:        depth of the deepest goal in the graph at the end (tactics from the root
                        on its shortest known route; 0 = only the root).
      started:          monotonic clock at the start of the search.
    """

    simulations: int = 0
    expansions: int = 0
    evaluator_calls: int = 0
    prover_calls: int = 0
    prover_errors: int = 0
    expensive_calls: int = 0
    collisions: int = 0
    refused_cycles: int = 0
    merged_edges: int = 0
    evaluator_seconds: float = 0.0
    prover_seconds: float = 0.0
    total_seconds: float = 0.0
    nodes: int = 1
    max_depth: int = 0
    started: float = field(default_factory=time.monotonic)

    @property
    def search_seconds(self) -> float:
        """Time outside the prover and the evaluator: the search's own overhead."""
        return max(0.0, self.total_seconds - self.prover_seconds - self.evaluator_seconds)

    def as_dict(self) -> dict[str, float]:
        counters = ("simulations", "expansions", "evaluator_calls", "prover_calls", "prover_errors", "expensive_calls",
                    "collisions", "refused_cycles", "merged_edges", "nodes", "max_depth")
        seconds = {"total_seconds": self.total_seconds, "prover_seconds": self.prover_seconds,
                   "evaluator_seconds": self.evaluator_seconds, "search_seconds": self.search_seconds}
        return {**{name: getattr(self, name) for name in counters},
                **{name: round(value, 4) for name, value in seconds.items()}}


@dataclass
class SearchResult:
    """What a search leaves behind: the graph, its statistics and (if proved) the smallest proof."""

    tree: SearchTree
    stats: SearchStats
    proof: ProofStep | None

    @property
    def proved(self) -> bool:
        return self.proof is not None


class BudgetClock:
    """Answers "may the search go on?" against a `Budget`, updating `stats.total_seconds`."""

    def __init__(self, budget: Budget, stats: SearchStats) -> None:
        self.budget = budget
        self.stats = stats

    def _elapsed(self) -> float:
        self.stats.total_seconds = time.monotonic() - self.stats.started
        return self.stats.total_seconds

    def spent(self) -> bool:
        """True once any limit is reached."""
        b, s = self.budget, self.stats
        return bool((b.max_simulations and s.simulations >= b.max_simulations)
                    or (b.max_seconds and self._elapsed() >= b.max_seconds)
                    or (b.max_prover_calls and s.prover_calls >= b.max_prover_calls))

    def simulations_left(self) -> int | None:
        """Simulations still allowed (None = unlimited)."""
        if not self.budget.max_simulations:
            return None
        return max(0, self.budget.max_simulations - self.stats.simulations)

    def prover_chunk(self, largest: int) -> int:
        """How many tactics to send in the next `apply_many` call: at most `largest`, no more than
        the prover-call budget allows, and no more than the remaining time fits at the average
        cost per tactic so far (so one call overshoots the time budget by little). 0 = stop."""
        allowed = largest
        if self.budget.max_prover_calls:
            allowed = min(allowed, self.budget.max_prover_calls - self.stats.prover_calls)
        if self.budget.max_seconds:
            remaining = self.budget.max_seconds - self._elapsed()
            if remaining <= 0:
                return 0
            if self.stats.prover_calls:
                per_call = self.stats.prover_seconds / self.stats.prover_calls
                allowed = min(allowed, max(1, int(remaining / max(per_call, 1e-9))))
        return max(0, allowed)

    def finish(self, tree: SearchTree) -> SearchResult:
        """Final statistics, and the smallest proof if the root is proved."""
        self._elapsed()
        self.stats.nodes = len(tree.nodes)
        self.stats.max_depth = max(node.depth for node in tree.nodes)
        self.stats.refused_cycles = tree.refused_cycles
        self.stats.merged_edges = tree.merged_edges
        proof = extract_proof(tree) if tree.root.status is Status.PROVED else None
        return SearchResult(tree, self.stats, proof)


def evaluate(evaluator: Evaluator, requests: list[EvalRequest], stats: SearchStats) -> list[Evaluation]:
    """One timed evaluator call; a wrong number of answers is a ValueError."""
    started = time.monotonic()
    evaluations = evaluator.evaluate(requests)
    stats.evaluator_seconds += time.monotonic() - started
    stats.evaluator_calls += 1
    if len(evaluations) != len(requests):
        raise ValueError(f"evaluator returned {len(evaluations)} answers for {len(requests)} goals")
    return list(evaluations)


def expand(tree: SearchTree, node_ids: Sequence[int], evaluator: Evaluator, env: ProofEnv, *, num_samples: int,
           prior_temperature: float, max_expansions: int, clock: BudgetClock, width: int = 0,
           cost: CostModel | None = None, deep_samples: int = 0, glance: bool = False,
           glance_prices_list: bool = False, glance_list_prior: str = "uniform") -> list[float]:
    """Expand each of `node_ids` (distinct, OPEN goals) once: a goal with proposals pending sends
    the `width` most likely of them; any other goal gets a new evaluator round first (one batched
    call for all of them), whose new proposals join its pending list, and then sends its `width`
    most likely (`search.widening`; width 0 = every proposal at once). With `cost`, what is sent
    and when a round is asked follow `search.cost` (module docstring). Returns each goal's value
    from the evaluator (clamped to <= 0). `deep_samples` > 0: the tactics a round asks for at a goal
    other than the root (`MCTSConfig.deep_samples`). `glance`: a goal other than the root asks its
    first round as a glance (`EvalRequest.glance`; `mcts.expansion = "glance"`), and its next
    expansion asks the policy for its samples — and, with `glance_prices_list`, to price the
    candidate list again (`MCTSConfig.glance_prices_list`). `glance_list_prior` = "residual": what that
    round leaves unpriced shares the probability mass the policy's samples leave
    (`widening.residual_logprob`; `MCTSConfig.glance_list_prior`)."""
    stats = clock.stats
    if cost is None:
        asking = [n for n in node_ids if not tree.nodes[n].pending or tree.nodes[n].awaiting_policy]
    else:
        asking = [n for n in node_ids if tree.nodes[n].awaiting_policy
                  or (not cost.has_cheap_pending(tree, n) and tree.nodes[n].policy_rounds < max_expansions)]
    glancing = {n for n in asking if glance and n != 0 and tree.nodes[n].rounds == 0}
    # a goal asking the policy after a glance: the policy's prices replace the glance's uniform
    # ones, and it may still hold cheap proposals of the glance
    repricing = {n for n in asking if tree.nodes[n].awaiting_policy}
    leftovers = {n for n in repricing if tree.nodes[n].pending}
    requests = [EvalRequest(tree.nodes[n].goal.text, deep_samples if n != 0 and deep_samples > 0 else num_samples,
                            tree.nodes[n].policy_rounds, glance=n in glancing,
                            list_candidates=glance_prices_list or n not in repricing) for n in asking]
    evaluations = evaluate(evaluator, requests, stats) if requests else []
    nothing_new: set[int] = set()
    for node_id, evaluation in zip(asking, evaluations):
        node = tree.nodes[node_id]
        if node.value is None:
            node.value = min(0.0, float(evaluation.value))
        node.rounds += 1
        glanced = node_id in glancing and evaluation.glance  # an evaluator without glances answered in full
        node.glanced = node.glanced or glanced
        new = offer(tree, node_id, rank_tactics(evaluation.tactics, env.canonical_tactic), prior_temperature,
                    reprice=node_id in repricing, residual=glance_list_prior == "residual" and not glance_prices_list)
        if not new and not glanced:  # a glance proposing nothing still leaves the policy to ask
            nothing_new.add(node_id)

    expensive = is_expensive if cost is None else cost.expensive
    if cost is None:
        unsent = [(node_id, job) for node_id in node_ids for job in take(tree.nodes[node_id], width)]
    else:
        fresh = set(asking) - leftovers
        unsent = cheap_first([(node_id, job) for node_id in node_ids
                              for job in cost.choose(tree, node_id, width, fresh=node_id in fresh)], expensive)
    while unsent:
        size = clock.prover_chunk(PROVER_CHUNK)
        # a goal proved by an earlier chunk needs no more tactics
        sendable = [job for job in unsent if tree.nodes[job[0]].status is Status.OPEN]
        if size <= 0 or not sendable:
            break
        chunk = sendable[:size] if cost is None else same_class_prefix(sendable, size, expensive)
        unsent = [job for job in unsent if job not in chunk]
        started = time.monotonic()
        results = env.apply_many([(tree.nodes[n].goal, tactic) for n, (tactic, _) in chunk])
        seconds = time.monotonic() - started
        stats.prover_seconds += seconds
        stats.prover_calls += len(chunk)
        stats.expensive_calls += sum(expensive(tactic) for _, (tactic, _) in chunk)
        for (node_id, (tactic, logprob)), result in zip(chunk, results):
            if cost is not None:
                cost.record(tactic, result.elapsed if result.elapsed > 0 else seconds / len(chunk))
            if not result.ok:
                stats.prover_errors += 1
                tree.record_failure(node_id, tactic)
                continue
            tree.add_edge(node_id, tactic, logprob, math.exp(logprob / prior_temperature), result.goals)

    for node_id, job in unsent:
        put_back(tree.nodes[node_id], [job])
    cut_short = {n for n, _ in unsent if tree.nodes[n].status is Status.OPEN}
    for node_id in node_ids:
        if node_id in cut_short:
            continue  # an incomplete expansion does not count: the rest is sent if the search goes on
        node = tree.nodes[node_id]
        node.expansions += 1
        stats.expansions += 1
        if not node.pending and not node.awaiting_policy and (node_id in nothing_new
                                                              or node.policy_rounds >= max_expansions):
            tree.mark_exhausted(node_id)
    return [tree.nodes[n].value or 0.0 for n in node_ids]
