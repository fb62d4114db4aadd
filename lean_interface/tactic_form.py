"""The one canonical form of a tactic string in each proof language.

Every tactic the project handles is in this form: the training data (`alphaprover extract`
writes Coq tactics through `normalise_tactic`), the network's samples and the candidates it
scores, the edges of a search tree, the episodes and replay records made from them, and the
sentences sent to the prover. One form matters because the network prices a string token by
token: the shipped policy, trained on `lra.`, gives `lra` −21.1 nats and `lra.` −7.0, so a
candidate scored in a form the data never has is ranked by an artefact; and two spellings of
one tactic were sent to Coq as two tactics.

* Coq: single-spaced, ending in exactly one `.` (`lean_interface.coq.guard.normalise_tactic`).
* Lean: stripped, no terminator (`lean_interface.lean_repl.guard.check_lean_tactic`).

Each language's normaliser is its guard, so a string the guard refuses has no canonical form:
`tactic_form(language)(text)` is then None (it would never run, so it is neither scored nor
sent). A backend's `ProofEnv.canonical_tactic` is its language's form.
"""

from __future__ import annotations

from typing import Callable

from lean_interface.coq.guard import canonical_tactic as coq_tactic
from lean_interface.lean_repl.guard import canonical_lean_tactic as lean_tactic

#: text → its canonical form, or None when it is not a tactic of the language
TacticForm = Callable[[str], str | None]

FORMS: dict[str, TacticForm] = {"coq": coq_tactic, "lean": lean_tactic}


def tactic_form(language: str) -> TacticForm:
    """The canonical form of `language` ("coq" or "lean"); ValueError for any other."""
    try:
        return FORMS[language]
    except KeyError:
        raise ValueError(f"no tactic form for language {language!r} (known: {', '.join(FORMS)})") from None


__all__ = ["FORMS", "TacticForm", "coq_tactic", "lean_tactic", "tactic_form"]
