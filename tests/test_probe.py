"""`alphaprover probe`: reading references (train problems only), the tables, and the beam rank."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from alphaprover.cli import main
from alphaprover.config import UsageError
from alphaprover.probe import StepScore, format_table, read_references, score_steps, summary_line
from lean_interface.coq.proof_replay import TacticRecord
from lean_interface.problems.benchmarks import dev_problem_names, minif2f_test_names
from tests.test_analyze import error_line, tiny_checkpoint


def write_refs(path: Path, rows: list) -> Path:
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows))
    return path


def test_a_train_reference_is_read_with_its_theorem(tmp_path: Path) -> None:
    refs = read_references(str(write_refs(tmp_path / "r.jsonl", [
        {"problem": "numbertheory_2dvd4expn", "script": " intros. lia. "}])))
    assert [(r.problem, r.script) for r in refs] == [("numbertheory_2dvd4expn", "intros. lia.")]
    assert refs[0].theorem.statement.startswith("Theorem numbertheory_2dvd4expn")


@pytest.mark.parametrize("name", [sorted(dev_problem_names())[0], sorted(minif2f_test_names())[0]])
def test_dev_and_test_problems_are_refused(tmp_path: Path, name: str) -> None:
    path = write_refs(tmp_path / "r.jsonl", [{"problem": name, "script": "lra."}])
    with pytest.raises(UsageError, match=r"r.jsonl:1: .*(dev subset|test split)"):
        read_references(str(path))


@pytest.mark.parametrize("rows, message", [
    (["{not json"], r"r.jsonl:1: expected"),
    ([{"problem": "numbertheory_2dvd4expn"}], r"r.jsonl:1: expected"),
    ([{"problem": "no_such_problem", "script": "lra."}], r"neither a minif2f-rocq-train problem"),
    ([{"problem": "numbertheory_2dvd4expn", "script": "  "}], r"r.jsonl:1: empty script"),
    ([""], r"no references"),
])
def test_bad_reference_files_are_usage_errors(tmp_path: Path, rows: list, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        read_references(str(write_refs(tmp_path / "r.jsonl", rows)))


def test_the_table_has_a_row_per_step_and_a_column_per_checkpoint() -> None:
    records = [TacticRecord("⊢ P", "intros.", 2, "probe", "t"), TacticRecord("⊢ Q", "destruct n as [|m].", 1, "probe", "t")]
    columns = {"a": [StepScore(-0.01, 1, 2.04), StepScore(-20.4, None, 1.0)],
               "b": [StepScore(-1.5, 3, 1.0), StepScore(-2.0, 2, 0.5)]}
    lines = format_table(records, columns)
    assert len(lines) == 4 and "a: log-prob (rank) · value" in lines[0] and "b: log-prob" in lines[0]
    assert lines[2] == "| 1 | `intros.` | 2 | -0.01 (1) · 2.0 | -1.50 (3) · 1.0 |"
    assert lines[3] == "| 2 | `destruct n as [\\|m].` | 1 | -20.40 (—) · 1.0 | -2.00 (2) · 0.5 |"  # | escaped
    assert summary_line("a", columns["a"]) == "- a: 1 / 2 steps in the beam, median log-prob -10.21, lowest -20.40"
    assert summary_line("b", columns["b"][:1]) == "- b: 1 / 1 steps in the beam, median log-prob -1.50, lowest -1.50"


def test_the_beams_first_tactic_ranks_first_with_the_beams_log_prob() -> None:
    from lean_interface.tactic_form import tactic_form
    from networks.sampling import evaluate_goals
    from tests.test_networks import _trained

    model, tokenizer, _ = _trained(60)
    goal = "x : R\n⊢ x + 1 > x"
    beam = evaluate_goals(model, tokenizer, [goal], num_samples=0, beam_width=4, tactic_form=tactic_form("coq")).tactics[0]
    assert beam, "the trained policy's beam is empty"
    first, first_logprob = beam[0]
    other = "apply Rplus_eq_compat_l."
    scores = score_steps((model, tokenizer), [TacticRecord(goal, first, 1, "probe", "t"),
                                              TacticRecord(goal, other, 1, "probe", "t")], beam_width=4)
    assert scores[0].rank == 1 and math.isclose(scores[0].logprob, first_logprob, abs_tol=1e-3)
    proposed = [logprob for text, logprob in beam if text == other]
    expected = 1 + sum(logprob > proposed[0] for text, logprob in beam if text != other) if proposed else None
    assert scores[1].logprob < first_logprob and scores[1].rank == expected  # ranked only if the beam proposes it
    assert all(score.value_steps >= 0 for score in scores)


def test_the_command_refuses_a_dev_problem_and_a_missing_checkpoint(tmp_path: Path, capsys) -> None:
    ckpt = tiny_checkpoint(tmp_path / "ckpt", ["⊢ True"])
    dev = write_refs(tmp_path / "dev.jsonl", [{"problem": sorted(dev_problem_names())[0], "script": "lra."}])
    assert main(["probe", str(dev), "--checkpoint", str(ckpt)]) == 2
    assert "dev subset" in error_line(capsys)
    train = write_refs(tmp_path / "t.jsonl", [{"problem": "numbertheory_2dvd4expn", "script": "lia."}])
    assert main(["probe", str(train), "--checkpoint", str(tmp_path / "nowhere")]) == 2
    assert "is not a checkpoint directory" in error_line(capsys)
    assert main(["probe", str(train), "--checkpoint", str(ckpt), "--beam", "0"]) == 2
    assert "--beam" in error_line(capsys)


def test_the_curves_competition_referencer_is_off_without_a_file(tmp_path: Path, capsys) -> None:
    from alphaprover.iterate_cmd import competition_referencer

    assert competition_referencer("") is None
    assert competition_referencer(str(tmp_path / "none.jsonl")) is None
    assert "competition_bottleneck not measured" in capsys.readouterr().out
    assert callable(competition_referencer("data/probe/train-references.jsonl"))  # found from the repository


def test_only_keeps_one_benchmarks_references_and_refuses_an_empty_selection(tmp_path: Path) -> None:
    from lean_interface.problems.benchmarks import tune_problem_names

    tune = sorted(tune_problem_names())[0]
    path = write_refs(tmp_path / "ledger.jsonl", [
        {"problem": "numbertheory_2dvd4expn", "script": "lia.", "run": "expert-1"},  # a ledger row's extra keys
        {"problem": tune, "script": "lra.", "run": "expert-1"}])
    assert [r.problem for r in read_references(str(path))] == ["numbertheory_2dvd4expn", tune]
    assert [r.problem for r in read_references(str(path), "minif2f-rocq-tune")] == [tune]
    only_fit = write_refs(tmp_path / "fit.jsonl", [{"problem": "numbertheory_2dvd4expn", "script": "lia."}])
    assert "numbertheory_2dvd4expn" not in tune_problem_names()
    with pytest.raises(UsageError, match="no references of minif2f-rocq-tune problems"):
        read_references(str(only_fit), "minif2f-rocq-tune")
    # rows outside the selection are skipped unread (a dev row too); without --only a dev row is refused
    dev = write_refs(tmp_path / "dev.jsonl", [{"problem": sorted(dev_problem_names())[0], "script": "lra."},
                                              {"problem": tune, "script": "lra."}])
    assert [r.problem for r in read_references(str(dev), "minif2f-rocq-tune")] == [tune]
    with pytest.raises(UsageError, match="dev subset"):
        read_references(str(dev))
