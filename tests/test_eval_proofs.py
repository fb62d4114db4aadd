"""Which eval proofs `alphaprover eval-proofs` would replay (no Coq): the benchmark's proved rows
only, each distinct script once, shortest first; held-out problems refused even when listed."""

from __future__ import annotations

from alphaprover.eval_proofs import EvalProofReport, proofs_to_replay
from lean_interface.api import Theorem
from lean_interface.problems.benchmarks import Problem, dev_problem_names, load_benchmark


def row(problem: str, method: str, status: str, proof: str | None) -> dict:
    return {"problem": problem, "method": method, "status": status, "proof": proof}


def test_only_proved_rows_of_the_benchmark_each_script_once() -> None:
    train = {p.name: p for p in load_benchmark("minif2f-rocq-train")}
    dev = sorted(dev_problem_names())[0]
    name = "mathd_algebra_15"
    rows = [row(name, "mcts-fixed", "proved", "apply h0. { lia. }  { lia. }"),
            row(name, "mcts-mixed", "proved", "apply h0.\n{ lia. } { lia. }"),
            row(name, "portfolio", "proved", "lia."),
            row(name, "bfs", "failed", None),
            row("mathd_algebra_48", "mcts-fixed", "proved", ""),
            row(dev, "mcts-fixed", "proved", "intros; nra.")]
    report = EvalProofReport()
    todo = proofs_to_replay(rows, train, frozenset(), report)
    assert todo == {name: ["lia.", "apply h0. { lia. } { lia. }"]}
    assert (report.proofs, report.outside, report.refused) == (2, 1, 0)
    report = EvalProofReport()
    assert proofs_to_replay(rows, train, frozenset({"portfolio"}), report) == {name: ["lia."]}


def test_a_listed_held_out_problem_is_refused() -> None:
    dev = next(p for p in load_benchmark("minif2f-rocq-dev") if p.theorem is not None)
    renamed = Theorem("renamed", dev.theorem.header, dev.theorem.statement.replace(dev.name, "renamed"))
    problems = {"renamed": Problem("renamed", renamed), dev.name: dev}
    report = EvalProofReport()
    rows = [row("renamed", "mcts-fixed", "proved", "lia."), row(dev.name, "mcts-fixed", "proved", "lia.")]
    assert proofs_to_replay(rows, problems, frozenset(), report) == {}
    assert (report.refused, report.proofs) == (2, 0)


def test_ledger_rows_are_proofs_and_runs_filter_them() -> None:
    """A loop-proof ledger (`analyze export-train-proofs`) reads as proved rows; `methods` names runs."""
    train = {p.name: p for p in load_benchmark("minif2f-rocq-train")}
    dev = sorted(dev_problem_names())[0]
    rows = [{"problem": "mathd_algebra_15", "script": "apply h0. { lia. } { lia. }", "run": "expert-18",
             "first_version": 0, "proofs": 3},
            {"problem": "mathd_algebra_15", "script": "lia.", "run": "expert-17", "first_version": 2, "proofs": 1},
            {"problem": "mathd_algebra_48", "script": "", "run": "expert-18"},
            {"problem": "mathd_algebra_48", "script": "lra."},                       # no run: not a ledger row
            {"problem": dev, "script": "intros; nra.", "run": "expert-18"}]
    report = EvalProofReport()
    assert proofs_to_replay(rows, train, frozenset(), report) == {
        "mathd_algebra_15": ["lia.", "apply h0. { lia. } { lia. }"]}
    assert (report.proofs, report.outside) == (2, 1)
    assert proofs_to_replay(rows, train, frozenset({"expert-18"}), EvalProofReport()) == {
        "mathd_algebra_15": ["apply h0. { lia. } { lia. }"]}
