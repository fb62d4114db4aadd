"""`alphaprover ttrl TARGET`: test-time RL on one target or a whole competition (ttrl/loop.py).

TARGET is a statement, a `.v` file or a bundled problem name (`alphaprover.runtime.resolve_theorem`),
or many targets: a directory of `.v` files, a `.jsonl` benchmark file, or a `.txt` file with one
target (statement, `.v` path relative to the file, bundled name) per line.

One wall-clock budget (`max_minutes`) covers all targets of `run_dir`, across reruns: compute is
given in slices of `slice_minutes` to the open target that has used the least (`ttrl.report.
next_slice`), so a proved target gets nothing more and the time goes to the unsolved ones. Each
slice is a `ttrl.loop.TTRLSession` in `<run_dir>/<target>/`. `<run_dir>/state.json` (atomic,
after every episode) and the replay buffers make the run resumable: rerun the same command with the
same `run_dir` after a kill and it continues; a proved target is never attempted again.
`<run_dir>/report.md` and `report.json` are rewritten after every slice.

The dev subset is for measuring only: a target in it (by name, or stating a dev problem's
statement) is a usage error. Exit codes: 0 every target proved, 1 not all, 2 bad input.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import fields
from pathlib import Path
from typing import Any, Sequence

from omegaconf import DictConfig

from alphaprover.config import UsageError, save_config, to_plain
from alphaprover.runtime import (action_mode, backend_language, build_env, build_settings, resolve_repo_path,
                                 resolve_theorem)
from alphaprover.train_cmd import CLI_KEYS
from alphaprover.train_setup import ActorRecipe, EvaluatorRecipe, load_supervised
from lean_interface.api import Theorem
from lean_interface.problems.benchmarks import held_out_problem_of, load_benchmark
from search.action_set import ActionMode
from selfplay.actor import SourceProblem
from selfplay.loop_config import SelfPlayConfig
from selfplay.runner import InlineActors
from ttrl.config import TTRLConfig
from ttrl.loop import TTRLSession
from ttrl.target_files import LEMMAS_FILE, reconcile
from ttrl.report import ERROR, PROVED, RunState, load_state, next_slice, save_state, write_report

#: keys of configs/ttrl.yaml that belong to the command (the rest: SelfPlayConfig, TTRLConfig, search)
_SCHEDULE_KEYS = ("slice_minutes", "min_slice_seconds")
_TTRL_KEYS = tuple(f.name for f in fields(TTRLConfig))


@dataclasses.dataclass(frozen=True)
class Target:
    """One target of the run: its name (= its directory), theorem, or why it could not be read."""

    name: str
    theorem: Theorem | None
    error: str = ""


def _safe_name(name: str) -> str:
    return re.sub(r"[^\w.-]", "_", name).strip(".") or "target"


def load_targets(spec: str, language: str, header: str | None = None, name: str = "user_theorem") -> list[Target]:
    """The targets TARGET names (see the module docstring). Raises UsageError on bad input."""
    path = Path(spec)
    if path.is_dir() or (path.is_file() and path.suffix == ".jsonl"):
        try:
            problems = load_benchmark(str(path))
        except ValueError as error:
            raise UsageError(str(error)) from None
        targets = [Target(_safe_name(p.name), p.theorem, p.error) for p in problems]
    elif path.is_file() and path.suffix == ".txt":
        targets = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            relative = path.parent / line
            item = str(relative) if line.endswith(".v") and relative.exists() else line
            theorem = resolve_theorem(item, language, header, f"{_safe_name(path.stem)}_{number}")
            targets.append(Target(_safe_name(theorem.name), theorem))
        if not targets:
            raise UsageError(f"no targets in {path}")
    else:
        theorem = resolve_theorem(spec, language, header, name)
        targets = [Target(_safe_name(path.stem if path.suffix == ".v" else theorem.name), theorem)]
    names = [t.name for t in targets]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise UsageError(f"duplicate target names: {', '.join(duplicates[:5])}")
    return targets


def refuse_held_out_targets(targets: Sequence[Target]) -> None:
    """UsageError if any target is a dev-subset or test-split problem, by name or by statement
    (`held_out_problem_of`; docs/ARCHITECTURE.md §Data: both are for measuring only, and TTRL trains
    on its targets and their variants)."""
    for target in targets:
        names = [target.name] + ([target.theorem.name] if target.theorem is not None else [])
        which = next(filter(None, (held_out_problem_of(name, target.theorem) for name in names)), None)
        if which:
            problem, _, split = which.rpartition(" (")
            benchmark = "the dev subset (minif2f-rocq-dev)" if split.startswith("dev") else "the test split"
            raise UsageError(f"{problem} is in {benchmark}, which is for measuring only: TTRL may not train on it")


def _split_config(plain: dict[str, Any]) -> tuple[SelfPlayConfig, TTRLConfig, dict[str, float]]:
    ignored = set(CLI_KEYS) | set(_TTRL_KEYS) | set(_SCHEDULE_KEYS)
    settings_dict = {k: v for k, v in plain.items() if k not in ignored}
    settings_dict["checkpoint"] = str(resolve_repo_path(str(plain["checkpoint"])))
    try:
        settings = SelfPlayConfig.from_dict(settings_dict)
        ttrl = TTRLConfig.from_dict({k: plain[k] for k in _TTRL_KEYS if k in plain})
        schedule = {k: float(plain[k]) for k in _SCHEDULE_KEYS}
    except (TypeError, ValueError, KeyError) as error:
        raise UsageError(f"bad ttrl config: {error}") from None
    if settings.max_minutes <= 0 or schedule["slice_minutes"] <= 0 or schedule["min_slice_seconds"] < 0:
        raise UsageError("max_minutes and slice_minutes must be > 0, min_slice_seconds >= 0")
    return settings, ttrl, schedule


def run_ttrl(args: Any, cfg: DictConfig) -> int:
    plain = to_plain(cfg)
    settings, ttrl, schedule = _split_config(plain)
    build_settings({**plain, "method": "mcts"})  # validates the search config before anything starts
    mode = action_mode(plain)
    if mode is not ActionMode.FIXED:
        from networks.checkpoint import is_checkpoint

        if not is_checkpoint(settings.checkpoint):
            raise UsageError(f"no checkpoint at {settings.checkpoint} (set checkpoint=DIR)")
    targets = load_targets(args.target, backend_language(plain["backend"]), getattr(args, "header", None),
                           getattr(args, "name", None) or "user_theorem")
    refuse_held_out_targets(targets)
    language = backend_language(plain["backend"])
    wrong = [t for t in targets if t.theorem is not None and t.theorem.language != language]
    if wrong:
        raise UsageError(f"{wrong[0].name} is a {wrong[0].theorem.language} theorem but the backend is "
                         f"{plain['backend'].get('name')} ({language}); choose a matching backend=…")

    run_dir = Path(settings.run_dir)
    state = load_state(run_dir)
    if state is not None and not settings.resume:
        raise UsageError(f"{run_dir} already holds a TTRL run (use resume=true or a new run_dir)")
    state = state or RunState()
    state.max_minutes = settings.max_minutes
    for target in targets:
        entry = state.add_target(target.name, target.theorem.statement if target.theorem is not None else "")
        if target.theorem is None and entry.open:
            entry.status, entry.error = ERROR, target.error or "cannot be read"
        if entry.open:
            reconcile(run_dir / target.name, entry, settings.buffer_capacity)
    run_dir.mkdir(parents=True, exist_ok=True)
    save_config(cfg, run_dir)
    save_state(run_dir, state)
    write_report(run_dir, state)
    supervised = load_supervised(str(plain.get("supervised_file") or ""))

    evaluator = EvaluatorRecipe.from_config(mode.value, plain)
    search = {**plain, "method": "mcts"}
    names = [t.name for t in targets]
    theorems = {t.name: t.theorem for t in targets}
    open_count = sum(state.targets[n].open for n in names)
    print(f"ttrl: {len(names)} target(s), {open_count} open; {state.elapsed_seconds / 60:.1f} of "
          f"{settings.max_minutes:g} min used; slices of {schedule['slice_minutes']:g} min; "
          f"{settings.actors} actor(s); run dir {run_dir}", flush=True)

    while True:
        remaining = 60 * settings.max_minutes - state.elapsed_seconds
        pick = next_slice(state, names, remaining, 60 * schedule["slice_minutes"], schedule["min_slice_seconds"])
        if pick is None:
            break
        name, seconds = pick
        entry = state.targets[name]
        target_dir = run_dir / name
        seed = int(plain["seed"]) + 7919 * entry.slices   # a new slice searches differently
        slice_settings = dataclasses.replace(settings, run_dir=str(target_dir), max_minutes=seconds / 60, seed=seed)
        slice_evaluator = dataclasses.replace(evaluator, seed=seed, lemma_file=str(target_dir / LEMMAS_FILE))

        def make_pool(problems: Sequence[SourceProblem], target_dir: Path = target_dir,
                      slice_evaluator: EvaluatorRecipe = slice_evaluator, seed: int = seed):
            def recipe(index: int, weights: object = str(target_dir / "weights")) -> ActorRecipe:
                return ActorRecipe(f"actor-{index}", tuple(problems), plain["backend"], search, slice_evaluator,
                                   weights, plain.get("actor") or {}, seed + 1000 * index)

            if settings.actors == 0:
                return InlineActors(recipe(0)())
            from selfplay.ray_workers import ray_pool

            return ray_pool(settings.actors, recipe, str(plain.get("ray_address") or ""), target_dir / "weights")

        total_before, target_before = state.elapsed_seconds, entry.seconds

        def on_update(entry=entry, total_before=total_before, target_before=target_before) -> None:
            state.elapsed_seconds = total_before + max(0.0, entry.seconds - target_before)
            save_state(run_dir, state)

        session = TTRLSession(name, theorems[name], slice_settings, ttrl, supervised, make_pool,
                              lambda: build_env(plain["backend"]), entry, on_update)
        try:
            result = session.run(seconds)
        finally:
            on_update()
            write_report(run_dir, state)
        print(f"ttrl: {name}: slice {entry.slices} of {seconds:.0f}s → {entry.status}; {result.episodes} episodes "
              f"({result.target_attempts} on the target), variants {entry.variants_generated} "
              f"(+{result.new_variants}) proved {len(entry.variants_proved)} disproved "
              f"{len(entry.variants_disproved)}; {state.elapsed_seconds / 60:.1f}/{settings.max_minutes:g} min",
              flush=True)

    md, _ = write_report(run_dir, state)
    proved = [n for n in names if state.targets[n].status == PROVED]
    print(f"ttrl: proved {len(proved)} of {len(names)}: {', '.join(proved) or '-'}; report {md}", flush=True)
    return 0 if len(proved) == len(names) else 1


__all__ = ["Target", "load_targets", "refuse_held_out_targets", "run_ttrl"]
