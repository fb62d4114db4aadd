"""Programmatic variants of a Coq target for test-time RL (AlphaProof style): the Coq side.

For a hard target, test-time RL learns on many related problems: specialisations, simplifications,
generalisations and parts. Structure comes from Coq, not from text rules: the target is opened in
a `CoqEnv`, the tactic `INTRO_TACTIC` introduces every leading binder (`forall` and `->`, but not
`~`), and each hypothesis line is asked whether its type is a `Prop` (`PROP_CHECK`). The result is a
`Statement` (`ttrl.statement`): variables, hypotheses, conclusion, which the pure-text generators
of `ttrl.generators` take apart (specialise, fix_variable, drop_hypothesis, split_conclusion,
split_hypotheses, change_inequality, generalise; re-exported here). Two more sources of candidates
live here because they need Coq or a network:

  from_subgoals     open goals of a search tree closed into statements
  bridged_variants  the goal a bridge tactic (`instantiation_bridges`) takes the target to, closed
                    into a statement: its proof, after the bridge, proves the target
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

import dataclasses
import json
import logging
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Iterable, Sequence

from lean_interface.api import EnvError, Goal, ProofEnv, Theorem
from lean_interface.coq.env import given_or_new
from lean_interface.coq.sentences import SentenceError, split_sentences
from ttrl.generators import (CHECK_NAME, DEFAULT_VALUES, GENERATORS, MAX_GENERALISED_NUMERALS, NUMERIC_SCOPES,
                             Variant, change_inequality, drop_hypothesis, fix_variable, generalise,
                             instantiation_bridges, make_variant, specialise, split_conclusion, split_hypotheses)
from ttrl.statement import (Statement, join_statement, normalise, parse_declaration, parse_goal_text,
                            parse_theorem_statements, similarity)

log = logging.getLogger(__name__)

#: introduces every leading product (`forall`, `->`), never unfolds `~ P` into `P -> False`
INTRO_TACTIC = "repeat lazymatch goal with |- forall _, _ => intro end"
#: succeeds (adds a definition) exactly when hypothesis NAME's type is a proposition
PROP_CHECK = "let T := type of {name} in pose (ttrl_prop_check := (T : Prop))"
#: how `select` breaks similarity ties: the generators' order, then subgoals, then the model's
KIND_ORDER = ("split_conclusion", "split_hypotheses", "drop_hypothesis", "change_inequality", "specialise",
              "fix_variable", "generalise", "instantiate", "subgoal", "llm")
#: refused in any candidate text: would end the sentence early, hide text, or run tactics
_UNSAFE = re.compile(r"\(\*|\*\)|\"|ltac:|\.(\s|$)")


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
    rebuilt = Theorem(CHECK_NAME, target.header, f"Theorem {CHECK_NAME} : {statement.render()}.", target.language)
    try:
        again = analyse(rebuilt, env)
    except EnvError as error:
        log.info("%s: its rendering does not elaborate: %s", target.name, error)
        return None
    if _shape(again) != _shape(statement):
        log.info("%s: its rendering elaborates to a different statement", target.name)
        return None
    return statement


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


def _root_goal(env: ProofEnv, variant: Variant) -> Goal | None:
    if not _statement_safe(variant.theorem.statement):
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
    with given_or_new(env) as coq:
        statement = faithful_statement(target, coq)
        candidates: list[Variant] = []
        if statement is not None:
            for generator in GENERATORS:
                candidates.extend(generator(target, statement))
        reference = _reference(target, statement)
        candidates.extend(_llm_candidates(target, llm_endpoint, llm_model, llm_n, reference))
        return select(target, candidates, coq, max_variants, f"{target.name}_v", reference,
                      _target_keys(target, statement, coq), counts)


def variant_theorems(target: Theorem, max_variants: int, env: ProofEnv) -> list[Theorem]:
    """`generate_variants` as a `selfplay.sources.VariantMaker`: the theorems only, so self-play's
    `variants:` source needs nothing from this package but this function, handed in by its caller."""
    return [variant.theorem for variant in generate_variants(target, max_variants=max_variants, env=env)]


# ---- subgoals of a search tree ----------------------------------------------------------------

def from_subgoals(target: Theorem, goal_texts: Sequence[str], env: ProofEnv | None = None,
                  name_prefix: str | None = None, counts: Counts | None = None) -> list[Variant]:
    """Open goals (`Goal.text`: hypothesis lines, then `⊢ C`) closed into statements
    `forall (a b : T), P -> C` under the target's header. Which hypotheses are propositions is
    asked of Coq (the goal is first stated with every hypothesis as a binder, which elaborates
    either way). Coupled goals, goals with existential variables and a goal whose statement is
    just `False` (no hypotheses: not a useful variant) are skipped. Elaborated and
    deduplicated like `generate_variants`; named `<target>_sg1`, … unless `name_prefix` is given
    (pass distinct prefixes when several calls' variants are pooled). Raises EnvError when the
    target does not elaborate.
    """
    with given_or_new(env) as coq:
        target_statement = faithful_statement(target, coq)
        reference = _reference(target, target_statement)
        candidates = []
        for text in dict.fromkeys(goal_texts):
            candidate = _closed_goal(target, text, coq, reference, "subgoal")
            if candidate is not None:
                candidates.append(candidate)
        return select(target, candidates, coq, None, name_prefix or f"{target.name}_sg", reference,
                      _target_keys(target, target_statement, coq), counts)


def _closed_goal(target: Theorem, text: str, coq: ProofEnv, reference: str, kind: str,
                 description: str = "") -> Variant | None:
    """The goal `text` closed over its hypotheses into a variant of `kind` (its `goal` = `text`);
    None for coupled goals, goals with existential variables, unreadable ones and a bare `False`."""
    if re.search(r"\?[A-Za-z_]", text):
        return None
    try:
        entries, conclusion = parse_goal_text(text)
    except ValueError:
        return None
    closed = join_statement(entries, conclusion)          # every hypothesis a binder
    probe = make_variant(target, closed.render(), kind, "", reference)
    if not _statement_safe(probe.theorem.statement):
        return None
    try:
        statement = analyse(probe.theorem, coq)
    except EnvError:
        return None
    description = description or f"open goal closed over its {len(statement.binders)} hypotheses and variables"
    candidate = dataclasses.replace(make_variant(target, statement.render(), kind, description, reference), goal=text)
    return None if candidate.proposition == "False" else candidate   # `⊢ False`: nothing to learn from


# ---- bridged variants -------------------------------------------------------------------------

def bridged_variants(target: Theorem, env: ProofEnv | None = None, max_variants: int = 8,
                     counts: Counts | None = None) -> list[Variant]:
    """Variants the target's own goal reaches by a *bridge* tactic (`ttrl.generators.
    instantiation_bridges`: instances of a universally quantified hypothesis added to the context).
    Each bridge is run in Coq after intros on the target's root goal; the one goal it leaves is
    closed over its hypotheses (like a subgoal variant) and elaborated, deduplicated and ranked by
    `select`; the best `max_variants` are named `<target>_b1`, … and carry the bridge (with
    intros in front) and the root goal it starts from, so a proof of the variant proves the target
    (`ttrl.lemmas.record_lemma`). [] when the target cannot be analysed or has no such hypothesis."""
    with given_or_new(env) as coq:
        statement = faithful_statement(target, coq)
        if statement is None or max_variants <= 0:
            return []
        reference = _reference(target, statement)
        root = coq.start(target)
        start = _intro_goal(coq, root)
        candidates = []
        for tactic, description in instantiation_bridges(statement):
            result = coq.apply(start, tactic)
            if not result.ok or len(result.goals) != 1:
                continue
            candidate = _closed_goal(target, result.goals[0].text, coq, reference, "instantiate", description)
            if candidate is not None:
                candidates.append(dataclasses.replace(candidate, bridge=f"{INTRO_TACTIC}; {tactic}", origin=root.text))
        return select(target, candidates, coq, max_variants, f"{target.name}_b", reference,
                      _target_keys(target, statement, coq), counts)


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
    with given_or_new(env) as coq:
        statement = faithful_statement(target, coq)
        reference = _reference(target, statement)
        candidates = _llm_candidates(target, endpoint, model, n, reference, timeout)
        return select(target, candidates, coq, None, f"{target.name}_lm", reference,
                      _target_keys(target, statement, coq), counts)


__all__ = ["CHECK_NAME", "DEFAULT_VALUES", "GENERATORS", "INTRO_TACTIC", "KIND_ORDER", "LLM_PROMPT",
           "MAX_GENERALISED_NUMERALS", "NUMERIC_SCOPES", "PROP_CHECK", "Counts", "Variant", "analyse", "bridged_variants",
           "change_inequality", "drop_hypothesis", "elaborates", "faithful_statement", "fix_variable", "from_subgoals",
           "generalise", "generate_variants", "llm_variants", "make_variant", "select", "specialise",
           "split_conclusion", "split_hypotheses", "variant_theorems"]
