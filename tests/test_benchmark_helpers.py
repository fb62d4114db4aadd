"""The pure helpers of benchmark scripts whose tables the docs quote: how they classify steps and
score answers decides what the numbers mean. (The run analyses' helpers are tested with
`alphaprover analyze` in tests/test_analyze.py.)"""

from __future__ import annotations

from benchmarks.policy_baselines import Bigram, exact_match, ratio
from benchmarks.script_step_ranks import names_existing_hypothesis, without_new_name
from benchmarks.value_auc import auc, outcomes


def test_script_step_misses_are_told_apart_by_the_new_name() -> None:
    goal = "f : R -> R\nh0 : forall x : R, f (x + 4) = f x + 2\nh1 : f 6 = 20\nh2 : f (6 + 4) = f 6 + 2\n⊢ f 14 = 24"
    reference, renamed = "pose proof (h0 (6 + 4)) as h3.", "pose proof (h0 (6 + 4)) as h2."
    assert without_new_name(reference) == without_new_name(renamed) != without_new_name("pose proof (h0 6) as h3.")
    assert names_existing_hypothesis(renamed, goal) and not names_existing_hypothesis(reference, goal)
    assert not names_existing_hypothesis("lra.", goal)


def test_exact_match_counts_a_reference_without_canonical_form_as_a_miss_and_ratios_name_the_baseline() -> None:
    answers = [["lra.", "lia."], ["nra.", "lra."], ["lia."]]
    assert exact_match(answers, ["lra.", "lra.", None]) == (1 / 3, 2 / 3)
    assert ratio(0.621, 0.148) == "4.2×" and ratio(0.5, 0.0) == "—"


def test_the_bigram_beam_ends_each_answer_in_eos_and_ranks_the_seen_sequence_first() -> None:
    eos = 9
    bigram = Bigram([[1, 2, eos], [1, 2, eos], [1, 3, eos]], vocab=10)
    beam = bigram.beam(eos, width=2, max_tokens=5)
    assert beam == [[1, 2, eos], [1, 3, eos]]
    assert bigram.sequence_log_prob([1, 2, eos]) > bigram.sequence_log_prob([1, 3, eos])


def test_the_value_auc_counts_ties_half_and_needs_both_classes(tmp_path) -> None:
    assert auc([0.9, 0.1, 0.5], [True, False, False]) == 1.0
    assert auc([0.1, 0.9], [True, False]) == 0.0
    assert auc([-1.0, -1.0, -1.0], [True, False, True]) == 0.5     # the neutral value: every root alike
    assert auc([1.0, 2.0], [True, True]) is None
    rows = tmp_path / "e.jsonl"
    rows.write_text('{"problem": "p", "method": "m", "status": "failed"}\n\n'
                    '{"problem": "p", "method": "m", "status": "proved"}\n{"problem": "q", "method": "m", "status": "error"}\n')
    assert outcomes(rows) == {"m": {"p": True, "q": False}}
