"""Numbers as placeholders: the goal's numbers become `⟨n0⟩`, `⟨n1⟩`, … for the network.

Why: a small seq2seq policy learns the factory's proof templates (85% top-1 on steps without a
number) but not copying a number from the goal into the tactic (13.5% top-1 on steps whose numbers
are all in the goal; docs/experiments.md "One token per digit", 2e25792). Copying is
pointing, which a 7M-parameter decoder does badly; choosing a template is what it does well. So,
as neural solvers of math word problems do, the goal's numbers are replaced by numbered slots
before tokenization — `h1 : f 6 = 20 ⊢ f 14 = 5` reads `h1 : f ⟨n0⟩ = ⟨n1⟩ ⊢ f ⟨n2⟩ = ⟨n3⟩` — a
training tactic writes a goal's number as its slot (`pose proof (h0 6)` → `pose proof (h0 ⟨n0⟩)`),
and a decoded tactic gets its numbers back from the same goal. The mapping is a pure function of
the goal's text, so training, sampling, scoring and both inference engines agree on it.

What stays literal: `0` and `1` (everywhere: they are structure, `Rle_0_1`, `[|n]`, not data);
numbers past the first `MAX_PLACEHOLDERS` distinct ones; and in a tactic, a number in a parameter
position (`psatz R 2`, `do 2`, `rewrite … at 2`, `destruct 2`), whose meaning is the tactic's own.
A number the tactic must compute (`exists (-863)`) is not in the goal and stays literal too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

#: Slots available per goal; later distinct numbers stay literal.
MAX_PLACEHOLDERS = 16
#: A numeral: digits not inside an identifier (`h0`, `Rplus_0_r`), a decimal or `x~0`.
NUMERAL = re.compile(r"(?<![\w'.~])\d+(?![\w'])")
#: Numbers that are never slots.
LITERAL = frozenset({"0", "1"})
#: Text before a tactic's number that makes it the tactic's parameter, not the goal's data.
PARAMETER_BEFORE = re.compile(
    r"(?:\bpsatz\s+\w+|\b(?:do|at|destruct|induction|inversion|inversion_clear|constructor|case|elim|until|"
    r"intro|intros|revert|clear)\b)\s*$")
PLACEHOLDER = re.compile(r"⟨n(\d+)⟩")


def placeholder(index: int) -> str:
    """The slot's text, one token of a tokenizer trained with placeholders."""
    return f"⟨n{index}⟩"


def placeholder_tokens(count: int) -> list[str]:
    return [placeholder(index) for index in range(count)]


@dataclass(frozen=True)
class NumberMap:
    """The slots of one goal: `numbers[i]` is the text of slot `⟨ni⟩`."""

    numbers: tuple[str, ...] = ()

    @cached_property
    def slots(self) -> dict[str, str]:
        """Number → its slot's text."""
        return {number: placeholder(index) for index, number in enumerate(self.numbers)}

    def goal_text(self, goal: str) -> str:
        """The goal with each of its slotted numbers replaced by its slot."""
        if not self.numbers:
            return goal
        return NUMERAL.sub(lambda m: self.slots.get(m.group(0), m.group(0)), goal)

    def tactic_text(self, tactic: str) -> str:
        """The tactic with every number the goal has written as the goal's slot, except a number in
        a parameter position."""
        if not self.numbers:
            return tactic

        def swap(match: re.Match[str]) -> str:
            number = match.group(0)
            if number not in self.slots or PARAMETER_BEFORE.search(tactic, 0, match.start()):
                return number
            return self.slots[number]

        return NUMERAL.sub(swap, tactic)

    def restore(self, text: str) -> str | None:
        """The tactic with its slots replaced by this goal's numbers; None if it names a slot the
        goal does not have (the network pointed at nothing: not a tactic)."""
        missing = False

        def fill(match: re.Match[str]) -> str:
            nonlocal missing
            index = int(match.group(1))
            if index >= len(self.numbers):
                missing = True
                return match.group(0)
            return self.numbers[index]

        restored = PLACEHOLDER.sub(fill, text)
        return None if missing else restored


@lru_cache(maxsize=4096)
def number_map(goal: str, limit: int = MAX_PLACEHOLDERS) -> NumberMap:
    """The goal's slots: its distinct numbers other than `LITERAL`, in order of first appearance,
    at most `limit` of them. Cached: a search decodes every sample and scores every candidate of
    a goal against the same goal text."""
    numbers: dict[str, None] = {}
    for match in NUMERAL.finditer(goal):
        if len(numbers) >= limit:
            break
        if match.group(0) not in LITERAL:
            numbers.setdefault(match.group(0))
    return NumberMap(tuple(numbers))
