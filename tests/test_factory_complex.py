"""The complex-numbers skill family (lean_interface/problems/factory/skills_complex.py): registration,
determinism and variety, every statement TRUE by exact Gaussian-integer arithmetic (the Coq text is
read back with `Ci` as Python's `1j`: sums and products of small integers are exact in floating
point), and on real Coq (marked integration) that each script proves its statement in both
renderings while no one-call decision procedure does."""

from __future__ import annotations

import dataclasses
import re

import pytest

from lean_interface.problems.factory import FAMILIES, multistep, skills, skills_complex
from lean_interface.problems.factory.family import HELDOUT, HELDOUT_SEED_START, TRAIN, Draft, candidate, split_of
from lean_interface.problems.factory.skills_complex import gaussian

FAMILY = skills_complex.FAMILIES[0]
SEEDS = range(300)


def value(text: str, env: dict[str, complex] | None = None) -> complex:
    """The Coq text's value: C_scope arithmetic on Gaussian integers, `Ci` read as 1j."""
    if not re.fullmatch(r"[\w\s+\-*()]*", text):
        raise ValueError(f"not factory arithmetic: {text!r}")
    return complex(eval(text.replace("Ci", "1j"), {"__builtins__": {}}, dict(env or {})))  # noqa: S307


def sides(equation: str) -> tuple[str, str]:
    left, right = equation.split(" = ")
    return left, right


def check(draft: Draft) -> None:
    """The statement holds: closed ones evaluated, identities at several points, named values
    substituted, a linear system at its stated (unique) solution, a + b = m c with c = k Ci at
    arbitrary a."""
    names = [name for name, _ in draft.binders]
    assert all(kind == "C" for _, kind in draft.binders)
    if not names:
        left, right = sides(draft.conclusion)
        assert value(left) == value(right), draft
    elif not draft.hypotheses:
        left, right = sides(draft.conclusion)
        for point in (0, 1, -3, 2 + 5j, -4 - 1j, 7j):
            assert value(left, {names[0]: point}) == value(right, {names[0]: point}), (draft, point)
    elif names in (["q", "e"], ["z", "w"], ["a", "b"], ["q", "e", "d"]):
        env = {}
        for hypothesis in draft.hypotheses:
            name, text = sides(hypothesis)
            env[name] = value(text)
        left, right = sides(draft.conclusion)
        assert value(left, env) == value(right, env), draft
    elif names == ["x", "e"]:
        solution = {name: value(sides(part)[1]) for name, part in zip(names, draft.conclusion.split(" /\\ "))}
        rows = [sides(h) for h in draft.hypotheses]
        assert all(value(left, solution) == value(right) for left, right in rows), draft
        coefficients = [[value(left, {"x": 1, "e": 0}), value(left, {"x": 0, "e": 1})] for left, _ in rows]
        assert coefficients[0][0] * coefficients[1][1] - coefficients[0][1] * coefficients[1][0] != 0, draft
    else:
        assert names == ["a", "b", "c"], draft
        c = value(sides(draft.hypotheses[1])[1])
        multiple = value(sides(draft.hypotheses[0])[1], {"c": c})
        for a in (0, 3 - 2j, -5j):
            env = {"a": a, "b": multiple - a, "c": c}
            left, right = sides(draft.conclusion)
            assert value(left, env) == value(right), (draft, env)


def test_gaussian_numerals_read_like_minif2f() -> None:
    assert gaussian((3, -2)) == "(3 - 2 * Ci)" and gaussian((-3, 1)) == "(-3 + Ci)"
    assert gaussian((0, 4)) == "(4 * Ci)" and gaussian((0, 1)) == "Ci" and gaussian((0, -1)) == "(-Ci)"
    assert gaussian((7, 0)) == "7" and gaussian((-7, 0)) == "(-7)"
    for number in ((3, -2), (-3, 1), (0, 4), (0, -1), (7, 0), (-7, 0), (12, 9)):
        assert value(gaussian(number)) == complex(*number)


def test_registered_after_the_skills_before_the_multistep_families_as_train() -> None:
    names = [family.name for family in FAMILIES]
    assert names.index("complex_arith") > max(names.index(f.name) for f in skills.FAMILIES)
    assert names.index("complex_arith") < min(names.index(f.name) for f in multistep.FAMILIES)
    assert FAMILY.domain == "C" and "Coquelicot" in FAMILY.header and "C_scope" in FAMILY.header
    assert split_of(FAMILY.name, 0) == TRAIN and split_of(FAMILY.name, HELDOUT_SEED_START) == HELDOUT


def test_drafts_are_deterministic_varied_and_short() -> None:
    drafts = [FAMILY.draft(seed) for seed in SEEDS]
    assert drafts == [FAMILY.draft(seed) for seed in SEEDS]
    assert len({d.signature() for d in drafts}) >= 0.95 * len(drafts)
    shapes = {tuple(name for name, _ in d.binders) or ("closed",) for d in drafts}
    assert {("closed",), ("x", "e"), ("a", "b", "c"), ("q", "e", "d")} <= shapes
    for draft in drafts:
        assert "injective_projections" in draft.proof and draft.proof.endswith(".")
        assert len([s for s in re.split(r"\.(?:\s|$)", draft.proof) if s.strip()]) <= 6


def test_statements_are_true_by_exact_arithmetic() -> None:
    for seed in [*SEEDS, *range(HELDOUT_SEED_START, HELDOUT_SEED_START + 50)]:
        check(FAMILY.draft(seed))


def test_a_false_statement_is_caught() -> None:
    """The checker can fail: a result off by one in its real part is refused."""
    draft = next(d for d in map(FAMILY.draft, SEEDS) if not d.binders)
    left, right = sides(draft.conclusion)
    wrong = dataclasses.replace(draft, conclusion=f"{left} = {right} + 1")
    with pytest.raises(AssertionError):
        check(wrong)


@pytest.mark.integration
def test_scripts_prove_their_statements_and_no_single_call_does() -> None:
    """Each shape, in both renderings: the family's script proves it in Coq 8.16 under the project
    prelude (kernel-checked at Qed), and none of lra, nra, lia, nia, field, ring, intuition or psatz
    after intros does — Coquelicot gives C no ring structure."""
    from integration.test_factory import assert_proved_by_script_and_by_no_single_call

    by_shape: dict[tuple[tuple[str, ...], bool], int] = {}
    for seed in range(200):
        item = candidate(FAMILY, seed)
        draft = FAMILY.draft(seed)
        key = (tuple(name for name, _ in draft.binders), item.proof.startswith("intros."))
        by_shape.setdefault(key, seed)
    assert len(by_shape) >= 8, by_shape
    assert_proved_by_script_and_by_no_single_call([candidate(FAMILY, seed) for seed in sorted(by_shape.values())])
