"""`alphaprover train`: expert iteration (`loop: expert_iteration`, the default; alphaprover/iterate_cmd.py)
or continuous self-play RL (`loop: selfplay`) from a checkpoint (selfplay/, docs/ARCHITECTURE.md §Self-play).

Builds the problem sources (dev subset refused), the supervised mix, the actors (`actors=0`: one
in-process actor, no Ray; else Ray actors, local on 127.0.0.1 or attached via `ray_address`),
and runs `selfplay.loop.SelfPlay` with a progress line and TensorBoard logs under
`<run_dir>/tb`. The composed config is saved as `<run_dir>/config.yaml`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path
from typing import Sequence

from omegaconf import DictConfig
from tqdm import tqdm

from alphaprover.config import UsageError, save_config, to_plain
from alphaprover.policy_config import PolicyConfig
from alphaprover.runtime import (action_mode, backend_language, build_env, build_settings, resolve_checkpoint,
                                 policy_decoding, sampling_temperatures, vocabulary_for)
from search.action_set import ActionMode, action_evaluator
from selfplay.actor import Actor, ActorConfig, SourceProblem
from selfplay.episode import TrainingRecord
from selfplay.loop import SelfPlay, SelfPlayConfig
from selfplay.runner import InlineActors

log = logging.getLogger(__name__)

#: top-level keys of configs/train.yaml that are not SelfPlayConfig fields: the command's, the search's,
#: and the policy's (`checkpoint` and `seed` are SelfPlayConfig fields too)
CLI_KEYS = ("sources", "supervised_file", "ray_address", "backend", "budget", "mcts", "best_first", "portfolio",
            "method", "actor", "loop", "iteration", "heldout_actions", "heldout_decoding",
            *(f.name for f in dataclasses.fields(PolicyConfig) if f.name not in
              {g.name for g in dataclasses.fields(SelfPlayConfig)}))
LOOPS = ("expert_iteration", "selfplay")


def load_sources(specs: Sequence[str]) -> list[SourceProblem]:
    """Problems of each source spec (`selfplay.sources`: a bundled benchmark or .v directory,
    `stdlib:<root>[:<limit>]`, `variants:<spec>[:<n>]`), deduplicated; stdlib and variants loads are
    cached under `selfplay.sources.default_cache_dir()`. Dev-subset problems are refused (a source
    that contains one is a usage error: the dev subset is for measuring only)."""
    from lean_interface.api import EnvError
    from selfplay.sources import default_cache_dir, load_all
    from ttrl.variants import variant_theorems

    try:
        problems = load_all(specs, default_cache_dir(), make_variants=variant_theorems)
    except (ValueError, EnvError) as error:
        raise UsageError(str(error)) from None
    if not problems:
        raise UsageError("no problems in the configured sources")
    return problems


def load_supervised(paths: str) -> list[TrainingRecord]:
    """The supervised records mixed into learner batches (ssreflect tactics dropped): every file of
    the comma-separated `paths` (`alphaprover extract`'s stdlib records, `alphaprover factory
    scripts=…`'s demonstrations); `file*N` (N ≥ 1) counts a file's records N times, so a small
    file can weigh more in the mix than its size; a missing file is skipped with a one-line
    warning saying what makes it, a malformed one (or a bad weight) is a usage error."""
    from networks.dataset import is_ssreflect_tactic, read_examples

    records: list[TrainingRecord] = []
    for part in (part.strip() for part in paths.split(",")):
        if not part:
            continue
        path, _, weight = part.rpartition("*") if "*" in part else (part, "", "1")
        if not weight.strip().isdigit() or int(weight) < 1:
            raise UsageError(f"supervised file {part!r}: the weight after '*' must be a whole number >= 1")
        file = Path(path.strip())
        if not file.is_file():
            maker = "alphaprover factory reuse=true scripts=" + path if "script" in file.name else "alphaprover extract"
            print(f"warning: {file} not found (run `{maker}`); not mixed into learner batches")
            continue
        try:
            examples = read_examples(file)
        except ValueError as error:
            raise UsageError(str(error)) from None
        records += [TrainingRecord(e.goal, e.tactic, e.steps, "supervised") for e in examples
                    if not is_ssreflect_tactic(e.tactic)] * int(weight)
    return records


@dataclasses.dataclass(frozen=True)
class EvaluatorRecipe:
    """Picklable: builds an actor's evaluator from a published checkpoint directory. With a
    `lemma_file` (TTRL), goals with a known proof get it offered first (`ttrl.lemmas.WithLemmas`)."""

    mode: str
    language_backend: dict
    temperature: float
    seed: int
    threads: int
    engine: str | None
    lemma_file: str = ""
    temperature_step: float = 0.0
    decoding: str = "sample"

    @classmethod
    def from_config(cls, mode: str, plain: dict, lemma_file: str = "") -> "EvaluatorRecipe":
        """The recipe a run's config asks for (`temperature`, `temperature_step`, `decoding`, `seed`,
        `threads`, `engine`, `backend`), with action mode `mode`."""
        temperature, step = sampling_temperatures(plain)
        return cls(mode, plain["backend"], temperature, int(plain["seed"]), int(plain["threads"]),
                   plain.get("engine"), lemma_file, step, policy_decoding(plain))

    def __call__(self, checkpoint: Path):
        from networks.evaluator import NetworkEvaluator

        mode = ActionMode.parse(self.mode)
        vocabulary = vocabulary_for(self.language_backend)
        if mode is ActionMode.FIXED:
            evaluator = action_evaluator(mode, None, vocabulary)
        else:
            network = NetworkEvaluator.from_checkpoint(checkpoint, temperature=self.temperature, seed=self.seed,
                                                       threads=self.threads, engine=self.engine,
                                                       language=backend_language(self.language_backend),
                                                       temperature_step=self.temperature_step,
                                                       decoding=self.decoding)
            evaluator = action_evaluator(mode, network, vocabulary)
        if self.lemma_file:
            from ttrl.lemmas import LemmaTable, WithLemmas

            return WithLemmas(evaluator, LemmaTable(self.lemma_file))
        return evaluator


@dataclasses.dataclass(frozen=True)
class ActorRecipe:
    """Picklable: builds actor `name` (inside a Ray worker, or in this process)."""

    name: str
    problems: tuple[SourceProblem, ...]
    backend: dict
    search: dict
    evaluator: EvaluatorRecipe
    weights_dir: str
    actor: dict
    seed: int

    def __call__(self) -> Actor:
        _, settings, _ = build_settings(self.search)
        return Actor(self.name, {p.id: p for p in self.problems}, lambda: build_env(self.backend), self.evaluator,
                     settings, self.weights_dir, ActorConfig.from_dict(self.actor), seed=self.seed)


def run_train(cfg: DictConfig) -> int:
    """`loop: expert_iteration` (rounds, `alphaprover.iterate_cmd`) or `loop: selfplay` (the
    continuous AlphaZero loop below)."""
    loop = str(cfg.get("loop", "selfplay"))
    if loop not in LOOPS:
        raise UsageError(f"bad train config: loop must be one of {', '.join(LOOPS)}, not {loop!r}")
    if loop == "expert_iteration":
        from alphaprover.iterate_cmd import run_expert_iteration

        return run_expert_iteration(cfg)
    return run_selfplay(cfg)


def run_selfplay(cfg: DictConfig) -> int:
    plain = to_plain(cfg)
    settings_dict = {k: v for k, v in plain.items() if k not in CLI_KEYS}
    settings_dict["checkpoint"] = str(resolve_checkpoint(str(plain["checkpoint"])))
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
    supervised = load_supervised(str(plain.get("supervised_file") or ""))

    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run_dir / "tb"))
    try:
        selfplay = SelfPlay(settings, problems, supervised, writer=writer)
    except ValueError as error:
        raise UsageError(str(error)) from None
    evaluator = EvaluatorRecipe.from_config(mode.value, plain)
    search = {**plain, "method": "mcts"}

    def recipe(index: int) -> ActorRecipe:
        return ActorRecipe(f"actor-{index}", tuple(problems), plain["backend"], search, evaluator,
                           str(run_dir / "weights"), plain.get("actor") or {}, int(plain["seed"]) + 1000 * index)

    if settings.actors == 0:
        pool = InlineActors(recipe(0)())
    else:
        from selfplay.ray_workers import RayActors

        pool = RayActors(settings.actors, recipe, address=str(plain.get("ray_address") or ""))
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


__all__ = ["ActorRecipe", "EvaluatorRecipe", "load_sources", "load_supervised", "run_selfplay", "run_train"]
