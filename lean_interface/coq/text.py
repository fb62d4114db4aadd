"""Coq text as the project reads it: comments, strings, brackets, tokens and sentence ends.

This is the one scanner over Coq source (docs/ARCHITECTURE.md §Parts: `lean_interface` is the
bottom layer, so every package can import it). The backend splits what it sends to coqtop with it,
the tactic guard and `verify` count sentences with it, and every parser of Coq text above it — the
declaration parser (`lean_interface.coq.declaration`), goal facts, negation, library lemmas and
ttrl's statements — reads tokens, top-level positions and matching brackets from here rather than
keeping a bracket, comment or string walker of its own.

The rules:
- a comment `(* … *)` nests; inside it a `"` is an ordinary character. (Coq's own lexer reads
  strings inside comments, so `(* "*)" *)` is one comment to coqtop and an error here: the
  splitter raises on it rather than guessing; see `tests/test_coq_scanner.py`.)
- a string `"…"` escapes a quote as `""`.
- brackets are `()`, `[]` and `{}`; a token's depth counts the brackets open around it (a bracket
  itself sits at the outer depth). A stray closing bracket never takes the depth below 0.
- a sentence ends at a `.` followed by whitespace or the end of the text, outside comments and
  strings, and not as the second dot of `..`; open brackets do not matter (coqtop ends a sentence
  there whatever is open). `Nat.add` and `1.5` are single tokens, so their dots never end one.
- at the start of a sentence, bullets (`-`, `+`, `*`, repeated) and braces (`{`, `}`, `2: {`,
  `[x]: {`) are sentences of their own; coqtop waits forever on an unterminated sentence, comment
  or string, so the splitter raises `SentenceError` on each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

OPEN: dict[str, str] = {"(": ")", "[": "]", "{": "}"}
CLOSE: frozenset[str] = frozenset(OPEN.values())

#: identifiers (qualified names kept whole), numerals, runs of operator symbols, any other character
_TOKEN = re.compile(r"(?P<word>[^\W\d][\w']*(?:\.[^\W\d][\w']*)*)|(?P<number>\d+(?:\.\d+)?)"
                    r"|(?P<symbol>[!#$%&*+\-/<=>?@\\^|~:.;]+)|(?P<other>\S)")
_BULLET = re.compile(r"(-+|\++|\*+)(?=\s|$)")
_SELECTOR_BRACE = re.compile(r"(\d+|\[\s*[\w']+\s*\])\s*:\s*\{")


class SentenceError(ValueError):
    """The text has an unterminated comment, string or sentence."""


@dataclass(frozen=True)
class Token:
    """One token: its text, where it stands (`text[start:end]`), its bracket depth, and its kind:
    `word` (identifier or qualified name), `number`, `symbol` (a run of operator characters),
    `open` / `close` (a bracket), `string` (a whole literal, quotes included), `other` (any other
    character: `,`, `'`, `` ` ``, `⊢`, …) or `comment` (only where comments are asked for)."""

    text: str
    start: int
    end: int
    depth: int
    kind: str


@dataclass(frozen=True)
class Sentence:
    """One sentence: its text (comments kept), and its character offset in the source."""

    text: str
    start: int


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


def comment_end(text: str, start: int) -> int:
    """Index just past the (nested) comment opening at `start`."""
    i, depth = start + 2, 1
    while depth:
        opening, closing = text.find("(*", i), text.find("*)", i)
        if closing < 0:
            raise SentenceError("unterminated comment")
        if 0 <= opening < closing:
            depth, i = depth + 1, opening + 2
        else:
            depth, i = depth - 1, closing + 2
    return i


def iter_tokens(text: str, start: int = 0, comments: bool = False) -> Iterator[Token]:
    """The tokens of `text` from `start` on, lazily (so a caller that stops early never reads past
    where it stopped). Comments are skipped unless `comments`; raises `SentenceError` on an
    unterminated comment or string when the scan reaches it."""
    depth, i = 0, start
    while (match := _TOKEN.search(text, i)) is not None:
        at = match.start()
        if text.startswith("(*", at):
            i = comment_end(text, at)
            if comments:
                yield Token(text[at:i], at, i, depth, "comment")
            continue
        if text[at] == '"':
            i = string_end(text, at)
            yield Token(text[at:i], at, i, depth, "string")
            continue
        token, kind, i = match.group(), match.lastgroup or "other", match.end()
        if token in OPEN:
            yield Token(token, at, i, depth, "open")
            depth += 1
        elif token in CLOSE:
            depth = max(0, depth - 1)
            yield Token(token, at, i, depth, "close")
        else:
            yield Token(token, at, i, depth, kind)


def tokens(text: str) -> list[Token]:
    """All tokens of `text`, comments left out (`iter_tokens`)."""
    return list(iter_tokens(text))


def top_level(text: str, stop: Iterable[str] = ()) -> list[Token]:
    """The depth-0 tokens of `text`, up to (not including) the first depth-0 token in `stop`."""
    stops = frozenset(stop)
    out = []
    for token in iter_tokens(text):
        if token.depth:
            continue
        if token.text in stops:
            break
        out.append(token)
    return out


def top_level_contains(text: str, symbol: str) -> bool:
    """Whether a depth-0 run of operator symbols of `text` contains `symbol` (e.g. `:=`)."""
    return any(token.kind == "symbol" and symbol in token.text for token in top_level(text))


def matching_close(text: str, start: int) -> int:
    """Index of the bracket closing the one at `start`, or -1 (also when none opens there)."""
    if text[start:start + 1] not in OPEN:
        return -1
    for token in iter_tokens(text, start):
        if token.kind == "close" and token.depth == 0:
            return token.start
    return -1


def check_brackets(text: str) -> None:
    """Raise ValueError (`unbalanced ')'`, `unclosed bracket, expected ']'`) unless every bracket of
    `text` outside comments and strings is closed by its own kind, in order."""
    expected: list[str] = []
    for token in iter_tokens(text):
        if token.kind == "open":
            expected.append(OPEN[token.text])
        elif token.kind == "close" and (not expected or expected.pop() != token.text):
            raise ValueError(f"unbalanced {token.text!r}")
    if expected:
        raise ValueError(f"unclosed bracket, expected {expected[-1]!r}")


def _without(text: str, kind: str) -> str:
    """`text` with every token of `kind` (comment or string) replaced by one space."""
    out, last = [], 0
    for token in iter_tokens(text, comments=True):
        if token.kind == kind:
            out += [text[last:token.start], " "]
            last = token.end
    out.append(text[last:])
    return "".join(out)


def strip_comments(text: str) -> str:
    """`text` without its (nested) comments, strings kept intact. Raises on an unterminated one."""
    return _without(text, "comment")


def strip_strings(text: str) -> str:
    """`text` with each string literal replaced by a space. Raises on an unterminated one."""
    return _without(text, "string")


def _ends_sentence(text: str, token: Token) -> bool:
    """Whether `token` ends with the `.` that ends a sentence (only a symbol run can)."""
    return (token.kind == "symbol" and token.text.endswith(".")
            and (token.end == len(text) or text[token.end].isspace())
            and not text.startswith("..", token.end - 2))


def sentence_end(text: str, start: int = 0) -> int | None:
    """Index of the `.` that ends the sentence starting at `start`, or None when it never ends.
    Raises `SentenceError` on an unterminated comment or string before that end."""
    return next((token.end - 1 for token in iter_tokens(text, start) if _ends_sentence(text, token)), None)


def _focus_end(text: str, start: int) -> int | None:
    """Where the bullet or brace sentence at `start` ends, or None when none stands there."""
    bullet = _BULLET.match(text, start)
    if bullet:
        return bullet.end()
    brace = _SELECTOR_BRACE.match(text, start)
    if brace:
        return brace.end()
    if (text[start] == "{" and not text.startswith("{|", start)) or text[start] == "}":
        return start + 1
    return None


def split_sentences(text: str) -> list[Sentence]:
    """All sentences of `text`, in order. Trailing whitespace/comments are ignored; a trailing
    non-empty fragment without its final `.` raises `SentenceError` (coqtop would hang on it)."""
    sentences: list[Sentence] = []
    start: int | None = None
    skip_to = 0
    for token in iter_tokens(text):
        if token.start < skip_to:
            continue
        if start is None:
            focus = _focus_end(text, token.start)
            if focus is not None:
                sentences.append(Sentence(text[token.start:focus], token.start))
                skip_to = focus
                continue
            start = token.start
        if _ends_sentence(text, token):
            sentences.append(Sentence(text[start:token.end], start))
            start = None
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
