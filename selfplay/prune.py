"""Proof pruning and proof-step records: what expert iteration learns from a found proof.

A search proof carries the detours the search took on its way (an `intros.` before an
`intros; nra.` that would have closed the goal alone, a `simpl.` that changed nothing the
closing tactic needed). Imitating those teaches the policy to waste its samples, so before a
proof becomes policy targets it is pruned, in the prover:

* **leave a step out**: for a step that left exactly one goal, replay the rest of the proof
  (its child's subproof) on the step's own goal; if that still closes it, the step goes. Repeated
  until no step can go, top down, so a chain `intros. intros. lra.` becomes `lra.` when `lra.`
  alone closes the goal.
* **shortest closing tactic**: where several tactics closed a goal in the search
  (`closing_alternatives`), the shortest text is kept (`intros; lra.` over a hinted `nra`).

Every replay goes through the env (`ProofEnv.apply`), so a pruned proof is a proof Coq accepted
step by step, never a guess. Pruning costs O(steps²) tactic calls, small for search proofs.

`proof_records` then walks the pruned proof in the prover and emits one policy record per step:
(the goal's text, the tactic, tactics still needed on the longest branch below it).
"""

from __future__ import annotations

from typing import Sequence

from lean_interface.api import Goal, ProofEnv, ProofStep
from search.tree import SearchTree, Status
from selfplay.episode import TrainingRecord


def replays(env: ProofEnv, goal: Goal, step: ProofStep) -> bool:
    """True when `step` (with its subproofs) closes `goal` in the prover, goal for goal."""
    result = env.apply(goal, step.tactic)
    if not result.ok:
        return False
    if len(result.goals) != len(step.children):
        return False
    return all(replays(env, child_goal, child) for child_goal, child in zip(result.goals, step.children))


def prune_proof(env: ProofEnv, goal: Goal, step: ProofStep) -> ProofStep:
    """`step` with every step that can be left out removed (module docstring); the result
    closes `goal` (it replayed in the prover). A step whose replay fails now (a flaky timeout)
    is kept as it was."""
    while len(step.children) == 1 and replays(env, goal, step.children[0]):
        step = step.children[0]
    result = env.apply(goal, step.tactic)
    if not result.ok or len(result.goals) != len(step.children):
        return step
    return ProofStep(step.tactic, tuple(prune_proof(env, child_goal, child)
                                       for child_goal, child in zip(result.goals, step.children)))


def shortest_closing(tree: SearchTree, node_id: int) -> str | None:
    """The shortest tactic among the edges that closed node `node_id` outright (no goals left),
    or None when none did."""
    closing = [edge.tactic for edge in tree.nodes[node_id].edges if edge.status is Status.PROVED and not edge.children]
    return min(closing, key=lambda tactic: (len(tactic), tactic)) if closing else None


def prefer_short_closers(tree: SearchTree, node_id: int, step: ProofStep) -> ProofStep:
    """`step` with each leaf's tactic replaced by the shortest tactic that closed the same goal
    in the search (the tree's own edges, so the replacement is one Coq already accepted)."""
    if not step.children:
        return ProofStep(shortest_closing(tree, node_id) or step.tactic)
    node = tree.nodes[node_id]
    edge = next((e for e in node.edges if e.tactic == step.tactic and len(e.children) == len(step.children)), None)
    if edge is None:
        return step
    return ProofStep(step.tactic, tuple(prefer_short_closers(tree, child_id, child)
                                       for child_id, child in zip(edge.children, step.children)))


def proof_records(env: ProofEnv, goal: Goal, step: ProofStep, source: str) -> list[TrainingRecord]:
    """One policy record per step of a proof that closes `goal`, root first; the value target is
    the number of tactics on the longest branch from that step down (≥ 1). A step that no longer
    replays ends the walk below it (its records would name goals the proof does not reach)."""
    records: list[TrainingRecord] = []

    def walk(current: Goal, node: ProofStep) -> None:
        records.append(TrainingRecord(current.text, node.tactic, _depth(node), source))
        result = env.apply(current, node.tactic)
        if result.ok and len(result.goals) == len(node.children):
            for child_goal, child in zip(result.goals, node.children):
                walk(child_goal, child)

    walk(goal, step)
    return records


def _depth(step: ProofStep) -> int:
    return 1 + max((_depth(child) for child in step.children), default=0)


def value_only(records: Sequence[TrainingRecord]) -> list[TrainingRecord]:
    """The value-only records (tactic None) of an episode: goals searched without a proof."""
    return [record for record in records if record.tactic is None]


__all__ = ["prefer_short_closers", "proof_records", "prune_proof", "replays", "shortest_closing", "value_only"]
