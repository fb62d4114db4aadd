"""Turn a composed config into the live parts: env, evaluator, search settings, theorem.

Shared by `solve`, `play`, `eval` and `demo` so every command reads the config the same way, and
every bad value becomes a `UsageError` (one line, exit 2) rather than a traceback. A policy key
the config lacks reads as its default in `alphaprover.policy_config.PolicyConfig`.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from alphaprover.config import UsageError
from alphaprover.policy_config import DECODINGS, POLICY_DEFAULTS
from lean_interface import EnvError, ProofEnv, Theorem, make_env
from lean_interface.problems.benchmarks import REPO_ROOT, find_problem, lean_theorem
from search.config import BestFirstConfig, Budget, MCTSConfig, PortfolioConfig
from search.evaluator import Evaluator
from search.action_set import ActionMode, action_evaluator
from search.fixed_evaluator import COQ_VOCABULARY, LEAN_VOCABULARY, TacticVocabulary
from search.solve import Method, SearchSettings

if TYPE_CHECKING:  # torch-free at import: the network modules load only when a command needs them
    from networks.evaluator import NetworkEvaluator

_PROBLEM_NAME = re.compile(r"^[\w.-]+(/[\w.-]+)?$")


def build_env(backend: dict[str, Any]) -> ProofEnv:
    options = dict(backend)
    name = options.pop("name", None)
    if not name:
        raise UsageError("backend config has no name")
    try:
        return make_env(name, **options)
    except TypeError as error:
        raise UsageError(f"bad backend options: {error}") from None


def build_settings(cfg: dict[str, Any]) -> tuple[Method, SearchSettings, Budget]:
    try:
        method = Method.parse(str(cfg["method"]))
        settings = SearchSettings(
            mcts=MCTSConfig.from_dict(cfg["mcts"]),
            best_first=BestFirstConfig.from_dict(cfg["best_first"]),
            portfolio=PortfolioConfig.from_dict(cfg["portfolio"]),
        )
        budget = Budget(**cfg["budget"])
    except (TypeError, ValueError) as error:
        raise UsageError(f"bad search config: {error}") from None
    return method, settings, budget


def resolve_repo_path(path: str) -> Path:
    """`path` as given when absolute or present in the working directory, else under the
    repository (bundled files — the checkpoint, the ledger, the probe references — are named
    relative to it, so commands work from any directory)."""
    candidate = Path(path)
    if not candidate.is_absolute() and not candidate.exists():
        candidate = REPO_ROOT / candidate
    return candidate


def action_mode(cfg: dict[str, Any]) -> ActionMode:
    """The config's action set (`actions=network|fixed|mixed`)."""
    try:
        return ActionMode.parse(str(cfg.get("actions", POLICY_DEFAULTS.actions)))
    except ValueError as error:
        raise UsageError(str(error)) from None


def sampling_temperatures(cfg: dict[str, Any]) -> tuple[float, float]:
    """(`temperature`, `temperature_step`) of a config: round r of a goal samples at
    temperature · (1 + temperature_step · r) (`networks.evaluator`); a one-line UsageError when
    they are not numbers, the temperature is not positive or the step is negative."""
    try:
        temperature = float(cfg.get("temperature", POLICY_DEFAULTS.temperature))
        step = float(cfg.get("temperature_step", POLICY_DEFAULTS.temperature_step))
    except (TypeError, ValueError):
        raise UsageError("temperature and temperature_step must be numbers") from None
    if temperature <= 0 or step < 0:
        raise UsageError(f"temperature must be > 0 and temperature_step >= 0 (got {temperature}, {step})")
    return temperature, step


def policy_decoding(cfg: dict[str, Any]) -> str:
    """The config's `decoding`: how the policy proposes a goal's tactics, "sample" (K samples per
    round), "beam" (round r: the K·(r+1) most likely, `networks.evaluator`) or "both" (their
    union); a one-line UsageError for anything else."""
    decoding = str(cfg.get("decoding", POLICY_DEFAULTS.decoding))
    if decoding not in DECODINGS:
        raise UsageError(f"decoding must be sample, beam or both, not {decoding!r}")
    return decoding


def lemma_count(cfg: dict[str, Any]) -> int:
    """The config's `lemma_candidates` (0 = off); a one-line UsageError unless a whole number >= 0."""
    value = cfg.get("lemma_candidates", POLICY_DEFAULTS.lemma_candidates)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UsageError(f"lemma_candidates must be a whole number >= 0 (0 = off), not {value!r}")
    return value


def build_lemmas(cfg: dict[str, Any], mode: ActionMode, top: int) -> Callable[[str], Sequence[str]] | None:
    """The lemma candidates' callable for `top` lemmas (None when 0): the index is loaded from its
    cache or built once (`search.lemma_index`). Mixed mode and the Coq backend only (UsageError)."""
    if not top:
        return None
    if mode is not ActionMode.MIXED:
        raise UsageError(f"lemma candidates need actions=mixed (the policy prices them), not {mode.value}")
    backend = cfg["backend"]
    if backend_language(backend) != "coq":
        raise UsageError("lemma candidates are read from Coq's library: they need the coq backend")
    from lean_interface.coq.prelude import DEFAULT_PRELUDE
    from search.lemma_candidates import LemmaCandidates
    from search.lemma_index import load_index

    prelude = backend.get("prelude")
    index = load_index(coqtop=str(backend.get("coqtop", "coqtop")),
                       prelude=DEFAULT_PRELUDE if prelude is None else str(prelude))
    return LemmaCandidates(index, top).tactics_for


def build_evaluator(cfg: dict[str, Any], method: Method, mode: ActionMode | None = None,
                    lemmas: int | None = None) -> tuple[Evaluator | None, str]:
    """The evaluator for `method` under action mode `mode` (default: the config's), with the
    tactic list of the configured backend's language and `lemmas` library-lemma candidates
    (default: the config's `lemma_candidates`, which only mixed mode reads), and a short
    description of it."""
    if method is Method.PORTFOLIO:
        return None, "none (portfolio)"
    mode = mode or action_mode(cfg)
    if lemmas and mode is not ActionMode.MIXED:
        raise UsageError(f"lemma candidates need actions=mixed (the policy prices them), not {mode.value}")
    # the config's lemma_candidates is mixed mode's: the other modes have no policy to price them
    top = lemmas if lemmas is not None else lemma_count(cfg) if mode is ActionMode.MIXED else 0
    vocabulary = vocabulary_for(cfg["backend"], str(cfg.get("proposers") or POLICY_DEFAULTS.proposers))
    if mode is ActionMode.FIXED:
        return action_evaluator(mode, None, vocabulary), "fixed tactic list (no network)"
    network, checkpoint = load_policy(cfg)
    described = "network samples" if mode is ActionMode.NETWORK else "network samples + automation, network-ranked"
    if top:
        described += f" + top {top} library lemmas"
    # the config's short_names is mixed mode's too: only the policy prices the names
    named = mode is ActionMode.MIXED and bool(cfg.get("short_names", POLICY_DEFAULTS.short_names))
    if named:
        described += ", computed proposers by short name"
    evaluator = action_evaluator(mode, network, vocabulary, build_lemmas(cfg, mode, top), short_names=named)
    return evaluator, f"{described} ({checkpoint}, {network.engine})"


def load_policy(cfg: dict[str, Any]) -> tuple[NetworkEvaluator, Path]:
    """(the policy network the config's `checkpoint` names, its directory): our checkpoint DIR
    (`NetworkEvaluator`), or a transformers checkpoint, `hf:DIR` or a plain DIR holding one
    (`networks.hf_evaluator.HFEvaluator`, read with the `hf_*` and `device` keys). A one-line
    UsageError when the directory is neither, or the transformers one cannot be loaded."""
    from networks.checkpoint import is_checkpoint
    from networks.hf_dir import hf_problem, split_hf

    explicit, spec = split_hf(str(cfg["checkpoint"]))
    checkpoint = resolve_repo_path(spec)
    temperature, step = sampling_temperatures(cfg)
    common = dict(temperature=temperature, seed=int(cfg["seed"]), threads=int(cfg["threads"]),
                  language=backend_language(cfg["backend"]), temperature_step=step, decoding=policy_decoding(cfg))
    problem = hf_problem(checkpoint)
    # a transformers directory has our three file names too (config.json, model.safetensors, tokenizer.json):
    # its config.json, which names a model_type, tells the two apart
    if not explicit and problem is not None and is_checkpoint(checkpoint):
        from networks.evaluator import NetworkEvaluator

        return NetworkEvaluator.from_checkpoint(checkpoint, engine=cfg.get("engine"), **common), checkpoint
    if problem is not None:
        raise UsageError(problem if explicit else
                         f"no checkpoint at {checkpoint} (set checkpoint=DIR or hf:DIR, or actions=fixed)")
    from networks.hf_evaluator import HFEvaluator

    try:
        return HFEvaluator.from_directory(
            checkpoint, prompt=str(cfg.get("hf_prompt", POLICY_DEFAULTS.hf_prompt)),
            stop=[str(s) for s in cfg.get("hf_stop") or []],
            max_new_tokens=int(cfg.get("hf_max_new_tokens", POLICY_DEFAULTS.hf_max_new_tokens)),
            device=str(cfg.get("device", POLICY_DEFAULTS.device)), **common), checkpoint
    except ValueError as error:
        raise UsageError(str(error).strip().splitlines()[0]) from None


def resolve_theorem(target: str, language: str, header: str | None, name: str) -> Theorem:
    """A theorem from a statement, a `.v`/`.lean` file, or a bundled problem name."""
    path = Path(target)
    if path.suffix in (".v", ".lean") and path.exists():
        if path.suffix == ".v":
            from lean_interface.coq import theorem_from_file

            return theorem_from_file(path)
        text = path.read_text(encoding="utf-8")
        return lean_theorem({"name": name if name != "user_theorem" else path.stem,
                             "header": header or "", "formal_statement": text})
    if path.suffix in (".v", ".lean"):
        raise UsageError(f"file not found: {target}")
    if _PROBLEM_NAME.match(target):  # one word: a bundled problem name if there is one
        try:
            problem = find_problem(target)
        except ValueError:
            problem = None
        if problem is not None:
            if problem.theorem is None:
                raise UsageError(f"{problem.name}: {problem.error}")
            return problem.theorem
    if language == "coq":
        from lean_interface.coq import theorem_from_proposition
        from lean_interface.coq.files import DEFAULT_HEADER

        return theorem_from_proposition(target, name=name, header=header if header is not None else DEFAULT_HEADER)
    statement = target if target.lstrip().startswith(("theorem", "lemma")) else f"theorem {name} : {target}"
    return lean_theorem({"name": name, "header": header or "", "formal_statement": statement})


def backend_language(backend: dict[str, Any]) -> str:
    return "coq" if backend.get("name") == "coq" else "lean"


def vocabulary_for(backend: dict[str, Any], proposers: str = POLICY_DEFAULTS.proposers) -> TacticVocabulary:
    """The fixed/automation tactic list of the backend's proof language, its generated tactics from
    the `proposers` set (`search.proposers.proposer_set`; Coq only: a one-line UsageError for an
    unknown name, or for computed proposers on another backend)."""
    if backend_language(backend) != "coq":
        if proposers not in ("classic", "none"):
            raise UsageError(f"proposers={proposers}: the proposers write Coq tactics (backend coq only)")
        return LEAN_VOCABULARY
    from search.proposers import proposer_set

    try:
        return dataclasses.replace(COQ_VOCABULARY, families=proposer_set(proposers))
    except ValueError as error:
        raise UsageError(str(error)) from None


__all__ = ["EnvError", "action_mode", "backend_language", "build_env", "build_evaluator", "build_lemmas",
           "build_settings", "lemma_count", "load_policy", "resolve_repo_path", "resolve_theorem",
           "vocabulary_for"]
