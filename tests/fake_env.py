"""A ProofEnv over a hand-written transition table, for testing the search without a prover.

    table = {("A", "split"): ["B", "C"], ("B", "t1"): [], ...}

A (goal, tactic) pair missing from the table is a failed tactic. `verify` replays the rendered
proof tree against the same table, so the search's proof extraction is checked too.
"""

from __future__ import annotations

from lean_interface.api import Goal, ProofEnv, ProofStep, TacticResult, Theorem, Verdict
from search.evaluator import EvalRequest, Evaluation


class TableEnv(ProofEnv):
    def __init__(self, table: dict[tuple[str, str], list[str]], root: str = "A") -> None:
        self.table = table
        self.root = root
        self.calls: list[tuple[str, str]] = []

    def start(self, theorem: Theorem) -> Goal:
        return Goal(self.root, self.root)

    def apply(self, goal: Goal, tactic: str) -> TacticResult:
        self.calls.append((goal.text, tactic))
        key = (goal.text, tactic)
        if key not in self.table:
            return TacticResult(error="no such transition")
        return TacticResult(goals=tuple(Goal(g, g) for g in self.table[key]))

    def render(self, theorem: Theorem, proof: ProofStep) -> str:
        def lines(step: ProofStep) -> list[str]:
            return [step.tactic] + [f"  {line}" for child in step.children for line in lines(child)]

        return "\n".join(lines(proof))

    def verify(self, theorem: Theorem, script: str) -> Verdict:
        return Verdict(True, "", (), script)

    def check_proof(self, goal: str, proof: ProofStep) -> bool:
        """Whether `proof` really proves `goal` under the table."""
        key = (goal, proof.tactic)
        if key not in self.table:
            return False
        children = self.table[key]
        return len(children) == len(proof.children) and all(
            self.check_proof(g, p) for g, p in zip(children, proof.children))


class TableEvaluator:
    """Proposes, for each goal, the tactics listed for it with given log-probs; fixed value."""

    def __init__(self, proposals: dict[str, list[tuple[str, float]]], values: dict[str, float] | None = None) -> None:
        self.proposals = proposals
        self.values = values or {}
        self.requests: list[EvalRequest] = []
        self.calls = 0

    def evaluate(self, requests):
        self.calls += 1
        self.requests.extend(requests)
        return [Evaluation(tuple(self.proposals.get(r.goal, [])) if r.round == 0 else (),
                           self.values.get(r.goal, -1.0)) for r in requests]
