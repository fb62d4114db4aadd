"""What a proposer is: a generator from a goal's parsed text to complete Coq tactic sentences.

Every tactic the no-network list offers comes from a proposer: the argument-free decision
procedures, the tactics naming the goal's hypotheses, the automation families (square hints,
psatz, rewriting, case splits) and the competition shapes whose arguments are *computed* (a value
to assert, a witness, the points to instantiate a hypothesis at, the bounds of a case split, the
coefficients of a linear combination). A proposer reads only the goal's own text (`GoalContext`),
never a problem's name, and writes ordinary tactic text: the guard, `verify`, coqchk and the axiom
audit see its tactics exactly as they see a policy sample, so a proposer cannot make a proof
unsound — a wrong proposal only fails in the prover.

A proposer that cannot read a goal proposes nothing: `Proposer.tactics` catches the parse and CAS
errors a proposer raises (`ProposerSkipped`, ValueError, ArithmeticError, the CAS's own) and its
time bound, so an odd goal never ends a search.
"""

from __future__ import annotations

import functools
import logging
import re
from dataclasses import dataclass, field
from typing import Callable

from lean_interface.coq.declaration import leading_binders
from lean_interface.coq.guard import TacticRefused, normalise_tactic
from search.goal_facts import GoalFacts, goal_facts, hypotheses

log = logging.getLogger(__name__)


class ProposerSkipped(Exception):
    """A proposer has nothing to say about this goal (unparseable, out of its shape, CAS timeout)."""


#: the types whose hypotheses are data variables, not facts
DATA_TYPES = ("R", "nat", "Z", "N", "Q", "positive", "bool")


@dataclass(frozen=True)
class GoalContext:
    """One goal's text, read once for every proposer.

    Fields:
      text:       the canonical goal text the env prints (`h : T` lines, then `⊢ target`).
      target:     the text after `⊢` (the whole text when there is no `⊢` line).
      hypotheses: (name, type) of every usable hypothesis, in order (`search.goal_facts.hypotheses`).
      binders:    (name, type) of the target's leading `forall` binders: after `intros` they are
                  variables under these names.
      premises:   the target's leading implications' antecedents after the binders
                  (`forall x, A -> B -> C` gives (A, B)): after `intros` they are hypotheses
                  named by Coq's defaults (H, H0, H1, …) when the goal has no such names already.
      conclusion: the target after its binders and premises.
      facts:      the arithmetic facts the automation families read (`search.goal_facts`).
    """

    text: str
    target: str
    hypotheses: tuple[tuple[str, str], ...]
    binders: tuple[tuple[str, str], ...]
    premises: tuple[str, ...]
    conclusion: str
    facts: GoalFacts

    @property
    def variables(self) -> dict[str, str]:
        """name → type of every data variable in scope after `intros` (hypotheses whose type is a
        type such as `R`, `nat`, `Z`, and the target's binders)."""
        found = {name: type_ for name, type_ in self.hypotheses if type_ in DATA_TYPES}
        found.update({name: type_ for name, type_ in self.binders if type_ in DATA_TYPES})
        return found

    @property
    def introduced(self) -> bool:
        """Whether the target has nothing left to introduce (no leading binder or premise)."""
        return not self.binders and not self.premises

    def facts_after_intros(self) -> list[tuple[str, str]]:
        """(name, proposition) of every hypothesis after `intros`: the context's propositions, then
        the premises under Coq's default names (H, H0, H1, … skipping names already taken)."""
        taken = {name for name, _ in self.hypotheses} | {name for name, _ in self.binders}
        props = [(n, t) for n, t in self.hypotheses if t not in (*DATA_TYPES, "Prop", "Set", "Type")]
        index = -1
        for premise in self.premises:
            while True:
                name = "H" if index < 0 else f"H{index}"
                index += 1
                if name not in taken:
                    break
            taken.add(name)
            props.append((name, premise))
        return props


def _split_premises(body: str) -> tuple[list[str], str]:
    """`A -> B -> C` → ([A, B], C), splitting only on top-level arrows (outside parentheses)."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(body):
        char = body[i]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and body.startswith("->", i):
            parts.append(body[start:i].strip())
            start = i + 2
            i += 1
        elif depth == 0 and body.startswith("forall", i) and (i == 0 or not body[i - 1].isalnum()):
            break  # a nested forall: the rest is the conclusion
        i += 1
    parts.append(body[start:].strip())
    return parts[:-1], parts[-1]


def _strip_binders(target: str) -> str:
    """The target after its leading `forall … ,` groups (the binders `leading_binders` reads)."""
    rest = target.strip()
    while rest.startswith("forall ") or rest.startswith("forall("):
        depth = 0
        for i, char in enumerate(rest):
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
            elif char == "," and depth == 0:
                rest = rest[i + 1:].strip()
                break
        else:
            return rest
    return rest


@functools.lru_cache(maxsize=4096)
def goal_context(goal_text: str) -> GoalContext:
    """Read a canonical goal text once (cached: every proposer of an expansion asks it)."""
    lines = goal_text.splitlines()
    target = next((line[1:].strip() for line in lines if line.startswith("⊢")), goal_text.strip())
    binders = tuple((n, t) for n, t in leading_binders(target))
    premises, conclusion = _split_premises(_strip_binders(target))
    return GoalContext(text=goal_text, target=target, hypotheses=tuple(hypotheses(goal_text)), binders=binders,
                       premises=tuple(premises), conclusion=conclusion, facts=goal_facts(goal_text))


@dataclass(frozen=True)
class Proposer:
    """A generator of complete tactic sentences for one shape of goal.

    Fields:
      name:     short label in reports, eval arms and the tree view (`search.proposers.family_of`).
      seconds:  each tactic's Ltac `timeout N (…)` wrapper; 0 = the env's own per-tactic limit only.
      generate: the shape's tactics for a goal, most promising first (before wrapping); may raise
                `ProposerSkipped` (or a parse/CAS error) to propose nothing.
      computed: whether its arguments come from a computation (the CAS, a bounded search) rather
                than from the goal's text alone: the `proposers` switch names these.
      marker:   a regex that recognises this proposer's tactics in any proof (whoever proposed
                them), for reports; None = not recognisable.
    """

    name: str
    seconds: int
    generate: Callable[[GoalContext], list[str]]
    computed: bool = False
    marker: re.Pattern[str] | None = field(default=None, compare=False)

    def tactics(self, goal: GoalContext | str) -> list[str]:
        """The proposer's tactics in canonical form, each under its time limit, distinct; [] when
        it cannot read the goal (never an exception)."""
        context = goal_context(goal) if isinstance(goal, str) else goal
        try:
            raw = self.generate(context)
        except (ProposerSkipped, ValueError, ArithmeticError, TypeError, RecursionError, TimeoutError) as error:
            log.debug("proposer %s skipped: %s", self.name, error)
            return []
        except Exception as error:  # a CAS failure of another kind (sympy raises its own classes)
            log.debug("proposer %s failed: %r", self.name, error)
            return []
        out = []
        for tactic in raw:
            body = tactic.strip().rstrip(".")
            if self.seconds and body.endswith("*"):
                body += " "  # `… in *` wrapped as `timeout N (… in * )`: `*)` would read as a comment's end
            try:
                out.append(normalise_tactic(f"timeout {self.seconds} ({body})" if self.seconds else body))
            except TacticRefused as error:
                log.debug("proposer %s wrote a refused tactic %r: %s", self.name, tactic, error)
        return list(dict.fromkeys(out))


def or_pattern(name: str, count: int) -> str:
    """`[h|[h|h]]`: the intro pattern that destructs a right-nested disjunction of `count` cases,
    each case's hypothesis named `name`."""
    return f"[{name}|" * (count - 1) + name + "]" * (count - 1)


__all__ = ["GoalContext", "Proposer", "ProposerSkipped", "goal_context", "or_pattern"]
