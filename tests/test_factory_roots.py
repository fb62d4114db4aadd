"""The distinct-roots skill family (lean_interface/problems/factory/skills_roots.py): registration,
determinism and variety, every statement TRUE by exact arithmetic read off the statement's own
text (the equation's two solutions found from its coefficients, never from the generator), the
cancellation step in every script, and on real Coq (marked integration) that each shape's script
proves it in both renderings while no one-call decision procedure does."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest
from test_factory_definitions import assert_off_by_one_refused, evaluate, number

from lean_interface.problems.factory import FAMILIES, multistep, skills_definitions, skills_roots
from lean_interface.problems.factory.family import HELDOUT, HELDOUT_SEED_START, TRAIN, Draft, candidate, split_of
from lean_interface.problems.factory.surface import uses_minif2f_surface

FAMILY = skills_roots.FAMILIES[0]
SEEDS = range(400)


def exact_sqrt(value: Fraction) -> Fraction:
    """√value for a rational square (AssertionError otherwise)."""
    top, bottom = math.isqrt(value.numerator), math.isqrt(value.denominator)
    assert value >= 0 and top * top == value.numerator and bottom * bottom == value.denominator, value
    return Fraction(top, bottom)


def solutions(draft: Draft) -> tuple[str, str, list[Fraction], list[Fraction]]:
    """(u, v, values u may take, values v may take) by the hypotheses alone."""
    (u, _), (v, _) = draft.binders[:2]
    if draft.binders[2:]:                           # f x = p x^2 + q x + r, f u = 0, f v = 0
        polynomial = draft.hypotheses[0].split(" = ", 1)[1]
        at = lambda x: evaluate(polynomial, {"x": x})  # noqa: E731
        r, p = at(Fraction(0)), (at(Fraction(1)) + at(Fraction(-1))) / 2 - at(Fraction(0))
        q = at(Fraction(1)) - p - r
        assert at(Fraction(3)) == 9 * p + 3 * q + r, draft   # quadratic (or less)
        root = exact_sqrt(q * q - 4 * p * r)
        roots = sorted({(-q - root) / (2 * p), (-q + root) / (2 * p)})
        assert all(at(x) == 0 for x in roots), draft
        return u, v, roots, roots
    left = draft.hypotheses[-1].split(" = ")[0]    # a u + c / u = a v + c / v
    g = lambda x: evaluate(left, {u: x})           # noqa: E731
    c = (2 * g(Fraction(1)) - g(Fraction(2))) * Fraction(2, 3)   # g(1) = a + c, g(2) = 2 a + c/2
    a = g(Fraction(1)) - c
    x = Fraction(7, 3)                              # any nonzero x; its partner is c / (a x)
    y = c / (a * x)
    assert y != x and g(y) == g(x) and a * 5 + c / 5 == g(Fraction(5)), draft
    return u, v, [x], [y]


def check(draft: Draft) -> None:
    """The conclusion holds for every pair of distinct values the hypotheses allow."""
    u, v, us, vs = solutions(draft)
    left, right = draft.conclusion.split(" = ")
    pairs = [(x, y) for x in us for y in vs if x != y]
    assert pairs, draft
    for x, y in pairs:
        assert evaluate(left, {u: x, v: y}) == number(right), (draft, x, y)


def test_registered_after_local_definitions_before_the_multistep_families_as_train() -> None:
    names = [family.name for family in FAMILIES]
    assert names.index("distinct_roots") == names.index(skills_definitions.FAMILIES[0].name) + 1
    assert names.index("distinct_roots") < min(names.index(f.name) for f in multistep.FAMILIES)
    assert FAMILY.domain == "R"
    assert split_of(FAMILY.name, 0) == TRAIN and split_of(FAMILY.name, HELDOUT_SEED_START) == HELDOUT


def test_drafts_are_deterministic_varied_and_cancel_the_difference() -> None:
    drafts = [FAMILY.draft(seed) for seed in SEEDS]
    assert drafts == [FAMILY.draft(seed) for seed in SEEDS]
    assert len({d.signature() for d in drafts}) >= 0.9 * len(drafts)
    conclusions = {re.sub(r"[-\d/]+$", "", d.conclusion.replace(d.binders[0][0], "u").replace(d.binders[1][0], "v"))
                   for d in drafts}
    assert {"u * v = ", "u + v = ", "u^2 + v^2 = "} <= conclusions and any(c.startswith("1 / (u") for c in conclusions)
    for draft in drafts:
        (u, _), (v, _) = draft.binders[:2]
        different = draft.hypotheses.index(f"{u} <> {v}")
        assert f"assert (h4 : ({u} - {v}) * " in draft.proof and "apply Rmult_integral in h4." in draft.proof
        assert f"{{ exfalso. apply h{different}. lra. }}" in draft.proof


def test_statements_are_true_by_exact_arithmetic() -> None:
    for seed in [*SEEDS, *range(HELDOUT_SEED_START, HELDOUT_SEED_START + 60)]:
        check(FAMILY.draft(seed))


def test_a_false_statement_is_caught() -> None:
    """The checker can fail: each shape's stated value off by one is refused."""
    shapes: dict[tuple[bool, str], Draft] = {}
    for draft in map(FAMILY.draft, SEEDS):
        shapes.setdefault((len(draft.binders) == 3, draft.conclusion[:3]), draft)
    assert len(shapes) >= 4
    assert_off_by_one_refused(list(shapes.values()), check)


@pytest.mark.integration
def test_scripts_prove_their_statements_and_no_single_call_does() -> None:
    """Each shape, in both renderings: the family's script proves it in Coq 8.16 under the project
    prelude (kernel-checked at Qed), and none of lra, nra, lia, nia, field, ring, intuition or psatz
    after intros does (none reads a `<>` hypothesis through a function or a denominator)."""
    from integration.test_factory import assert_proved_by_script_and_by_no_single_call

    by_shape: dict[tuple[int, str, bool], int] = {}
    for seed in range(300):
        draft = FAMILY.draft(seed)
        key = (len(draft.binders), draft.conclusion[:3], uses_minif2f_surface(FAMILY.name, seed))
        by_shape.setdefault(key, seed)
    assert len(by_shape) >= 8, by_shape
    assert_proved_by_script_and_by_no_single_call([candidate(FAMILY, seed) for seed in sorted(by_shape.values())])
