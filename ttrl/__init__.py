"""Test-time RL on generated variants of a hard problem (docs/ARCHITECTURE.md §Test-time RL).

`variants` generates related statements with Coq's help (specialise, fix or generalise a
variable, drop or split hypotheses, split the conclusion, weaken/strengthen an inequality, open
subgoals of a search tree, optionally a language model); each is checked to elaborate,
deduplicated and scored for similarity to the target; `generators` holds the structural generators
(pure text over a statement) and `statement` the text helpers.
"""
