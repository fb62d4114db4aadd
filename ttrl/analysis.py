"""A target's structure as Coq sees it: variables, hypotheses, conclusion (docs/ARCHITECTURE.md
§Test-time RL).

Structure comes from Coq, not from text rules: the target is opened in a `CoqEnv`, the tactic
`INTRO_TACTIC` introduces every leading binder (`forall` and `->`, but not `~`), and each
hypothesis line is asked whether its type is a `Prop` (`PROP_CHECK`). The result is a
`ttrl.statement.Statement`, which the pure-text generators (`ttrl.generators`) take apart. A
statement is trusted only when its rendering elaborates back to the same goal
(`faithful_statement`).
"""

from __future__ import annotations

import logging

from lean_interface.api import EnvError, Goal, ProofEnv, Theorem
from lean_interface.coq.declaration import closed
from ttrl.candidate import CHECK_NAME
from ttrl.statement import Statement, declaration_parts, join_statement, parse_goal_text

log = logging.getLogger(__name__)

#: introduces every leading product (`forall`, `->`), never unfolds `~ P` into `P -> False`
INTRO_TACTIC = "repeat lazymatch goal with |- forall _, _ => intro end"
#: succeeds (adds a definition) exactly when hypothesis NAME's type is a proposition
PROP_CHECK = "let T := type of {name} in pose (ttrl_prop_check := (T : Prop))"


def intro_goal(env: ProofEnv, root: Goal) -> Goal:
    """The goal after `INTRO_TACTIC` (`root` itself when there is nothing to introduce)."""
    result = env.apply(root, INTRO_TACTIC)
    if result.error == "no progress":
        return root
    if not result.ok or len(result.goals) != 1:
        raise EnvError(f"intros failed: {result.error or 'unexpected goals'}")
    return result.goals[0]


def analyse(theorem: Theorem, env: ProofEnv) -> Statement:
    """The statement of `theorem` as Coq sees it after intros: variables, hypotheses (asked of Coq:
    is the type's type `Prop`?), conclusion. Raises EnvError when it does not elaborate."""
    goal = intro_goal(env, env.start(theorem))
    try:
        entries, conclusion = parse_goal_text(goal.text)
    except ValueError as error:
        raise EnvError(f"{theorem.name}: cannot read the goal after intros: {error}") from None
    props = []
    for names, _type, body in entries:
        if body is not None:
            props.append(False)
            continue
        props.append(env.apply(goal, PROP_CHECK.format(name=names[0])).ok)
    return join_statement(entries, conclusion, props)


def _shape(statement: Statement) -> tuple:
    """What must survive a render + re-elaboration: variables by name, hypotheses by type."""
    return (tuple((b.name if not b.prop else "", b.type, b.prop, b.body) for b in statement.binders),
            statement.conclusion)


def faithful_statement(target: Theorem, env: ProofEnv) -> Statement | None:
    """The target's Statement, provided its rendering elaborates back to the same goal after intros
    (names of hypotheses aside); None otherwise (then no structural variant is trusted)."""
    statement = analyse(target, env)
    rebuilt = Theorem(CHECK_NAME, target.header, f"Theorem {CHECK_NAME} : {statement.render()}.", target.language)
    try:
        again = analyse(rebuilt, env)
    except EnvError as error:
        log.info("%s: its rendering does not elaborate: %s", target.name, error)
        return None
    if _shape(again) != _shape(statement):
        log.info("%s: its rendering elaborates to a different statement", target.name)
        return None
    return statement


def target_reference(target: Theorem, statement: Statement | None) -> str:
    """The target's proposition as rendered (or as written, when it could not be analysed)."""
    if statement is not None:
        return statement.render()
    parts = declaration_parts(target.statement)
    return target.statement if parts is None else closed(*parts)


__all__ = ["INTRO_TACTIC", "PROP_CHECK", "analyse", "faithful_statement", "intro_goal", "target_reference"]
