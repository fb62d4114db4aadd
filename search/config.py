"""Search configurations. Defaults are AlphaProof's published constants where it has them.

Every constant is written once, here: the CLI puts these dataclasses' defaults into Hydra's
ConfigStore and builds them back with `from_dict`, which rejects unknown keys so a typo in an
override is a one-line error rather than a silently ignored setting.

The budget is its own dataclass (`Budget`), shared by every method, so MCTS, best-first search
and the portfolio are always compared under the very same limits.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, TypeVar

from search.value_units import UNPROVED_STEPS

T = TypeVar("T")


def reject_unknown_keys(cls: type, data: dict[str, Any], label: str | None = None) -> None:
    """One-line ValueError "unknown <label or class name> keys: …" for keys `cls` has no field for."""
    unknown = sorted(set(data) - {f.name for f in fields(cls)})
    if unknown:
        raise ValueError(f"unknown {label or cls.__name__} keys: {', '.join(unknown)}")


def config_from_dict(cls: type[T], data: dict[str, Any], label: str | None = None) -> T:
    """`cls(**data)`, with a one-line ValueError for unknown keys or rejected values. The config
    dataclasses of search, self-play and TTRL build themselves with it."""
    reject_unknown_keys(cls, data, label)
    return cls(**data)



#: the values of `MCTSConfig.expansion`: every proposal by prior ("eager"), cheap first ("cost"), cheap
#: first with cheap kinds that prove slow in this search deferred too ("measured"; `search.cost`), and
#: "measured" with a new goal's first round a glance, the policy asked when the search comes back ("glance")
EXPANSIONS = ("eager", "cost", "measured", "glance")
#: the values of `MCTSConfig.glance_list_prior`
GLANCE_LIST_PRIORS = ("uniform", "residual")


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


@dataclass(frozen=True)
class Budget:
    """When a search stops: whichever limit is reached first. 0 means "no limit" for that resource,
    but at least one of the three must be set.

    Fields:
      max_simulations:  MCTS simulations (best-first: goal expansions; portfolio: tactics tried).
      max_seconds:      wall-clock seconds of the search itself (env start and verify excluded).
      max_prover_calls: tactic applications sent to the prover.
    """

    max_simulations: int = 400
    max_seconds: float = 60.0
    max_prover_calls: int = 0

    def __post_init__(self) -> None:
        _require(self.max_simulations >= 0 and self.max_seconds >= 0 and self.max_prover_calls >= 0,
                 "budgets must be non-negative")
        _require(bool(self.max_simulations or self.max_seconds or self.max_prover_calls),
                 "at least one budget (simulations, seconds, prover calls) must be set")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Budget":
        return config_from_dict(cls, data)


@dataclass(frozen=True)
class MCTSConfig:
    """AND-OR MCTS with progressive sampling (AlphaProof's rules; see `search.selection`).

    Fields:
      pb_c_base, pb_c_init:   PUCT exploration `log((N + base + 1)/base) + init` (AlphaProof: 3200, 0.001).
      prior_temperature:      prior = exp(logp / T), renormalised over a node's tactics (AlphaProof: 200; ours: 4).
      value_discount:         γ in the value score γ^(−1 − (reward + V)) (AlphaProof: 0.99).
      c_and:                  multiplier on exploration when choosing a goal at an AND node (ours: 1).
      unvisited_penalty:      an unvisited tactic is valued V(parent) − penalty (ours: 0.5).
      no_legal_actions_value: value backed up from a goal no tactic works on (AlphaProof: −40).
      ps_c, ps_alpha:         progressive sampling: sample again at an OR node while
                              expansions <= ps_c · visits^ps_alpha (AlphaProof: 0.01, 0.6; ours: 0.2, 0.6).
      max_expansions:         at most this many sampling rounds per goal (ours; keeps a goal that
                              no tactic works on from being sampled forever).
      first_expansion_k:      tactics sent to the prover per expansion of a goal (`search.widening`):
                              its first expansion sends the top k of the evaluator's ranked answer
                              (samples ∪ candidates, by prior), each later one — when progressive
                              sampling's rule grants it, or at once if every tactic so far failed —
                              the next k untried, and a new round is asked only when none are
                              left. 0 = every proposal at once: the default, chosen on the tuning set
                              (every 7th train problem, v4, mixed, 300 prover calls: all 14/30 at 364
                              calls per proof, k=8 11/30 at 519, k=16 11/30 at 527; BENCHMARKS.md).
      expansion:              what a goal's expansion sends (docs/ARCHITECTURE.md §Cost-aware expansion):
                              "eager" — its pending proposals by prior alone, as `first_expansion_k`
                              says (the behaviour before issue #40); "cost" — `search.cost`: the root sends everything, any other goal
                              sends its cheap proposals (policy samples, decision procedures,
                              hypothesis tactics; the top `cheap_first_k`) and keeps its expensive
                              automation (families with a time limit >= 1 s: hints, rewrite, cases,
                              psatz) pending until every cheap tactic failed or its visits grant it
                              the expected prover seconds (`cost_c`, `cost_alpha`); "measured" —
                              "cost", and a cheap tactic whose head (`nra`, `nia`, …) averages
                              >= 1 s over 3 calls in this search waits as the expensive ones do;
                              "glance" (default) — "measured", and (mixed action set) a goal other than the
                              root is first expanded from the automation list and the network's
                              value alone; the policy samples and prices it when a walk comes back
                              to it (`search.expansion`; other action sets: as "measured").
      cheap_first_k:          with expansion "cost", cheap proposals a non-root goal sends per
                              expansion, most likely first (policy prior; the fixed list in its
                              own order): the next k come as its visits grant a new expansion, or
                              at once when every tactic it sent failed. The root sends all of its
                              own (as `first_expansion_k` says). 0 = `first_expansion_k` at every
                              goal (every cheap proposal at once with both 0: cost mode before it).
      glance_prices_list:     with expansion "glance", the policy round that follows a goal's
                              glance also re-prices the automation list (teacher-forced scoring of
                              ~50–100 tactics, most of that round's cost); False: the policy adds
                              its samples, and those it sampled from the list get its price.
      glance_list_prior:      with expansion "glance" and the list not priced again, the price of
                              what the policy's round after the glance did not sample: "uniform"
                              (the glance's placeholder, ≈ −4 nats for 60 tactics: above most
                              samples, so the list goes first) or "residual" (the probability mass
                              the policy's distinct samples leave, shared: `widening.residual_logprob`).
      cost_c, cost_alpha:     with expansion "cost", a non-root goal may spend up to
                              cost_c · visits^cost_alpha expected prover seconds on expensive
                              tactics (each family's limit until measured, then its running mean).
      num_samples:            tactics requested from the evaluator per expansion.
      deep_samples:           > 0: tactics requested per round at a goal other than the root (the
                              root keeps `num_samples`): with cheap widening a deep goal sends 8 at
                              a time, so sampling fewer there buys network time. 0 (default) =
                              `num_samples` everywhere.
      num_parallel:           simulations selected (with virtual loss) per evaluator call.
      virtual_loss:           value counted for each in-flight simulation through a tactic, so
                              parallel simulations spread over different leaves.
    """

    pb_c_base: float = 3200.0
    pb_c_init: float = 0.001
    # Tuned for our budgets (tuning set: minif2f-rocq-train --every 7, 31 problems, never the dev
    # subset; mcts-mixed, 20 s per problem, 2 workers, shipped checkpoint). Proved, and median
    # simulations per problem, for each setting:
    #   T=200, ps_c=0.01, K=16, 4 rounds (AlphaProof's constants)   10/31   30 sims
    #   T=4,   ps_c=0.2,  K=16, 4 rounds                              10/31   20 sims
    #   T=1,   ps_c=0.2,  K=16, 4 rounds                              10/31   20 sims
    #   T=4,   ps_c=0.2,  K=32, 8 rounds  (chosen)                    10/31   53 sims
    #   T=4,   ps_c=0.2,  K=32, 8 rounds, sampling temperature 1.5   10/31   24 sims
    # Every setting proved the same problems, all in the first expansion (`intros; lra.`,
    # `reflexivity.`, ...): at 20 s the weak policy, not these constants, limits the search. The
    # chosen values are the ones that mean something at our scale: with log-probs of −1 to −20,
    # T=200 makes priors 0.90–0.995 (uniform), T=4 lets the network's ranking count; ps_c=0.2
    # gives a goal a second sampling round at ~15 visits (0.01 needs ~2,000, which no budget here
    # reaches); K=32 and 8 rounds give the search more ideas per goal, and it made 1.8× the
    # simulations with no loss. Re-checked once the policy made 4–5-step proofs (held-out factory
    # items outside the curve's slice, policy alone, 16 beams, 32 simulations; BENCHMARKS.md, "Where
    # the plateau is"): defaults 22/48; T = 1, 2, 8: 22; pb_c_init 0.05–1.0: 19–20; unvisited_penalty
    # 1.5, 3.0: 21. The defaults stay.
    prior_temperature: float = 4.0
    value_discount: float = 0.99
    c_and: float = 1.0
    unvisited_penalty: float = 0.5
    no_legal_actions_value: float = -float(UNPROVED_STEPS)
    ps_c: float = 0.2
    ps_alpha: float = 0.6
    max_expansions: int = 8
    first_expansion_k: int = 0
    # "cost" by measurement (benchmarks/search_depth.py, minif2f-rocq-train --every 16, 12 problems,
    # mcts-fixed, 30 s, two runs): proved 4 = 4 and 4 = 4, median simulations per minute on failed
    # problems 54.6 → 70.4 and 78.0 → 104.0, prover seconds per simulation 0.92 → 0.64 and 0.71 → 0.40.
    # "glance" since by measurement (benchmarks/search_depth.py, minif2f-rocq-train --every 8, 26 problems
    # in two halves run side by side, 30 s): mcts-fixed cost vs measured (= glance there) 2 = 2 and 7 = 7
    # proved, median simulations a minute on failed problems 444 → 489 and 1,907 → 2,170; mcts-mixed
    # measured vs glance 2 = 2 and 7 = 7, 305 → 449 and 531 → 538 (pooled over all: 1.33× and 1.18×).
    expansion: str = "glance"
    # 8 by measurement (benchmarks/search_depth.py, minif2f-rocq-train --every 16, 12 problems in two
    # runs, mcts-fixed, 30 s, noisy shared machine): proved 4 = 4 = 4 (eager, k = 0, k = 8, all at the
    # root), median simulations per minute on failed problems 120.7 / 172.7 / 987.7 and 88.7 / 128.8 /
    # 1025.0, mean depth 2.09× and 2.00× eager's; k = 12 (first run): 694.9, the same depth.
    cheap_first_k: int = 8
    # False by measurement (benchmarks/search_depth.py, minif2f-rocq-train --every 8, 26 problems in two
    # halves side by side, mcts-mixed, 30 s): median simulations a minute on failed problems 349 → 527
    # and 535 → 964; proved 3 → 2 and 7 = 7 — the one lost (induction_ineq_nsqlefactn) was not proved
    # again with the list priced in three reruns (30, 30, 60 s): a timing-dependent find.
    glance_prices_list: bool = False
    glance_list_prior: str = "uniform"
    cost_c: float = 0.2
    cost_alpha: float = 0.8
    num_samples: int = 32
    deep_samples: int = 0
    num_parallel: int = 8
    virtual_loss: float = -40.0

    def __post_init__(self) -> None:
        _require(self.pb_c_base > 0, "pb_c_base must be > 0")
        _require(self.deep_samples >= 0, "deep_samples must be >= 0 (0 = num_samples at every goal)")
        _require(self.prior_temperature > 0, "prior_temperature must be > 0")
        _require(0 < self.value_discount <= 1, "value_discount must be in (0, 1]")
        _require(self.c_and >= 0 and self.unvisited_penalty >= 0, "c_and and unvisited_penalty must be >= 0")
        _require(self.no_legal_actions_value <= 0 and self.virtual_loss <= 0,
                 "no_legal_actions_value and virtual_loss must be <= 0")
        _require(self.ps_c >= 0 and self.ps_alpha >= 0, "ps_c and ps_alpha must be >= 0")
        _require(self.max_expansions >= 1 and self.num_samples >= 1 and self.num_parallel >= 1,
                 "max_expansions, num_samples and num_parallel must be >= 1")
        _require(self.first_expansion_k >= 0, "first_expansion_k must be >= 0 (0 = every proposal at once)")
        _require(self.glance_list_prior in GLANCE_LIST_PRIORS,
                 f"unknown glance_list_prior {self.glance_list_prior!r} (choose from {', '.join(GLANCE_LIST_PRIORS)})")
        _require(self.expansion in EXPANSIONS,
                 f"unknown expansion {self.expansion!r} (choose from {', '.join(EXPANSIONS)})")
        _require(self.cost_c >= 0 and self.cost_alpha >= 0, "cost_c and cost_alpha must be >= 0")
        _require(self.cheap_first_k >= 0, "cheap_first_k must be >= 0 (0 = as first_expansion_k)")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "MCTSConfig":
        return config_from_dict(cls, data)


@dataclass(frozen=True)
class BestFirstConfig:
    """ReProver-style best-first search (see `search.best_first`).

    Fields:
      num_samples:    tactics requested per sampling round of a goal.
      num_parallel:   goals expanded per evaluator call (the cheapest open ones).
      max_expansions: sampling rounds per goal, as MCTS's: once every goal has been expanded, the
                      cheapest open ones are sampled again, so the whole budget is used.
    """

    num_samples: int = 32
    num_parallel: int = 8
    max_expansions: int = 8

    def __post_init__(self) -> None:
        _require(self.num_samples >= 1 and self.num_parallel >= 1 and self.max_expansions >= 1,
                 "num_samples, num_parallel and max_expansions must be >= 1")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BestFirstConfig":
        return config_from_dict(cls, data)


@dataclass(frozen=True)
class PortfolioConfig:
    """Decision procedures tried in turn on the whole goal, each with the env's time limit.

    Fields:
      tactics:        tried in order; the first that closes the goal is the proof.
      hammer_tactics: CoqHammer's reconstruction tactics, tried after `tactics` only when the
                      theorem's header loads Hammer (`From Hammer Require ...`).
      families:       then try the automation families' tactics generated from the goal
                      (`search.automation`, Coq only); False = the fixed list alone.
    """

    tactics: tuple[str, ...] = (
        "reflexivity", "lia", "nia", "lra", "nra", "field", "ring", "firstorder", "auto", "intuition", "tauto",
        "congruence", "easy", "intros; reflexivity", "intros; lia", "intros; nia", "intros; lra", "intros; nra",
        "intros; field", "intros; ring", "intros; subst; lia", "intros; subst; nia", "intros; subst; lra",
        "intros; subst; nra", "intros; simpl; lia", "intros; simpl; ring", "intros; compute; lia",
        "intros; split; lia", "intros; repeat split; lra", "intros; intuition lia", "intros; intuition nia",
        "intros; field_simplify; lra", "intros; auto with arith", "intros; firstorder",
    )
    hammer_tactics: tuple[str, ...] = ("sauto", "hauto", "intros; sauto", "intros; hauto")
    families: bool = True

    def tactics_for(self, header: str) -> tuple[str, ...]:
        """The tactics to try for a theorem with this header (Hammer's only if it is loaded)."""
        loads_hammer = "Hammer" in header and "Require" in header
        return self.tactics + (self.hammer_tactics if loads_hammer else ())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PortfolioConfig":
        data = dict(data)
        for key in ("tactics", "hammer_tactics"):
            if key in data:
                data[key] = tuple(data[key])
        return config_from_dict(cls, data)
