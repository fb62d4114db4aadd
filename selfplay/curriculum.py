"""Which factory items a round of expert iteration searches: the families weighed by how far each
is from mastered (docs/ARCHITECTURE.md §Expert iteration, "the curriculum").

Every factory item is new to the search (27,000 train items, 16 searched a round), so the
per-problem order "fewest attempts first" is a uniform draw over items, which is a draw over
families by their sizes: a family the policy has mastered since round 0 (`gcd_lcm`, `floor_div`)
gets as many searches as one it never proves (`fe_instantiate`). The problem's own record says
nothing yet; its family's record does. AlphaProof's matchmaker spends search where proofs are
still to be learned; here at the family level:

    weight(family) = 1 − (proved + 1) / (attempted + 2)

over the family's last `window` search attempts (a Beta(1, 1) prior on its pass rate): an unseen
family 0.5, one proved 12 times in 12 ≈ 0.07 (still searched now and then, so that forgetting
shows), one never proved in 12 ≈ 0.93. Each turn draws a family in proportion to its weight
and takes that family's next candidate, the candidates keeping their own order inside a family;
items with fewer attempts still come first (the draw orders each tier of equal attempts, and
with 27,000 items nearly every one drawn is untried).

With `curriculum_max_budget` > 1 a factory item's search budget (seconds and simulations) is
also scaled by `budget_factor` of its family's record: 1 while the family is proved half the
time or more, up to that factor for a family never proved; `target_max_budget` does the same
for a competition problem and its variants on their target's record.

Competition problems and their variants (the train split, `variants:` sources) are drawn the
same way with a different family and weight: a problem and its variants form one family
(`target_of`), weighed by `frontier_weight` — highest for a target proved sometimes, not always
(a variant proved, the target not yet): where search is about to reach, as STP and AlphaProof
train on statements near the prover's frontier.

Pure functions of the search history and a seeded generator: a resumed round plans the same
batch.
"""

from __future__ import annotations

import random
from collections import deque
from typing import Callable, Iterable, Mapping, Sequence

from lean_interface.problems.benchmarks import base_problem_name

#: iteration.curriculum values: "attempts" = fewest attempts first (items in a seeded shuffle),
#: "family" = families weighed by `family_weight` (factory items only; other sources keep "attempts")
CURRICULA = ("attempts", "family")
#: the least weight `frontier_weight` gives a target
FRONTIER_FLOOR = 0.1


def family_records(history: Iterable[tuple[str, bool]], family_of: Callable[[str], str],
                   window: int) -> dict[str, tuple[int, int]]:
    """(proved, attempted) per family over its last `window` attempts; `history` is the search's
    (problem, proved) in the order they happened."""
    if window < 1:
        raise ValueError("window must be >= 1")
    recent: dict[str, deque[bool]] = {}
    for problem, proved in history:
        recent.setdefault(family_of(problem), deque(maxlen=window)).append(bool(proved))
    return {family: (sum(outcomes), len(outcomes)) for family, outcomes in recent.items()}


def family_weight(proved: int, attempted: int) -> float:
    """1 − the family's smoothed pass rate: how much a search of one of its items can still teach."""
    if not 0 <= proved <= attempted:
        raise ValueError(f"proved ({proved}) must be in [0, attempted ({attempted})]")
    return 1.0 - (proved + 1) / (attempted + 2)


def frontier_weight(proved: int, attempted: int) -> float:
    """How near the frontier a target is: 4·p(1 − p) for its smoothed pass rate p = (proved + 1) /
    (attempted + 2), floored at `FRONTIER_FLOOR`. 1 for an untried target or one proved half the
    time; ≈ 0.27 for one never (or always) proved in 12 — STP's lesson: statements the prover
    proves sometimes, not always, teach most; the floor keeps the rest searched now and then."""
    if not 0 <= proved <= attempted:
        raise ValueError(f"proved ({proved}) must be in [0, attempted ({attempted})]")
    rate = (proved + 1) / (attempted + 2)
    return max(FRONTIER_FLOOR, 4.0 * rate * (1.0 - rate))


def target_of(problem: str) -> str:
    """The competition problem an id belongs to: a variant's target, a benchmark problem itself
    (`variants/amc12a_2019_p21_v3`, `minif2f-rocq-train/amc12a_2019_p21` → `amc12a_2019_p21`), so
    a target and its variants share one record."""
    return base_problem_name(problem)


def budget_factor(proved: int, attempted: int, max_factor: float) -> float:
    """How many times the base search budget an item of a family with this record gets: 1 for a
    family proved at least half the time (or unseen), rising linearly with the evidence of failure
    to `max_factor` for one never proved in many attempts (1 + (max − 1)·max(0, 2·weight − 1)).
    Search at the base budget cannot teach a family it never proves; a larger budget may."""
    if max_factor < 1:
        raise ValueError("max_factor must be >= 1")
    return 1.0 + (max_factor - 1.0) * max(0.0, 2.0 * family_weight(proved, attempted) - 1.0)


def weighted_by_family(candidates: Sequence[str], family_of: Callable[[str], str],
                       records: dict[str, tuple[int, int]], rng: random.Random, count: int,
                       attempts: Mapping[str, int] | None = None,
                       weight: Callable[[int, int], float] = family_weight) -> list[str]:
    """Up to `count` of `candidates`: each turn a family drawn with probability ∝ `family_weight`
    of its record (unseen: (0, 0)) among families with candidates left, then that family's next
    candidate in `candidates`' order. With `attempts` (per problem), candidates with fewer
    attempts still come first (the matchmaker's "untried first"): the draw orders each tier of
    equal attempts, so an item searched in vain is not retried while untried ones are left."""
    tiers: dict[int, list[str]] = {}
    for problem in candidates:
        tiers.setdefault(0 if attempts is None else attempts.get(problem, 0), []).append(problem)
    chosen: list[str] = []
    for tier in sorted(tiers):
        chosen += _draw(tiers[tier], family_of, records, rng, count - len(chosen), weight)
    return chosen


def _draw(candidates: Sequence[str], family_of: Callable[[str], str], records: dict[str, tuple[int, int]],
          rng: random.Random, count: int, weight: Callable[[int, int], float]) -> list[str]:
    queues: dict[str, deque[str]] = {}
    for problem in candidates:
        queues.setdefault(family_of(problem), deque()).append(problem)
    weights = {family: weight(*records.get(family, (0, 0))) for family in queues}
    chosen: list[str] = []
    while queues and len(chosen) < count:
        families = sorted(queues)
        family = rng.choices(families, weights=[weights[f] for f in families])[0]
        chosen.append(queues[family].popleft())
        if not queues[family]:
            del queues[family]
    return chosen


__all__ = ["CURRICULA", "FRONTIER_FLOOR", "budget_factor", "family_records", "family_weight", "frontier_weight",
           "target_of", "weighted_by_family"]
