"""Results file durability and the summaries built from it (no prover needed)."""

from __future__ import annotations

import math
from pathlib import Path

from alphaprover.eval_records import ProblemRecord, RecordWriter, read_records
from alphaprover.eval_report import (differences_table, markdown_table, plot_pass_rate, proved_fraction_curve,
                                     search_depth_table, summarise)
from search.outcome import Outcome as Status


def _record(problem: str, method: str, status: Status, seconds: float, calls: int = 10) -> ProblemRecord:
    return ProblemRecord(problem=problem, method=method, status=status, seconds=seconds,
                         prover_calls=calls, budget_seconds=10.0, budget_simulations=100)


def test_records_round_trip_and_survive_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    with RecordWriter(path) as writer:
        writer.write(_record("p1", "mcts", Status.PROVED, 1.5))
        writer.write(_record("p2", "mcts", Status.FAILED, 10.0))
    # a run killed mid-write leaves half a line behind
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"problem": "p3", "meth')
    assert [r.problem for r in read_records(path)] == ["p1", "p2"]
    # the next run appends after a clean line boundary, and nothing earlier is lost
    with RecordWriter(path) as writer:
        writer.write(_record("p3", "mcts", Status.PROVED, 2.0))
    records = read_records(path)
    assert [r.problem for r in records] == ["p1", "p2", "p3"]
    assert records[0].status is Status.PROVED and records[0].seconds == 1.5


def test_summary_counts_and_percentiles() -> None:
    records = [
        _record("a", "bfs", Status.PROVED, 1.0, calls=5),
        _record("b", "bfs", Status.FAILED, 10.0, calls=50),
        _record("c", "bfs", Status.BAD_STATEMENT, 0.1, calls=0),
        _record("a", "mcts", Status.PROVED, 2.0),
        _record("b", "mcts", Status.PROVED, 4.0),
    ]
    bfs, mcts = summarise(records)
    assert (bfs.method, bfs.proved, bfs.attempted, bfs.bad_statements) == ("bfs", 1, 2, 1)
    assert math.isclose(bfs.seconds_p50, 5.5)
    assert math.isclose(bfs.prover_calls_p50, 27.5)
    assert math.isclose(bfs.prover_calls_per_proof, 55.0)  # the failed attempt's calls count too
    assert (mcts.proved, mcts.attempted) == (2, 2) and math.isclose(mcts.prover_calls_per_proof, 10.0)
    assert math.isclose(mcts.proved_seconds_p50, 3.0)
    table = markdown_table([bfs, mcts])
    assert "| bfs | 1 | 2 | 50.0% | 1 |" in table
    assert "| mcts | 2 | 2 | 100.0% | 0 |" in table and "| 10 / 10 | 10 | 3.00 |" in table
    (none,) = summarise([_record("b", "m", Status.FAILED, 10.0, calls=40)])
    assert none.proved == 0 and math.isnan(none.prover_calls_per_proof)


def test_proved_fraction_curve_is_a_step_function_of_time() -> None:
    records = [_record("a", "m", Status.PROVED, 1.0), _record("b", "m", Status.PROVED, 3.0),
               _record("c", "m", Status.FAILED, 10.0), _record("d", "m", Status.FAILED, 10.0)]
    grid, fraction = proved_fraction_curve(records, budget_seconds=10.0, points=11)
    assert list(grid[:4]) == [0.0, 1.0, 2.0, 3.0]
    assert list(fraction[:4]) == [0.0, 0.25, 0.25, 0.5]
    assert fraction[-1] == 0.5


def test_plot_is_a_png(tmp_path: Path) -> None:
    records = [_record("a", "mcts", Status.PROVED, 1.0), _record("a", "bfs", Status.FAILED, 10.0)]
    path = tmp_path / "plot.png"
    plot_pass_rate(records, path, "test")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_default_results_path_separates_sampling_settings() -> None:
    """Eval resumes by (problem, method): a run with other sampling settings gets its own file."""
    from alphaprover.eval_cmd import default_results_path

    base = {"budget": {"max_seconds": 60, "max_simulations": 100}}
    assert str(default_results_path("minif2f-rocq-valid", base)) == "results/minif2f-rocq-valid-60s-100sims.jsonl"
    assert str(default_results_path("minif2f-rocq-valid", {**base, "decoding": "sample", "temperature": 1.0})) == \
        "results/minif2f-rocq-valid-60s-100sims.jsonl"
    names = {default_results_path("b", {**base, **extra}).name for extra in
             ({}, {"decoding": "beam"}, {"temperature": 1.5}, {"temperature_step": 0.25})}
    assert len(names) == 4


def test_pending_jobs_are_problem_major_and_skip_what_the_file_holds() -> None:
    from types import SimpleNamespace

    from alphaprover.eval_cmd import pending_jobs

    problems = [SimpleNamespace(name="p1"), SimpleNamespace(name="p2")]
    done = {("m2", "p2", 20.0, 32), ("m1", "p2", 20.0, 8)}  # the second one is another budget
    jobs = pending_jobs(problems, ["m1", "m2"], done, 20.0, 32)
    assert [(p.name, m) for p, m in jobs] == [("p1", "m1"), ("p1", "m2"), ("p2", "m1")]


def test_search_depth_table_reads_speed_and_depth_from_the_records() -> None:
    def searched(problem: str, status: Status, seconds: float, sims: int, depth: int, prover: float) -> ProblemRecord:
        return ProblemRecord(problem=problem, method="mcts", status=status, seconds=seconds, prover_calls=10,
                             budget_seconds=60.0, budget_simulations=100, simulations=sims, max_depth=depth,
                             prover_seconds=prover)

    records = [searched("a", Status.FAILED, 60.0, 300, 6, 30.0), searched("b", Status.FAILED, 30.0, 50, 2, 20.0),
               searched("c", Status.PROVED, 2.0, 10, 1, 1.0), _record("d", "portfolio", Status.PROVED, 1.0)]
    table = search_depth_table(records)
    # failed: 300/min and 100/min -> median 200; depths 6 and 2 -> median and mean 4; mean depth over all
    # (6+2+1)/3; 51 s / 360 sims
    assert "| mcts | 2 | 200 | 4.0 / 4.00 | 3.00 | 0.142 |" in table
    assert "portfolio" not in table
    assert search_depth_table([_record("d", "portfolio", Status.PROVED, 1.0)]) == ""


def test_differences_table_lists_the_problems_the_methods_disagree_on() -> None:
    def outcome(problem: str, method: str, proof: str | None) -> ProblemRecord:
        return ProblemRecord(problem=problem, method=method, status=Status.PROVED if proof else Status.FAILED,
                             seconds=1.0, prover_calls=10, budget_seconds=60.0, budget_simulations=100, proof=proof)

    records = [
        outcome("both", "fixed", "lra."), outcome("both", "mixed", "lra."),            # agree: not listed
        outcome("neither", "fixed", None), outcome("neither", "mixed", None),         # agree: not listed
        outcome("deep", "fixed", None), outcome("deep", "mixed", "intros.\ninduction n.\n{ lia. }\n{ nia. }"),
        outcome("auto", "fixed", "nra."), outcome("auto", "mixed", None),
        outcome("half", "mixed", "lia."),                                               # fixed has not run it yet
        _record("bad", "fixed", Status.BAD_STATEMENT, 0.1), _record("bad", "mixed", Status.PROVED, 1.0),
    ]
    table = differences_table(records)
    assert "| problem | fixed | mixed | shortest proof |" in table
    assert "| auto | ✓ | · | `nra.` |" in table
    assert "| deep | · | ✓ | `intros. induction n. { lia. } { nia. }` |" in table
    assert table.index("| auto |") < table.index("| deep |")
    for absent in ("| both |", "| neither |", "| half |", "| bad |"):
        assert absent not in table
    assert table.endswith("proved by one method alone: fixed 1, mixed 1")
    # the shortest of several proofs, cut to the width asked for
    many = [outcome("p", "a", "intros.\nnra."), outcome("p", "b", "nra."), outcome("p", "c", None)]
    assert "| p | ✓ | ✓ | · | `nra.` |" in differences_table(many)
    assert "`intros…`" in differences_table([outcome("q", "a", "intros.\nnra."), outcome("q", "b", None)],
                                            proof_chars=7)
    assert "| r | ✓ | · | `destruct H as [a\\|b]; lia.` |" in differences_table(
        [outcome("r", "a", "destruct H as [a|b]; lia."), outcome("r", "b", None)])
    assert differences_table(records[:4]) == ""
    assert differences_table([outcome("x", "only", "lra.")]) == ""
