"""Bridges: tactics that take a target's goal to an easier one (pure text).

`instantiation_bridges` reads instances of a universally quantified hypothesis off the statement
(`s (n+2) = s (n+1) + s n` at n = 0..9) and writes the tactics that add them to the context
(`pose proof (h (7%nat)) as h_i`). `ttrl.variants.bridged_variants` applies each in Coq after
intros and closes the goal it reaches into a variant whose proof, replayed after the bridge,
proves the target (docs/ARCHITECTURE.md §Test-time RL).
"""

from __future__ import annotations

from typing import Callable

from lean_interface.coq.declaration import forall_binders
from ttrl.numeral_variants import NUMERIC_SCOPES
from ttrl.statement import Statement, numeral_spans

#: instances of one universally quantified hypothesis `instantiate` adds at most (all at once)
MAX_INSTANCES = 12
#: numerals of the statement up to this are instance values of nat/N/Z binders
MAX_INSTANCE_VALUE = 30
#: single-instance bridges per hypothesis
MAX_SINGLE_INSTANCES = 6


def _statement_integers(statement: Statement) -> list[int]:
    """The integer numerals written in the statement, each once, in order of appearance."""
    found: list[int] = []
    for text in [*(b.type for b in statement.binders), statement.conclusion]:
        for start, end in numeral_spans(text):
            value = int(text[start:end].split("%")[0])
            if value not in found:
                found.append(value)
    return found


def instance_values(type_: str, statement: Statement) -> list[str]:
    """Terms to instantiate a binder of numeric type `type_` with: 0, 1, (for R: the statement's own
    real variables,) 2, the statement's own small numerals, and −1 for Z/R/Q."""
    scope = NUMERIC_SCOPES.get(type_)
    if scope is None:
        return []
    numbers = [0, 1, 2, *(v for v in _statement_integers(statement) if v <= MAX_INSTANCE_VALUE)]
    if scope in ("Z", "R", "Q"):
        numbers.append(-1)
    values = [f"({n}%{scope})" if n >= 0 else f"(({n})%{scope})" for n in dict.fromkeys(numbers)]
    if scope == "R":   # the statement's own points first after 0 and 1: `f x` is what the goal asks about
        values[2:2] = [b.name for b in statement.variables if b.type == "R"]
    return values


def _fresh_names(statement: Statement) -> Callable[[str], str]:
    """A namer: `base`, `base_0`, `base_1`, … skipping the statement's names and its own."""
    taken = set(statement.names())

    def fresh(base: str) -> str:
        name, index = base, 0
        while name in taken:
            name, index = f"{base}_{index}", index + 1
        taken.add(name)
        return name
    return fresh


def instantiation_bridges(statement: Statement) -> list[tuple[str, str]]:
    """(bridge tactic, description) pairs that add instances of a universally quantified
    hypothesis `h : forall (n : nat), P n` to the context (`pose proof (h (7%nat)) as h_7`): one
    instance at a time, and — for a single nat/N/Z binder — every value from 0 up to the
    statement's largest small numeral at once (`s (n+2) = s (n+1) + s n` unrolled). Run after
    intros; `ttrl.variants` applies each in Coq and closes the goal it reaches into a variant."""
    out: list[tuple[str, str]] = []
    for binder in statement.hypotheses:
        parsed = forall_binders(binder.type)
        if parsed is None:
            continue
        variables, _ = parsed
        choices = [instance_values(type_, statement) for _, type_ in variables]
        if not all(choices):
            continue
        tuples = [tuple(c[0] if j != k else v for j, c in enumerate(choices))
                  for k in range(len(choices)) for v in choices[k]] if len(choices) > 1 else [(v,) for v in choices[0]]
        for args in list(dict.fromkeys(tuples))[:MAX_SINGLE_INSTANCES]:
            name = _fresh_names(statement)(f"{binder.name}_i")
            out.append((f"pose proof ({binder.name} {' '.join(args)}) as {name}",
                        f"{binder.name} instantiated at {', '.join(args)}"))
        scope = NUMERIC_SCOPES.get(variables[0][1]) if len(variables) == 1 else None
        if scope in ("nat", "N", "Z"):
            top = max([v for v in _statement_integers(statement) if v <= MAX_INSTANCE_VALUE], default=0)
            span = range(0, min(top, MAX_INSTANCES - 1) + 1)
            if len(span) > 1:
                fresh = _fresh_names(statement)
                poses = [f"pose proof ({binder.name} ({v}%{scope})) as {fresh(f'{binder.name}_i')}" for v in span]
                out.append(("; ".join(poses), f"{binder.name} instantiated at every value 0..{span[-1]}"))
    return out


__all__ = ["MAX_INSTANCES", "MAX_INSTANCE_VALUE", "MAX_SINGLE_INSTANCES", "instance_values",
           "instantiation_bridges"]
