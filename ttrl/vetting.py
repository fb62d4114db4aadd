"""Vetting candidate variants in Coq: elaborated, deduplicated, ranked, named (docs/ARCHITECTURE.md
§Test-time RL).

Every candidate (`ttrl.candidate.Variant`), whatever made it, is elaborated in Coq (`env.start` on
`Theorem <name> : <proposition>.` under the target's header; the env loads the project prelude
first, as it does for every theorem); those that do not elaborate, duplicates by Coq's printed
statement (and anything that prints like the target: `target_keys`) and vacuous ones (hypotheses
refuted by linear arithmetic) are dropped; the rest are ranked by similarity to the target
(`ttrl.statement.similarity`), ties by `KIND_ORDER`, and the best named `<prefix>1`, `<prefix>2`, …
Variants may well be false: that is expected (self-play's disproving path handles them).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Iterable

from lean_interface.api import EnvError, Goal, ProofEnv, Theorem
from lean_interface.coq.text import SentenceError, split_sentences
from ttrl.analysis import analyse
from ttrl.candidate import Variant, make_variant
from ttrl.statement import Statement, normalise, similarity

#: how `select` breaks similarity ties: the generators' order, then subgoals, then the model's
KIND_ORDER = ("split_conclusion", "split_hypotheses", "drop_hypothesis", "change_inequality", "specialise",
              "fix_variable", "generalise", "instantiate", "subgoal", "llm")
#: refused in any candidate text: would end the sentence early, hide text, or run tactics
_UNSAFE = re.compile(r"\(\*|\*\)|\"|ltac:|\.(\s|$)")


def statement_safe(statement: str) -> bool:
    """One sentence, no comments/strings/`ltac:`: safe to hand to coqtop as a statement."""
    body = statement.strip()[:-1]
    if _UNSAFE.search(body):
        return False
    try:
        return len(split_sentences(statement)) == 1
    except SentenceError:
        return False


def _root_goal(env: ProofEnv, variant: Variant) -> Goal | None:
    if not statement_safe(variant.theorem.statement):
        return None
    try:
        return env.start(variant.theorem)
    except EnvError:
        return None


def elaborates(env: ProofEnv, variant: Variant) -> str | None:
    """Coq's printed root goal of the variant (whitespace-normalised), or None if it does not elaborate."""
    goal = _root_goal(env, variant)
    return None if goal is None else normalise(goal.text)


#: refutes hypotheses that contradict each other by linear arithmetic (over nat, Z or R)
VACUITY_TACTIC = "intros; exfalso; first [lia | lra]"


def vacuous(env: ProofEnv, goal: Goal) -> bool:
    """True when linear arithmetic refutes the goal's own hypotheses (`x = 0 -> 4 <= x -> …`, a
    specialisation contradicting a hypothesis): true for a reason that teaches nothing."""
    result = env.apply(goal, VACUITY_TACTIC)
    return result.error is None and not result.goals


def _fill_generalised_type(env: ProofEnv, variant: Variant, reference: str) -> Variant | None:
    """Replace `forall (c : _)` by the type Coq inferred for `c`; None if that fails."""
    match = re.match(r"forall \(([^\W\d][\w']*) : _\)", variant.proposition)
    if not match:
        return variant
    name = match.group(1)
    if not statement_safe(variant.theorem.statement):
        return None
    try:
        inferred = {b.name: b.type for b in analyse(variant.theorem, env).binders}
    except EnvError:
        return None
    if name not in inferred:
        return None
    proposition = f"forall ({name} : {inferred[name]}){variant.proposition[match.end():]}"
    statement = f"Theorem {variant.theorem.name} : {proposition}."
    return Variant(Theorem(variant.theorem.name, variant.theorem.header, statement, variant.theorem.language),
                   variant.kind, variant.description, similarity(reference, proposition))


@dataclass
class Counts:
    """What happened to the candidates of one call (for reports): generated, elaborating in Coq,
    vacuous (hypotheses refuted by linear arithmetic; dropped), left after removing those,
    duplicates and target look-alikes, returned (at most `max_variants`)."""

    candidates: int = 0
    elaborated: int = 0
    vacuous: int = 0
    unique: int = 0
    kept: int = 0


def select(target: Theorem, candidates: Iterable[Variant], env: ProofEnv, max_variants: int | None,
           name_prefix: str, reference: str, exclude: Iterable[str] = (),
           counts: Counts | None = None) -> list[Variant]:
    """Elaborate every candidate, drop those that do not, duplicates (same printed statement, first
    kept), those printing like any of `exclude` and vacuous ones (`vacuous`); rank by similarity (ties: kind order, then text)
    and name the best `max_variants` `<name_prefix>1`, `<name_prefix>2`, … in that order."""
    counts = counts if counts is not None else Counts()
    seen = set(exclude)
    kept: list[Variant] = []
    for candidate in candidates:
        counts.candidates += 1
        if candidate.kind == "generalise":
            candidate = _fill_generalised_type(env, candidate, reference)
            if candidate is None:
                continue
        goal = _root_goal(env, candidate)
        if goal is None:
            continue
        counts.elaborated += 1
        key = normalise(goal.text)
        if key in seen:
            continue
        seen.add(key)
        if vacuous(env, goal):
            counts.vacuous += 1
            continue
        kept.append(candidate)
    counts.unique += len(kept)
    order = {kind: i for i, kind in enumerate(KIND_ORDER)}
    kept.sort(key=lambda v: (-round(v.similarity, 12), order.get(v.kind, len(order)), v.proposition))
    if max_variants is not None:
        kept = kept[:max_variants]
    counts.kept += len(kept)
    out = []
    for number, variant in enumerate(kept, start=1):
        name = f"{name_prefix}{number}"
        statement = f"Theorem {name} : {variant.proposition}."
        out.append(dataclasses.replace(variant, theorem=Theorem(name, target.header, statement, target.language),
                                       similarity=round(min(1.0, max(0.0, variant.similarity)), 6)))
    return out


def target_keys(target: Theorem, statement: Statement | None, env: ProofEnv) -> list[str]:
    """Printed forms that mean 'the target itself': its own root goal and its rendering's."""
    keys = [normalise(env.start(target).text)]
    if statement is not None:
        key = elaborates(env, make_variant(target, statement.render(), "target", "", ""))
        if key:
            keys.append(key)
    return keys


__all__ = ["KIND_ORDER", "VACUITY_TACTIC", "Counts", "elaborates", "select", "statement_safe", "target_keys", "vacuous"]
