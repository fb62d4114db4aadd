"""The soundness guard for Coq tactic strings: admit tactics, refuse everything else, before it runs.

The guard admits rather than refuses: a sentence is run only when it *begins like a tactic* — an
identifier starting with a lower-case letter (`intros`, `lia`, `try`, `now`, …) or `(` / `[` where
Ltac allows them — is exactly one sentence, and is not a bullet, brace or goal selector (the env
manages focus itself). Everything a Coq vernacular parser takes as a command starts otherwise:
upper-case keywords (`Qed`, `Inductive`, `Timeout`, `Fail`, …), attributes (`#[bypass_check(…)]`),
and the `Local`/`Global`/`Polymorphic`/… prefixes. Refused outright as well: forbidden words
(`admit`, `give_up`, `shelve`, …), comments and strings (the classic way to hide a sentence end),
and tactics whose only effect is to print (`idtac`, `time`, `info_*`, `debug`): the env reads goals
from coqtop's output, and no tactic may write into what we read.

This guard keeps the search honest and the prover state clean; soundness does not rest on it. The
final `verify` compiles the proof as a module and has Coq's independent checker audit it
(`lean_interface.coq.kernel_check`, docs/ARCHITECTURE.md §Soundness).
"""

from __future__ import annotations

import re

from lean_interface.api import FORBIDDEN_WORDS
from lean_interface.coq.text import SentenceError, is_focus_sentence, split_sentences

#: Coq-specific words refused in tactics, beyond the shared list: they leave goals unproved
#: (shelve), defer checking to Qed (`*_no_check`, fix/cofix guardedness), or run arbitrary commands.
COQ_FORBIDDEN = (
    "shelve", "unshelve", "exact_no_check", "vm_cast_no_check", "native_cast_no_check",
    "change_no_check", "fix", "cofix", "Unshelve", "Grab", "Existential",
    # printing: their output would land in the text the env parses for goals
    "idtac", "time", "time_constr", "info_auto", "info_eauto", "info_trivial", "debug", "Info",
    "optimize_heap", "ltac2", "Ltac2",
)
_WORDS = re.compile(r"\b(" + "|".join(re.escape(w) for w in (*FORBIDDEN_WORDS, *COQ_FORBIDDEN)) + r")\b")
#: how a tactic sentence may begin: a lower-case identifier (then a word boundary), `(` or `[`
_TACTIC_START = re.compile(r"^(?:[a-z][\w']*(?![\w'])|\(|\[)")
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
    if not _TACTIC_START.match(text):
        raise TacticRefused(f"not a tactic (a tactic begins with a lower-case name, '(' or '['): "
                            f"{text.split()[0][:40]!r}")
    word = _WORDS.search(text)
    if word:
        raise TacticRefused(f"forbidden word {word.group(1)!r}")
    return text


def canonical_tactic(tactic: str) -> str | None:
    """The canonical form of a Coq tactic (`normalise_tactic`), or None where the guard refuses
    it: what the search sends, the network scores and the data holds (`lean_interface.tactic_form`)."""
    try:
        return normalise_tactic(tactic)
    except TacticRefused:
        return None


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
