"""What every training command builds from its config: the problem sources, the supervised mix,
and the picklable recipes of actors and their evaluators (docs/ARCHITECTURE.md §Self-play).

`alphaprover train` (both loops: `alphaprover.train_cmd`, `alphaprover.iterate_cmd`) and
`alphaprover ttrl` share these, so they live below the commands that use them: no command module
imports another for them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Sequence

from alphaprover.config import UsageError
from alphaprover.policy_config import POLICY_DEFAULTS
from alphaprover.runtime import (backend_language, build_env, build_lemmas, build_settings, lemma_count,
                                 policy_decoding, sampling_temperatures, vocabulary_for)
from alphaprover.train_inputs import read_records, supervised_parts
from search.action_set import ActionMode, action_evaluator
from selfplay.actor import Actor, ActorConfig, SourceProblem
from selfplay.episode import TrainingRecord
from selfplay.hold_out import HoldOut


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


def load_supervised(paths: str, hold_out: HoldOut = HoldOut()) -> list[TrainingRecord]:
    """The supervised records mixed into learner batches (ssreflect tactics dropped): every file of
    the comma-separated `paths` (`alphaprover extract`'s stdlib records, `alphaprover factory
    scripts=…`'s demonstrations); `file*N` (N ≥ 1) counts a file's records N times, so a small
    file can weigh more in the mix than its size; records of a `hold_out` problem are left out
    (said in one line per file); a missing file is skipped with a one-line warning saying what
    makes it, a malformed one (or a bad weight) is a usage error."""
    records: list[TrainingRecord] = []
    for file, times in supervised_parts(paths):
        if not file.is_file():
            maker = f"alphaprover factory reuse=true scripts={file}" if "script" in file.name else "alphaprover extract"
            print(f"warning: {file} not found (run `{maker}`); not mixed into learner batches")
            continue
        left_out: list[str] = []

        def keep_lemma(lemma: str) -> bool:
            kept = hold_out.keeps_lemma(lemma)
            if not kept:
                left_out.append(lemma)
            return kept

        records += read_records(file, "supervised", keep_lemma=keep_lemma) * times
        if left_out:
            print(f"{file}: {len(left_out)} records of {len(set(left_out))} hold_out problems "
                  f"({', '.join(hold_out.benchmarks)}) left out")
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
    lemma_candidates: int = 0
    proposers: str = "classic"

    @classmethod
    def from_config(cls, mode: str, plain: dict, lemma_file: str = "") -> "EvaluatorRecipe":
        """The recipe a run's config asks for (`temperature`, `temperature_step`, `decoding`, `seed`,
        `threads`, `engine`, `backend`, `proposers`, and in mixed mode `lemma_candidates`), with action
        mode `mode`."""
        temperature, step = sampling_temperatures(plain)
        lemmas = lemma_count(plain) if mode == ActionMode.MIXED.value else 0
        return cls(mode, plain["backend"], temperature, int(plain["seed"]), int(plain["threads"]),
                   plain.get("engine"), lemma_file, step, policy_decoding(plain), lemmas,
                   str(plain.get("proposers") or POLICY_DEFAULTS.proposers))

    def __call__(self, checkpoint: Path):
        from networks.evaluator import NetworkEvaluator

        mode = ActionMode.parse(self.mode)
        vocabulary = vocabulary_for(self.language_backend, self.proposers)
        if mode is ActionMode.FIXED:
            evaluator = action_evaluator(mode, None, vocabulary)
        else:
            network = NetworkEvaluator.from_checkpoint(checkpoint, temperature=self.temperature, seed=self.seed,
                                                       threads=self.threads, engine=self.engine,
                                                       language=backend_language(self.language_backend),
                                                       temperature_step=self.temperature_step,
                                                       decoding=self.decoding)
            lemmas = build_lemmas({"backend": self.language_backend}, mode, self.lemma_candidates)
            evaluator = action_evaluator(mode, network, vocabulary, lemmas)
        if self.lemma_file:
            from ttrl.lemmas import LemmaTable, WithLemmas

            return WithLemmas(evaluator, LemmaTable(self.lemma_file))
        return evaluator


@dataclasses.dataclass(frozen=True)
class ActorRecipe:
    """Picklable: builds actor `name` (inside a Ray worker, or in this process). `weights`: the run's
    weights directory (in-process) or a `selfplay.weights_store.RayWeights` (Ray actors)."""

    name: str
    problems: tuple[SourceProblem, ...]
    backend: dict
    search: dict
    evaluator: EvaluatorRecipe
    weights: Any
    actor: dict
    seed: int

    def __call__(self) -> Actor:
        _, settings, _ = build_settings(self.search)
        return Actor(self.name, {p.id: p for p in self.problems}, lambda: build_env(self.backend), self.evaluator,
                     settings, self.weights, ActorConfig.from_dict(self.actor), seed=self.seed)


__all__ = ["ActorRecipe", "EvaluatorRecipe", "load_sources", "load_supervised"]
