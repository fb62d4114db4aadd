"""The local-definition skill family (lean_interface/problems/factory/skills_definitions.py):
registration, the definitions carried into the header in both renderings, determinism and variety,
every statement TRUE by exact arithmetic (the definition's body read back as a Python function
over Fractions; a logarithm's value checked as B^n = M^m in integers), and on real Coq (marked
integration) that each shape's script proves it in both renderings while no one-call decision
procedure does — they cannot see through the definition."""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction
from typing import Callable

import pytest

from lean_interface.problems.factory import FAMILIES, multistep, skills_complex, skills_definitions
from lean_interface.problems.factory.family import (HELDOUT, HELDOUT_SEED_START, TRAIN, Draft, candidate, split_of,
                                                    with_definitions)
from lean_interface.problems.factory.surface import uses_minif2f_surface

FAMILY = skills_definitions.FAMILIES[0]
SEEDS = range(400)


def number(text: str) -> Fraction:
    """A Coq R numeral as the factory writes it: `3`, `(-3)`, `(7/2)`, `-7/2`."""
    return Fraction(text.strip().strip("()").replace(" ", ""))


#: an argument of an application: a numeral, a parenthesised term, or a name
_ARGUMENT = r"(?:\d+|\w+|\((?:[^()]|\([^()]*\))*\))"


def calls(expression: str, names: set[str]) -> str:
    """Coq's application `f (g 3)`, `star 3 4` written as Python's `f(g(3))`, `star(3, 4)`."""
    for _ in range(4):                              # innermost first; the factory nests at most twice
        for name in names:
            expression = re.sub(rf"\b{name} ({_ARGUMENT})(?: ({_ARGUMENT}))?(?![\w(])",
                                lambda m: f"{name}({m[1]}{', ' + m[2] if m[2] else ''})", expression)
    return expression


def evaluate(expression: str, env: dict[str, object]) -> Fraction:
    """R arithmetic of the factory's text (`^` a power, every numeral exact, defined functions called)."""
    if not re.fullmatch(r"[\w\s+\-*/^().]*", expression):
        raise ValueError(f"not factory arithmetic: {expression!r}")
    expression = calls(expression, {name for name, value in env.items() if callable(value)})
    python = re.sub(r"\b(\d+)\b", r"Fraction(\1)", expression.replace("^", "**"))
    return Fraction(eval(python, {"__builtins__": {}, "Fraction": Fraction}, env))  # noqa: S307


def functions(definitions: tuple[str, ...]) -> dict[str, Callable[..., Fraction]]:
    """Each `Definition NAME (x : R) : R := body.` (or two arguments) as a Python function."""
    out: dict[str, Callable[..., Fraction]] = {}
    for definition in definitions:
        name, params, body = re.fullmatch(r"Definition (\w+) \(([\w ]+) : R\)(?: : R)? := (.+)\.", definition).groups()
        if name == "logb":
            continue
        names = params.split()
        out[name] = (lambda body, names: lambda *args: evaluate(body, {**out, **dict(zip(names, args))}))(body, names)
    return out


def check(draft: Draft) -> None:
    """The statement holds (module docstring); a solved one states the unique solution."""
    left, right = draft.conclusion.split(" = ")
    if left.startswith("logb"):
        base, argument = re.fullmatch(r"logb (\S+|\(\d+\^\d+\)) (\S+|\(\d+\^\d+\))", left).groups()
        b, m = (int(evaluate(t, {})) for t in (base, argument))
        n_over_m = number(right)
        assert Fraction(m) ** n_over_m.denominator == Fraction(b) ** n_over_m.numerator and b > 1, draft
        return
    env: dict[str, object] = dict(functions(draft.definitions))
    if not draft.hypotheses:
        assert evaluate(left, env) == number(right), draft
        return
    assert left == "x" and len(draft.hypotheses) == 1, draft
    x = number(right)
    h_left, h_right = draft.hypotheses[0].split(" = ")
    difference = lambda value: evaluate(h_left, {**env, "x": value}) - evaluate(h_right, {**env, "x": value})  # noqa: E731
    assert difference(x) == 0, draft
    slope = difference(x + 1) - difference(x)
    assert slope != 0 and difference(x + 7) == 7 * slope, draft      # affine in x, so x is the one solution


def test_registered_after_complex_before_the_multistep_families_as_train() -> None:
    names = [family.name for family in FAMILIES]
    assert names.index("local_definition") > names.index(skills_complex.FAMILIES[0].name)
    assert names.index("local_definition") < min(names.index(f.name) for f in multistep.FAMILIES)
    assert FAMILY.domain == "R"
    assert split_of(FAMILY.name, 0) == TRAIN and split_of(FAMILY.name, HELDOUT_SEED_START) == HELDOUT


def test_the_definitions_follow_the_header_in_both_renderings() -> None:
    assert with_definitions("H.", ()) == "H."
    assert with_definitions("H.", ("Definition f (x : R) : R := x.",)) == "H.\n\nDefinition f (x : R) : R := x."
    forms = set()
    for seed in range(60):
        draft, item = FAMILY.draft(seed), candidate(FAMILY, seed)
        assert draft.definitions and item.header.endswith("\n\n".join(draft.definitions)), item
        assert "Open Scope R_scope." in item.header
        forms.add(item.proof.startswith("intros."))
    assert forms == {True, False}


def test_drafts_are_deterministic_varied_and_unfold_what_they_use() -> None:
    drafts = [FAMILY.draft(seed) for seed in SEEDS]
    assert drafts == [FAMILY.draft(seed) for seed in SEEDS]
    assert len({(d.signature(), d.definitions) for d in drafts}) >= 0.9 * len(drafts)
    defined = {re.match(r"Definition (\w+)", d).group(1) for draft in drafts for d in draft.definitions}
    assert {"logb", "f", "g", "star"} <= defined and len(defined) >= 10
    assert {d for draft in drafts for d in draft.definitions if "logb" in d} == set(skills_definitions._LOGB)
    for draft in drafts:
        names = [re.match(r"Definition (\w+)", d).group(1) for d in draft.definitions]
        assert all(re.search(rf"\b{name}\b", " ".join((draft.conclusion, *draft.hypotheses))) for name in names)
        first = draft.proof.split(". ")[0]
        assert first.startswith("unfold ") and set(re.findall(r"\w+", first.split(" in ")[0])[1:]) == set(names)


def test_statements_are_true_by_exact_arithmetic() -> None:
    for seed in [*SEEDS, *range(HELDOUT_SEED_START, HELDOUT_SEED_START + 60)]:
        check(FAMILY.draft(seed))


def assert_off_by_one_refused(drafts: list[Draft], checker: Callable[[Draft], None]) -> None:
    """Each draft's stated value plus one is refused by `checker` (a truth check that can fail)."""
    for draft in drafts:
        left, right = draft.conclusion.split(" = ")
        with pytest.raises(AssertionError):
            checker(dataclasses.replace(draft, conclusion=f"{left} = {number(right) + 1}"))


def test_a_false_statement_is_caught() -> None:
    """The checker can fail: each shape's stated value off by one is refused."""
    shapes = {}
    for draft in map(FAMILY.draft, SEEDS):
        shapes.setdefault((draft.conclusion.split()[0], bool(draft.hypotheses)), draft)
    assert len(shapes) >= 4
    assert_off_by_one_refused(list(shapes.values()), check)


@pytest.mark.integration
def test_scripts_prove_their_statements_and_no_single_call_does() -> None:
    """Each shape, in both renderings: the family's script proves it in Coq 8.16 under the project
    prelude (kernel-checked at Qed), and none of lra, nra, lia, nia, field, ring, intuition or psatz
    after intros does."""
    from integration.test_factory import assert_proved_by_script_and_by_no_single_call

    by_shape: dict[tuple[str, bool, bool], int] = {}
    for seed in range(300):
        draft, item = FAMILY.draft(seed), candidate(FAMILY, seed)
        key = (draft.proof.split(". ")[-1 if "logb" in draft.proof else 0][:12], "replace" in draft.proof,
               uses_minif2f_surface(FAMILY.name, seed) and bool(draft.hypotheses))
        by_shape.setdefault(key, seed)
    assert len(by_shape) >= 6, by_shape
    assert_proved_by_script_and_by_no_single_call([candidate(FAMILY, seed) for seed in sorted(by_shape.values())])
