"""Split Coq source into sentences exactly where coqtop ends them.

coqtop reads one sentence per prompt and waits forever on an unterminated sentence, comment or
string, so the backend must know sentence ends precisely. A sentence ends at a `.` that is
followed by whitespace or the end of input, outside comments `(* … *)` (which nest) and strings
`"…"` (with `""` as an escaped quote); `..` and qualified names (`Nat.add`) are not ends.
Bullets (`-`, `+`, `*`, repeated) and braces (`{`, `}`, `2: {`) are sentences of their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BULLET = re.compile(r"(-+|\++|\*+)(?=\s|$)")
_SELECTOR_BRACE = re.compile(r"(\d+|\[\s*[\w']+\s*\])\s*:\s*\{")


class SentenceError(ValueError):
    """The text has an unterminated comment, string or sentence."""


@dataclass(frozen=True)
class Sentence:
    """One sentence: its text (comments kept), and its character offset in the source."""

    text: str
    start: int


def strip_comments(text: str) -> str:
    """`text` without its (nested) comments, strings kept intact. Raises on an unterminated one."""
    out: list[str] = []
    i, n, depth = 0, len(text), 0
    while i < n:
        if depth == 0 and text[i] == '"':
            j = string_end(text, i)
            out.append(text[i:j])
            i = j
        elif text.startswith("(*", i):
            depth += 1
            i += 2
        elif depth and text.startswith("*)", i):
            depth -= 1
            i += 2
            if depth == 0:
                out.append(" ")
        else:
            if depth == 0:
                out.append(text[i])
            i += 1
    if depth:
        raise SentenceError("unterminated comment")
    return "".join(out)


def string_end(text: str, start: int) -> int:
    """Index just past the string literal opening at `start` (`""` escapes a quote)."""
    i = start + 1
    while True:
        j = text.find('"', i)
        if j < 0:
            raise SentenceError("unterminated string")
        if text.startswith('""', j):
            i = j + 2
            continue
        return j + 1


def split_sentences(text: str) -> list[Sentence]:
    """All sentences of `text`, in order. Trailing whitespace/comments are ignored; a trailing
    non-empty fragment without its final `.` raises `SentenceError` (coqtop would hang on it)."""
    sentences: list[Sentence] = []
    i, n = 0, len(text)
    start: int | None = None
    depth = 0
    while i < n:
        ch = text[i]
        if depth == 0 and ch == '"':
            if start is None:
                start = i
            i = string_end(text, i)
            continue
        if text.startswith("(*", i):
            depth += 1
            i += 2
            continue
        if depth:
            if text.startswith("*)", i):
                depth -= 1
                i += 2
            else:
                i += 1
            continue
        if start is None:
            if ch.isspace():
                i += 1
                continue
            start = i
            # bullets and braces are whole sentences at the start of a sentence
            bullet = _BULLET.match(text, i)
            if bullet:
                sentences.append(Sentence(bullet.group(0), i))
                i, start = bullet.end(), None
                continue
            brace = _SELECTOR_BRACE.match(text, i)
            if (ch == "{" and not text.startswith("{|", i)) or ch == "}" or brace:
                end = brace.end() if brace else i + 1
                sentences.append(Sentence(text[i:end], i))
                i, start = end, None
                continue
        if ch == "." and (i + 1 == n or text[i + 1].isspace()) and not text.startswith("..", i - 1):
            sentences.append(Sentence(text[start : i + 1], start))
            start = None
        i += 1
    if depth:
        raise SentenceError("unterminated comment")
    if start is not None and text[start:].strip():
        raise SentenceError(f"unterminated sentence: {text[start:].strip()[:60]!r}")
    return sentences


def sentence_texts(text: str) -> list[str]:
    """Just the texts of `split_sentences(text)`."""
    return [s.text for s in split_sentences(text)]


def is_focus_sentence(sentence: str) -> bool:
    """Bullets and braces: they move focus and run no tactic."""
    s = sentence.strip()
    return bool(_BULLET.fullmatch(s) or s in ("{", "}") or _SELECTOR_BRACE.fullmatch(s))
