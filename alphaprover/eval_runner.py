"""One evaluation worker: a plain class that solves problems and returns `ProblemRecord`s.

It owns one proof env and (lazily) one network evaluator, reused across problems. Nothing a
problem does can end the run: a statement that does not elaborate is a BAD_STATEMENT record, a
crash inside an attempt is an ERROR record with the reason. `RayProblemRunner` is the thin Ray
wrapper used when `eval --workers N > 1` (`alphaprover.eval_cluster`); with one worker no Ray is involved.
"""

from __future__ import annotations

import dataclasses
import re
import time
from typing import Any

from alphaprover.eval_records import ProblemRecord
from alphaprover.policy_config import DECODINGS, LEMMAS_LABEL_DEFAULT
from alphaprover.runtime import action_mode, build_env, build_evaluator, build_settings
from lean_interface.api import EnvError, ProofEnv, Theorem
from search.action_set import ActionMode, NeutralValue
from search.config import EXPANSIONS, GLANCE_LIST_PRIORS
from search.outcome import Outcome
from search.evaluator import Evaluator
from search.solve import Method, SearchSettings, solve

_LEMMAS = re.compile(r"lemmas(?P<top>\d*)")
#: a label's glance-list option: `priced` (`mcts.glance_prices_list`) or a `mcts.glance_list_prior`
LIST_PRICINGS = ("priced", *GLANCE_LIST_PRIORS)


#: a label's proposer-set option (`proposers` in the config, search/proposers/): `+classic`, `+proposers` (all)
#: or `+pending` (all and the proposers not yet measured, `search.proposers.PENDING_MODULES`)
PROPOSER_OPTIONS = {"classic": "classic", "proposers": "all", "pending": "pending"}


#: a label's value option: the network's value replaced by the neutral −(number of goals)
NEUTRAL_VALUE = "neutral"

#: a label's pricing of the computed proposers by their short names (`short_names`, mixed mode)
SHORT_NAMES = "names"


def _known_policy_option(option: str) -> bool:
    """An option other than an expansion: lemma candidates, a decoding, a glance-list pricing, a
    proposer set, the neutral value or short names."""
    return (bool(_LEMMAS.fullmatch(option)) or option in DECODINGS or option in LIST_PRICINGS
            or option in PROPOSER_OPTIONS or option in (NEUTRAL_VALUE, SHORT_NAMES))


def split_neutral(label: str) -> tuple[str, bool]:
    """`mcts-mixed+neutral` → ("mcts-mixed", True): the search with the network's proposals but the
    no-network value (`search.action_set.NeutralValue`), so one eval run measures what the value
    head adds."""
    base, options = _options(label)
    return "+".join([base, *(o for o in options if o != NEUTRAL_VALUE)]), NEUTRAL_VALUE in options


def split_names(label: str) -> tuple[str, bool]:
    """`mcts-mixed+proposers+names` → ("mcts-mixed+proposers", True): the computed proposers priced by
    their short names (`search.proposers.short_names`), so one eval run measures what naming them adds."""
    base, options = _options(label)
    return "+".join([base, *(o for o in options if o != SHORT_NAMES)]), SHORT_NAMES in options


def split_proposers(label: str) -> tuple[str, str | None]:
    """`mcts-fixed+proposers` → ("mcts-fixed", "all"), `+classic` → "classic": a search may name its
    own proposer set (`search.proposers.proposer_set`), so one eval run compares the automation with
    and without the computed proposers. No such option → (label, None): the config's `proposers`."""
    base, options = _options(label)
    chosen = next((PROPOSER_OPTIONS[o] for o in options if o in PROPOSER_OPTIONS), None)
    return "+".join([base, *(o for o in options if o not in PROPOSER_OPTIONS)]), chosen


def _options(label: str) -> tuple[str, list[str]]:
    """`mcts-mixed+cost+lemmas8` → ("mcts-mixed", ["cost", "lemmas8"]): a label is a method, then
    options each after a `+` (an expansion for MCTS, lemma candidates for a mixed search), in any order."""
    base, *options = label.split("+")
    return base, options


def split_lemmas(label: str) -> tuple[str, int | None]:
    """`mcts-mixed+lemmas8` → ("mcts-mixed", 8); `+lemmas` alone offers `LEMMAS_LABEL_DEFAULT`
    lemmas, `+lemmas0` none; no such option → (label, None): the config's `lemma_candidates` decides.
    So one eval run compares a method with and without lemma candidates (search.lemma_candidates).
    Other options stay in the returned label."""
    base, options = _options(label)
    lemmas, rest = None, []
    for option in options:
        match = _LEMMAS.fullmatch(option)
        if match is None:
            rest.append(option)
        else:
            lemmas = int(match.group("top")) if match.group("top") else LEMMAS_LABEL_DEFAULT
    return "+".join([base, *rest]), lemmas


def split_expansion(label: str) -> tuple[str, str | None]:
    """`mcts-fixed+cost` → ("mcts-fixed", "cost"): an MCTS label may name its own expansion
    (`mcts.expansion`, docs/ARCHITECTURE.md §Cost-aware expansion), so one eval run compares the
    eager and the cost-aware expansion side by side. No such option: the config's. Other options
    (`+lemmas[N]`) stay in the returned label. A one-line ValueError for an unknown option or an
    expansion given to a method other than MCTS."""
    base, options = _options(label)
    expansion, rest = None, []
    for option in options:
        if _known_policy_option(option):
            rest.append(option)
        elif option in EXPANSIONS:
            expansion = option
        else:
            raise ValueError(f"method {label!r}: unknown expansion {option!r} (choose from {', '.join(EXPANSIONS)}; "
                             f"a decoding: {', '.join(DECODINGS)}; a glance-list pricing: {', '.join(LIST_PRICINGS)}; "
                             "or lemmas[N] for a -mixed search)")
    if expansion is not None and parse_method_label(base)[0] is not Method.MCTS:
        raise ValueError(f"method {label!r}: only mcts has an expansion mode")
    return "+".join([base, *rest]), expansion


def split_decoding(label: str) -> tuple[str, str | None]:
    """`mcts-mixed+both` → ("mcts-mixed", "both"): a search with the network may name its own
    `decoding` (sample | beam | both), so one eval run compares decodings side by side. No such
    option → (label, None): the config's. Other options stay in the returned label."""
    base, options = _options(label)
    decoding = next((o for o in options if o in DECODINGS), None)
    return "+".join([base, *(o for o in options if o not in DECODINGS)]), decoding


def split_list_pricing(label: str) -> tuple[str, str | None]:
    """`mcts-mixed+residual` → ("mcts-mixed", "residual"): how a glanced goal's list is priced after the
    policy's round — `priced` (`mcts.glance_prices_list`: scored again), `uniform` or `residual`
    (`mcts.glance_list_prior`). No such option → (label, None): the config's."""
    base, options = _options(label)
    pricing = next((o for o in options if o in LIST_PRICINGS), None)
    return "+".join([base, *(o for o in options if o not in LIST_PRICINGS)]), pricing


def with_list_pricing(settings: SearchSettings, pricing: str | None) -> SearchSettings:
    """`settings` with a label's glance-list pricing (`split_list_pricing`) applied."""
    if pricing is None:
        return settings
    mcts = (dataclasses.replace(settings.mcts, glance_prices_list=True) if pricing == "priced"
            else dataclasses.replace(settings.mcts, glance_prices_list=False, glance_list_prior=pricing))
    return dataclasses.replace(settings, mcts=mcts)


def parse_method_label(label: str) -> tuple[Method, ActionMode | None]:
    """`portfolio`, or a search with an optional action-set suffix: `mcts`, `mcts-mixed`,
    `bfs-fixed`, `mcts-network`, … (no suffix: the config's `actions`). Returns (method, mode),
    mode None for the portfolio or when the config decides. Options after `+` are checked and read
    past: an expansion (`split_expansion`, MCTS only), a decoding (`split_decoding`, a search with the
    network), a glance-list pricing (`split_list_pricing`, mcts-mixed) and `+lemmas[N]` (`split_lemmas`,
    mixed only)."""
    if "+" in label:
        without_expansion, _ = split_expansion(label)
        without_decoding, decoding = split_decoding(without_expansion)
        without_pricing, pricing = split_list_pricing(without_decoding)
        without_proposers, proposers = split_proposers(without_pricing)
        without_neutral, neutral = split_neutral(without_proposers)
        without_names, names = split_names(without_neutral)
        base, lemmas = split_lemmas(without_names)
        if names and not base.endswith("-mixed"):
            raise ValueError(f"short names are priced by the policy: only a -mixed search takes +names, not {label!r}")
        if neutral and not (base.endswith("-mixed") or base.endswith("-network")):
            raise ValueError(f"+neutral replaces the network's value: only a -mixed or -network search takes it, "
                             f"not {label!r}")
        if proposers and base.startswith("portfolio"):
            raise ValueError(f"the portfolio runs its own tactic list: +classic / +proposers are for a search, "
                             f"not {label!r}")
        if lemmas and not base.endswith("-mixed"):
            raise ValueError(f"lemma candidates are priced by the policy: only a -mixed search takes +lemmas "
                             f"(e.g. mcts-mixed+lemmas), not {label!r}")
        if decoding and not (base.endswith("-mixed") or base.endswith("-network")):
            raise ValueError(f"a decoding is the policy's: only a -mixed or -network search takes +{decoding}, "
                             f"not {label!r}")
        if pricing and not (base.endswith("-mixed") and base.startswith("mcts")):
            raise ValueError(f"a glance-list pricing is an mcts-mixed option, not {label!r}")
        label = base
    name, _, suffix = label.partition("-")
    method = Method.parse(name)
    if not suffix:
        return method, None
    if method is Method.PORTFOLIO:
        raise ValueError(f"portfolio uses no evaluator: {label!r} is not a method")
    return method, ActionMode.parse(suffix)


def split_checkpoint(label: str) -> tuple[str, str | None]:
    """`mcts-mixed@runs/x/best` → ("mcts-mixed", "runs/x/best"): a method label may name its own
    checkpoint, so one eval run compares checkpoints side by side; `mcts-mixed@hf:DIR` →
    ("mcts-mixed", "hf:DIR"), a transformers checkpoint (`alphaprover.runtime.load_policy`). The
    label ends at the first `@`, so the directory may itself contain one."""
    base, at, checkpoint = label.partition("@")
    return base, (checkpoint if at else None)


class ProblemRunner:
    """Solves (problem, method) pairs with one env and cached evaluators."""

    def __init__(self, cfg: dict[str, Any]) -> None:
        self._cfg = cfg
        _, self._settings, self._budget = build_settings(cfg)
        self._env: ProofEnv | None = None
        self._evaluators: dict[tuple, Evaluator | None] = {}

    def _evaluator(self, method: Method, mode: ActionMode | None, checkpoint: str | None = None,
                   expansion: str | None = None, lemmas: int | None = None, decoding: str | None = None,
                   pricing: str | None = None, proposers: str | None = None,
                   neutral: bool = False, names: bool = False) -> Evaluator | None:
        """One evaluator per (method, mode, checkpoint, label options): a network cache never
        serves two methods, so neither side of a comparison reads the other's answers."""
        key = (method, mode or action_mode(self._cfg), checkpoint, expansion, lemmas, decoding, pricing, proposers,
               neutral, names)
        if key not in self._evaluators:
            cfg = {**self._cfg, "checkpoint": checkpoint} if checkpoint else self._cfg
            if decoding:
                cfg = {**cfg, "decoding": decoding}
            if proposers:
                cfg = {**cfg, "proposers": proposers}
            if names:
                cfg = {**cfg, "short_names": True}
            evaluator = build_evaluator(cfg, method, key[1], lemmas)[0]
            self._evaluators[key] = NeutralValue(evaluator) if neutral and evaluator is not None else evaluator
        return self._evaluators[key]

    def _get_env(self) -> ProofEnv:
        if self._env is None:
            self._env = build_env(self._cfg["backend"])
        return self._env

    def run(self, name: str, theorem: Theorem | None, error: str, method_name: str) -> ProblemRecord:
        budget = self._budget
        base = dict(problem=name, method=method_name, budget_seconds=budget.max_seconds,
                    budget_simulations=budget.max_simulations)
        if theorem is None:
            return ProblemRecord(status=Outcome.BAD_STATEMENT, seconds=0.0, prover_calls=0, message=error, **base)
        label, checkpoint = split_checkpoint(method_name)
        method, mode = parse_method_label(label)
        expansion = split_expansion(label)[1]
        lemmas = split_lemmas(label)[1]
        decoding = split_decoding(label)[1]
        pricing = split_list_pricing(label)[1]
        proposers = split_proposers(label)[1]
        neutral = split_neutral(label)[1]
        names = split_names(label)[1]
        settings = with_list_pricing(self._settings, pricing)
        if expansion is not None:
            settings = dataclasses.replace(settings, mcts=dataclasses.replace(settings.mcts, expansion=expansion))
        started = time.monotonic()
        try:
            evaluator = self._evaluator(method, mode, checkpoint, expansion, lemmas, decoding, pricing, proposers,
                                        neutral, names)
            outcome = solve(theorem, self._get_env(), evaluator, method, settings, budget)
        except EnvError as bad:
            return ProblemRecord(status=Outcome.BAD_STATEMENT, seconds=time.monotonic() - started, prover_calls=0,
                                 message=str(bad)[:300], **base)
        except Exception as crash:  # an attempt that breaks is recorded, and the run goes on
            self.close()
            return ProblemRecord(status=Outcome.ERROR, seconds=time.monotonic() - started, prover_calls=0,
                                 message=f"{type(crash).__name__}: {crash}"[:300], **base)
        stats = outcome.stats
        return ProblemRecord(
            status=Outcome.PROVED if outcome.proved else Outcome.FAILED,
            seconds=round(outcome.total_seconds, 4), prover_calls=stats.prover_calls,
            simulations=stats.simulations, evaluator_calls=stats.evaluator_calls, proof=outcome.script,
            message=outcome.incident, families=tuple(dict.fromkeys(f for _, f in outcome.closed_by)),
            max_depth=stats.max_depth, prover_seconds=round(stats.prover_seconds, 3), **base,
        )

    def close(self) -> None:
        if self._env is not None:
            self._env.close()
            self._env = None


def make_ray_runner(cfg: dict[str, Any], num_cpus: float = 1.0, restarts: int = 2):
    """A `ProblemRunner` as a Ray actor (restarted up to `restarts` times if its process dies; 0: the
    caller replaces a lost one itself, `alphaprover.eval_cluster`)."""
    import ray

    remote_class = ray.remote(num_cpus=num_cpus, max_restarts=restarts,
                              max_task_retries=1 if restarts else 0)(ProblemRunner)
    return remote_class.remote(cfg)
