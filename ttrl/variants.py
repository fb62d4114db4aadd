"""Programmatic variants of a Coq target for test-time RL (AlphaProof style).

For a hard target, test-time RL learns on many related problems: specialisations, simplifications,
generalisations and parts. This module makes them. Structure comes from Coq, not from text rules:
the target is opened in a `CoqEnv`, the tactic `INTRO_TACTIC` introduces every leading binder
(`forall` and `->`, but not `~`), and each hypothesis line is asked whether its type is a `Prop`
(`PROP_CHECK`). The result is a `Statement` (`ttrl.statement`): variables, hypotheses, conclusion,
which the generators below take apart and re-render as `forall (x : T) …, H1 -> H2 -> C`.

Generators (pure text over the `Statement`; each returns candidate `Variant`s, kind = its name):

  specialise        a nat/Z/R/N/Q variable replaced by 0, 1, 2, 3 (written `(2%R)`), everywhere
  fix_variable      the same, as an added hypothesis `x = 2%R` after the variables bound with x
  drop_hypothesis   one hypothesis left out (and one conjunct of a conjunctive hypothesis)
  split_conclusion  each conjunct of `A /\\ B` (or of a chain `a <= b < c`) as its own lemma,
                    each direction of `A <-> B`, all with every hypothesis
  split_hypotheses  every conjunctive hypothesis `A /\\ B ->` curried into `A -> B ->`
  change_inequality `<` ↔ `<=`, `>` ↔ `>=`, `=` → `<=`/`>=`, and an integer bound moved by ±1,
                    in the conclusion (or each of its conjuncts); weaker and stronger both
  generalise        one numeral of the conclusion or a hypothesis replaced by a new variable
                    `forall (c : T), …`, T inferred by Coq from where the numeral stood
  from_subgoals     open goals of a search tree closed into statements
  llm_variants      an OpenAI-compatible model asked for variants (off unless given an endpoint)

`generate_variants` runs them, elaborates EVERY candidate in Coq (`env.start` on
`Theorem <name> : <proposition>.` under the target's header; the env loads the project prelude
first, as it does for every theorem), removes duplicates by Coq's printed statement (and anything
that prints like the target), scores similarity to the target (`ttrl.statement.similarity`:
multiset Jaccard of the tokens of the two rendered propositions) and returns the best
`max_variants`, most similar first, in a deterministic order. Variants may well be false: that is
expected (self-play's disproving path handles them), and nothing here tries to prove them.
"""

from __future__ import annotations

import json
import logging
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from lean_interface.api import EnvError, Goal, ProofEnv, Theorem
from lean_interface.coq.sentences import SentenceError, split_sentences
from ttrl.statement import (Binder, Comparison, Statement, bound_names, comparison, conjuncts, iff_sides,
                            is_integer_numeral, join_statement, normalise, numeral_spans, parse_declaration,
                            parse_goal_text, parse_theorem_statements, shift_numeral, similarity, substitute)

log = logging.getLogger(__name__)

#: introduces every leading product (`forall`, `->`), never unfolds `~ P` into `P -> False`
INTRO_TACTIC = "repeat lazymatch goal with |- forall _, _ => intro end"
#: succeeds (adds a definition) exactly when hypothesis NAME's type is a proposition
PROP_CHECK = "let T := type of {name} in pose (ttrl_prop_check := (T : Prop))"
#: types whose variables `specialise` and `fix_variable` set to small numerals, with scope keys
NUMERIC_SCOPES: dict[str, str] = {"nat": "nat", "Z": "Z", "R": "R", "N": "N", "Q": "Q"}
DEFAULT_VALUES: tuple[int, ...] = (0, 1, 2, 3)
#: how many numerals `generalise` considers per statement (conclusion first, then hypotheses)
MAX_GENERALISED_NUMERALS = 16
#: the name candidates are elaborated under (renamed to `<prefix><N>` once kept)
_CHECK_NAME = "ttrl_variant_candidate"
#: refused in any candidate text: would end the sentence early, hide text, or run tactics
_UNSAFE = re.compile(r"\(\*|\*\)|\"|ltac:|\.(\s|$)")


@dataclass(frozen=True)
class Variant:
    """One generated problem.

    Fields:
      theorem:     `Theorem <target>_v<N> : <proposition>.` under the target's header.
      kind:        the generator that made it (`specialise`, `drop_hypothesis`, …).
      description: what was changed, in words.
      similarity:  to the target, in [0, 1] (`ttrl.statement.similarity`).
    """

    theorem: Theorem
    kind: str
    description: str
    similarity: float

    @property
    def proposition(self) -> str:
        """The statement's type: the text between `Theorem <name> :` and the final `.`."""
        return _proposition_of(self.theorem.statement)

    def to_dict(self) -> dict:
        return {"theorem": {"name": self.theorem.name, "header": self.theorem.header,
                            "statement": self.theorem.statement, "language": self.theorem.language},
                "kind": self.kind, "description": self.description, "similarity": self.similarity}

    @classmethod
    def from_dict(cls, data: dict) -> "Variant":
        return cls(Theorem(**data["theorem"]), data["kind"], data["description"], float(data["similarity"]))


def _proposition_of(statement: str) -> str:
    text = statement.strip()
    text = text[:-1] if text.endswith(".") else text
    return text.split(":", 1)[1].strip()


def make_variant(target: Theorem, proposition: str, kind: str, description: str, reference: str,
                 name: str = _CHECK_NAME) -> Variant:
    """A Variant stating `proposition` under the target's header, scored against `reference`."""
    proposition = normalise(proposition)
    statement = f"Theorem {name} : {proposition}."
    return Variant(Theorem(name, target.header, statement, target.language), kind, description,
                   similarity(reference, proposition))


# ---- structure from Coq ---------------------------------------------------------------------

def _intro_goal(env: ProofEnv, root: Goal) -> Goal:
    result = env.apply(root, INTRO_TACTIC)
    if result.error == "no progress":
        return root
    if not result.ok or len(result.goals) != 1:
        raise EnvError(f"intros failed: {result.error or 'unexpected goals'}")
    return result.goals[0]


def analyse(theorem: Theorem, env: ProofEnv) -> Statement:
    """The statement of `theorem` as Coq sees it after intros: variables, hypotheses (asked of Coq:
    is the type's type `Prop`?), conclusion. Raises EnvError when it does not elaborate."""
    goal = _intro_goal(env, env.start(theorem))
    try:
        entries, conclusion = parse_goal_text(goal.text)
    except ValueError as error:
        raise EnvError(f"{theorem.name}: cannot read the goal after intros: {error}") from None
    props = []
    for names, _type, body in entries:
        if body is not None:
            props.append(False)
            continue
        props.append(env.apply(goal, PROP_CHECK.format(name=names[0])).ok)
    return join_statement(entries, conclusion, props)


def _shape(statement: Statement) -> tuple:
    """What must survive a render + re-elaboration: variables by name, hypotheses by type."""
    return (tuple((b.name if not b.prop else "", b.type, b.prop, b.body) for b in statement.binders),
            statement.conclusion)


def faithful_statement(target: Theorem, env: ProofEnv) -> Statement | None:
    """The target's Statement, provided its rendering elaborates back to the same goal after intros
    (names of hypotheses aside); None otherwise (then no structural variant is trusted)."""
    statement = analyse(target, env)
    rebuilt = Theorem(_CHECK_NAME, target.header, f"Theorem {_CHECK_NAME} : {statement.render()}.", target.language)
    try:
        again = analyse(rebuilt, env)
    except EnvError as error:
        log.info("%s: its rendering does not elaborate: %s", target.name, error)
        return None
    if _shape(again) != _shape(statement):
        log.info("%s: its rendering elaborates to a different statement", target.name)
        return None
    return statement


# ---- generators (pure text) -----------------------------------------------------------------

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
KIND_ORDER = ("split_conclusion", "split_hypotheses", "drop_hypothesis", "change_inequality", "specialise",
              "fix_variable", "generalise", "subgoal", "llm")


# ---- elaboration, deduplication, ranking -----------------------------------------------------

def _statement_safe(statement: str) -> bool:
    """One sentence, no comments/strings/`ltac:`: safe to hand to coqtop as a statement."""
    body = statement.strip()[:-1]
    if _UNSAFE.search(body):
        return False
    try:
        return len(split_sentences(statement)) == 1
    except SentenceError:
        return False


def elaborates(env: ProofEnv, variant: Variant) -> str | None:
    """Coq's printed root goal of the variant (whitespace-normalised), or None if it does not elaborate."""
    if not _statement_safe(variant.theorem.statement):
        return None
    try:
        return normalise(env.start(variant.theorem).text)
    except EnvError:
        return None


def _fill_generalised_type(env: ProofEnv, variant: Variant, reference: str) -> Variant | None:
    """Replace `forall (c : _)` by the type Coq inferred for `c`; None if that fails."""
    match = re.match(r"forall \(([^\W\d][\w']*) : _\)", variant.proposition)
    if not match:
        return variant
    name = match.group(1)
    if not _statement_safe(variant.theorem.statement):
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
    left after removing duplicates and target look-alikes, returned (at most `max_variants`)."""

    candidates: int = 0
    elaborated: int = 0
    unique: int = 0
    kept: int = 0


def select(target: Theorem, candidates: Iterable[Variant], env: ProofEnv, max_variants: int | None,
           name_prefix: str, reference: str, exclude: Iterable[str] = (),
           counts: Counts | None = None) -> list[Variant]:
    """Elaborate every candidate, drop those that do not, duplicates (same printed statement, first
    kept) and those printing like any of `exclude`; rank by similarity (ties: kind order, then text)
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
        key = elaborates(env, candidate)
        if key is None:
            continue
        counts.elaborated += 1
        if key in seen:
            continue
        seen.add(key)
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
        out.append(Variant(Theorem(name, target.header, statement, target.language), variant.kind,
                           variant.description, round(min(1.0, max(0.0, variant.similarity)), 6)))
    return out


def _target_keys(target: Theorem, statement: Statement | None, env: ProofEnv) -> list[str]:
    """Printed forms that mean 'the target itself': its own root goal and its rendering's."""
    keys = [normalise(env.start(target).text)]
    if statement is not None:
        key = elaborates(env, make_variant(target, statement.render(), "target", "", ""))
        if key:
            keys.append(key)
    return keys


def _reference(target: Theorem, statement: Statement | None) -> str:
    """The target's proposition as rendered (or as written, when it could not be analysed)."""
    if statement is not None:
        return statement.render()
    declaration = parse_declaration(target.statement)
    if declaration is None:
        return target.statement
    binders, type_ = declaration
    return f"forall {binders}, {type_}" if binders else type_


class _OwnEnv:
    """`env` if given, else a CoqEnv opened and closed around the block."""

    def __init__(self, env: ProofEnv | None) -> None:
        self.given, self.env = env, env

    def __enter__(self) -> ProofEnv:
        if self.env is None:
            from lean_interface.coq.env import CoqEnv
            self.env = CoqEnv(timeout=10.0)
        return self.env

    def __exit__(self, *exc: object) -> None:
        if self.given is None and self.env is not None:
            self.env.close()


def generate_variants(target: Theorem, max_variants: int = 64, env: ProofEnv | None = None, *,
                      llm_endpoint: str | None = None, llm_model: str = "", llm_n: int = 8,
                      counts: Counts | None = None) -> list[Variant]:
    """Variants of a Coq `target`: every structural generator (and the language model when
    `llm_endpoint` is given), each candidate elaborated in Coq, deduplicated, ranked by similarity
    to the target; the best `max_variants`, named `<target>_v1`, `<target>_v2`, …

    `env` is a CoqEnv to reuse (one is opened and closed otherwise). Raises EnvError when the
    target itself does not elaborate. When the target's rendering does not elaborate back to the
    same statement, no structural variant is made (only the language model's, if any).
    """
    if target.language != "coq":
        raise ValueError(f"variants are made for Coq theorems only, not {target.language!r}")
    with _OwnEnv(env) as coq:
        statement = faithful_statement(target, coq)
        candidates: list[Variant] = []
        if statement is not None:
            for generator in GENERATORS:
                candidates.extend(generator(target, statement))
        reference = _reference(target, statement)
        candidates.extend(_llm_candidates(target, llm_endpoint, llm_model, llm_n, reference))
        return select(target, candidates, coq, max_variants, f"{target.name}_v", reference,
                      _target_keys(target, statement, coq), counts)


# ---- subgoals of a search tree ----------------------------------------------------------------

def from_subgoals(target: Theorem, goal_texts: Sequence[str], env: ProofEnv | None = None,
                  name_prefix: str | None = None, counts: Counts | None = None) -> list[Variant]:
    """Open goals (`Goal.text`: hypothesis lines, then `⊢ C`) closed into statements
    `forall (a b : T), P -> C` under the target's header. Which hypotheses are propositions is
    asked of Coq (the goal is first stated with every hypothesis as a binder, which elaborates
    either way). Coupled goals and goals with existential variables are skipped. Elaborated and
    deduplicated like `generate_variants`; named `<target>_sg1`, … unless `name_prefix` is given
    (pass distinct prefixes when several calls' variants are pooled). Raises EnvError when the
    target does not elaborate.
    """
    with _OwnEnv(env) as coq:
        target_statement = faithful_statement(target, coq)
        reference = _reference(target, target_statement)
        candidates = []
        for text in dict.fromkeys(goal_texts):
            if re.search(r"\?[A-Za-z_]", text):
                continue
            try:
                entries, conclusion = parse_goal_text(text)
            except ValueError:
                continue
            closed = join_statement(entries, conclusion)          # every hypothesis a binder
            probe = make_variant(target, closed.render(), "subgoal", "", reference)
            if not _statement_safe(probe.theorem.statement):
                continue
            try:
                statement = analyse(probe.theorem, coq)
            except EnvError:
                continue
            description = f"open goal closed over its {len(statement.binders)} hypotheses and variables"
            candidates.append(make_variant(target, statement.render(), "subgoal", description, reference))
        return select(target, candidates, coq, None, name_prefix or f"{target.name}_sg", reference,
                      _target_keys(target, target_statement, coq), counts)


# ---- language model (optional) ------------------------------------------------------------------

LLM_PROMPT = (
    "You help a theorem prover practise. Here is a Coq theorem:\n\n{header}\n\n{statement}\n\n"
    "Write {n} different related Coq theorems that are easier, more special, more general, or parts "
    "of it (they may be false). Use only what the header above provides. Give each as one line "
    "`Theorem name : statement.` and no proofs."
)


def _llm_candidates(target: Theorem, endpoint: str | None, model: str, n: int, reference: str,
                    timeout: float = 60.0) -> list[Variant]:
    if endpoint is None:
        return []
    prompt = LLM_PROMPT.format(header=target.header.strip(), statement=target.statement.strip(), n=n)
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": prompt}],
                       "temperature": 1.0}).encode()
    request = urllib.request.Request(f"{endpoint.rstrip('/')}/v1/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = json.loads(response.read().decode())
        reply = "\n".join(choice["message"]["content"] for choice in data["choices"])
    except (urllib.error.URLError, OSError, ValueError, KeyError, TypeError) as error:
        log.warning("language-model variants unavailable from %s: %s", endpoint, error)
        return []
    out = []
    for statement in parse_theorem_statements(reply)[: 4 * n]:
        declaration = parse_declaration(statement)
        if declaration is None:
            continue
        binders, type_ = declaration
        proposition = f"forall {binders}, {type_}" if binders else type_
        out.append(make_variant(target, proposition, "llm", f"language model ({model})", reference))
    return out


def llm_variants(target: Theorem, endpoint: str | None = None, model: str = "", n: int = 8,
                 env: ProofEnv | None = None, timeout: float = 60.0, counts: Counts | None = None) -> list[Variant]:
    """Variants proposed by a model behind an OpenAI-compatible endpoint (`POST <endpoint>/v1/chat/
    completions`, urllib). Returns [] at once when `endpoint` is None (the default), and [] with a
    warning when the endpoint fails. Each proposed statement goes through the same elaboration,
    deduplication and ranking as `generate_variants`; named `<target>_lm1`, … Raises EnvError when
    the target does not elaborate."""
    if endpoint is None:
        return []
    with _OwnEnv(env) as coq:
        statement = faithful_statement(target, coq)
        reference = _reference(target, statement)
        candidates = _llm_candidates(target, endpoint, model, n, reference, timeout)
        return select(target, candidates, coq, None, f"{target.name}_lm", reference,
                      _target_keys(target, statement, coq), counts)
