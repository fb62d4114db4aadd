"""The negation of a Coq theorem statement, so self-play can try to disprove a problem.

AlphaProof attempts every undecided problem both ways: a verified proof of the negated statement
*disproves* the problem, and the matchmaker never offers it again (`selfplay.matchmaker`). The
negation must be the universally closed one: the binders written before the colon are part of the
claim, so

    Theorem name (x y : nat) (h₀ : x < y) : x + 1 <= y.

becomes

    Theorem name_neg : ~ (forall (x y : nat) (h₀ : x < y), x + 1 <= y).

and a statement without binders `Theorem name : T.` becomes `Theorem name_neg : ~ (T).`. The
header is kept unchanged, so the negation elaborates in exactly the environment (prelude + header,
docs/ARCHITECTURE.md §Tactic prelude) the original does; `tests/integration/test_negation.py`
checks that for every problem of `minif2f-rocq-train` whose statement elaborates.

The statement is taken apart by the one declaration parser, `lean_interface.coq.declaration.
parse_declaration`: it refuses (one-line ValueError) anything it would have to guess at —
attributes, `Local` / `Global` prefixes, a `:=` body, mutual `with` declarations — because a wrong
negation would waste search on a statement that is not the problem's negation.
"""

from __future__ import annotations

from dataclasses import replace

from lean_interface.api import Theorem
from lean_interface.coq.declaration import Declaration, DeclarationError, parse_declaration

#: Appended to the theorem's name to name its negation.
NEGATED_SUFFIX = "_neg"


def _parsed(statement: str) -> Declaration:
    """`parse_declaration(statement)`, its refusal worded as a refusal to negate."""
    try:
        return parse_declaration(statement)
    except DeclarationError as error:
        raise ValueError(f"cannot negate {error.snippet!r}: {error.reason}") from None


def negated_statement(statement: str, suffix: str = NEGATED_SUFFIX) -> tuple[str, str]:
    """The negated name and statement `Theorem <name><suffix> : ~ (<closed type>).` of a Coq
    declaration sentence. Raises ValueError (one line) when `parse_declaration` refuses it."""
    return _negation(_parsed(statement), suffix)


def _negation(declaration: Declaration, suffix: str) -> tuple[str, str]:
    name = declaration.name + suffix
    return name, f"Theorem {name} : ~ ({declaration.closed_type()})."


def negate(theorem: Theorem, suffix: str = NEGATED_SUFFIX) -> Theorem:
    """The universally closed negation of a Coq theorem, named `<name><suffix>`, same header.

    Raises ValueError (one line) for a non-Coq theorem, a statement `parse_declaration` refuses,
    or a statement that declares another name than `theorem.name`.
    """
    if theorem.language != "coq":
        raise ValueError(f"negate supports Coq theorems only, not {theorem.language!r} ({theorem.name})")
    declaration = _parsed(theorem.statement)
    if declaration.name != theorem.name:
        raise ValueError(f"theorem {theorem.name!r} declares {declaration.name!r} in its statement")
    name, statement = _negation(declaration, suffix)
    return replace(theorem, name=name, statement=statement)
