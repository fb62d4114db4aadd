"""Training targets from a search graph (pure): policy on proved goals, steps on the longest
branch, "not proved" values on a failed root (rule `root`) or on every visited open goal (rule
`tree`), nothing on goals barely touched."""

from __future__ import annotations

from lean_interface.api import Goal
from search.tree import SearchTree, Status
from search.value_units import UNPROVED_STEPS
import pytest

from selfplay.actor import ActorConfig
from selfplay.targets import episode_records, proof_depths


def _goal(text: str) -> Goal:
    return Goal(text, ref=text)


def test_proved_and_open_goals_get_their_targets() -> None:
    # A --split--> (B, C); B --lia--> done; C --intro--> D --auto--> done; A --bad--> E (open, visited)
    tree = SearchTree(_goal("A"))
    split = tree.add_edge(0, "split.", -1.0, 1.0, [_goal("B"), _goal("C")])
    b, c = tree.nodes[0].edges[split].children
    tree.add_edge(0, "bad.", -2.0, 1.0, [_goal("E")])
    e = tree.node_id("E")
    tree.nodes[e].visits = 3
    tree.add_edge(b, "lia.", -0.5, 1.0, [])
    tree.add_edge(c, "intro.", -0.5, 1.0, [_goal("D")])
    d = tree.node_id("D")
    tree.add_edge(d, "auto.", -0.5, 1.0, [])
    tree.add_edge(d, "simpl.", -0.5, 1.0, [_goal("F")])  # F: touched once, never proved
    tree.nodes[tree.node_id("F")].visits = 1
    assert tree.root.status is Status.PROVED
    depths = proof_depths(tree)
    assert depths == {0: 3, b: 1, c: 2, d: 1}  # A: split + longest branch (intro, auto)
    records = {(r.goal, r.tactic): r.steps for r in episode_records(tree, "src", min_visits=2, unproved="tree")}
    assert records == {("A", "split."): 3, ("B", "lia."): 1, ("C", "intro."): 2, ("D", "auto."): 1,
                       ("E", None): UNPROVED_STEPS}
    assert all(r.source == "src" for r in episode_records(tree, "src"))
    # the default rule: a proved search labels no goal "not proved" (E was merely not needed)
    assert {(r.goal, r.tactic): r.steps for r in episode_records(tree, "src")} == {
        key: steps for key, steps in records.items() if key != ("E", None)}


def test_an_unproved_root_gives_value_records_only() -> None:
    tree = SearchTree(_goal("A"))
    tree.add_edge(0, "intro.", -1.0, 1.0, [_goal("B")])
    tree.root.visits = 5
    tree.nodes[1].visits = 4
    def labelled(rule: str) -> list[tuple]:
        return [(r.goal, r.tactic, r.steps) for r in episode_records(tree, "s", unproved=rule)]

    assert labelled("tree") == [("A", None, UNPROVED_STEPS), ("B", None, UNPROVED_STEPS)]
    assert labelled("root") == [("A", None, UNPROVED_STEPS)]   # the statement searched with the whole budget
    assert labelled("none") == []


def test_an_unknown_unproved_rule_is_refused() -> None:
    tree = SearchTree(_goal("A"))
    with pytest.raises(ValueError, match="root, tree, none"):
        episode_records(tree, "s", unproved="leaves")
    with pytest.raises(ValueError, match="actor.unproved_targets"):
        ActorConfig.from_dict({"unproved_targets": "leaves"})
    assert ActorConfig.from_dict({}).unproved_targets == "none"


def test_open_leads_rank_open_goals_by_value_then_visits() -> None:
    from selfplay.targets import open_leads

    # A --t1--> B (V -3, 4 visits); A --t2--> C (V -1, 2 visits) --t3--> D (V -1, 5 visits);
    # A --t4--> E (proved); A --t5--> F (V -0.5, 1 visit: barely touched); G never evaluated
    tree = SearchTree(_goal("A"))
    for tactic, goal in (("t1.", "B"), ("t2.", "C"), ("t5.", "F"), ("t6.", "G")):
        tree.add_edge(0, tactic, -1.0, 1.0, [_goal(goal)])
    tree.add_edge(tree.node_id("C"), "t3.", -1.0, 1.0, [_goal("D")])
    tree.add_edge(0, "t4.", -1.0, 1.0, [_goal("E")])
    tree.add_edge(tree.node_id("E"), "lia.", -1.0, 1.0, [])
    for goal, value, visits in (("B", -3.0, 4), ("C", -1.0, 2), ("D", -1.0, 5), ("F", -0.5, 1), ("G", None, 3)):
        node = tree.nodes[tree.node_id(goal)]
        node.value, node.visits = value, visits
    tree.root.value, tree.root.visits = -0.1, 20                   # the root is never a lead
    assert open_leads(tree) == ["D", "C", "B"]
    assert open_leads(tree, limit=1) == ["D"] and open_leads(tree, min_visits=1) == ["F", "D", "C", "B"]
