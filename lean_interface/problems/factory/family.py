"""What a family is, what it makes, and which of its items are held out.

A *family* is a named, seeded generator of competition-style statements on one topic and domain.
`family.draft(seed)` is a pure function of the seed (its `random.Random` is seeded with
`"<family>/<seed>"`, stable across runs and Python versions), and every draft is TRUE by
construction: the generator picks the answer first (the solution of a system, the roots of a
quadratic, the value of a sum) and writes the statement around it, computing with exact
rationals. Each draft carries a proof script for Coq 8.16 under the project prelude, so truth is
checkable (tests/integration/test_factory.py proves a sample of every family).

The held-out slice (`split_of`): whole families (`HELDOUT_FAMILIES`) and, in every other family,
the seed block from `HELDOUT_SEED_START` on. It depends only on (family, seed), so it does not move
when more seeds are drawn, and nothing trained on it may be reported as held out.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from lean_interface.api import Theorem
from lean_interface.problems.factory.render import HEADERS, signature
from lean_interface.problems.factory.surface import (forall_statement, minif2f_header, minif2f_proof,
                                                      uses_minif2f_surface)

#: families kept whole for evaluation: never trained on
HELDOUT_FAMILIES: frozenset[str] = frozenset({"fe_symmetric", "sum_poly_induction"})
#: in the other families, seeds from here on are held out (train seeds are 0 … HELDOUT_SEED_START-1)
HELDOUT_SEED_START = 90_000
TRAIN, HELDOUT = "train", "heldout"


@dataclass(frozen=True)
class Draft:
    """A statement before Coq has seen it: the binders, hypotheses and conclusion of a
    binder-style theorem, a proof script (tactics separated by sentences) that proves it, and the
    local definitions the statement uses (`Definition logb (a x : R) : R := ln x / ln a.`, as 25
    miniF2F-rocq files have one), which go after the header in both renderings."""

    binders: tuple[tuple[str, str], ...]
    hypotheses: tuple[str, ...]
    conclusion: str
    proof: str
    definitions: tuple[str, ...] = ()

    def signature(self) -> str:
        return signature(self.binders, self.hypotheses, self.conclusion)


@dataclass(frozen=True)
class Family:
    """A named, seeded statement generator.

    Fields:
      name:   the family label (in every item, and in theorem names `fam_<name>_<seed>`).
      topic:  the competition topic it drills, for reports.
      domain: a key of `render.HEADERS`: which header every statement is stated under.
      seeds:  how many train seeds a default build draws (0 … seeds-1); sized to the family's
              parameter space so most draws are distinct.
      make:   the generator: a seeded Random → a Draft.
    """

    name: str
    topic: str
    domain: str
    seeds: int
    make: Callable[[random.Random], Draft]

    def __post_init__(self) -> None:
        if self.domain not in HEADERS:
            raise ValueError(f"family {self.name}: unknown domain {self.domain!r}")
        if not 0 < self.seeds <= HELDOUT_SEED_START:
            raise ValueError(f"family {self.name}: seeds must be in 1..{HELDOUT_SEED_START}")

    @property
    def header(self) -> str:
        return HEADERS[self.domain]

    def draft(self, seed: int) -> Draft:
        if seed < 0:
            raise ValueError(f"family {self.name}: seeds are non-negative, not {seed}")
        return self.make(random.Random(f"{self.name}/{seed}"))


@dataclass(frozen=True)
class Item:
    """One factory problem: a Coq theorem labelled by family, seed and split (a JSONL line)."""

    name: str
    family: str
    seed: int
    split: str
    header: str
    statement: str

    def theorem(self) -> Theorem:
        return Theorem(self.name, self.header, self.statement)

    def plain(self) -> Item:
        """Only the item's own fields (a Candidate without its proof)."""
        return Item(self.name, self.family, self.seed, self.split, self.header, self.statement)


#: the fields of one JSONL item, in order
ITEM_FIELDS = tuple(Item.__dataclass_fields__)


@dataclass(frozen=True)
class Candidate(Item):
    """A generated item with the proof script its family wrote for it, not yet checked by Coq."""

    proof: str = ""


def theorem_name(family: str, seed: int) -> str:
    return f"fam_{family}_{seed:05d}"


def split_of(family: str, seed: int) -> str:
    """`heldout` for a held-out family or a seed from HELDOUT_SEED_START on, else `train`."""
    return HELDOUT if family in HELDOUT_FAMILIES or seed >= HELDOUT_SEED_START else TRAIN


def candidate(family: Family, seed: int) -> Candidate:
    """Family `family`'s statement for `seed`, with its name, split and header: the family's
    binder form (`Theorem n (x : R) (h0 : P) : C.` under the family's header), or for a share of
    the seeds miniF2F's form (`Theorem n : forall x : R, P -> C.` under a train-split header, the
    script opening with `intros.`; `surface`). A statement with neither binders nor hypotheses
    reads the same either way and keeps the binder form."""
    draft = family.draft(seed)
    name = theorem_name(family.name, seed)
    split = split_of(family.name, seed)
    if (draft.binders or draft.hypotheses) and uses_minif2f_surface(family.name, seed):
        statement = forall_statement(draft.binders, draft.hypotheses, draft.conclusion)
        header = with_definitions(minif2f_header(family.domain, family.name, seed), draft.definitions)
        return Candidate(name, family.name, seed, split, header,
                         f"Theorem {name} : {statement}.", minif2f_proof(draft.proof, len(draft.hypotheses)))
    return Candidate(name, family.name, seed, split, with_definitions(family.header, draft.definitions),
                     f"Theorem {name} {draft.signature()}.", draft.proof)


def with_definitions(header: str, definitions: tuple[str, ...]) -> str:
    """The header, then the draft's local definitions (a blank line between, as miniF2F files set them)."""
    return "\n\n".join((header, *definitions)) if definitions else header


def nonzero(rng: random.Random, low: int, high: int) -> int:
    """A uniform integer in [low, high] other than 0."""
    while True:
        value = rng.randint(low, high)
        if value:
            return value
