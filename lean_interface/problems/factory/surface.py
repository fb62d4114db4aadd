"""miniF2F's surface for a share of the factory's items (docs/ARCHITECTURE.md §The problem factory).

Why: about two thirds of miniF2F-rocq statements read `Theorem n : forall x y : R, P -> Q -> C.`
— the root goal is a `forall` in an empty context, and after `intros` the hypotheses are Coq's
own names `H`, `H0`, `H1`, … — under a handful of headers (`Require Import Reals.` +
`Open Scope R_scope.`, `Require Import Arith.`, …). A factory that only ever writes
`Theorem n (x y : R) (h0 : P) (h1 : Q) : C.` under four fixed headers trains a policy that has
never seen the first goal of a competition problem, nor its hypothesis names.

So every family renders a share (`MINIF2F_SHARE`) of its items in that form, chosen by a hash
of (family, seed) — a pure function, so a rebuilt factory and the script replay agree. Such an
item's header is drawn from the headers the miniF2F-rocq *train* split uses for that domain
(`MINIF2F_HEADERS`; never the dev subset's), and its proof script starts with `intros.` and
names the hypotheses as Coq does after it. Headers that would change what a statement means
(one that opens no scope where the domain needs one) are not in the lists: the statement must
mean what the family computed.
"""

from __future__ import annotations

import hashlib
import random
import re
from typing import Sequence

from lean_interface.problems.factory.render import binder_groups

#: share of each family's items rendered as miniF2F states problems
MINIF2F_SHARE = 0.5

#: per domain, headers of the miniF2F-rocq train split that keep the domain's meaning (R needs
#: R_scope open, Z needs Z_scope, C needs C_scope; nat is Coq's default scope), each with how many train problems
#: use it: an item's header is drawn in those proportions
MINIF2F_HEADERS: dict[str, tuple[tuple[str, int], ...]] = {
    "R": (("Require Import Reals.\nOpen Scope R_scope.", 69),
          ("Require Import Coq.Reals.Reals.\nOpen Scope R_scope.", 4),
          ("Require Import Reals.\nRequire Import ZArith.\nOpen Scope R_scope.", 2)),
    "Z": (("Require Import ZArith.\n\nOpen Scope Z_scope.", 3),
          ("Require Import ZArith.\nOpen Scope Z_scope.", 3)),
    "nat": (("Require Import Arith.", 14),
            ("Require Import Nat.\nRequire Import Arith.", 5),
            ("Require Import Coq.Arith.Arith.", 4),
            ("Require Import Arith.\nRequire Import Nat.", 3)),
    "nat_list": (("Require Import Coq.Arith.Arith.\nRequire Import Coq.Lists.List.\nImport ListNotations.", 2),
                 ("Require Import Nat.\nRequire Import List.\nImport ListNotations.", 2)),
    "C": (("Require Import Reals.\nRequire Import Coquelicot.Coquelicot.\n\nOpen Scope C_scope.", 10),
          ("Require Import Reals.\nRequire Import Coquelicot.Coquelicot.\nRequire Import List.\n\nOpen Scope C_scope.", 2),
          ("Require Import Coquelicot.Coquelicot.\nOpen Scope C_scope.", 1)),
}

#: a hypothesis that must be parenthesised before `->` (a binder or arrow of its own would
#: otherwise swallow the rest of the statement)
_NEEDS_PARENTHESES = re.compile(r"\b(?:forall|exists|fun|let)\b|->|<->")


def uses_minif2f_surface(family: str, seed: int) -> bool:
    """Whether item (family, seed) is rendered in miniF2F's form: a stable hash, not Python's
    salted `hash`, so every build and every replay agree."""
    digest = hashlib.sha256(f"surface/{family}/{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64 < MINIF2F_SHARE


def minif2f_header(domain: str, family: str, seed: int) -> str:
    """One of the domain's train-split headers, drawn from (family, seed) in proportion to its use."""
    headers, counts = zip(*MINIF2F_HEADERS[domain])
    return random.Random(f"header/{family}/{seed}").choices(headers, weights=counts)[0]


def coq_hypothesis_names(count: int) -> list[str]:
    """The names `intros.` gives `count` anonymous hypotheses: H, H0, H1, …"""
    return ["H"] + [f"H{i}" for i in range(count - 1)] if count else []


def forall_statement(binders: Sequence[tuple[str, str]], hypotheses: Sequence[str], conclusion: str) -> str:
    """`forall x y : R, P -> Q -> C` (one binder type) or `forall (x : R) (n : nat), …`; the
    hypotheses chained by `->`, parenthesised where they bind or arrow themselves."""
    groups = binder_groups(binders)
    parts = [f"({h})" if _NEEDS_PARENTHESES.search(h) else h for h in hypotheses]
    body = " -> ".join([*parts, conclusion])
    if not groups:
        return body
    if len(groups) == 1:
        names, type_ = groups[0]
        return f"forall {' '.join(names)} : {type_}, {body}"
    return "forall " + " ".join(f"({' '.join(names)} : {type_})" for names, type_ in groups) + f", {body}"


def minif2f_proof(proof: str, hypotheses: int) -> str:
    """The family's script for the binder form, made a script for the forall form: `intros.`
    first, and the statement's hypotheses `h0 … h{n-1}` renamed to Coq's `H, H0, …` (names the
    script introduces itself, `h{n}` on, are its own and stay)."""
    names = coq_hypothesis_names(hypotheses)

    def rename(match: re.Match[str]) -> str:
        index = int(match.group(1))
        return names[index] if index < hypotheses else match.group(0)

    return "intros. " + re.sub(r"\bh(\d+)\b", rename, proof)
