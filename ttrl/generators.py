"""The structural generators of ttrl variants, one module per family (pure text, no Coq).

`ttrl.analysis.analyse` asks Coq for a target's structure (a `ttrl.statement.Statement`:
variables, hypotheses, conclusion); the generators take it apart and re-render it as
`forall (x : T) …, H1 -> H2 -> C`. Each returns candidate `Variant`s (`ttrl.candidate`: kind =
its name, similarity to the target's rendering), unchecked: `ttrl.vetting.select` elaborates
every one in Coq. Kept apart from the Coq side so the rules read, and are tested, as plain text
transformations (docs/ARCHITECTURE.md §Test-time RL). The families:

  ttrl.part_variants        split_conclusion, split_hypotheses, drop_hypothesis
  ttrl.inequality_variants  change_inequality
  ttrl.numeral_variants     specialise, fix_variable, generalise

and the *bridges* of bridged variants (`ttrl.bridges.instantiation_bridges`): tactics that take
the target's goal to an easier one, which `ttrl.variants` applies in Coq and closes into a variant
whose proof, replayed after the bridge, proves the target.

This module is the families' one entry: `GENERATORS`, the order `generate_variants` runs them in,
and their names (the bridges' and the candidate's too) under one roof.
"""

from __future__ import annotations

from typing import Callable

from lean_interface.api import Theorem
from lean_interface.coq.declaration import forall_binders
from ttrl.bridges import MAX_INSTANCES, MAX_SINGLE_INSTANCES, instance_values, instantiation_bridges
# `_proposition_of`, `_inequality_changes` and `MAX_SINGLE_INSTANCES` are read here by tests/test_variant_text.py
from ttrl.candidate import CHECK_NAME, Variant, _proposition_of, make_variant
from ttrl.inequality_variants import _inequality_changes, change_inequality
from ttrl.numeral_variants import (DEFAULT_VALUES, MAX_GENERALISED_NUMERALS, NUMERIC_SCOPES, fix_variable, generalise,
                                   specialise)
from ttrl.part_variants import drop_hypothesis, split_conclusion, split_hypotheses
from ttrl.statement import Statement

#: the structural generators `generate_variants` runs, in this order
GENERATORS: tuple[Callable[[Theorem, Statement], list[Variant]], ...] = (
    split_conclusion, split_hypotheses, drop_hypothesis, change_inequality, specialise, fix_variable, generalise)


__all__ = ["CHECK_NAME", "DEFAULT_VALUES", "GENERATORS", "MAX_GENERALISED_NUMERALS", "MAX_INSTANCES", "NUMERIC_SCOPES",
           "Variant", "change_inequality", "drop_hypothesis", "fix_variable", "forall_binders", "generalise",
           "instance_values", "instantiation_bridges", "make_variant", "specialise", "split_conclusion",
           "split_hypotheses"]
