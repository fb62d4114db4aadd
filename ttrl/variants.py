"""Programmatic variants of a Coq target for test-time RL (AlphaProof style): the entry points.

For a hard target, test-time RL learns on many related problems: specialisations, simplifications,
generalisations and parts (docs/ARCHITECTURE.md §Test-time RL). The work is split by job:

  ttrl.analysis     the target's structure as Coq sees it (`analyse`, `faithful_statement`)
  ttrl.generators   the pure-text generators that take it apart (specialise, fix_variable,
                    drop_hypothesis, split_conclusion, split_hypotheses, change_inequality,
                    generalise), one module per family, and the bridges
  ttrl.vetting      every candidate elaborated in Coq, deduplicated, ranked, named (`select`)

This module runs them, and holds the sources of candidates that need Coq or a network:

  from_subgoals     open goals of a search tree closed into statements
  bridged_variants  the goal a bridge tactic (`instantiation_bridges`) takes the target to, closed
                    into a statement: its proof, after the bridge, proves the target
  llm_variants      an OpenAI-compatible model asked for variants (off unless given an endpoint;
                    the request and the reading of its reply are `ttrl.llm_variants`)

`generate_variants` returns the best `max_variants` of the structural (and language-model)
candidates, most similar to the target first, in a deterministic order. Variants may well be
false: that is expected (self-play's disproving path handles them), and nothing here tries to
prove them. The names of the modules above are re-exported here for callers of the one-module API.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Sequence

from lean_interface.api import EnvError, ProofEnv, Theorem
from lean_interface.coq.env import given_or_new
from ttrl.analysis import INTRO_TACTIC, PROP_CHECK, analyse, faithful_statement, intro_goal, target_reference
from ttrl.generators import (CHECK_NAME, DEFAULT_VALUES, GENERATORS, MAX_GENERALISED_NUMERALS, NUMERIC_SCOPES,
                             Variant, change_inequality, drop_hypothesis, fix_variable, generalise,
                             instantiation_bridges, make_variant, specialise, split_conclusion, split_hypotheses)
from ttrl.llm_variants import llm_candidates
from ttrl.statement import join_statement, parse_goal_text
from ttrl.vetting import KIND_ORDER, Counts, elaborates, select, statement_safe, target_keys, vacuous


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
        reference = target_reference(target, statement)
        candidates.extend(llm_candidates(target, llm_endpoint, llm_model, llm_n, reference))
        return select(target, candidates, coq, max_variants, f"{target.name}_v", reference,
                      target_keys(target, statement, coq), counts)


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
        reference = target_reference(target, target_statement)
        candidates = []
        for text in dict.fromkeys(goal_texts):
            candidate = _closed_goal(target, text, coq, reference, "subgoal")
            if candidate is not None:
                candidates.append(candidate)
        return select(target, candidates, coq, None, name_prefix or f"{target.name}_sg", reference,
                      target_keys(target, target_statement, coq), counts)


class SubgoalTheorems:
    """`from_subgoals` as a `selfplay.subgoals.SubgoalMaker` (expert iteration's subgoal problems):
    (statement, the goal it closes) pairs, on one CoqEnv started on first use and closed by
    `close()` (after each round's harvest) or after a prover error, so the next call starts clean."""

    def __init__(self, timeout: float = 10.0) -> None:
        self.timeout = timeout
        self._env: ProofEnv | None = None

    def __call__(self, target: Theorem, goal_texts: list[str], name_prefix: str) -> list[tuple[Theorem, str]]:
        from lean_interface.coq.env import CoqEnv

        if self._env is None:
            self._env = CoqEnv(timeout=self.timeout)
        try:
            return [(v.theorem, v.goal) for v in from_subgoals(target, goal_texts, self._env, name_prefix=name_prefix)]
        except EnvError:
            self.close()
            raise

    def close(self) -> None:
        if self._env is not None:
            env, self._env = self._env, None
            env.close()


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
    if not statement_safe(probe.theorem.statement):
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
    """Variants the target's own goal reaches by a *bridge* tactic (`ttrl.bridges.instantiation_bridges`:
    instances of a universally quantified hypothesis added to the context).
    Each bridge is run in Coq after intros on the target's root goal; the one goal it leaves is
    closed over its hypotheses (like a subgoal variant) and elaborated, deduplicated and ranked by
    `select`; the best `max_variants` are named `<target>_b1`, … and carry the bridge (with
    intros in front) and the root goal it starts from, so a proof of the variant proves the target
    (`ttrl.lemmas.record_lemma`). [] when the target cannot be analysed or has no such hypothesis."""
    with given_or_new(env) as coq:
        statement = faithful_statement(target, coq)
        if statement is None or max_variants <= 0:
            return []
        reference = target_reference(target, statement)
        root = coq.start(target)
        start = intro_goal(coq, root)
        candidates = []
        for tactic, description in instantiation_bridges(statement):
            result = coq.apply(start, tactic)
            if not result.ok or len(result.goals) != 1:
                continue
            candidate = _closed_goal(target, result.goals[0].text, coq, reference, "instantiate", description)
            if candidate is not None:
                candidates.append(dataclasses.replace(candidate, bridge=f"{INTRO_TACTIC}; {tactic}", origin=root.text))
        return select(target, candidates, coq, max_variants, f"{target.name}_b", reference,
                      target_keys(target, statement, coq), counts)


# ---- language model (optional) ------------------------------------------------------------------

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
        reference = target_reference(target, statement)
        candidates = llm_candidates(target, endpoint, model, n, reference, timeout)
        return select(target, candidates, coq, None, f"{target.name}_lm", reference,
                      target_keys(target, statement, coq), counts)


__all__ = ["CHECK_NAME", "DEFAULT_VALUES", "GENERATORS", "INTRO_TACTIC", "KIND_ORDER",
           "MAX_GENERALISED_NUMERALS", "NUMERIC_SCOPES", "PROP_CHECK", "Counts", "SubgoalTheorems", "Variant", "analyse",
           "bridged_variants",
           "change_inequality", "drop_hypothesis", "elaborates", "faithful_statement", "fix_variable", "from_subgoals",
           "generalise", "generate_variants", "llm_variants", "make_variant", "select", "specialise",
           "split_conclusion", "split_hypotheses", "vacuous", "variant_theorems"]
