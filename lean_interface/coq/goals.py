"""Parse what coqtop -emacs prints after a sentence into goals.

Shapes (Coq 8.16, `Set Printing Width 1000`):

    2 goals (ID 9)                      1 focused goal (shelved: 1) (ID 7)
      <blank>                             <blank>
      n, m : nat                          ============================
      ============================        ?n = 0 /\\ 0 = ?n
      n + m = m + n
    <blank>                             No more goals.
    goal 2 (ID 10) is:                  This subproof is complete, but there are some
     True                                unfocused goals. Try unfocusing with "}". …

Only the first goal is printed with its hypotheses; `Show i.` prints goal i in full
("goal i (ID k) is:" followed by the same block).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SEPARATOR = "============================"
_HEADER = re.compile(r"^(\d+) (?:focused )?goals?(?: \(shelved: (\d+)\))?(?: \(ID \d+\))?\s*$", re.MULTILINE)
_OTHER = re.compile(r"^goal (\d+) \(ID \d+\) is:\s*$", re.MULTILINE)
_EVAR = re.compile(r"\?[A-Za-z_][\w']*")
_HYP_START = re.compile(r"^([\w'.]+(?:, [\w'.]+)*) :=? ")


@dataclass(frozen=True)
class ParsedGoal:
    """One goal: its hypothesis lines (as printed, whitespace-normalised) and its conclusion."""

    hypotheses: tuple[str, ...]
    conclusion: str

    @property
    def text(self) -> str:
        """Canonical text: one hypothesis per line, then `⊢ conclusion`."""
        return "\n".join((*self.hypotheses, f"⊢ {self.conclusion}"))

    @property
    def evars(self) -> frozenset[str]:
        return frozenset(_EVAR.findall(" ".join((*self.hypotheses, self.conclusion))))


@dataclass(frozen=True)
class GoalsView:
    """The focused goals after a sentence.

    Fields:
      count:        number of focused goals (0 = this focus is finished).
      first:        the first goal in full (None when count == 0).
      conclusions:  conclusions of goals 1..count (goal 1's included).
      shelved:      how many goals are on the shelf.
      whole_proof_done: "No more goals." (nothing left anywhere, nothing shelved).
    """

    count: int
    first: ParsedGoal | None
    conclusions: tuple[str, ...]
    shelved: int = 0
    whole_proof_done: bool = False


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def parse_goal_block(block: str) -> ParsedGoal:
    """Hypotheses and conclusion from the lines around the `====` separator."""
    before, _, after = block.partition(SEPARATOR)
    hypotheses: list[str] = []
    for line in before.splitlines():
        if not line.strip():
            continue
        stripped = line.strip()
        if hypotheses and not _HYP_START.match(stripped):
            hypotheses[-1] = f"{hypotheses[-1]} {stripped}"  # continuation of a long hypothesis
        else:
            hypotheses.append(stripped)
    return ParsedGoal(tuple(_normalise(h) for h in hypotheses), _normalise(after))


def parse_goals(output: str) -> GoalsView:
    """The focused goals shown in a sentence's output (no error expected in `output`)."""
    if "No more goals" in output:
        return GoalsView(0, None, (), 0, whole_proof_done="but there are" not in output)
    if "This subproof is complete" in output or "All the remaining goals are on the shelf" in output:
        return GoalsView(0, None, ())
    header = _HEADER.search(output)
    if header is None:
        raise ValueError(f"no goals in coqtop output: {output[:200]!r}")
    count = int(header.group(1))
    shelved = int(header.group(2) or 0)
    body = output[header.end():]
    others = list(_OTHER.finditer(body))
    first_block = body[: others[0].start()] if others else body
    first = parse_goal_block(first_block)
    conclusions = [first.conclusion]
    for index, match in enumerate(others):
        end = others[index + 1].start() if index + 1 < len(others) else len(body)
        conclusions.append(_normalise(body[match.end():end]))
    return GoalsView(count, first, tuple(conclusions), shelved)


def parse_show(output: str) -> ParsedGoal:
    """The goal printed by `Show i.`."""
    match = _OTHER.search(output)
    block = output[match.end():] if match else output
    return parse_goal_block(block)


def hypothesis_names(goal_text: str) -> list[str]:
    """Names bound by the hypothesis lines of a canonical goal text (`a, b : nat` gives a, b)."""
    names: list[str] = []
    for line in goal_text.splitlines():
        if line.startswith("⊢"):
            break
        match = _HYP_START.match(line)
        if match:
            names.extend(n.strip() for n in match.group(1).split(","))
    return names
