"""Which "unproved" value labels help the value head: a run's learning replayed under label rules.

    PYTHONPATH=. .venv/bin/python benchmarks/value_labels.py /work/runs/expert-10 --goals r000,r003

An expert-iteration run's value head gets worse on fixed held-out goals as the rounds go
(`benchmarks/value_fixed_goals.py`: run 10, AUC 0.77 at v0, 0.63 at v6). Its replay records
carry two kinds of value target: the steps of a proved goal, and `UNPROVED_STEPS` for a goal the
search visited and did not prove — which, with a small budget, is often a provable goal. This
script replays the run's learning (same start weights, same learner settings, the same episodes
entering the buffer round by round, `learner_steps_per_round` steps after each round, the same
sampler seed) once per label rule and seed, and scores each end point's value head on the same
fixed goals:

* `as-written`: every record as the actor wrote it (what the run did; run 10: `tree`);
* `failed-searches`: "unproved" targets only from searches that failed; a search that proved its
  problem is no evidence that the goals it left aside are hard (they were merely not needed);
* `root`: one "unproved" target per failed search, its root: the statement searched with the
  whole budget ("searched long without a proof"), none from the goals inside the tree;
* `none`: no "unproved" targets at all; the head learns steps-to-go of proved goals only.

Only the value-only "unproved" records differ between rules; every policy record is the same.
`root` and `none` are the actor's `unproved_targets` rules (`selfplay.targets`) applied to records
written under `tree`. The held-out goals are evaluation data and never reach a learner. Cost per
rule and seed: the run's learner steps (150 of batch 32 for six rounds): about 30 s on one H100,
about 15 minutes on two CPU cores.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.policy_baselines import value_auc  # noqa: E402

RULES = ("as-written", "failed-searches", "root", "none")


def kept_records(episode, rule: str):
    """The episode's records under `rule` (see the module docstring)."""
    from search.value_units import UNPROVED_STEPS

    def unproved(record) -> bool:
        return record.tactic is None and record.steps >= UNPROVED_STEPS

    if rule == "as-written":
        return episode.records
    if rule == "failed-searches":
        return tuple(r for r in episode.records if not (unproved(r) and episode.proved))
    if rule == "root":  # an actor writes the root's record first (`selfplay.targets.episode_records`)
        return tuple(r for i, r in enumerate(episode.records) if not (unproved(r) and (episode.proved or i)))
    return tuple(r for r in episode.records if not unproved(r))


def replay_learning(run_dir: Path, rule: str, work: Path, rounds: int, seed: int) -> Path:
    """Replay the run's learner under `rule` in `work`; the path of the last published weights."""
    from dataclasses import replace

    from omegaconf import OmegaConf

    from alphaprover.train_cmd import load_supervised
    from selfplay.learner import Learner, LearnerConfig
    from selfplay.replay_buffer import MixedSampler, ReplayBuffer

    saved = OmegaConf.to_container(OmegaConf.load(run_dir / "config.yaml"), resolve=True)
    config = replace(LearnerConfig.from_dict(saved["learner"]), quantization="")
    steps_per_round = int(saved["iteration"]["learner_steps_per_round"])
    supervised = load_supervised(str(saved.get("supervised_file") or ""))
    learner = Learner(work, run_dir / "weights" / "v000000", config, seed=seed)
    source = ReplayBuffer(run_dir / "buffer", capacity=10**9)
    episodes = list(source.episodes_iter())
    buffer = ReplayBuffer(work / "buffer", capacity=int(saved["buffer_capacity"]))
    sampler = MixedSampler(buffer, supervised, config.replay_fraction, random.Random(seed))
    for round_index in range(rounds):
        for episode in episodes:
            if episode.weights_version == round_index:
                buffer.add(replace(episode, records=kept_records(episode, rule)))
        for _ in range(steps_per_round):
            learner.train_batch(sampler.sample(config.batch_size))
        learner.publish()
        print(f"  {rule}: round {round_index} learned ({len(buffer)} records in the buffer)", flush=True)
    return learner.latest_weights()[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--goals", default="r000", help="rounds whose held-out goals are the tests")
    parser.add_argument("--rules", default=",".join(RULES))
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seeds", default="0", help="sampler seeds: one replay per rule and seed")
    args = parser.parse_args(argv)
    rules = args.rules.split(",")
    if not all(part.strip().isdigit() for part in args.seeds.split(",")):
        print(f"error: --seeds takes whole numbers separated by commas, not {args.seeds!r}", file=sys.stderr)
        return 2
    seeds = [int(part) for part in args.seeds.split(",")]
    goal_files = [args.run_dir / "rounds" / r / "heldout.jsonl" for r in args.goals.split(",")]
    problems = [str(p) for p in goal_files if not p.is_file()] + [r for r in rules if r not in RULES]
    if not (args.run_dir / "buffer").is_dir() or not (args.run_dir / "config.yaml").is_file() or problems:
        print(f"error: not an expert-iteration run with those goals and rules: {args.run_dir} {problems}",
              file=sys.stderr)
        return 2
    start = args.run_dir / "weights" / "v000000"
    rows = [("start (v000000)", [value_auc(str(start), f) for f in goal_files])]
    for rule in rules:
        for seed in seeds:
            with tempfile.TemporaryDirectory(prefix=f"value-labels-{rule}-") as work:
                weights = replay_learning(args.run_dir, rule, Path(work), args.rounds, seed)
                rows.append((f"{rule}, seed {seed}, after {args.rounds} rounds",
                             [value_auc(str(weights), f) for f in goal_files]))
    print(f"value AUC, proved vs unproved held-out goals, learning of {args.run_dir} replayed per label rule")
    print("| weights | " + " | ".join(f"{f.parent.name}'s goals" for f in goal_files) + " |")
    print("|---|" + "---:|" * len(goal_files))
    for name, cells in rows:
        print(f"| {name} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
