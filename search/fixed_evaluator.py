"""A no-network evaluator: a fixed tactic list, instantiated with the goal's own hypotheses.

The baseline the network must beat, and the fallback when no checkpoint is given. Round 0 proposes
argument-free tactics plus tactics built from the goal's hypothesis names (`destruct h`,
`rewrite h`, `induction n`, …), all with the same prior; later rounds propose nothing (the list is
fixed), so progressive sampling ends. The value is a constant −1 ("one more tactic"): with no
value signal, MCTS then spreads its visits like a breadth-first search guided by the priors.
"""

from __future__ import annotations

import math
import re
from typing import Sequence

from search.evaluator import EvalRequest, Evaluation

GENERIC_TACTICS: tuple[str, ...] = (
    "intros", "split", "reflexivity", "lia", "nia", "lra", "nra", "ring", "field", "auto", "simpl",
    "intuition", "tauto", "congruence", "constructor", "left", "right", "eexists", "easy", "trivial",
    "firstorder", "subst", "symmetry", "discriminate", "exfalso", "f_equal", "ring_simplify", "field_simplify",
    "unfold not", "intros; lia", "intros; nia", "intros; lra", "intros; nra", "simpl; lia", "simpl; ring",
    "intros; subst; lia", "intros; subst; nra", "intros; field_simplify; lra", "intros; intuition lia",
    "intros; compute; lia", "intros; repeat split; lra",
)

_HYP = re.compile(r"^([\w']+(?:, [\w']+)*) : (.+)$")


def hypotheses(goal_text: str) -> list[tuple[str, str]]:
    """(name, type) for each hypothesis line of a canonical goal text."""
    out = []
    for line in goal_text.splitlines():
        if line.startswith("⊢"):
            break
        match = _HYP.match(line)
        if match:
            for name in match.group(1).split(", "):
                out.append((name.strip(), match.group(2).strip()))
    return out


def instantiated_tactics(goal_text: str) -> list[str]:
    """Tactics that name the goal's hypotheses: the arguments a fixed list cannot guess."""
    tactics: list[str] = []
    for name, type_ in hypotheses(goal_text):
        if type_ in ("nat", "Z", "positive", "N") or type_.startswith("list"):
            tactics += [f"induction {name}", f"destruct {name}"]
        elif type_ in ("Prop", "Set", "Type", "R", "bool") or type_.startswith(("forall", "Type@")):
            tactics += [f"destruct {name}"] if type_ == "bool" else []
        else:
            tactics += [f"rewrite {name}", f"rewrite <- {name}", f"apply {name}", f"destruct {name}",
                        f"inversion {name}", f"exact {name}", f"subst {name}"]
    return tactics


class FixedTacticEvaluator:
    """Uniform priors over a fixed, goal-instantiated tactic list; constant value."""

    def __init__(self, tactics: Sequence[str] = GENERIC_TACTICS, value: float = -1.0) -> None:
        self.tactics = tuple(tactics)
        self.value = value
        self.calls = 0

    def evaluate(self, requests: Sequence[EvalRequest]) -> list[Evaluation]:
        self.calls += 1
        out = []
        for request in requests:
            if request.round > 0:
                out.append(Evaluation((), self.value))
                continue
            names = list(dict.fromkeys([*self.tactics, *instantiated_tactics(request.goal)]))
            logprob = -math.log(len(names))
            out.append(Evaluation(tuple((t, logprob) for t in names), self.value))
        return out
