"""Training records from a finished search graph (pure; no prover, no network).

Policy targets: every PROVED goal the search visited contributes (goal, the tactic of its
smallest proof) — on the root's proof and off it, since a proved sub-goal is a proof of that goal
whatever happened to the root (HTPS learns from these). Value targets (`search.value_units`):

* a PROVED goal: the tactics of its smallest proof on the longest branch (the tactic at the goal,
  plus the most any of the goals it left still needs);
* a goal searched and not proved: `UNPROVED_STEPS`, "not proved within this budget", so failures
  teach the value head too. Which goals count is the `unproved` rule (`UNPROVED_RULES`):
  - `none` (the default): no "not proved" targets; the head learns steps-to-go from proofs alone;
  - `root`: only the root of a search that failed — the statement searched with the whole budget,
    the one goal "searched long without a proof";
  - `tree`: also every goal inside the graph visited at least `min_visits` times (OPEN, or
    FAILED once expanded).
  `tree` labels goals a few simulations looked at, many of them provable: replaying runs 9 and
  10's learning with each rule (docs/experiments.md "Value targets", bd17eda) the value head's AUC
  on round 0's fixed held-out goals fell from 0.77 to 0.63–0.65 under `tree`, held at 0.77–0.79
  under `root` and rose to 0.81–0.83 under `none`. In real runs (10, 12, 13: the same command but
  for the rule) the last versions score 0.63 / 0.79 / 0.83 on those goals and 0.61–0.66 /
  0.64–0.69 / 0.73–0.79 on later rounds' goals, with the curve no lower: `none` is the default.

Records carry the problem's source so proof rates and the data mix can be read by source.
Goals the search merely touched (fewer visits) carry no value target: their value says nothing.

`open_leads` ranks the goals a failed search left open by how close it believed them to closed:
the problems test-time RL searches on their own next (`ttrl.loop`, subgoal variants).
"""

from __future__ import annotations

from search.tree import OrNode, SearchTree, Status, best_proof_edge
from search.value_units import UNPROVED_STEPS
from selfplay.episode import TrainingRecord


def proof_depths(tree: SearchTree) -> dict[int, int]:
    """Steps on the longest branch of each PROVED goal's smallest proof (≥ 1)."""
    depths: dict[int, int] = {}
    proved = [i for i, node in enumerate(tree.nodes) if node.status is Status.PROVED]
    for start in proved:
        stack = [start]
        while stack:  # explicit post-order: chains of thousands of goals are fine
            node_id = stack[-1]
            if node_id in depths:
                stack.pop()
                continue
            children = tree.nodes[node_id].edges[best_proof_edge(tree, node_id)].children
            pending = [c for c in children if c not in depths]
            if pending:
                stack.extend(pending)
                continue
            depths[node_id] = 1 + max((depths[c] for c in children), default=0)
            stack.pop()
    return depths


#: which unproved goals get a "not proved" value target (see the module docstring)
UNPROVED_RULES = ("root", "tree", "none")


def episode_records(tree: SearchTree, source: str, min_visits: int = 2, unproved: str = "none"
                    ) -> list[TrainingRecord]:
    """Policy + value records of a search graph (see the module docstring), root first."""
    if unproved not in UNPROVED_RULES:
        raise ValueError(f"unproved value targets must be one of {', '.join(UNPROVED_RULES)}, not {unproved!r}")
    depths = proof_depths(tree)
    records: list[TrainingRecord] = []
    for node_id, node in enumerate(tree.nodes):
        text = node.goal.text
        if node.status is Status.PROVED:
            tactic = node.edges[best_proof_edge(tree, node_id)].tactic
            records.append(TrainingRecord(text, tactic, depths[node_id], source))
        elif _labelled_unproved(node_id, node, unproved, min_visits):
            records.append(TrainingRecord(text, None, UNPROVED_STEPS, source))
    return records


def _labelled_unproved(node_id: int, node: OrNode, rule: str, min_visits: int) -> bool:
    """Whether an unproved goal gets the "not proved" target under `rule`."""
    searched = node.visits >= min_visits or (node.status is Status.FAILED and node.expanded)
    if rule == "tree":
        return searched
    return rule == "root" and node_id == 0 and searched


def open_leads(tree: SearchTree, limit: int = 8, min_visits: int = 2) -> list[str]:
    """Texts of up to `limit` OPEN goals other than the root that the search expanded and visited
    at least `min_visits` times, most promising first: the evaluator's highest value (fewest
    tactics still needed), then the most visits, then the shallowest, then the oldest."""
    leads = [(-(node.value or 0.0), -node.visits, node.depth, node_id)
             for node_id, node in enumerate(tree.nodes)
             if node_id and node.status is Status.OPEN and node.value is not None and node.visits >= min_visits]
    return [tree.nodes[node_id].goal.text for *_, node_id in sorted(leads)[:limit]]
