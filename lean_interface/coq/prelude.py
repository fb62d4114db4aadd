"""The tactic prelude: standard-library tactic modules loaded before every theorem's own header.

Why: 229 of the 244 miniF2F-rocq valid headers import none of `Lia`, `Lra`, `Psatz`, so under
`Require Import Reals.` alone `lra` is "reference not found" and every method searched without
the decision procedures that close competition goals. Loading them *before* the header keeps the
header in charge: its own imports come later and shadow anything the prelude brought, and its
`Open Scope`s are the last word on notations. `tests/integration/test_prelude.py` checks, for
every bundled problem, that the statement elaborates to the same term (same printed form, every
constant resolving to the same fully qualified name) with and without the prelude.

The modules, each for the tactics it provides:
  Coq.micromega.Lia      lia, nia            linear / nonlinear integer arithmetic (nat, Z)
  Coq.micromega.Lra      lra                 linear real arithmetic (loads the Reals it needs,
                                             but imports none of their names or scopes)
  Coq.micromega.Psatz    nra, psatz          nonlinear real arithmetic (Positivstellensatz)
  Coq.setoid_ring.Ring   ring, ring_simplify commutative ring normalisation
  Coq.setoid_ring.Field  field, field_simplify
  Coq.micromega.ZifyNat  (Required, not imported: no name or notation enters scope) zify's
                             instances for Nat.div and Nat.modulo: with them lia and nia turn
                             remainders and quotients into bounded equations over Z.
  Ltac rewrite_functions     the `rewrite` family's loop (every `forall x, f x = …` hypothesis
                             rewritten everywhere until none applies) under a name short enough
                             for the policy to propose; an Ltac definition adds no axiom and no
                             term, and a header's own definition of the name would shadow it.
Fully qualified paths, so no user-contrib library named `Lia` can stand in for Coq's.
Coq-Interval is not in the prelude: its library declares the kernel's primitive integers and
floats (~100 names) that coqchk reports as axioms of every environment that loads it, whether a
proof uses them or not (docs/ARCHITECTURE.md §Automation families).
The same prelude is used by search, `play` and `verify` (the env writes it into the proof file),
so what was searched is what is checked.
"""

from __future__ import annotations

#: the `rewrite` automation family's loop under a short name (`search/automation.py`): spelled out it
#: is ~60 tokens, past the decoder's 48-token limit, so the policy could never learn to propose it
REWRITE_FUNCTIONS_LTAC = ("Ltac rewrite_functions := repeat match goal with "
                          "H : forall _, _ = _ |- _ => progress rewrite ?H in * "
                          "| H : forall _ _, _ = _ |- _ => progress rewrite ?H in * end.")

DEFAULT_PRELUDE = ("Require Import Coq.micromega.Lia Coq.micromega.Lra Coq.micromega.Psatz "
                   "Coq.setoid_ring.Ring Coq.setoid_ring.Field.\nRequire Coq.micromega.ZifyNat.\n"
                   + REWRITE_FUNCTIONS_LTAC)


#: the tactics each prelude module provides (the demo uses it to say which came from the prelude)
TACTIC_MODULES: dict[str, str] = {"lia": "Lia", "nia": "Lia", "lra": "Lra", "nra": "Psatz", "psatz": "Psatz",
                                  "ring": "Ring", "ring_simplify": "Ring", "field": "Field", "field_simplify": "Field"}


def with_prelude(prelude: str, header: str) -> str:
    """The text loaded before a statement: the prelude, then the theorem's own header."""
    prelude = prelude.strip()
    return f"{prelude}\n{header}" if prelude else header
