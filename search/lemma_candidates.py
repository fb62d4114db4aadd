"""Library lemmas offered as candidate tactics for a goal: `rewrite NAME.`, `apply NAME.`, ….

Why (issue 39, item 5; docs/ARCHITECTURE.md §Lemma candidates): the shipped policy no longer
writes the stdlib's lemma names and the fixed list has none, so `sqrt (x * x) = x` was searched
without `sqrt_square`. In `mixed` mode these candidates join the automation list at a goal's first
round and the policy prices each by its own log-probability, as it prices the rest.

What a goal is about is read from its text with the project's scanner (`lean_interface.coq.text`):
its *heads* are its identifiers, the notations that stand for indexed functions (`^`, `/`, `mod`,
`x²` for Rsqr) and the number types its functions imply (`sqrt` → R, `Z.` names → Z). A lemma's
heads are read the same way from its printed statement, less the names it binds. Ranking, by
relevance and then by how likely a rewrite or apply is to fit:
  1. tier 0: every head of the lemma is a head of the goal; tier 1: the lemma shares a function
     with the goal but mentions something the goal does not; tier 2: the lemma is about a literal
     argument (`sqrt 2 <> 0`, `a ^ 0 = 1`, `a mod 1 = 0`) that the goal does not have;
  2. equations (rewritable) before other relations — unless the goal's target is an order
     relation (`<`, `<=`, `>`, `>=`), where `apply` wants a lemma that concludes one;
  3. fewer premises first; then the shorter statement, then the name.
The top `top` lemmas become tactics (`tactics_for`): an equation gives `rewrite NAME.`,
`rewrite <- NAME.` (not for a closed fact) and `apply NAME.`; any other lemma `apply NAME.`; a
closed fact also `pose proof NAME as hL.` — each in the canonical form of the tactic guard.
Lemmas with the same statement (`sqrt_def`, `sqrt_sqrt`) are offered once.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from lean_interface.coq.guard import canonical_tactic
from lean_interface.coq.text import SentenceError, Token, tokens
from search.lemma_index import IndexedLemma, arrow_parts, is_equation, relations, strip_foralls

#: number types: a head like any other, implied by the functions of their kind
TYPES: frozenset[str] = frozenset({"R", "Z", "nat"})
#: words that are syntax, not functions
KEYWORDS: frozenset[str] = frozenset({"forall", "exists", "fun", "match", "with", "end", "if", "then", "else",
                                       "let", "in", "as", "return", "Prop", "Type", "Set", "True", "False"})
#: operator notations that stand for indexed functions (`mod` and `x²` are words)
NOTATIONS: frozenset[str] = frozenset({"^", "/"})
_BINDERS = frozenset({"forall", "exists", "fun"})
ORDER: frozenset[str] = frozenset({"<", "<=", ">", ">="})
#: real functions: a goal with one of them is about R even when no `R` is printed (`sqrt 16 = 4`)
REAL_FUNCTIONS: frozenset[str] = frozenset({"sqrt", "Rsqr", "²", "Rabs", "ln", "exp", "Rpower", "powerRZ", "sin",
                                             "cos", "tan", "PI", "INR", "IZR", "Rmin", "Rmax", "up", "Int_part",
                                             "frac_part", "sum_f_R0", "Rinv", "Rdiv"})
#: the hypothesis name a closed fact is added under
POSE_NAME = "hL"


def _words_and_keys(toks: Sequence[Token]) -> list[str]:
    """Every identifier, with `x²` read as `x` and `²`, and the notation keys."""
    out: list[str] = []
    for token in toks:
        if token.kind == "word":
            if "²" in token.text:
                out += [part for part in token.text.split("²") if part] + ["²"]
            else:
                out.append(token.text)
        elif token.kind == "symbol" and token.text in NOTATIONS:
            out.append(token.text)
    return out


def _bound_names(toks: Sequence[Token]) -> set[str]:
    """Names bound by `forall`/`exists`/`fun` (the words between the binder and its comma)."""
    bound: set[str] = set()
    for index, token in enumerate(toks):
        if token.text not in _BINDERS:
            continue
        for later in toks[index + 1:]:
            if later.text == "," and later.depth == token.depth:
                break
            if later.kind == "word" and later.text not in TYPES:
                bound.add(later.text)
    return bound


def _implied_types(heads: set[str]) -> set[str]:
    implied = set()
    if heads & REAL_FUNCTIONS:
        implied.add("R")
    if any(h.startswith("Z.") for h in heads) or "IZR" in heads:
        implied.add("Z")
    if any(h.startswith("Nat.") for h in heads) or "INR" in heads or "Z.of_nat" in heads:
        implied.add("nat")
    return implied


def goal_heads(goal_text: str) -> frozenset[str]:
    """What a goal (its hypotheses and target) mentions: identifiers, notation keys, implied types."""
    try:
        heads = set(_words_and_keys(tokens(goal_text)))
    except SentenceError:
        return frozenset()
    return frozenset(heads | _implied_types(heads))


def _applications(toks: Sequence[Token], bound: set[str] = frozenset()) -> set[tuple[str, str]]:
    """`f 2`, `x ^ 2`, `a mod 4` as (function, numeral) pairs: a function or power applied to a literal."""
    return {(a.text, b.text) for a, b in zip(toks, toks[1:])
            if b.kind == "number" and ((a.kind == "word" and a.text not in bound) or a.text in NOTATIONS)}


def target_prefers_equations(goal_text: str) -> bool:
    """False when the goal's target (after its `forall`s and premises) is an order relation
    (`<`, `<=`, `>`, `>=`) and not an equation: `apply` then wants a lemma concluding one."""
    target = next((line[1:] for line in goal_text.splitlines() if line.startswith("⊢")), goal_text)
    try:
        found = relations(arrow_parts(strip_foralls(target.strip()))[-1])
    except SentenceError:
        return True
    return not found & ORDER or is_equation(found)


@dataclass(frozen=True)
class LemmaFacts:
    """A lemma with what ranking reads from its statement.

    Fields:
      lemma:        the indexed lemma.
      heads:        its identifiers, notation keys and types, less the names it binds.
      core:         its heads less the number types (what it is about).
      applications: (function, numeral) pairs it states something about: `sqrt 2`, `a ^ 0`, `a mod 1`.
    """

    lemma: IndexedLemma
    heads: frozenset[str]
    core: frozenset[str]
    applications: frozenset[tuple[str, str]]


def lemma_facts(lemma: IndexedLemma) -> LemmaFacts | None:
    """The ranking facts of a lemma, or None when its statement does not scan."""
    try:
        toks = tokens(lemma.statement)
    except SentenceError:
        return None
    bound = _bound_names(toks)
    words = set(_words_and_keys(toks)) - bound - KEYWORDS
    heads = frozenset(words | _implied_types(words))
    return LemmaFacts(lemma, heads, heads - TYPES, frozenset(_applications(toks, bound)))


def rank_key(facts: LemmaFacts, goal: frozenset[str], goal_applications: set[tuple[str, str]],
             equations_first: bool = True) -> tuple:
    """Sort key: tier, kind of conclusion, premises, statement length, name (module docstring)."""
    if not facts.applications <= goal_applications:
        tier = 2
    else:
        tier = 0 if facts.heads <= goal else 1
    lemma = facts.lemma
    return tier, lemma.equation != equations_first, lemma.premises, len(lemma.statement), lemma.name


def render(lemma: IndexedLemma) -> list[str]:
    """The tactics a lemma gives, in the guard's canonical form (module docstring)."""
    name = lemma.name
    forms = [f"rewrite {name}"] if lemma.equation else []
    if lemma.equation and not lemma.closed:
        forms.append(f"rewrite <- {name}")
    forms.append(f"apply {name}")
    if lemma.closed:
        forms.append(f"pose proof {name} as {POSE_NAME}")
    return [form for form in map(canonical_tactic, forms) if form is not None]


class LemmaCandidates:
    """`tactics_for(goal_text)`: the tactics of the `top` most relevant indexed lemmas for a goal."""

    def __init__(self, lemmas: Iterable[IndexedLemma], top: int) -> None:
        if top < 0:
            raise ValueError(f"lemma_candidates must be >= 0 (got {top})")
        self.top = top
        self._by_head: dict[str, list[LemmaFacts]] = defaultdict(list)
        seen_statements: set[str] = set()
        for lemma in sorted(lemmas, key=lambda item: (len(item.name), item.name)):
            facts = lemma_facts(lemma)
            if facts is None or not facts.core or lemma.statement in seen_statements:
                continue
            seen_statements.add(lemma.statement)
            for head in facts.core:
                self._by_head[head].append(facts)

    def ranked(self, goal_text: str) -> list[IndexedLemma]:
        """The `top` lemmas for a goal, best first (those sharing no function with it never come)."""
        if not self.top:
            return []
        heads = goal_heads(goal_text)
        try:
            applications = _applications(tokens(goal_text))
        except SentenceError:
            return []
        pool = {id(facts): facts for head in heads for facts in self._by_head.get(head, ())}
        equations_first = target_prefers_equations(goal_text)
        ordered = sorted(pool.values(), key=lambda facts: rank_key(facts, heads, applications, equations_first))
        return [facts.lemma for facts in ordered[:self.top]]

    def tactics_for(self, goal_text: str) -> list[str]:
        """The ranked lemmas' tactics, distinct, in rank order."""
        return list(dict.fromkeys(t for lemma in self.ranked(goal_text) for t in render(lemma)))


__all__ = ["LemmaCandidates", "LemmaFacts", "goal_heads", "lemma_facts", "rank_key", "render"]
