"""Part variants: a hypothesis left out, conjunctions taken apart (pure text).

  drop_hypothesis   one hypothesis left out (and one conjunct of a conjunctive hypothesis)
  split_hypotheses  every conjunctive hypothesis `A /\\ B ->` curried into `A -> B ->`
  split_conclusion  each conjunct of `A /\\ B` (or of a chain `a <= b < c`) as its own lemma,
                    each direction of `A <-> B`, all with every hypothesis

Each returns unchecked candidates (`ttrl.candidate`); docs/ARCHITECTURE.md §Test-time RL.
"""

from __future__ import annotations

from lean_interface.api import Theorem
from ttrl.candidate import Variant, make_variant, ordinal
from ttrl.statement import Binder, Statement, conjuncts, iff_sides


def drop_hypothesis(target: Theorem, statement: Statement) -> list[Variant]:
    """Each hypothesis left out in turn (unless a later part names it), and each conjunct of a
    conjunctive hypothesis left out in turn."""
    reference = statement.render()
    out = []
    hyp = -1
    for index, binder in enumerate(statement.binders):
        if not binder.prop:
            continue
        hyp += 1
        if statement.used_after(index):
            continue
        rest = [*statement.binders[:index], *statement.binders[index + 1:]]
        out.append(make_variant(target, statement.with_binders(rest).render(), "drop_hypothesis",
                                f"{ordinal(hyp)} dropped: {binder.type}", reference))
        parts = conjuncts(binder.type)
        if len(parts) > 1:
            for k in range(len(parts)):
                kept = [Binder(f"{binder.name}_{j}", p, True) for j, p in enumerate(parts) if j != k]
                binders = [*statement.binders[:index], *kept, *statement.binders[index + 1:]]
                out.append(make_variant(target, statement.with_binders(binders).render(), "drop_hypothesis",
                                        f"conjunct {k + 1} of {ordinal(hyp)} dropped: {parts[k]}", reference))
    return out


def split_hypotheses(target: Theorem, statement: Statement) -> list[Variant]:
    """Every conjunctive hypothesis `A /\\ B` (or chain `a <= b <= c`) replaced by its parts."""
    reference = statement.render()
    binders: list[Binder] = []
    split = []
    for index, binder in enumerate(statement.binders):
        parts = conjuncts(binder.type) if binder.prop and not statement.used_after(index) else [binder.type]
        if len(parts) > 1:
            split.append(binder.type)
            binders.extend(Binder(f"{binder.name}_{j}", p, True) for j, p in enumerate(parts))
        else:
            binders.append(binder)
    if not split:
        return []
    return [make_variant(target, statement.with_binders(binders).render(), "split_hypotheses",
                         "conjunctive hypotheses split into parts: " + "; ".join(split), reference)]


def split_conclusion(target: Theorem, statement: Statement) -> list[Variant]:
    """Each conjunct of the conclusion with all hypotheses; each direction of an iff."""
    reference = statement.render()
    out = []
    parts = conjuncts(statement.conclusion)
    if len(parts) > 1:
        for k, part in enumerate(parts):
            out.append(make_variant(target, Statement(statement.binders, part).render(), "split_conclusion",
                                    f"conjunct {k + 1} of {len(parts)} of the conclusion", reference))
    sides = iff_sides(statement.conclusion)
    if sides:
        for k, (premise, goal) in enumerate((sides, sides[::-1])):
            hyp = Binder(statement.fresh("Hiff"), premise, True)
            variant = Statement((*statement.binders, hyp), goal)
            out.append(make_variant(target, variant.render(), "split_conclusion",
                                    f"{'left-to-right' if k == 0 else 'right-to-left'} direction of the iff",
                                    reference))
    return out


__all__ = ["drop_hypothesis", "split_conclusion", "split_hypotheses"]
