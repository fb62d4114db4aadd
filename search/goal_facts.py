"""What a Coq goal's text says about the arithmetic in it: typed variables, functions, shapes.

The automation families (`search.automation`) build concrete tactics from these facts — hint
terms over the goal's own real variables, real or integer finishers by the goal's types,
rewriting only where a hypothesis gives a function by its values. Everything is read
from the canonical goal text the env prints (`h : T` / `a, b : T` lines, then `⊢ target`); the
target's leading `forall` binders (`lean_interface.coq.declaration.leading_binders`) count as
variables too, since the tactics begin with `intros`, which introduces them under their printed
names.

Pure text, no Coq: a fact read wrongly only yields a tactic that fails in the prover.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lean_interface.coq.declaration import leading_binders

#: real functions: their presence makes a goal a real-arithmetic one
TRANSCENDENTAL = ("sqrt", "ln", "exp", "sin", "cos", "tan", "atan", "PI", "Rpower", "powerRZ", "Rsqr")
_TRANSCENDENTAL = re.compile(r"\b(" + "|".join(TRANSCENDENTAL) + r")\b")
_IDENT = r"[A-Za-z_][\w']*"
#: the names facts are read for, hypotheses and leading binders alike: a tactic will write them
_NAME = re.compile(r"^[A-Za-z_][\w'.]*$")
_POWER = re.compile(rf"\b({_IDENT})\s*\^\s*(\d+)\b")
#: a universally quantified equation whose left side applies a name: `forall x, f x = …` (a
#: function given by its values), as a hypothesis or a premise of the target. The arguments are
#: `\s[^=<>,]+`, not `(\s+[^=<>,]+)+` (the same strings): the nested repetition backtracked
#: exponentially on long hypotheses without an `=`, for minutes per goal
_FUNCTION_EQUATION = re.compile(rf"(?:\(|^{_IDENT}\s*:\s*)forall\s[^,]+,\s*{_IDENT}\s[^=<>,]+=", re.MULTILINE)

@dataclass(frozen=True)
class GoalFacts:
    """The arithmetic facts of one goal.

    Fields:
      reals:          names of variables of type R, in order of appearance.
      has_real:       R occurs (a real variable, or the header's R scope with real functions).
      even_powers:    (variable, exponent) for every `v ^ p` with p even and ≥ 4.
      disjunctions:   hypotheses whose type is a disjunction (names usable by `destruct`).
      uses_rabs:      Rabs occurs.
      function_equations: a hypothesis or premise `forall x, f x = …` gives a function by its values.
    """

    reals: tuple[str, ...]
    has_real: bool
    even_powers: tuple[tuple[str, int], ...]
    disjunctions: tuple[str, ...]
    uses_rabs: bool
    function_equations: bool


def hypotheses(goal_text: str) -> list[tuple[str, str]]:
    """(name, type) for every usable hypothesis of a canonical goal text (coupled goals: all blocks).
    Accepts `a, b : T` (Coq) and `a b : T` (Lean); `x := v : T` definitions are kept; inaccessible
    names (`n✝`) are skipped since a tactic cannot mention them."""
    found: dict[str, str] = {}
    for line in goal_text.splitlines():
        if line.startswith("⊢") or " : " not in line:
            continue
        head, _, rest = line.partition(" : ")
        names_part = head.split(" := ")[0]
        type_text = line.rsplit(" : ", 1)[1] if " := " in head else rest  # `x := v : T`
        names = [n for n in re.split(r",\s*|\s+", names_part.strip()) if n]
        if not names or not all(_NAME.match(n) for n in names):
            continue
        for name in names:
            found.setdefault(name, type_text.strip())
    return list(found.items())


def goal_facts(goal_text: str) -> GoalFacts:
    """Read the arithmetic facts of a canonical goal text."""
    lines = goal_text.splitlines()
    target = next((line[1:].strip() for line in lines if line.startswith("⊢")), goal_text.strip())
    context = hypotheses(goal_text)
    typed = [*context, *((name, type_) for name, type_ in leading_binders(target) if _NAME.match(name))]
    reals = tuple(dict.fromkeys(name for name, type_text in typed if type_text == "R"))
    powers = tuple(dict.fromkeys((name, int(exp)) for name, exp in _POWER.findall(goal_text)
                                 if name in reals and int(exp) >= 4 and int(exp) % 2 == 0))
    disjunctions = tuple(name for name, type_text in context if "\\/" in type_text and "->" not in type_text)
    return GoalFacts(
        reals=reals,
        has_real=bool(reals) or bool(re.search(r"\bR\b|\bIZR\b|\bINR\b|\bRabs\b", goal_text))
        or bool(_TRANSCENDENTAL.search(goal_text)),
        even_powers=powers,
        disjunctions=disjunctions,
        uses_rabs="Rabs" in goal_text,
        function_equations=bool(_FUNCTION_EQUATION.search(goal_text)),
    )
