"""Coq declarations and binders as pieces: the one parser of `Theorem name BINDERS : TYPE.`.

Negation (`selfplay.negation`), library lemmas (`selfplay.library_lemmas`), the sources' statement
keys, ttrl's reading of a target's or a model's statement, goal facts and ttrl's bridges all take
statements and `forall` binders apart here, over the one scanner of `lean_interface.coq.text`
(docs/ARCHITECTURE.md §Parts: the bottom layer, importable by every package).

`parse_declaration` is deliberately narrow: one declaration sentence, a keyword from `KEYWORDS`,
a plain identifier, binders, then the first top-level `:` (outside `()`, `[]`, `{}`) separates the
binders from the type. Comments are dropped; strings are respected. Attributes (`#[...]`),
`Local` / `Global` prefixes, a `:=` body (a top-level `:=` that no top-level `let` opened) and
mutual `with` declarations are refused with a one-line `DeclarationError` rather than guessed at:
a statement read wrongly would be a different problem (a wrong negation wastes search on a
statement that is not the problem's negation).

`parse_binders` reads a binder list (`(x y : R) {n : nat}`, `x y : R`, untyped `x y`) into
(name, type) pairs; `forall_parts`, `forall_binders` and `leading_binders` read a proposition's
leading `forall` (or `∀`) binders the way Coq prints them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lean_interface.coq.text import (OPEN, SentenceError, Token, check_brackets, iter_tokens, split_sentences,
                                     strip_comments, top_level, top_level_contains)

#: The declaration keywords a statement may start with (all mean the same to Coq).
KEYWORDS: tuple[str, ...] = ("Theorem", "Lemma", "Example", "Fact", "Corollary", "Proposition", "Remark")
#: a declaration's keyword and name (group 1 and 2); `\b` so that it can be searched for in free text
DECLARATION_HEAD = re.compile(r"\b(" + "|".join(KEYWORDS) + r")\s+([^\W\d][\w']*)")
_IDENT = re.compile(r"[^\W\d][\w']*")
_BODY = "a top-level ':=' (the statement has a body)"


class DeclarationError(ValueError):
    """`parse_declaration` refuses a statement; `snippet` is its start on one line, `reason` why."""

    def __init__(self, statement: str, reason: str) -> None:
        self.snippet = " ".join(statement.split())[:80]
        self.reason = reason
        super().__init__(f"cannot parse {self.snippet!r}: {reason}")


@dataclass(frozen=True)
class Declaration:
    """A parsed Coq declaration `KEYWORD name BINDERS : TYPE.` (comments removed).

    Fields:
      keyword: `Theorem`, `Lemma`, ... (one of `KEYWORDS`).
      name:    the declared identifier.
      binders: the text between the name and the separating colon, stripped ("" when none),
               e.g. `(x y : nat) (h₀ : x < y)`; usable verbatim after `forall`.
      type:    the statement's type, stripped, without the final `.`.
    """

    keyword: str
    name: str
    binders: str
    type: str

    def closed_type(self) -> str:
        """The type with the binders turned into a `forall`: what the declaration claims."""
        return closed(self.binders, self.type)


def closed(binders: str, type_: str) -> str:
    """`forall BINDERS, TYPE`, or just TYPE when there are no binders."""
    return f"forall {binders}, {type_}" if binders else type_


def parse_declaration(statement: str) -> Declaration:
    """Split one Coq declaration sentence into keyword, name, binders and type.

    Raises `DeclarationError` (a ValueError, one line) when `statement` is not a single
    `KEYWORD name BINDERS : TYPE.` sentence.
    """
    try:
        sentences = split_sentences(statement)
        text = strip_comments(statement).strip()
    except SentenceError as error:
        raise DeclarationError(statement, str(error)) from None
    if len(sentences) != 1:
        raise DeclarationError(statement, f"expected one sentence, found {len(sentences)}")
    if not text.endswith("."):
        raise DeclarationError(statement, "the sentence does not end with '.'")
    text = text[:-1].rstrip()
    head = DECLARATION_HEAD.match(text)
    if not head:
        raise DeclarationError(statement, f"it does not start with one of {', '.join(KEYWORDS)} and a name")
    rest = text[head.end():]
    if rest and not (rest[0].isspace() or rest[0] in "([{`:"):
        raise DeclarationError(statement, f"unexpected {rest[0]!r} after the name")
    try:
        check_brackets(rest)
        colon = _separator(rest)
        binders, type_ = rest[:colon].strip(), rest[colon + 1:].strip()
        _check_binders(binders)
        _check_no_body(type_)
    except ValueError as error:
        raise DeclarationError(statement, str(error)) from None
    if not type_:
        raise DeclarationError(statement, "empty type")
    words = {token.text for token in iter_tokens(type_) if token.kind == "word"}
    if "with" in words and "match" not in words:
        raise DeclarationError(statement, "mutual 'with' declarations are not supported")
    return Declaration(head.group(1), head.group(2), binders, type_)


def _separator(rest: str) -> int:
    """Index of the first top-level `:` of `rest` that is not `:=` (raises on a `:=` before it)."""
    for token in top_level(rest):
        at = token.text.find(":") if token.kind == "symbol" else -1
        if at >= 0:
            if rest.startswith(":=", token.start + at):
                raise ValueError(_BODY)
            return token.start + at
    raise ValueError("no ':' separating the binders from the type")


def _check_binders(binders: str) -> None:
    """Between bracket groups, binders are bare identifiers (`x y`), `_`, or the generalisation
    marks `` ` `` and `!`; anything else means the colon we found is not the separator."""
    for token in top_level(binders):
        plain = token.kind == "word" and _IDENT.fullmatch(token.text)
        if not (plain or token.kind in ("open", "close") or set(token.text) <= {"`", "!"}):
            raise ValueError(f"unexpected {token.text!r} among the binders")


def _check_no_body(type_: str) -> None:
    """Raise on a top-level `:=` in the type that no top-level `let` opened (a proof term body)."""
    open_lets = 0
    for token in top_level(type_):
        if token.kind == "word" and token.text == "let":
            open_lets += 1
        elif token.kind == "symbol":
            for _ in range(token.text.count(":=")):
                if not open_lets:
                    raise ValueError(_BODY)
                open_lets -= 1


# ---- binders -----------------------------------------------------------------------------------

def _typed_names(text: str, tops: list[Token]) -> list[tuple[str, str]] | None:
    """`x y : T` (the colon the first top-level `:`) → [(x, T), (y, T)]; bare `x y` → [(x, ""), …]."""
    colon = next((t for t in tops if t.text == ":"), None)
    names = tops if colon is None else [t for t in tops if t.start < colon.start]
    if not names or not all(t.kind == "word" and _IDENT.fullmatch(t.text) for t in names):
        return None
    type_ = "" if colon is None else text[colon.end:].strip()
    if colon is not None and not type_:
        return None
    return [(t.text, type_) for t in names]


def parse_binders(text: str) -> list[tuple[str, str]] | None:
    """(name, type) for every name a binder list binds, in order; type "" for an untyped name.

    Reads `(x y : R) {n : nat} [H : P]` (a group's type may hold brackets of its own; a
    generalisation mark `` ` `` or `!` before a group is passed over), `x y : R` (one type for all)
    and untyped `x (y : R) z`. None for anything else (patterns `'(a, b)`, `(x := v)`, stray text),
    or an unterminated comment or string.
    """
    try:
        tops = top_level(text)
        first = next((t for t in tops if t.kind == "open" or t.text == ":"), None)
        if first is None or first.text == ":":
            return _typed_names(text, tops)
        found: list[tuple[str, str]] = []
        for index, token in enumerate(tops):
            if token.kind == "open":
                close = tops[index + 1] if index + 1 < len(tops) else None
                if close is None or close.text != OPEN[token.text]:
                    return None
                inner = text[token.end:close.start]
                group = _typed_names(inner, top_level(inner))
                if group is None or not group[0][1] or top_level_contains(group[0][1], ":="):  # (x : T := v)
                    return None
                found += group
            elif token.kind == "word" and _IDENT.fullmatch(token.text):
                found.append((token.text, ""))
            elif not (token.kind == "close" or set(token.text) <= {"`", "!"}):
                return None
        return found
    except SentenceError:
        return None


def forall_parts(text: str) -> tuple[str, str] | None:
    """`forall BINDERS, BODY` (or `∀`) → (BINDERS, BODY), split at the first top-level comma;
    None when `text` does not start with one (or an unterminated comment or string comes first)."""
    text = text.strip()
    try:
        scan = iter_tokens(text)
        first = next(scan, None)
        if first is None or first.text not in ("forall", "∀"):
            return None
        comma = next((t for t in scan if t.text == "," and t.depth == 0), None)
    except SentenceError:
        return None
    if comma is None:
        return None
    return text[first.end:comma.start].strip(), text[comma.end:].strip()


def forall_binders(text: str) -> tuple[list[tuple[str, str]], str] | None:
    """`forall (a b : T) (c : U), body` or `forall n m : nat, body` → ([(a, T), (b, T), (c, U)],
    body); None when `text` is not a leading `forall` whose binders all have a type."""
    parts = forall_parts(text)
    if parts is None:
        return None
    binders = parse_binders(parts[0])
    if not binders or not all(type_ for _, type_ in binders):
        return None
    return binders, parts[1]


def leading_binders(text: str) -> list[tuple[str, str]]:
    """(name, type) for the typed binders of the leading `forall` (or `∀`) chain of a proposition:
    `forall (x : R) (n : nat), forall k : Z, x = 1 -> …` gives x, n and k; the chain stops at the
    first part that is not a `forall` (here the arrow). A `forall` whose binders do not parse adds
    nothing and the chain goes on after its comma."""
    found: list[tuple[str, str]] = []
    while (parts := forall_parts(text)) is not None:
        found += [(name, type_) for name, type_ in parse_binders(parts[0]) or [] if type_]
        text = parts[1]
    return found


__all__ = ["DECLARATION_HEAD", "KEYWORDS", "Declaration", "DeclarationError", "closed", "forall_binders",
           "forall_parts", "leading_binders", "parse_binders", "parse_declaration"]
