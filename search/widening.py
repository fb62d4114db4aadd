"""Progressive widening: which of a goal's proposals go to the prover now, and which wait.

An evaluator round answers a goal with a ranked list (the policy's samples, and in `mixed` mode
~44 automation tactics plus hypothesis-instantiated ones, all priced by the policy). Sending the
whole list at a goal's first expansion makes the prior only *order* what is tried, never *choose*
it, so a better policy buys nothing (issue #19). With a width k, an expansion sends only the k
most likely untried proposals (prior = exp(logp / T) is monotone in logp, so top-k by prior is
top-k by log-prob); the rest wait in the goal's `pending` list, and each later expansion — granted
by progressive sampling's rule on visits, `expansions <= ps_c · visits^ps_alpha`, or at once when
every tactic so far failed — sends the next k before the evaluator is asked for a new round.
Width 0 sends everything at once (the behaviour before widening existed).

Pure functions over `SearchTree` nodes: no prover, no network.
"""

from __future__ import annotations

import math
from typing import Iterable

from search.tree import OrNode, SearchTree

#: the least probability mass `residual_logprob` leaves for the tactics the policy did not price
RESIDUAL_FLOOR = 1e-3


def offer(tree: SearchTree, node_id: int, proposals: Iterable[tuple[str, float]], prior_temperature: float,
          reprice: bool = False, residual: bool = False) -> bool:
    """Add one evaluator round's canonical (tactic, log-prob) proposals to a goal. A tactic that
    already has an edge adds its prior to the edge; one already pending keeps its best log-prob;
    a failed one is not retried. Returns whether any proposal was new (now pending).
    `reprice`: the earlier prices were placeholders (a glance's uniform priors, `EvalRequest.glance`):
    this round's log-prob replaces an edge's prior and a pending tactic's log-prob instead.
    `residual` (with `reprice`): every pending tactic and edge this round did not price shares the
    mass its proposals leave (`residual_logprob`) instead of keeping its placeholder price."""
    node = tree.nodes[node_id]
    new = False
    proposals = list(proposals)
    if reprice and residual:
        priced = {tactic for tactic, _ in proposals}
        pending = [tactic for tactic in node.pending if tactic not in priced]
        edges = [edge for edge in node.edges if edge.tactic not in priced]
        if pending or edges:
            unpriced = residual_logprob(proposals, len(pending) + len(edges))
            for tactic in pending:
                node.pending[tactic] = unpriced
            for edge in edges:
                edge.prior, edge.logprob = math.exp(unpriced / prior_temperature), unpriced
    for tactic, logprob in proposals:
        if tactic in node.tried:  # sampled again: more prior for its edge; a failure is not retried
            index = node.tried[tactic]
            if index is not None:
                edge = node.edges[index]
                prior = math.exp(logprob / prior_temperature)
                if reprice:
                    edge.prior, edge.logprob = prior, logprob
                else:
                    edge.prior += prior
        elif tactic in node.pending:
            node.pending[tactic] = logprob if reprice else max(node.pending[tactic], logprob)
        else:
            node.pending[tactic] = logprob
            new = True
    return new


def residual_logprob(proposals: Iterable[tuple[str, float]], unpriced: int, floor: float = RESIDUAL_FLOOR) -> float:
    """The log-prob of each of `unpriced` tactics that share the probability mass the policy's
    distinct proposals leave: log(max(1 − Σ p, floor) / unpriced). Why (`MCTSConfig.glance_list_prior`):
    after a glance the automation list waits at uniform priors (≈ −4 nats for 60 tactics), above
    most of what the policy samples, so the goal sends the list before the policy's own ideas;
    the policy's probabilities say how much mass is left for tactics it did not propose."""
    mass = sum(math.exp(logprob) for _, logprob in proposals)
    return math.log(max(1.0 - mass, floor) / max(1, unpriced))


def take(node: OrNode, width: int) -> list[tuple[str, float]]:
    """Remove and return the `width` most likely pending tactics of a goal (all of them when
    `width` is 0), most likely first; ties keep the order in which they were proposed."""
    ranked = sorted(node.pending.items(), key=lambda item: -item[1])
    chosen = ranked if width <= 0 else ranked[:width]
    for tactic, _ in chosen:
        del node.pending[tactic]
    return chosen


def put_back(node: OrNode, unsent: Iterable[tuple[str, float]]) -> None:
    """Return tactics that were taken but never sent (the budget ran out) to the pending list."""
    for tactic, logprob in unsent:
        node.pending[tactic] = max(logprob, node.pending.get(tactic, logprob))
