"""`alphaprover train` with `loop: expert_iteration` (the default): rounds over the problem factory.

Builds the train problems (the factory's train items, and any other configured source) and the
held-out slice (the held-out items of every factory source), the actor pools of each phase (Ray
actors, or one in-process actor with `actors=0`; search actors prune their proofs, held-out
actors search with the evaluation's action set), and runs `selfplay.expert_iteration`. A missing
input at its default path — the factory, its script demonstrations, the stdlib records — is built
first (`alphaprover.train_inputs`); the library records go to the learner as its library share.
The composed config is saved as `<run_dir>/config.yaml`; TensorBoard logs go to `<run_dir>/tb`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from omegaconf import DictConfig
from tqdm import tqdm

from alphaprover.config import UsageError, save_config, to_plain
from alphaprover.policy_config import POLICY_DEFAULTS
from alphaprover.runtime import (action_mode, build_settings, policy_decoding, resolve_repo_path,
                                 sampling_temperatures)
from alphaprover.train_inputs import ensure_factory, ensure_inputs, load_library
from alphaprover.train_setup import ActorRecipe, EvaluatorRecipe, load_sources, load_supervised
from search.action_set import ActionMode
from selfplay.actor import ActorConfig, SourceProblem
from selfplay.hold_out import HoldOut

def factory_files(specs: list[str]) -> list[Path]:
    """The files of the `factory:` sources among `specs` (parsed as the sources module parses them)."""
    from selfplay.source_spec import parse_spec

    return [Path(spec.target) for spec in map(parse_spec, specs) if spec.kind == "factory"]


def benchmark_sources(specs: list[str]) -> frozenset[str]:
    """The source names (as in problem ids) of the benchmark specs among `specs`: the competition
    problems the curve's `competition_proved_total` counts (not the factory, variants or stdlib)."""
    from selfplay.source_spec import parse_spec

    return frozenset(spec.source for spec in map(parse_spec, specs) if spec.kind == "benchmark")


def pool_actor_settings(kind: str, actor: dict) -> dict:
    """The `actor` settings of a pool of `kind`. Search proofs become training data and reference
    proofs the exact-match references: both are pruned. Held-out searches label their goals for
    the curve's value AUC (proved vs searched without a proof, `selfplay.targets` rule `tree`)
    whatever rule the run trains with, so the test does not change with `actor.unproved_targets`."""
    settings = {**actor, "prune_proofs": kind in ("search", "search-policy", "reference")}
    if kind == "heldout":
        settings["unproved_targets"] = "tree"
    return settings


def heldout_problems(files: list[Path]) -> list[SourceProblem]:
    """The held-out items of every factory file, as problems (never trained on)."""
    from lean_interface.problems.factory.build import read_items
    from lean_interface.problems.factory.family import HELDOUT

    problems = []
    for path in files:
        problems += [SourceProblem(f"heldout/{item.name}", "heldout", item.theorem())
                     for item in read_items(path, split=HELDOUT)]
    return problems


def run_hold_out(benchmarks: tuple[str, ...]) -> HoldOut:
    """The run's own held-out benchmarks (`iteration.hold_out`); a name that loads nothing is a usage error."""
    try:
        return HoldOut.of(benchmarks)
    except ValueError as error:
        raise UsageError(f"iteration.hold_out: {error}") from None


def train_problems(specs: list[str], hold_out: HoldOut) -> list[SourceProblem]:
    """The problems of the source `specs`, less those `hold_out` names (by name, variant or
    statement; how many is said in one line)."""
    train, held = hold_out.split(load_sources(specs))
    if held:
        print(f"iteration.hold_out: {len(held)} source problems of {', '.join(hold_out.benchmarks)} "
              "(by name, variant or statement) left out")
    return train


def run_expert_iteration(cfg: DictConfig) -> int:
    from selfplay.expert_iteration import ExpertIteration, ExpertIterationConfig, check_source_weights
    from selfplay.ray_learner import learner_factory
    from ttrl.lemmas import SubgoalLemmas
    from ttrl.variants import SubgoalTheorems

    plain = to_plain(cfg)
    plain["checkpoint"] = str(resolve_repo_path(str(plain["checkpoint"])))
    try:
        settings = ExpertIterationConfig.from_train_config(plain)
        ActorConfig.from_dict(plain.get("actor") or {})
        heldout_mode = ActionMode.parse(str(plain.get("heldout_actions") or "network"))
        heldout_plain = {**plain, "decoding": str(plain.get("heldout_decoding")
                                                  or plain.get("decoding", POLICY_DEFAULTS.decoding))}
    except (TypeError, ValueError) as error:
        raise UsageError(f"bad train config: {error}") from None
    if int(plain["actors"]) < 0:
        raise UsageError("bad train config: actors must be >= 0")
    build_settings({**plain, "method": "mcts"})
    sampling_temperatures(plain)
    policy_decoding(plain)
    policy_decoding(heldout_plain)
    mode = action_mode(plain)
    specs = [str(spec) for spec in plain["sources"]]
    files = factory_files(specs)
    if not files:
        raise UsageError("loop=expert_iteration needs a factory:<jsonl> source (its held-out items are the curve)")
    ensure_inputs(str(plain.get("supervised_file") or ""), str(plain.get("library_file") or ""), files)
    hold_out = run_hold_out(settings.hold_out)
    train = train_problems(specs, hold_out)
    try:
        check_source_weights(settings, train)  # before the run directory is made
    except ValueError as error:
        raise UsageError(str(error)) from None
    known_proved = known_proved_targets(settings.known_proofs)
    heldout = heldout_problems(files)
    run_dir = Path(settings.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    save_config(cfg, run_dir)
    supervised = load_supervised(str(plain.get("supervised_file") or ""), hold_out)
    library = load_library(str(plain.get("library_file") or ""), [str(r) for r in plain.get("library_roots") or []])

    from torch.utils.tensorboard import SummaryWriter

    lemma_file = run_dir / "lemmas.json" if settings.subgoal_sources and settings.subgoal_lemmas else None

    def make_pool(kind: str, chosen_problems: list[SourceProblem]):
        chosen = {"search": mode, "search-policy": heldout_mode, "heldout": heldout_mode,
                  "reference": ActionMode.FIXED}[kind]
        # the held-out curve may decode otherwise than the search that collects proofs (beam: deterministic)
        # search actors offer the proved subgoals' closing tactics first (lemmas.json; held-out ones never)
        lemmas = str(lemma_file) if lemma_file is not None and kind in ("search", "search-policy") else ""
        evaluator = EvaluatorRecipe.from_config(chosen.value, heldout_plain if kind == "heldout" else plain, lemmas)
        actor = pool_actor_settings(kind, plain.get("actor") or {})
        problems = tuple(chosen_problems)
        search = {**plain, "method": "mcts"}

        def recipe(index: int, weights: object = str(run_dir / "weights")) -> ActorRecipe:
            return ActorRecipe(f"{kind}-{index}", problems, plain["backend"], search, evaluator,
                               weights, actor, int(plain["seed"]) + 1000 * index)

        if int(plain["actors"]) == 0:
            from selfplay.runner import InlineActors

            return InlineActors(recipe(0)())
        from selfplay.ray_workers import ray_pool

        return ray_pool(int(plain["actors"]), recipe, str(plain.get("ray_address") or ""), run_dir / "weights")

    writer = SummaryWriter(str(run_dir / "tb"))
    try:
        driver = ExpertIteration(settings, train, heldout, supervised, make_pool, writer=writer, library=library,
                                 value_scorer=value_scorer, topk_scorer=topk_scorer, logprob_scorer=logprob_scorer,
                                 script_referencer=lambda problem_ids: script_references(problem_ids, files),
                                 competition_referencer=competition_referencer(settings.competition_references),
                                 make_learner=learner_factory(str(plain.get("ray_address") or "")),
                                 competition_sources=benchmark_sources(specs),
                                 subgoal_maker=SubgoalTheorems() if settings.subgoal_sources else None,
                                 subgoal_lemmas=SubgoalLemmas(lemma_file) if lemma_file is not None else None,
                                 known_proved=known_proved)
    except ValueError as error:
        raise UsageError(str(error)) from None
    print(f"expert iteration: {len(train)} train problems, held-out slice {len(driver.heldout_slice)} of "
          f"{len(heldout)}; round {driver.state.round} ({driver.state.phase}); learner step {driver.learner.step}, "
          f"weights v{driver.learner.version}; buffer {len(driver.buffer)} records; run dir {run_dir}")
    bar = tqdm(desc="expert iteration", unit="item")
    proved = {"count": 0}

    def show_phase(round_index: int, phase: str) -> None:
        bar.reset()
        proved["count"] = 0
        bar.set_description(f"round {round_index} {phase}")
        bar.set_postfix(buffer=len(driver.buffer), step=driver.learner.step, version=driver.learner.version)

    def show_progress(kind: str, done: int, total: int, found: bool) -> None:
        proved["count"] += found
        bar.total = total
        bar.n = done
        bar.set_postfix(proved=proved["count"], buffer=len(driver.buffer), step=driver.learner.step,
                        version=driver.learner.version)

    driver.on_progress = show_progress
    state = driver.run(on_phase=show_phase)
    bar.close()
    writer.close()
    curve = run_dir / "curve.tsv"
    summary = {"round": state.round, "phase": state.phase, "learner_step": driver.learner.step,
               "weights_version": driver.learner.version, "buffer_records": len(driver.buffer),
               "curve": str(curve) if curve.is_file() else ""}
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    if curve.is_file():
        print(curve.read_text(encoding="utf-8"), end="")
    print(json.dumps(summary))
    return 0


def value_scorer(checkpoint: Path, goals: list[str]) -> list[float]:
    """The value head of the checkpoint at `checkpoint` on each goal (for the round's AUC)."""
    from networks.checkpoint import load_checkpoint
    from networks.train_eval import predicted_values

    model, tokenizer, _ = load_checkpoint(checkpoint)
    return predicted_values(model, tokenizer, goals)


def topk_scorer(checkpoint: Path, references: list[tuple[str, str]], k: int) -> float:
    """Exact match of the checkpoint's k-beam against each reference (goal, tactic): top-k."""
    from networks.checkpoint import load_checkpoint
    from networks.dataset import Example
    from networks.train_eval import beam_exact_match

    model, tokenizer, _ = load_checkpoint(checkpoint)
    return beam_exact_match(model, tokenizer, [Example(goal, tactic, 1) for goal, tactic in references], k)["topk"]


def logprob_scorer(checkpoint: Path, steps: list[tuple[str, str]]) -> list[float]:
    """Teacher-forced log-prob (nats) the checkpoint gives each (goal, tactic) step."""
    import torch

    from networks.checkpoint import load_checkpoint
    from networks.sampling import score_tactics

    model, tokenizer, _ = load_checkpoint(checkpoint)
    model.eval()
    scores: list[float] = []
    with torch.no_grad():
        for start in range(0, len(steps), 16):
            chunk = steps[start:start + 16]
            scores += [row[0] for row in score_tactics(model, tokenizer, [g for g, _ in chunk], [[t] for _, t in chunk])]
    return scores


def competition_referencer(spec: str) -> Callable[[], list[dict]] | None:
    """What replays the curve's competition references (`iteration.competition_references`; a
    relative path is read from the working directory, else from the repository): None when off or
    when the file is missing (said once)."""
    if not spec:
        return None
    path = resolve_repo_path(spec)
    if not path.is_file():
        print(f"warning: competition references {spec} not found; competition_bottleneck not measured")
        return None
    from alphaprover.probe import reference_steps

    return lambda: reference_steps(str(path))


def known_proved_targets(spec: str) -> frozenset[str]:
    """The competition targets `iteration.known_proofs` (a loop-proof ledger; a relative path is
    read from the working directory, else from the repository) lists; empty when off. UsageError
    when the named file is missing or malformed: a typo would otherwise search every target
    without a word."""
    if not spec:
        return frozenset()
    from alphaprover.analyze.ledger import ledger_rows

    path = resolve_repo_path(spec)
    if not path.is_file():
        raise UsageError(f"iteration.known_proofs: {spec} not found")
    return frozenset(str(row["problem"]) for row in ledger_rows(path))


def script_references(problem_ids: list[str], files: list[Path]) -> list[dict]:
    """Every step of the held-out items' own proof scripts, replayed in Coq, as rows (problem, goal,
    tactic, steps still to go): evaluation references, never learner data."""
    from lean_interface.coq.proof_replay import ProofReplayer
    from lean_interface.problems.factory.build import read_items
    from lean_interface.problems.factory.family import HELDOUT
    from lean_interface.problems.factory.scripts import script_records

    ids = {problem_id.rsplit("/", 1)[-1]: problem_id for problem_id in problem_ids}  # ids are heldout/<name>
    items = [item for path in files for item in read_items(path, split=HELDOUT) if item.name in ids]
    with ProofReplayer() as replayer:
        records, _ = script_records(items, replayer, split=HELDOUT)
    return [{"problem": ids[r.lemma], "goal": r.goal, "tactic": r.tactic, "steps": r.steps}
            for r in records if r.lemma in ids]


__all__ = ["competition_referencer", "ensure_factory", "heldout_problems", "known_proved_targets", "logprob_scorer",
           "pool_actor_settings", "run_expert_iteration", "script_references"]
