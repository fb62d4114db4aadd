"""The soundness guard for Coq tactic strings: refuse, before anything runs, what could cheat.

A tactic is accepted only when it is exactly one sentence, not a bullet/brace/goal selector (the
env manages focus itself), not a vernacular command (every Coq command starts with an upper-case
keyword: `Qed`, `Axiom`, `Require`, `Timeout`, `Fail`, …, while tactics are lower-case), and has
no forbidden word (`admit`, `give_up`, `shelve`, …). Comments and strings are refused outright:
nothing legitimate needs them, and they are the classic way to hide a sentence end or to print a
fake "Closed under the global context". The final `verify` is the real guard; this one keeps the
search honest and the prover state clean.
"""

from __future__ import annotations

import re

from lean_interface.api import FORBIDDEN_WORDS
from lean_interface.coq.sentences import SentenceError, is_focus_sentence, split_sentences

#: Coq-specific words refused in tactics, beyond the shared list: they leave goals unproved
#: (shelve), defer checking to Qed (`*_no_check`, fix/cofix guardedness), or run arbitrary commands.
COQ_FORBIDDEN = (
    "shelve", "unshelve", "exact_no_check", "vm_cast_no_check", "native_cast_no_check",
    "change_no_check", "fix", "cofix", "Unshelve", "Grab", "Existential",
)
_WORDS = re.compile(r"\b(" + "|".join(re.escape(w) for w in (*FORBIDDEN_WORDS, *COQ_FORBIDDEN)) + r")\b")
_SELECTOR = re.compile(r"^\s*(\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*|all|par|!|\[\s*[\w']+\s*\])\s*:")


class TacticRefused(ValueError):
    """The tactic string is not allowed to run; the message says why, in one line."""


def normalise_tactic(tactic: str) -> str:
    """The tactic as one line ending in exactly one `.`, or raise `TacticRefused`."""
    text = " ".join(tactic.split())
    if not text:
        raise TacticRefused("empty tactic")
    if "(*" in text or "*)" in text:
        raise TacticRefused("comments are not allowed in a tactic")
    if '"' in text:
        raise TacticRefused("strings are not allowed in a tactic")
    if not text.endswith("."):
        text += "."
    if text.endswith(".."):
        raise TacticRefused("a tactic ends with a single '.'")
    try:
        sentences = split_sentences(text)
    except SentenceError as error:
        raise TacticRefused(str(error)) from None
    if len(sentences) != 1:
        raise TacticRefused(f"a tactic must be exactly one sentence (got {len(sentences)})")
    if is_focus_sentence(text[:-1]) or is_focus_sentence(text) or text[:-1].strip() in ("{", "}"):
        raise TacticRefused("bullets and braces are managed by the search, not sent as tactics")
    if _SELECTOR.match(text):
        raise TacticRefused("goal selectors are managed by the search, not sent as tactics")
    if text[0].isupper():
        raise TacticRefused(f"vernacular commands are not tactics: {text.split()[0]!r}")
    word = _WORDS.search(text)
    if word:
        raise TacticRefused(f"forbidden word {word.group(1)!r}")
    return text


def check_script(script: str) -> str | None:
    """The first reason a whole proof script is refused (forbidden word, vernacular inside), or None."""
    try:
        sentences = split_sentences(script)
    except SentenceError as error:
        return str(error)
    for sentence in sentences:
        text = sentence.text.strip()
        if is_focus_sentence(text):
            continue
        body = re.sub(r"^\s*\d+\s*:\s*\{$", "", text)
        if not body:
            continue
        try:
            normalise_tactic(body)
        except TacticRefused as error:
            return f"{error}: {text[:80]!r}"
    return None
