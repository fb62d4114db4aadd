"""A ProofEnv over a hand-written transition table, and a table-driven evaluator, for unit tests.

    table = {("A", "split"): ["B", "C"], ("B", "t1"): [], ...}

A (goal, tactic) pair missing from the table is a failed tactic. Tactic names are plain words
(`t1`, `split`) unless a `form` (e.g. Coq's, `lean_interface.tactic_form.coq_tactic`) is given:
then the env's canonical tactic form is that language's, as a real backend's is. `render` writes the proof tree
as an indented script and `verify` parses that script back and replays it against the same
table, so the search's proof extraction and `solve`'s verification are checked for real.
"""

from __future__ import annotations

import random
from typing import Sequence

from lean_interface.api import Goal, ProofEnv, ProofStep, TacticResult, Theorem, Verdict
from search.evaluator import EvalRequest, Evaluation, TacticForm

Table = dict[tuple[str, str], list[str]]


class TableEnv(ProofEnv):
    """Goals are plain strings; `calls` records every (goal, tactic) sent, in order."""

    def __init__(self, table: Table, root: str = "A", form: TacticForm | None = None) -> None:
        self.table = table
        self.root = root
        self.form = form
        self.calls: list[tuple[str, str]] = []
        self.batches: list[int] = []  # size of each apply_many call

    def start(self, theorem: Theorem) -> Goal:
        return Goal(self.root, ("path", self.root))

    def canonical_tactic(self, tactic: str) -> str | None:
        return super().canonical_tactic(tactic) if self.form is None else self.form(tactic)

    def apply(self, goal: Goal, tactic: str) -> TacticResult:
        self.calls.append((goal.text, tactic))
        key = (goal.text, tactic)
        if key not in self.table:
            return TacticResult(error="no such transition")
        return TacticResult(goals=tuple(Goal(g, ("path", g)) for g in self.table[key]))

    def apply_many(self, requests: Sequence[tuple[Goal, str]]) -> list[TacticResult]:
        self.batches.append(len(requests))
        return [self.apply(goal, tactic) for goal, tactic in requests]

    def render(self, theorem: Theorem, proof: ProofStep) -> str:
        def lines(step: ProofStep, depth: int) -> list[str]:
            own = ["  " * depth + step.tactic]
            return own + [line for child in step.children for line in lines(child, depth + 1)]

        return "\n".join(lines(proof, 0))

    def verify(self, theorem: Theorem, script: str) -> Verdict:
        proof = parse_script(script)
        if proof is None or not self.check_proof(self.root, proof):
            return Verdict(False, "script does not prove the root under the table", (), script)
        return Verdict(True, "", (), script)

    def check_proof(self, goal: str, proof: ProofStep) -> bool:
        """Whether `proof` really proves `goal` under the table (children in the table's order)."""
        key = (goal, proof.tactic)
        if key not in self.table:
            return False
        children = self.table[key]
        return len(children) == len(proof.children) and all(
            self.check_proof(g, p) for g, p in zip(children, proof.children))


def parse_script(script: str) -> ProofStep | None:
    """The inverse of `TableEnv.render` (None for an empty or malformed script)."""
    rows = [(len(line) - len(line.lstrip(" "))) // 2 for line in script.splitlines()]
    tactics = [line.strip() for line in script.splitlines()]
    if not tactics or rows[0] != 0:
        return None

    def build(start: int) -> tuple[ProofStep, int]:
        depth = rows[start]
        children = []
        position = start + 1
        while position < len(rows) and rows[position] > depth:
            child, position = build(position)
            children.append(child)
        return ProofStep(tactics[start], tuple(children)), position

    proof, end = build(0)
    return proof if end == len(rows) else None


class TableEvaluator:
    """Proposes the tactics listed for each goal with given log-probs, at round 0 only (or per
    round when keyed by (goal, round)); value from `values` (default −1). Records every request."""

    def __init__(self, proposals: dict, values: dict[str, float] | None = None) -> None:
        self.proposals = proposals
        self.values = values or {}
        self.requests: list[EvalRequest] = []
        self.calls = 0

    def evaluate(self, requests: Sequence[EvalRequest]) -> list[Evaluation]:
        self.calls += 1
        self.requests.extend(requests)
        out = []
        for r in requests:
            if (r.goal, r.round) in self.proposals:
                tactics = self.proposals[(r.goal, r.round)]
            else:
                tactics = self.proposals.get(r.goal, []) if r.round == 0 else []
            out.append(Evaluation(tuple(tactics), self.values.get(r.goal, -1.0)))
        return out


def random_world(seed: int) -> tuple[Table, dict]:
    """A random AND-OR table over goals G0..G11: each goal gets 0–3 tactics leaving 0–2 goals of
    higher index (so no cycles), some tactics fail in the prover."""
    rng = random.Random(seed)
    table: Table = {}
    proposals: dict[str, list[tuple[str, float]]] = {}
    for i in range(12):
        name = f"G{i}"
        proposals[name] = []
        for k in range(rng.randint(0, 3)):
            tactic = f"t{k}"
            proposals[name].append((tactic, -rng.random() * 3))
            if rng.random() < 0.8:
                later = [f"G{j}" for j in range(i + 1, 12)]
                table[(name, tactic)] = rng.sample(later, min(len(later), rng.choice([0, 0, 1, 1, 2])))
    return table, proposals


def provable(table: Table, proposals: dict, goal: str, memo: dict[str, bool]) -> bool:
    """Brute force: whether `goal` has a proof using the proposed tactics (the graph is acyclic)."""
    if goal not in memo:
        memo[goal] = any((goal, t) in table and all(provable(table, proposals, c, memo) for c in table[(goal, t)])
                         for t, _ in proposals.get(goal, []))
    return memo[goal]
