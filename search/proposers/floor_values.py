"""*Floor values*: `up e`, `Int_part e` and Coquelicot's `floor e` of a closed real `e` replaced by
the integer sympy computes, each replacement justified in Coq by the bounds that characterise it.

Shape: a goal naming `up (e)`, `Int_part (e)` or `floor (e)` with `e` closed — numerals, `+ - * /
^`, `sqrt` (`Z.sub (up (sqrt 27)) (up (sqrt 26) - 1) = 1%Z`, `floor (9 / 160 * 100) = 5%Z`).

Why: the value is a computation (⌊√27⌋ = 5) and the route to it a lemma with two side conditions
(`up_tech : IZR z <= r -> r < IZR (z + 1) -> (z + 1)%Z = up r`), neither of which the policy or a
decision procedure supplies: lra and lia see `up (sqrt 27)` as an opaque integer.

The computed argument: v = ⌊e⌋ by sympy's exact `floor` (an undecided floor, or a float check
that disagrees, proposes nothing). The term `e` in the tactic is the goal's own text, so the
rewrite finds it; only the integer v is printed by us.

Coq route (checked in Coq 8.16.1 on the train split's mathd_algebra_151 and mathd_numbertheory_84):
  * facts for every `sqrt c` of e: `pose proof (sqrt_pos c); pose proof (sqrt_sqrt c ltac:(lra))`,
    so nra can bound the root;
  * `up e`: `rewrite <- (up_tech (e) v%Z) by (rewrite ?plus_IZR; simpl IZR; nra)` (after
    `unfold Int_part` for `Int_part`, which is `up e - 1`);
  * `floor e`: `unfold floor; destruct (floor_ex (e)) as [f [Hf Hf']]; simpl`, then
    `v - 1 < f < v + 1` proved through `lt_IZR` by nra, so `f = v` by lia, and `subst`;
  * the closed integer goal left: `lia`, or lra after `simpl IZR` where it is real.

Cost: one sympy `floor` per occurrence (bounded), ~5–20 ms; at most 2 tactics, under `timeout 5`.
"""

from __future__ import annotations

import re

from lean_interface.coq.text import matching_close
from search.proposers.base import GoalContext, Proposer, ProposerSkipped
from search.proposers.cas import CAS_SECONDS, bounded, evaluate, per_goal
from search.proposers.expr import App, Bin, Expr, Neg, Num, Var, coq, parse_expr, to_sympy

SECONDS = 5
_OCCURRENCE = re.compile(r"(?<![\w'.])(up|Int_part|floor)\s+(?=\()")
_BOUNDS = "(rewrite ?minus_IZR, ?plus_IZR; simpl IZR; nra)"
_CLOSE = "first [lia | reflexivity | (simpl IZR; lra) | (rewrite ?minus_IZR, ?plus_IZR; simpl IZR; lra)]"


def occurrences(text: str) -> list[tuple[str, str]]:
    """(function, argument text) of every `up (…)`, `Int_part (…)`, `floor (…)` in `text`, in order,
    the argument with its parentheses, distinct."""
    found = []
    for match in _OCCURRENCE.finditer(text):
        start = match.end()
        end = matching_close(text, start)
        if end > start:
            found.append((match.group(1), text[start:end + 1]))
    return list(dict.fromkeys(found))


def _sqrt_arguments(node: Expr) -> list[Expr]:
    found: list[Expr] = []

    def walk(n: Expr) -> None:
        if isinstance(n, App):
            if n.func == "sqrt":
                found.append(n.args[0])
            for arg in n.args:
                walk(arg)
        elif isinstance(n, Bin):
            walk(n.left)
            walk(n.right)
        elif isinstance(n, Neg):
            walk(n.arg)

    walk(node)
    return found


def _closed(node: Expr) -> None:
    """Raise unless `node` is numerals, + - * / ^ and sqrt only."""
    if isinstance(node, (Num,)):
        return
    if isinstance(node, Var):
        raise ProposerSkipped(f"not closed: {node.name}")
    if isinstance(node, Neg):
        return _closed(node.arg)
    if isinstance(node, Bin):
        _closed(node.left)
        return _closed(node.right)
    if isinstance(node, App) and node.func == "sqrt" and len(node.args) == 1:
        return _closed(node.args[0])
    raise ProposerSkipped("a function other than sqrt")


def floor_value(argument: str) -> tuple[int, list[str]]:
    """(⌊e⌋, the text of each sqrt argument of e) for a closed real expression's text; raises
    `ProposerSkipped` / `Unsupported` otherwise."""
    import sympy

    node = parse_expr(argument)
    _closed(node)
    value = bounded(lambda: sympy.floor(to_sympy(node, {})), CAS_SECONDS)
    if not value.is_Integer:
        raise ProposerSkipped("sympy does not decide the floor")
    approximate = float(evaluate(node, {}))
    if not int(value) <= approximate + 1e-9 or not approximate < int(value) + 1 + 1e-9:
        raise ProposerSkipped("the float check disagrees with sympy")
    return int(value), [coq(arg) for arg in _sqrt_arguments(node)]


@per_goal()
def propose(context: GoalContext) -> list[str]:
    found = occurrences(context.target)
    if not found:
        raise ProposerSkipped("no up, Int_part or floor")
    intro = "" if context.introduced else "intros; "
    facts: list[str] = []
    steps: list[str] = ["unfold Int_part"] if any(kind == "Int_part" for kind, _ in found) else []
    floors = 0
    for kind, argument in found:
        value, roots = floor_value(argument)
        for root in roots:
            facts += [f"pose proof (sqrt_pos ({root}))", f"pose proof (sqrt_sqrt ({root}) ltac:(lra))"]
        if kind in ("up", "Int_part"):
            steps.append(f"rewrite <- (up_tech {argument} ({value})%Z) by {_BOUNDS}")
        else:
            floors += 1
            name = f"fl{floors}"
            steps += ["unfold floor", f"destruct (floor_ex {argument}) as [{name} [{name}a {name}b]]", "simpl",
                      f"assert (({value} - 1 < {name})%Z) by (apply lt_IZR; {_BOUNDS[1:-1]})",
                      f"assert (({name} < {value} + 1)%Z) by (apply lt_IZR; {_BOUNDS[1:-1]})",
                      f"replace {name} with ({value})%Z in * by lia"]
    body = "; ".join([*dict.fromkeys(facts), *dict.fromkeys(steps), _CLOSE])
    return [f"{intro}{body}"]


PROPOSERS = (Proposer("floor_values", SECONDS, propose, computed=True,
                      marker=re.compile(r"\bup_tech\b|\bfloor_ex\b")),)

__all__ = ["PROPOSERS", "floor_value", "occurrences", "propose"]
