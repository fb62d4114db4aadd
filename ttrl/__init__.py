"""Test-time RL on generated variants of a hard problem (docs/ARCHITECTURE.md §Test-time RL).

`variants` generates related statements with Coq's help (specialise, fix or generalise a
variable, drop or split hypotheses, split the conclusion, weaken/strengthen an inequality, open
subgoals of a search tree, optionally a language model): `analysis` reads the target's structure
in Coq, `generators` holds the structural generators (pure text over a statement, one module per
family: `part_variants`, `inequality_variants`, `numeral_variants`, and the `bridges`), each
making `candidate`s that `vetting` checks to elaborate, deduplicates and scores for similarity to
the target; `statement` has the text helpers.
"""
