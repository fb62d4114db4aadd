"""`alphaprover train`: expert iteration (`loop: expert_iteration`, the default; alphaprover/iterate_cmd.py)
or continuous self-play RL (`loop: selfplay`) from a checkpoint (selfplay/, docs/ARCHITECTURE.md §Self-play).

Builds the problem sources (dev subset refused), the supervised mix, the actors (`actors=0`: one
in-process actor, no Ray; else Ray actors, local on 127.0.0.1 or attached via `ray_address`),
and runs `selfplay.loop.SelfPlay`; Ray actors get the weights through Ray (`selfplay.ray_workers.ray_pool`,
docs/ARCHITECTURE.md §On a cluster), with a progress line and TensorBoard logs under
`<run_dir>/tb`. The composed config is saved as `<run_dir>/config.yaml`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path

from omegaconf import DictConfig
from tqdm import tqdm

from alphaprover.config import UsageError, save_config, to_plain
from alphaprover.iterate_cmd import run_expert_iteration
from alphaprover.runtime import action_mode, build_settings, resolve_repo_path
from alphaprover.policy_config import PolicyConfig
from alphaprover.train_inputs import ensure_inputs, load_library
from alphaprover.train_setup import ActorRecipe, EvaluatorRecipe, load_sources, load_supervised
from selfplay.actor import ActorConfig
from selfplay.loop import SelfPlay, SelfPlayConfig
from selfplay.ray_learner import learner_factory
from selfplay.runner import InlineActors

log = logging.getLogger(__name__)

#: top-level keys of configs/train.yaml that are not SelfPlayConfig fields: the command's, the search's,
#: and the policy's (`checkpoint` and `seed` are SelfPlayConfig fields too)
CLI_KEYS = ("experiment", "sources", "supervised_file", "library_file", "library_roots", "ray_address", "backend", "budget", "mcts", "best_first", "portfolio",
            "method", "actor", "loop", "iteration", "heldout_actions", "heldout_decoding",
            *(f.name for f in dataclasses.fields(PolicyConfig) if f.name not in
              {g.name for g in dataclasses.fields(SelfPlayConfig)}))
LOOPS = ("expert_iteration", "selfplay")


def run_train(cfg: DictConfig) -> int:
    """`loop: expert_iteration` (rounds, `alphaprover.iterate_cmd`) or `loop: selfplay` (the
    continuous AlphaZero loop below)."""
    loop = str(cfg.get("loop", "selfplay"))
    if loop not in LOOPS:
        raise UsageError(f"bad train config: loop must be one of {', '.join(LOOPS)}, not {loop!r}")
    if loop == "expert_iteration":
        return run_expert_iteration(cfg)
    return run_selfplay(cfg)


def run_selfplay(cfg: DictConfig) -> int:
    plain = to_plain(cfg)
    settings_dict = {k: v for k, v in plain.items() if k not in CLI_KEYS}
    settings_dict["checkpoint"] = str(resolve_repo_path(str(plain["checkpoint"])))
    try:
        settings = SelfPlayConfig.from_dict(settings_dict)
        ActorConfig.from_dict(plain.get("actor") or {})
    except (TypeError, ValueError) as error:
        raise UsageError(f"bad train config: {error}") from None
    build_settings({**plain, "method": "mcts"})  # validates the search config before anything starts
    mode = action_mode(plain)
    problems = load_sources(list(plain["sources"]))
    run_dir = Path(settings.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    save_config(cfg, run_dir)
    ensure_inputs(str(plain.get("supervised_file") or ""), str(plain.get("library_file") or ""))
    supervised = load_supervised(str(plain.get("supervised_file") or ""))
    library = load_library(str(plain.get("library_file") or ""), [str(r) for r in plain.get("library_roots") or []])

    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run_dir / "tb"))
    try:
        selfplay = SelfPlay(settings, problems, supervised, writer=writer, library=library,
                            make_learner=learner_factory(str(plain.get("ray_address") or "")))
    except ValueError as error:
        raise UsageError(str(error)) from None
    evaluator = EvaluatorRecipe.from_config(mode.value, plain)
    search = {**plain, "method": "mcts"}

    def recipe(index: int, weights: object = str(run_dir / "weights")) -> ActorRecipe:
        return ActorRecipe(f"actor-{index}", tuple(problems), plain["backend"], search, evaluator,
                           weights, plain.get("actor") or {}, int(plain["seed"]) + 1000 * index)

    if settings.actors == 0:
        pool = InlineActors(recipe(0)())
    else:
        from selfplay.ray_workers import ray_pool

        pool = ray_pool(settings.actors, recipe, str(plain.get("ray_address") or ""), run_dir / "weights")
    print(f"self-play: {len(problems)} problems from {', '.join(plain['sources'])}; {settings.actors} actor(s); "
          f"learner {settings.learner.engine} at step {selfplay.learner.step}, weights v{selfplay.learner.version}; "
          f"buffer {len(selfplay.buffer)} records from {selfplay.buffer.episodes} episodes; run dir {run_dir}")
    bar = tqdm(desc="self-play", unit="episode")

    def show(driver: SelfPlay) -> None:
        progress = driver.progress
        bar.update(1)
        bar.set_postfix(proofs=progress.proofs, disproofs=progress.disproofs, buffer=len(driver.buffer),
                        version=driver.learner.version, steps=driver.learner.step, eps=f"{progress.rate():.3f}/s")

    progress = selfplay.run(pool, on_progress=show)
    bar.close()
    writer.close()
    summary = {"episodes": progress.episodes, "proofs": progress.proofs, "disproofs": progress.disproofs,
               "errors": progress.errors, "lost_attempts": progress.lost_attempts,
               "learner_steps": progress.learner_steps, "weights_version": selfplay.learner.version,
               "buffer_records": len(selfplay.buffer), "episodes_total": selfplay.buffer.episodes,
               "episodes_per_second": round(progress.rate(), 4)}
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    print(json.dumps(summary))
    return 0


__all__ = ["CLI_KEYS", "LOOPS", "run_selfplay", "run_train"]
