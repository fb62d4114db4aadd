"""`alphaprover eval-runs`: arms over several eval runs — counts, sums, renames, disagreements, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from alphaprover.cli import main
from alphaprover.config import UsageError
from alphaprover.eval_records import ProblemRecord, RecordWriter
from alphaprover.eval_runs import arms_over_runs, parse_same, report
from search.outcome import Outcome


def _record(method: str, problem: str, status: Outcome, seconds: float = 60.0) -> ProblemRecord:
    return ProblemRecord(problem=problem, method=method, status=status, seconds=1.0, prover_calls=3,
                         budget_seconds=seconds, budget_simulations=100000,
                         proof="lra." if status is Outcome.PROVED else None)


def _write(path: Path, rows: list[ProblemRecord]) -> Path:
    with RecordWriter(path) as writer:
        for row in rows:
            writer.write(row)
    return path


P, F, BAD = Outcome.PROVED, Outcome.FAILED, Outcome.BAD_STATEMENT


@pytest.fixture
def two_runs(tmp_path: Path) -> list[Path]:
    first = _write(tmp_path / "a.jsonl", [
        _record("mcts-fixed", "p1", P), _record("mcts-fixed", "p2", F), _record("mcts-fixed", "p3", BAD),
        _record("mcts-mixed@runs/x/last", "p1", P), _record("mcts-mixed@runs/x/last", "p2", P),
        _record("mcts-network@runs/x/last", "p1", P), _record("mcts-network@runs/x/last", "p2", F),
    ])
    second = _write(tmp_path / "b.jsonl", [
        _record("mcts-fixed", "p1", P), _record("mcts-fixed", "p2", F), _record("mcts-fixed", "p3", BAD),
        _record("mcts-mixed@runs/export", "p1", P), _record("mcts-mixed@runs/export", "p2", F),
        _record("mcts-network@runs/export", "p1", F), _record("mcts-network@runs/export", "p2", F),
    ])
    return [first, second]


def test_a_checkpoint_rename_joins_both_arms_of_those_weights_and_counts_only_searches(two_runs) -> None:
    from alphaprover.eval_records import read_records

    runs = [read_records(path) for path in two_runs]
    arms = {arm.method: arm for arm in arms_over_runs(runs, {"runs/export": "runs/x/last"})}
    assert sorted(arms) == ["mcts-fixed", "mcts-mixed@runs/x/last", "mcts-network@runs/x/last"]
    assert [len(p) for p in arms["mcts-mixed@runs/x/last"].proved] == [2, 1]
    assert arms["mcts-mixed@runs/x/last"].total() == 3
    assert arms["mcts-network@runs/x/last"].times_proved("p1") == (1, 2)
    assert arms["mcts-fixed"].searched == [{"p1", "p2"}, {"p1", "p2"}]  # p3 did not elaborate: no attempt
    # without the rename the exported weights are arms of their own, absent from run 1
    separate = {arm.method: arm for arm in arms_over_runs(runs)}
    assert separate["mcts-mixed@runs/export"].runs_with_arm() == [1]


def test_report_lists_counts_per_run_sums_ranges_and_only_unsettled_problems(two_runs) -> None:
    text = report(two_runs, {"runs/export": "runs/x/last"})
    assert "| mcts-mixed@runs/x/last | 2/2 | 1/2 | 3 | 1–2 |" in text
    assert "| mcts-fixed | 1/2 | 1/2 | 2 | 1–1 |" in text
    assert "| p2 | 0/2 | 1/2 | 0/2 |" in text  # found once by mixed
    assert "| p1 | 2/2 | 2/2 | 1/2 |" in text  # the policy alone lost it in run 2
    assert "| p3 |" not in text
    agree = report([two_runs[0], two_runs[0]])
    assert "| mcts-fixed | 1/2 | 1/2 | 2 | 1–1 |" in agree
    assert "| p2 | 0/2 | 2/2 | 0/2 |" in agree and "| p1 |" not in agree  # every arm, every run: settled


def test_a_method_rename_and_an_arm_missing_from_a_run(two_runs, tmp_path: Path) -> None:
    third = _write(tmp_path / "c.jsonl", [_record("mcts-fixed", "p1", P), _record("mcts-fixed", "p2", P)])
    text = report([*two_runs, third], {"mcts-mixed@runs/export": "mcts-mixed@runs/x/last"})
    assert "| mcts-mixed@runs/x/last | 2/2 | 1/2 | – | 3 | 1–2 |" in text
    assert "| mcts-fixed | 1/2 | 1/2 | 2/2 | 4 | 1–2 |" in text
    assert "| mcts-network@runs/export | – | 0/2 | – | 0 | 0–0 |" in text


def test_bad_input_is_a_usage_error(two_runs, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="OLD=NEW"):
        parse_same(["no-equals-sign"])
    with pytest.raises(UsageError, match="no results file"):
        report([tmp_path / "missing.jsonl"])
    with pytest.raises(UsageError, match="no run has"):
        report(two_runs, {"runs/nowhere": "runs/x/last"})
    other = _write(tmp_path / "30s.jsonl", [_record("mcts-fixed", "p1", P, seconds=30.0)])
    with pytest.raises(UsageError, match="different budgets"):
        report([two_runs[0], other])
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(UsageError, match="no eval records"):
        report([tmp_path / "empty.jsonl"])


def test_cli_prints_writes_and_exits_2_with_one_line(two_runs, tmp_path: Path, capsys) -> None:
    out = tmp_path / "cmp.md"
    assert main(["eval-runs", str(two_runs[0]), str(two_runs[1]), "--same", "runs/export=runs/x/last",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| mcts-mixed@runs/x/last | 2/2 | 1/2 | 3 | 1–2 |" in printed
    assert out.read_text() == printed
    assert main(["eval-runs", str(tmp_path / "missing.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("alphaprover: error: no results file") and err.count("\n") == 1
