"""Build Coq `Theorem`s from a bare proposition or from a `.v` problem file.

A problem file (miniF2F style) holds imports and definitions, then one theorem declaration, then
`Proof.` and possibly `Admitted.`: the header is everything before the declaration and the
statement is the declaration itself up to its sentence end.
"""

from __future__ import annotations

import re
from pathlib import Path

from lean_interface.api import EnvError, Theorem
from lean_interface.coq.declaration import KEYWORDS
from lean_interface.coq.text import SentenceError, split_sentences, strip_comments

DEFAULT_HEADER = "Require Import Arith Lia."
_DECLARATION = re.compile(r"^\s*(?:#\[[^\]]*\]\s*)?(?:Local\s+|Global\s+)?(" + "|".join(KEYWORDS) + r")\s+([\w']+)")
_IDENT = re.compile(r"^[A-Za-z_][\w']*$")


def theorem_from_proposition(prop: str, name: str = "user_theorem", header: str = DEFAULT_HEADER) -> Theorem:
    """`Theorem <name> : <prop>.` with `header`; raises EnvError on a malformed proposition."""
    text = " ".join(prop.split()).rstrip()
    if text.endswith("."):
        text = text[:-1].rstrip()
    if not text:
        raise EnvError("empty statement")
    if not _IDENT.match(name):
        raise EnvError(f"bad theorem name {name!r}")
    statement = f"Theorem {name} : {text}."
    try:
        if len(split_sentences(statement)) != 1:
            raise EnvError(f"the statement must be one proposition, not several sentences: {prop!r}")
    except SentenceError as error:
        raise EnvError(f"malformed statement: {error}") from None
    return Theorem(name=name, header=header, statement=statement, language="coq")


def theorem_from_text(text: str, origin: str = "<text>") -> Theorem:
    """The first theorem declaration in Coq source `text`, with everything before it as header."""
    try:
        sentences = split_sentences(text)
    except SentenceError as error:
        raise EnvError(f"{origin}: {error}") from None
    for index, sentence in enumerate(sentences):
        match = _DECLARATION.match(strip_comments(sentence.text))
        if match:
            header = text[: sentence.start].rstrip()
            return Theorem(name=match.group(2), header=header, statement=sentence.text.strip(), language="coq")
    raise EnvError(f"{origin}: no Theorem/Lemma declaration found")


def theorem_from_file(path: str | Path) -> Theorem:
    """The theorem stated in a `.v` file; EnvError (one line) when unreadable or absent."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise EnvError(f"cannot read {file}: {error.__class__.__name__}") from None
    return theorem_from_text(text, str(file))
