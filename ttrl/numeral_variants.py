"""Numeral variants: a variable set to a small numeral, or a numeral made a variable (pure text).

  specialise     a nat/Z/R/N/Q variable replaced by 0, 1, 2, 3 (written `(2%R)`), everywhere
  fix_variable   the same, as an added hypothesis `x = 2%R` after the variables bound with x
  generalise     one numeral of the conclusion or a hypothesis replaced by a new variable
                 `forall (c : _), …`, whose type `ttrl.vetting` has Coq infer

Each returns unchecked candidates (`ttrl.candidate`); docs/ARCHITECTURE.md §Test-time RL.
"""

from __future__ import annotations

from typing import Sequence

from lean_interface.api import Theorem
from ttrl.candidate import Variant, make_variant, ordinal
from ttrl.statement import Binder, Statement, bound_names, numeral_spans, substitute

#: types whose variables `specialise` and `fix_variable` set to small numerals, with scope keys
NUMERIC_SCOPES: dict[str, str] = {"nat": "nat", "Z": "Z", "R": "R", "N": "N", "Q": "Q"}
DEFAULT_VALUES: tuple[int, ...] = (0, 1, 2, 3)
#: how many numerals `generalise` considers per statement (conclusion first, then hypotheses)
MAX_GENERALISED_NUMERALS = 16


def specialise(target: Theorem, statement: Statement, values: Sequence[int] = DEFAULT_VALUES) -> list[Variant]:
    """Each nat/Z/R/N/Q variable set to each of `values`, substituted everywhere. Skipped for a
    variable whose name is also bound inside the statement (a substitution would capture it)."""
    reference = statement.render()
    out = []
    for index, binder in enumerate(statement.binders):
        scope = NUMERIC_SCOPES.get(binder.type)
        if binder.prop or binder.body is not None or scope is None:
            continue
        later = statement.binders[index + 1:]
        texts = [statement.conclusion, *(b.type for b in later), *(b.body or "" for b in later)]
        if any(binder.name in bound_names(text) for text in texts):
            continue
        for value in values:
            numeral = f"({value}%{scope})"
            binders = [*statement.binders[:index],
                       *(Binder(b.name, substitute(b.type, binder.name, numeral), b.prop,
                                None if b.body is None else substitute(b.body, binder.name, numeral)) for b in later)]
            variant = Statement(tuple(binders), substitute(statement.conclusion, binder.name, numeral))
            out.append(make_variant(target, variant.render(), "specialise",
                                    f"{binder.name} := {value} substituted", reference))
    return out


def fix_variable(target: Theorem, statement: Statement, values: Sequence[int] = DEFAULT_VALUES) -> list[Variant]:
    """Each nat/Z/R/N/Q variable fixed by a new hypothesis `x = value`, placed after the run of
    variables that binds it (so `forall (a b : R), a = 2%R -> …`)."""
    reference = statement.render()
    out = []
    binders_ = statement.binders
    for index, binder in enumerate(binders_):
        scope = NUMERIC_SCOPES.get(binder.type)
        if binder.prop or binder.body is not None or scope is None:
            continue
        end = index + 1
        while end < len(binders_) and not binders_[end].prop and binders_[end].body is None:
            end += 1
        for value in values:
            fixed = Binder(statement.fresh("Hfix"), f"{binder.name} = {value}%{scope}", True)
            binders = [*binders_[:end], fixed, *binders_[end:]]
            out.append(make_variant(target, statement.with_binders(binders).render(), "fix_variable",
                                    f"hypothesis {binder.name} = {value} added", reference))
    return out


def generalise(target: Theorem, statement: Statement, max_numerals: int = MAX_GENERALISED_NUMERALS) -> list[Variant]:
    """One numeral at a time (conclusion first, then hypotheses) replaced by a new variable bound in
    front: `forall (c : _), …`. The `_` is Coq's to infer; `ttrl.vetting.select` writes the type in."""
    reference = statement.render()
    name = statement.fresh("c")
    places: list[tuple[int, int, int]] = []          # (binder index or -1 for the conclusion, start, end)
    places += [(-1, s, e) for s, e in numeral_spans(statement.conclusion)]
    for index, binder in enumerate(statement.binders):
        if binder.prop:
            places += [(index, s, e) for s, e in numeral_spans(binder.type)]
    out = []
    for where, start, end in places[:max_numerals]:
        text = statement.conclusion if where < 0 else statement.binders[where].type
        new = f"{text[:start]}{name}{text[end:]}"
        if where < 0:
            variant, place = Statement(statement.binders, new), "the conclusion"
        else:
            b = statement.binders[where]
            binders = [*statement.binders[:where], Binder(b.name, new, True), *statement.binders[where + 1:]]
            variant = statement.with_binders(binders)
            place = ordinal(sum(1 for x in statement.binders[:where] if x.prop))
        generalised = Statement((Binder(name, "_"), *variant.binders), variant.conclusion)
        out.append(make_variant(target, generalised.render(), "generalise",
                                f"numeral {text[start:end]} at offset {start} of {place} generalised to {name}",
                                reference))
    return out


__all__ = ["DEFAULT_VALUES", "MAX_GENERALISED_NUMERALS", "NUMERIC_SCOPES", "fix_variable", "generalise", "specialise"]
