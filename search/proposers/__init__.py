"""Where the search's tactics come from: proposers (docs/ARCHITECTURE.md §Proposers).

A proposer (`base.Proposer`) reads a goal's own text (`base.GoalContext`) and writes complete Coq
tactic sentences. Two sets:

  classic    the automation families the fixed list has offered since issue #40 (`search.automation`:
             square hints for nra, rewriting with function equations, case splits, psatz), wrapped as
             proposers: their arguments come from the goal's text alone.
  computed   the competition shapes whose arguments are computed (issue #74): a value to assert, a
             witness, coefficients of a linear combination (sympy, `cas`), the points to instantiate a
             `forall` hypothesis at, the bounds of a case split, denominators whose `<> 0` must be
             discharged, definitions to unfold, sqrt/ln/exp rewrites, residues, distinct roots, numbers
             moved past unary nat, complex numbers by components.

`proposer_set(spec)` names what a search offers: "classic" (the default until the computed set
is measured better in one eval run), "all" (classic + computed), "none", or a comma-separated
list of proposer names. The config key is `proposers` (alphaprover/policy_config.py); an eval
label picks its own with `+classic` / `+proposers` so old and new are arms of one run. Every
proposer's tactic is ordinary tactic text: the guard, `verify`, coqchk and the axiom audit treat
it as they treat a policy sample.
"""

from __future__ import annotations

import functools
import importlib

from search.automation import FAMILIES, Family, classic_family_of
from search.proposers.base import GoalContext, Proposer, ProposerSkipped, goal_context

#: modules of the computed proposers, each exporting `PROPOSERS` (in the order their tactics are listed)
COMPUTED_MODULES: tuple[str, ...] = (
    "solve_assert", "linear_combination", "witnesses", "field_side", "positivity", "instantiate", "unfold_defs",
    "interval_cases", "residues", "transcendental", "distinct_roots", "nat_numbers", "complex_parts", "induction",
    "floor_values",
)
#: computed proposers written after the last measured run: offered by the set "pending" (all of them
#: plus these; eval label `+pending`) or by name (`proposers=all,squares`) until an eval run measures
#: them, so a run in progress keeps one meaning of "all"; then they move to COMPUTED_MODULES
PENDING_MODULES: tuple[str, ...] = ("squares",)
#: the named sets `proposer_set` accepts besides a list of names
SET_NAMES = ("classic", "all", "pending", "none")


def _classic(family: Family) -> Proposer:
    return Proposer(family.name, family.seconds, lambda context, f=family: f.generate(context.facts))


#: today's automation families as proposers (search/automation.py documents and measures them)
CLASSIC: tuple[Proposer, ...] = tuple(_classic(family) for family in FAMILIES)


@functools.cache
def computed_proposers() -> tuple[Proposer, ...]:
    """Every computed proposer, module by module (imported on first use: sympy loads only when a
    search asks for them)."""
    found: list[Proposer] = []
    for module in COMPUTED_MODULES:
        found.extend(importlib.import_module(f"search.proposers.{module}").PROPOSERS)
    return tuple(found)


def all_proposers() -> tuple[Proposer, ...]:
    return (*CLASSIC, *computed_proposers())


@functools.cache
def pending_proposers() -> tuple[Proposer, ...]:
    """The proposers of `PENDING_MODULES`: named explicitly, never part of "all"."""
    modules = (importlib.import_module(f"search.proposers.{module}") for module in PENDING_MODULES)
    return tuple(p for module in modules for p in module.PROPOSERS)


def proposer_set(spec: str) -> tuple[Proposer, ...]:
    """The proposers a search offers for `spec` ("classic" | "all" | "pending" | "none" | "name,name,…",
    where a list may hold the set names too: `all,squares`); a one-line ValueError for an unknown name."""
    spec = (spec or "classic").strip()
    if spec == "classic":
        return CLASSIC
    if spec == "none":
        return ()
    everything = all_proposers()
    if spec == "all":
        return everything
    by_name = {p.name: p for p in (*everything, *pending_proposers())}
    sets = {"classic": [p.name for p in CLASSIC], "all": [p.name for p in everything], "none": [],
            "pending": [p.name for p in (*everything, *pending_proposers())]}
    wanted = [n for name in spec.split(",") if name.strip() for n in sets.get(name.strip(), [name.strip()])]
    unknown = [name for name in wanted if name not in by_name]
    if unknown:
        raise ValueError(f"unknown proposer(s) {', '.join(unknown)} (choose from {', '.join(SET_NAMES)} "
                         f"or names: {', '.join(by_name)})")
    return tuple(by_name[name] for name in dict.fromkeys(wanted))


def proposer_of(tactic: str) -> str | None:
    """The name of the computed proposer whose marker recognises `tactic` (whoever proposed it: the
    list or the policy), else None: what reports and the cost model call its family."""
    for proposer in (*computed_proposers(), *pending_proposers()):
        if proposer.marker is not None and proposer.marker.search(tactic):
            return proposer.name
    return None


@functools.lru_cache(maxsize=1 << 16)
def family_of(tactic: str) -> str:
    """The computed proposer or classic automation family a tactic belongs to, or "tactic" for a
    plain proof step: what solve/eval reports, the tree view and the cost model call its family.
    Cached: the cost model asks it of every pending tactic."""
    computed = proposer_of(tactic)
    return computed if computed is not None else classic_family_of(tactic)


@functools.cache
def _time_limits() -> dict[str, int]:
    return {proposer.name: proposer.seconds for proposer in (*all_proposers(), *pending_proposers())}


def time_limit(name: str) -> int:
    """A family's or proposer's Ltac time limit by name (0 when unknown: a plain tactic)."""
    return _time_limits().get(name, 0)


__all__ = ["CLASSIC", "COMPUTED_MODULES", "PENDING_MODULES", "GoalContext", "Proposer", "ProposerSkipped",
           "SET_NAMES", "all_proposers", "computed_proposers", "family_of", "goal_context", "pending_proposers",
           "proposer_of", "proposer_set", "time_limit"]
