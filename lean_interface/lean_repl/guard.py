"""The soundness guard for Lean tactic strings: refuse, before the REPL sees them, what could cheat.

Refused: `sorry`/`admit` and the shared forbidden words, kernel bypasses (`native_decide`,
`implemented_by`, `extern`, `unsafe`, `debug.skipKernelTC`), and anything that starts a new
command inside a tactic (`theorem`, `def`, `axiom`, `#eval`, `elab`, `macro`, …). The final
`verify` (a fresh command plus `#print axioms`) is the real guard.
"""

from __future__ import annotations

import re

from lean_interface.api import FORBIDDEN_WORDS

LEAN_FORBIDDEN = (
    "sorry", "admit", "native_decide", "implemented_by", "extern", "unsafe", "axiom", "opaque",
    "theorem", "lemma", "def", "abbrev", "instance", "elab", "macro", "macro_rules", "syntax",
    "run_tac", "run_cmd", "run_elab", "skipKernelTC", "set_option", "import", "namespace", "section",
    "end", "open", "variable", "universe", "attribute", "decide := true",
)
_WORDS = re.compile(
    r"(?<![\w.])(" + "|".join(re.escape(w) for w in (*FORBIDDEN_WORDS, *LEAN_FORBIDDEN)) + r")(?![\w.])"
)
_COMMAND = re.compile(r"(^|\s)#\w+")


class LeanTacticRefused(ValueError):
    """The tactic may not run; the message says why in one line."""


def check_lean_tactic(tactic: str) -> str:
    """The tactic, stripped, or raise `LeanTacticRefused`."""
    text = tactic.strip()
    if not text:
        raise LeanTacticRefused("empty tactic")
    if "/-" in text or "--" in text:
        raise LeanTacticRefused("comments are not allowed in a tactic")
    command = _COMMAND.search(text)
    if command:
        raise LeanTacticRefused(f"commands are not tactics: {command.group(0).strip()!r}")
    word = _WORDS.search(text)
    if word:
        raise LeanTacticRefused(f"forbidden word {word.group(1)!r}")
    return text
