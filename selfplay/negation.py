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

Parsing is deliberately narrow: one declaration sentence, a keyword from `KEYWORDS`, a plain
identifier, binders, then the first top-level `:` (outside `()`, `[]`, `{}`) separates the binders
from the type. Comments are dropped; strings are respected. Attributes (`#[...]`), `Local` /
`Global` prefixes, a `:=` body and mutual `with` declarations are refused with a one-line
ValueError rather than guessed at: a wrong negation would waste search on a statement that is not
the problem's negation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from lean_interface.api import Theorem
from lean_interface.coq.text import SentenceError, split_sentences, string_end, strip_comments

#: The declaration keywords a statement may start with (all mean the same to Coq).
KEYWORDS: tuple[str, ...] = ("Theorem", "Lemma", "Example", "Fact", "Corollary", "Proposition", "Remark")

#: Appended to the theorem's name to name its negation.
NEGATED_SUFFIX = "_neg"

_HEAD = re.compile(r"(" + "|".join(KEYWORDS) + r")\s+([^\W\d][\w']*)")
_IDENT = re.compile(r"[^\W\d][\w']*")
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")", "]", "}"}
_LET = re.compile(r"let(?![\w'])")
_IDENT_CHAR = re.compile(r"[\w']")


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
        return f"forall {self.binders}, {self.type}" if self.binders else self.type


def _fail(statement: str, reason: str) -> ValueError:
    snippet = " ".join(statement.split())[:80]
    return ValueError(f"cannot negate {snippet!r}: {reason}")


def _scan(text: str, start: int, stop_at_colon: bool) -> int:
    """Scan `text` from `start` keeping bracket depth and skipping strings.

    With `stop_at_colon` (the binders), return the index of the first top-level `:` that is not
    `:=`, and raise on a top-level `:=` or when there is none. Without it (the type), scan to the
    end and return `len(text)`, raising on a top-level `:=` that no top-level `let` opened (a
    proof term given as the body). Raises ValueError on unbalanced or mismatched brackets.
    """
    stack: list[str] = []
    open_lets = 0
    i, n = start, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            i = string_end(text, i)
            continue
        if ch in _OPEN:
            stack.append(_OPEN[ch])
        elif ch in _CLOSE:
            if not stack or stack.pop() != ch:
                raise ValueError(f"unbalanced {ch!r}")
        elif not stack and _LET.match(text, i) and (i == 0 or not _IDENT_CHAR.match(text[i - 1])):
            open_lets += 1
        elif ch == ":" and not stack:
            if text.startswith(":=", i):
                if stop_at_colon or not open_lets:
                    raise ValueError("a top-level ':=' (the statement has a body)")
                open_lets -= 1
                i += 2
                continue
            if stop_at_colon:
                return i
        i += 1
    if stack:
        raise ValueError(f"unclosed bracket, expected {stack[-1]!r}")
    if stop_at_colon:
        raise ValueError("no ':' separating the binders from the type")
    return n


def _check_binders(binders: str) -> None:
    """Between bracket groups, binders are bare identifiers (`x y`), `_`, or the generalisation
    marks `` ` `` and `!`; anything else means the colon we found is not the separator."""
    depth, outside = 0, []
    for ch in binders:
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif depth == 0:
            outside.append(ch)
    for token in "".join(outside).replace("`", " ").replace("!", " ").split():
        if not _IDENT.fullmatch(token):
            raise ValueError(f"unexpected {token!r} among the binders")


def parse_declaration(statement: str) -> Declaration:
    """Split one Coq declaration sentence into keyword, name, binders and type.

    Raises ValueError (one line) when `statement` is not a single `KEYWORD name BINDERS : TYPE.`
    sentence.
    """
    try:
        sentences = split_sentences(statement)
        text = strip_comments(statement).strip()
    except SentenceError as error:
        raise _fail(statement, str(error)) from None
    if len(sentences) != 1:
        raise _fail(statement, f"expected one sentence, found {len(sentences)}")
    if not text.endswith("."):
        raise _fail(statement, "the sentence does not end with '.'")
    text = text[:-1].rstrip()
    head = _HEAD.match(text)
    if not head:
        raise _fail(statement, f"it does not start with one of {', '.join(KEYWORDS)} and a name")
    after_name = head.end()
    if after_name < len(text) and not (text[after_name].isspace() or text[after_name] in "([{`:"):
        raise _fail(statement, f"unexpected {text[after_name]!r} after the name")
    try:
        colon = _scan(text, after_name, stop_at_colon=True)
        binders = text[after_name:colon].strip()
        _check_binders(binders)
        type_ = text[colon + 1:].strip()
        _scan(type_, 0, stop_at_colon=False)
    except (ValueError, SentenceError) as error:
        raise _fail(statement, str(error)) from None
    if not type_:
        raise _fail(statement, "empty type")
    if re.search(r"(?<![\w'])with(?![\w'])", type_) and not re.search(r"(?<![\w'])match(?![\w'])", type_):
        raise _fail(statement, "mutual 'with' declarations are not supported")
    return Declaration(head.group(1), head.group(2), binders, type_)


def negated_statement(statement: str, suffix: str = NEGATED_SUFFIX) -> tuple[str, str]:
    """The negated name and statement `Theorem <name><suffix> : ~ (<closed type>).` of a Coq
    declaration sentence. Raises ValueError (one line) when `parse_declaration` refuses it."""
    return _negation(parse_declaration(statement), suffix)


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
    declaration = parse_declaration(theorem.statement)
    if declaration.name != theorem.name:
        raise ValueError(f"theorem {theorem.name!r} declares {declaration.name!r} in its statement")
    name, statement = _negation(declaration, suffix)
    return replace(theorem, name=name, statement=statement)
