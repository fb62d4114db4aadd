"""Inequality variants: the conclusion's comparisons made weaker or stronger (pure text).

  change_inequality  `<` ↔ `<=`, `>` ↔ `>=`, `=` → `<=`/`>=`, and an integer bound moved by ±1,
                     in the conclusion (or each of its conjuncts); weaker and stronger both

Returns unchecked candidates (`ttrl.candidate`); docs/ARCHITECTURE.md §Test-time RL.
"""

from __future__ import annotations

import re

from lean_interface.api import Theorem
from ttrl.candidate import Variant, make_variant
from ttrl.statement import Comparison, Statement, comparison, conjuncts, is_integer_numeral, shift_numeral


_SWAPS = {"<": [("<=", "weaker")], "<=": [("<", "stronger")], ">": [(">=", "weaker")], ">=": [(">", "stronger")],
          "=": [("<=", "weaker"), (">=", "weaker")]}
#: which shift of an integer bound weakens, by (operator, side of the numeral)
_WEAKER_SHIFT = {("<", "right"): 1, ("<=", "right"): 1, (">", "right"): -1, (">=", "right"): -1,
                 ("<", "left"): -1, ("<=", "left"): -1, (">", "left"): 1, (">=", "left"): 1}


def _inequality_changes(text: str) -> list[tuple[str, str]]:
    """(new text, description) for each change of the comparison `text`."""
    cmp = comparison(text)
    if cmp is None:
        return []
    out = []
    scope = cmp.scope
    if cmp.op == "=" and not scope:
        # `n = (-4)%Z` under R_scope: `=` is polymorphic, `<=` is not; read the order in Z
        found = re.search(r"%(nat|Z|N|Q)$", cmp.right) or re.search(r"%(nat|Z|N|Q)$", cmp.left)
        scope = f"%{found.group(1)}" if found else ""
    for op, direction in _SWAPS.get(cmp.op, []):
        new = Comparison(cmp.left, op, cmp.right, scope).text()
        out.append((new, f"{direction}: '{cmp.op}' → '{op}'"))
    for side in ("right", "left"):
        value = cmp.right if side == "right" else cmp.left
        weaker = _WEAKER_SHIFT.get((cmp.op, side))
        if weaker is None or not is_integer_numeral(value):
            continue
        for delta in (weaker, -weaker):
            moved = shift_numeral(value, delta)
            left, right = (cmp.left, moved) if side == "right" else (moved, cmp.right)
            new = Comparison(left, cmp.op, right, cmp.scope).text()
            direction = "weaker" if delta == weaker else "stronger"
            out.append((new, f"{direction}: bound {value} → {moved}"))
    return out


def change_inequality(target: Theorem, statement: Statement) -> list[Variant]:
    """Strict ↔ non-strict, equality → inequality, integer bounds ±1, in the conclusion (or in
    each conjunct of a conjunctive conclusion). Both directions: a variant may be false."""
    reference = statement.render()
    parts = conjuncts(statement.conclusion)
    out = []
    for k, part in enumerate(parts):
        for new, description in _inequality_changes(part):
            if len(parts) == 1:
                conclusion, where = new, "conclusion"
            else:
                conclusion = " /\\ ".join(f"({p})" if j != k else f"({new})" for j, p in enumerate(parts))
                where = f"conjunct {k + 1} of the conclusion"
            out.append(make_variant(target, Statement(statement.binders, conclusion).render(), "change_inequality",
                                    f"{where} {description}", reference))
    return out


__all__ = ["change_inequality"]
