"""Self-play RL (actors → replay buffer → learner), the next stage after supervised pre-training.

Not built yet: see docs/ARCHITECTURE.md §Parts. The pieces it will reuse exist: `search.mcts.run_mcts` (actors),
the (goal, tactic, steps-to-go) record format of `lean_interface.coq.proof_replay` and
`networks.dataset` (replay data), and `networks.train` (the learner).
"""
