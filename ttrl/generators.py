"""The candidate `Variant` and the structural generators of ttrl variants (pure text, no Coq).

`ttrl.variants.analyse` asks Coq for a target's structure (a `ttrl.statement.Statement`:
variables, hypotheses, conclusion); the generators here take it apart and re-render it as
`forall (x : T) …, H1 -> H2 -> C`. Each returns candidate `Variant`s (kind = its name, similarity
to the target's rendering), unchecked: `ttrl.variants.select` elaborates every one in Coq. Kept
apart from the Coq side so the rules read, and are tested, as plain text transformations.

  specialise        a nat/Z/R/N/Q variable replaced by 0, 1, 2, 3 (written `(2%R)`), everywhere
  fix_variable      the same, as an added hypothesis `x = 2%R` after the variables bound with x
  drop_hypothesis   one hypothesis left out (and one conjunct of a conjunctive hypothesis)
  split_conclusion  each conjunct of `A /\\ B` (or of a chain `a <= b < c`) as its own lemma,
                    each direction of `A <-> B`, all with every hypothesis
  split_hypotheses  every conjunctive hypothesis `A /\\ B ->` curried into `A -> B ->`
  change_inequality `<` ↔ `<=`, `>` ↔ `>=`, `=` → `<=`/`>=`, and an integer bound moved by ±1,
                    in the conclusion (or each of its conjuncts); weaker and stronger both
  generalise        one numeral of the conclusion or a hypothesis replaced by a new variable
                    `forall (c : _), …`, whose type `ttrl.variants` has Coq infer
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from lean_interface.api import Theorem
from ttrl.statement import (Binder, Comparison, Statement, bound_names, comparison, conjuncts, iff_sides,
                            is_integer_numeral, normalise, numeral_spans, shift_numeral, similarity, substitute)

#: types whose variables `specialise` and `fix_variable` set to small numerals, with scope keys
NUMERIC_SCOPES: dict[str, str] = {"nat": "nat", "Z": "Z", "R": "R", "N": "N", "Q": "Q"}
DEFAULT_VALUES: tuple[int, ...] = (0, 1, 2, 3)
#: how many numerals `generalise` considers per statement (conclusion first, then hypotheses)
MAX_GENERALISED_NUMERALS = 16
#: the name candidates are elaborated under (renamed to `<prefix><N>` once kept)
CHECK_NAME = "ttrl_variant_candidate"


@dataclass(frozen=True)
class Variant:
    """One generated problem.

    Fields:
      theorem:     `Theorem <target>_v<N> : <proposition>.` under the target's header.
      kind:        the generator that made it (`specialise`, `drop_hypothesis`, …).
      description: what was changed, in words.
      similarity:  to the target, in [0, 1] (`ttrl.statement.similarity`).
      goal:        for a `subgoal` variant, the open goal's text (`Goal.text`) it closes over:
                   once the variant is proved, that goal has a known proof (`ttrl.lemmas`).
    """

    theorem: Theorem
    kind: str
    description: str
    similarity: float
    goal: str = ""

    @property
    def proposition(self) -> str:
        """The statement's type: the text between `Theorem <name> :` and the final `.`."""
        return _proposition_of(self.theorem.statement)

    def to_dict(self) -> dict:
        return {"theorem": {"name": self.theorem.name, "header": self.theorem.header,
                            "statement": self.theorem.statement, "language": self.theorem.language},
                "kind": self.kind, "description": self.description, "similarity": self.similarity,
                **({"goal": self.goal} if self.goal else {})}

    @classmethod
    def from_dict(cls, data: dict) -> "Variant":
        return cls(Theorem(**data["theorem"]), data["kind"], data["description"], float(data["similarity"]),
                   str(data.get("goal", "")))


def _proposition_of(statement: str) -> str:
    text = statement.strip()
    text = text[:-1] if text.endswith(".") else text
    return text.split(":", 1)[1].strip()


def make_variant(target: Theorem, proposition: str, kind: str, description: str, reference: str,
                 name: str = CHECK_NAME) -> Variant:
    """A Variant stating `proposition` under the target's header, scored against `reference`."""
    proposition = normalise(proposition)
    statement = f"Theorem {name} : {proposition}."
    return Variant(Theorem(name, target.header, statement, target.language), kind, description,
                   similarity(reference, proposition))


# ---- generators ------------------------------------------------------------------------------

def _ordinal(index: int) -> str:
    return f"hypothesis {index + 1}"


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
                                f"{_ordinal(hyp)} dropped: {binder.type}", reference))
        parts = conjuncts(binder.type)
        if len(parts) > 1:
            for k in range(len(parts)):
                kept = [Binder(f"{binder.name}_{j}", p, True) for j, p in enumerate(parts) if j != k]
                binders = [*statement.binders[:index], *kept, *statement.binders[index + 1:]]
                out.append(make_variant(target, statement.with_binders(binders).render(), "drop_hypothesis",
                                        f"conjunct {k + 1} of {_ordinal(hyp)} dropped: {parts[k]}", reference))
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


_SWAPS = {"<": [("<=", "weaker")], "<=": [("<", "stronger")], ">": [(">=", "weaker")], ">=": [(">", "stronger")],
          "=": [("<=", "weaker"), (">=", "weaker")]}
#: which shift of an integer bound weakens, by (operator, side of the numeral)
_WEAKER_SHIFT = {("<", "right"): 1, ("<=", "right"): 1, (">", "right"): -1, (">=", "right"): -1,
                 ("<", "left"): -1, ("<=", "left"): -1, (">", "left"): 1, (">=", "left"): 1}


def _inequality_changes(text: str) -> list[tuple[str, str]]:
    """(new text, description) for each change of the comparison `text`."""
    cmp = comparison(text)
    if cmp is None:
        return []
    out = []
    scope = cmp.scope
    if cmp.op == "=" and not scope:
        # `n = (-4)%Z` under R_scope: `=` is polymorphic, `<=` is not; read the order in Z
        found = re.search(r"%(nat|Z|N|Q)$", cmp.right) or re.search(r"%(nat|Z|N|Q)$", cmp.left)
        scope = f"%{found.group(1)}" if found else ""
    for op, direction in _SWAPS.get(cmp.op, []):
        new = Comparison(cmp.left, op, cmp.right, scope).text()
        out.append((new, f"{direction}: '{cmp.op}' → '{op}'"))
    for side in ("right", "left"):
        value = cmp.right if side == "right" else cmp.left
        weaker = _WEAKER_SHIFT.get((cmp.op, side))
        if weaker is None or not is_integer_numeral(value):
            continue
        for delta in (weaker, -weaker):
            moved = shift_numeral(value, delta)
            left, right = (cmp.left, moved) if side == "right" else (moved, cmp.right)
            new = Comparison(left, cmp.op, right, cmp.scope).text()
            direction = "weaker" if delta == weaker else "stronger"
            out.append((new, f"{direction}: bound {value} → {moved}"))
    return out


def change_inequality(target: Theorem, statement: Statement) -> list[Variant]:
    """Strict ↔ non-strict, equality → inequality, integer bounds ±1, in the conclusion (or in
    each conjunct of a conjunctive conclusion). Both directions: a variant may be false."""
    reference = statement.render()
    parts = conjuncts(statement.conclusion)
    out = []
    for k, part in enumerate(parts):
        for new, description in _inequality_changes(part):
            if len(parts) == 1:
                conclusion, where = new, "conclusion"
            else:
                conclusion = " /\\ ".join(f"({p})" if j != k else f"({new})" for j, p in enumerate(parts))
                where = f"conjunct {k + 1} of the conclusion"
            out.append(make_variant(target, Statement(statement.binders, conclusion).render(), "change_inequality",
                                    f"{where} {description}", reference))
    return out


def generalise(target: Theorem, statement: Statement, max_numerals: int = MAX_GENERALISED_NUMERALS) -> list[Variant]:
    """One numeral at a time (conclusion first, then hypotheses) replaced by a new variable bound in
    front: `forall (c : _), …`. The `_` is Coq's to infer; `generate_variants` writes the type in."""
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
            place = _ordinal(sum(1 for x in statement.binders[:where] if x.prop))
        generalised = Statement((Binder(name, "_"), *variant.binders), variant.conclusion)
        out.append(make_variant(target, generalised.render(), "generalise",
                                f"numeral {text[start:end]} at offset {start} of {place} generalised to {name}",
                                reference))
    return out


#: the structural generators `generate_variants` runs, in this order
GENERATORS: tuple[Callable[[Theorem, Statement], list[Variant]], ...] = (
    split_conclusion, split_hypotheses, drop_hypothesis, change_inequality, specialise, fix_variable, generalise)


__all__ = ["CHECK_NAME", "DEFAULT_VALUES", "GENERATORS", "MAX_GENERALISED_NUMERALS", "NUMERIC_SCOPES", "Variant",
           "change_inequality", "drop_hypothesis", "fix_variable", "generalise", "make_variant", "specialise",
           "split_conclusion", "split_hypotheses"]
