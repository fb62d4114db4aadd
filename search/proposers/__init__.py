"""Where the search's tactics come from: proposers (docs/ARCHITECTURE.md §Proposers).

`base` defines a proposer and the goal context it reads; `expr` is the small expression type
through which every computed argument reaches Coq text. The registry of proposers lives here.
"""
