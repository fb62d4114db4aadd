"""The problem layer: where statements to prove come from.

* `benchmarks` — benchmark loading (bundled names, `.v` directories, JSONL), the `Problem` record,
  and the dev-subset test (`is_dev_problem`, `dev_problem_of`) that every problem source applies.
* `libraries`  — the Coq library roots that extraction replays and self-play restates lemmas from.
* `factory/`   — the problem factory: generated competition-style statements, elaborated and
  deduplicated by Coq, labelled by family, seed and split (`alphaprover factory`).

It sits in `lean_interface` (the bottom layer) so that every package above — selfplay, ttrl, the
CLI — reads problems from one place and nothing imports upward (docs/ARCHITECTURE.md §Parts).
"""
