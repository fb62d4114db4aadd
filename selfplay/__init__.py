"""Self-play RL: actors search, episodes stream into a replay buffer, a learner trains and
publishes weights the actors pick up (docs/ARCHITECTURE.md §Self-play).

Plain classes, each testable alone: `actor.Actor` (one attempt → one `episode.Episode`, records
from `targets`), `replay_buffer.ReplayBuffer` (fsynced append-only shards, dedup window,
`MixedSampler`), `learner.Learner` (torch or DeepSpeed; numbered published weights),
`matchmaker.Matchmaker` (AlphaProof's problem weights, adaptive budgets, disproof attempts via
`negation.negate`), `loop.SelfPlay` (the continuous driver), `expert_iteration.ExpertIteration`
(rounds), `runner` (the submit/poll loop both run on, and `LearnerService`, the learner's one
owner). `ray_workers` is the thin Ray layer; `alphaprover train` the command.
"""
