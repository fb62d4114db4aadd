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

and the *bridges* of bridged variants (`instantiation_bridges`): tactics that take the target's
goal to an easier one — instances of a universally quantified hypothesis added to the context
(`s (n+2) = s (n+1) + s n` at n = 0..9) — which `ttrl.variants` applies in Coq and closes into a
variant whose proof, replayed after the bridge, proves the target.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from lean_interface.api import Theorem
from ttrl.statement import (Binder, Comparison, Statement, bound_names, comparison, conjuncts, identifiers,
                            iff_sides, is_integer_numeral, normalise, numeral_spans, shift_numeral, similarity, substitute,
                            tokens)

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
      goal:        for a `subgoal` or `instantiate` variant, the goal's text (`Goal.text`) it
                   closes over: once the variant is proved, that goal has a known proof
                   (`ttrl.lemmas`).
      bridge:      for a bridged variant, the tactic that takes the target's root goal to `goal`
                   (intros, then e.g. `pose proof (h (7%nat)) as h_i`): a proof of the variant
                   then proves the target (`ttrl.lemmas.record_lemma`).
      origin:      the target's root goal text the bridge starts from.
    """

    theorem: Theorem
    kind: str
    description: str
    similarity: float
    goal: str = ""
    bridge: str = ""
    origin: str = ""

    @property
    def proposition(self) -> str:
        """The statement's type: the text between `Theorem <name> :` and the final `.`."""
        return _proposition_of(self.theorem.statement)

    def to_dict(self) -> dict:
        return {"theorem": {"name": self.theorem.name, "header": self.theorem.header,
                            "statement": self.theorem.statement, "language": self.theorem.language},
                "kind": self.kind, "description": self.description, "similarity": self.similarity,
                **({"goal": self.goal} if self.goal else {}),
                **({"bridge": self.bridge, "origin": self.origin} if self.bridge else {})}

    @classmethod
    def from_dict(cls, data: dict) -> "Variant":
        return cls(Theorem(**data["theorem"]), data["kind"], data["description"], float(data["similarity"]),
                   str(data.get("goal", "")), str(data.get("bridge", "")), str(data.get("origin", "")))


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


# ---- bridges: tactics that take the target's goal to a variant's -------------------------------

#: instances of one universally quantified hypothesis `instantiate` adds at most (all at once)
MAX_INSTANCES = 12
#: numerals of the statement up to this are instance values of nat/N/Z binders
MAX_INSTANCE_VALUE = 30
#: single-instance bridges per hypothesis
MAX_SINGLE_INSTANCES = 6
_BINDER_GROUP = re.compile(r"\(([^()]*?) : ([^()]+)\)")


def forall_binders(text: str) -> tuple[list[tuple[str, str]], str] | None:
    """`forall (a b : T) (c : U), body` or `forall n m : nat, body` → ([(a, T), (b, T), (c, U)],
    body); None when `text` is not a leading `forall` with typed binders."""
    toks = tokens(text)
    if not toks or toks[0].text != "forall":
        return None
    comma = next((t for t in toks[1:] if t.text == "," and t.depth == 0), None)
    if comma is None:
        return None
    head, body = text[toks[0].end:comma.start].strip(), text[comma.end:].strip()
    if head.startswith("("):
        groups = _BINDER_GROUP.findall(head)
        if _BINDER_GROUP.sub("", head).strip():
            return None
    else:
        names, colon, type_ = head.partition(" : ")
        groups = [(names, type_)] if colon else []
    binders = [(name, type_.strip()) for names, type_ in groups for name in names.split()]
    return (binders, body) if binders and all(identifiers(n) == {n} for n, _ in binders) else None


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


#: the structural generators `generate_variants` runs, in this order
GENERATORS: tuple[Callable[[Theorem, Statement], list[Variant]], ...] = (
    split_conclusion, split_hypotheses, drop_hypothesis, change_inequality, specialise, fix_variable, generalise)


__all__ = ["CHECK_NAME", "DEFAULT_VALUES", "GENERATORS", "MAX_GENERALISED_NUMERALS", "MAX_INSTANCES", "NUMERIC_SCOPES",
           "Variant", "change_inequality", "drop_hypothesis", "fix_variable", "forall_binders", "generalise",
           "instance_values", "instantiation_bridges", "make_variant", "specialise", "split_conclusion",
           "split_hypotheses"]
