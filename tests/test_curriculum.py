"""The family curriculum of expert iteration's search (selfplay/curriculum.py): the records, the
weight, and the draw."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from selfplay.curriculum import budget_factor, family_records, family_weight, weighted_by_family
from selfplay.round_metrics import family_of


def test_a_family_record_is_its_last_window_attempts_in_order() -> None:
    history = [("factory/fam_a_00001", False), ("factory/fam_a_00002", True), ("factory/fam_b_00001", True),
               ("factory/fam_a_00003", True), ("factory/fam_a_00004", True)]
    assert family_records(history, family_of, window=3) == {"a": (3, 3), "b": (1, 1)}
    assert family_records(history, family_of, window=8) == {"a": (3, 4), "b": (1, 1)}
    with pytest.raises(ValueError):
        family_records(history, family_of, window=0)


def test_the_weight_is_one_minus_the_smoothed_pass_rate() -> None:
    assert family_weight(0, 0) == pytest.approx(0.5)
    assert family_weight(12, 12) == pytest.approx(1 / 14)
    assert family_weight(0, 12) == pytest.approx(13 / 14)
    assert family_weight(0, 12) > family_weight(6, 12) > family_weight(12, 12) > 0
    with pytest.raises(ValueError):
        family_weight(3, 2)


def test_families_never_proved_are_drawn_far_more_than_mastered_ones() -> None:
    candidates = [f"factory/fam_{family}_{i:05d}" for family in ("easy", "hard") for i in range(400)]
    records = {"easy": (24, 24), "hard": (0, 24)}
    chosen = weighted_by_family(candidates, family_of, records, random.Random(0), 200)
    counts = Counter(family_of(p) for p in chosen)
    assert len(chosen) == len(set(chosen)) == 200
    assert counts["hard"] > 5 * counts["easy"] > 0          # weights 25/26 against 1/26
    # inside a family the candidates keep their order
    hard = [p for p in chosen if family_of(p) == "hard"]
    assert hard == [f"factory/fam_hard_{i:05d}" for i in range(len(hard))]


def test_the_draw_is_seeded_and_stops_when_the_candidates_run_out() -> None:
    candidates = ["factory/fam_a_00001", "factory/fam_b_00001", "factory/fam_b_00002"]
    first = weighted_by_family(candidates, family_of, {}, random.Random(5), 2)
    assert first == weighted_by_family(candidates, family_of, {}, random.Random(5), 2)
    assert sorted(weighted_by_family(candidates, family_of, {}, random.Random(5), 10)) == sorted(candidates)
    assert weighted_by_family([], family_of, {}, random.Random(5), 4) == []


def test_untried_candidates_come_before_ones_searched_in_vain() -> None:
    """A family never proved still waits its turn behind untried items: the draw orders each tier
    of equal attempts, fewest first."""
    candidates = ["factory/fam_hard_00001", "factory/fam_easy_00001", "factory/fam_easy_00002"]
    records = {"hard": (0, 24), "easy": (24, 24)}
    attempts = {"factory/fam_hard_00001": 1}
    chosen = weighted_by_family(candidates, family_of, records, random.Random(0), 3, attempts)
    assert chosen[-1] == "factory/fam_hard_00001" and len(chosen) == 3
    assert weighted_by_family(candidates, family_of, records, random.Random(0), 2, attempts) == chosen[:2]


def test_the_budget_grows_with_a_familys_failures_only() -> None:
    assert budget_factor(0, 0, 4.0) == 1.0                         # unseen: the base budget
    assert budget_factor(12, 24, 4.0) == 1.0                       # proved half the time
    assert budget_factor(24, 24, 4.0) == 1.0                       # mastered
    assert budget_factor(0, 24, 4.0) == pytest.approx(1 + 3 * (2 * 25 / 26 - 1))
    assert 1.0 < budget_factor(0, 2, 4.0) < budget_factor(0, 8, 4.0) < budget_factor(0, 24, 4.0) < 4.0
    assert budget_factor(0, 24, 1.0) == 1.0
    with pytest.raises(ValueError):
        budget_factor(0, 24, 0.5)


def test_frontier_weight_peaks_where_a_target_is_proved_sometimes() -> None:
    from selfplay.curriculum import FRONTIER_FLOOR, frontier_weight

    assert frontier_weight(0, 0) == 1.0 and frontier_weight(6, 12) == 1.0
    assert frontier_weight(0, 12) == pytest.approx(4 * (1 / 14) * (13 / 14)) == frontier_weight(12, 12)
    assert frontier_weight(3, 12) > frontier_weight(0, 12)
    assert frontier_weight(0, 10_000) == FRONTIER_FLOOR
    with pytest.raises(ValueError):
        frontier_weight(3, 2)


def test_a_target_and_its_variants_share_one_family() -> None:
    from selfplay.curriculum import target_of

    assert target_of("variants/amc12a_2019_p21_v3") == target_of("minif2f-rocq-train/amc12a_2019_p21") == \
        target_of("variants/amc12a_2019_p21_sg2") == "amc12a_2019_p21"


def test_frontier_draw_prefers_targets_proved_sometimes() -> None:
    from selfplay.curriculum import frontier_weight, target_of

    candidates = [f"variants/{t}_v{i}" for t in ("near", "far") for i in range(1, 200)]
    history = [(f"variants/near_v{200 + i}", i % 2 == 0) for i in range(12)]
    history += [(f"variants/far_v{200 + i}", False) for i in range(12)]
    records = family_records(history, target_of, 24)
    chosen = weighted_by_family(candidates, target_of, records, random.Random(0), 200, weight=frontier_weight)
    near = sum(1 for p in chosen if target_of(p) == "near")
    assert near > 130, near  # weights 1.0 vs 0.27: ~157 of 200 expected
