"""Cost-aware expansion (`mcts.expansion = "cost"`): cheap tactics first, expensive ones as a goal earns visits.

Why (issue #40, docs/ARCHITECTURE.md §Cost-aware expansion): with every proposal sent at a goal's
first expansion, the automation families (psatz with CSDP, hinted nra, case splits, rewriting;
`search.automation`) run to their 1–3 s `timeout` on every new subgoal they cannot close, so a new
goal deep in the tree costs seconds before the search can look past it and the tree stays one or
two levels deep. Here each proposal has an expected cost, and a goal pays for the expensive ones
only where they are likely to pay:

* **cheap / expensive.** A tactic is expensive when its automation family (`family_of`) carries an
  Ltac time limit of at least `EXPENSIVE_SECONDS` (every classic family and computed proposer); policy samples,
  argument-free decision procedures (`decide`) and hypothesis tactics are cheap, whoever proposed
  them. The class is fixed by the family, so it never flips during a search.
* **expected cost.** A family's limit until it has been measured in this search, then the running
  mean of the prover seconds its calls took (`CostModel.record`; `expand` batches cheap and
  expensive tactics separately and reads each result's own `elapsed` when the env reports one).
* **who sends what** (`CostModel.choose`, in place of `search.widening.take`):
  - the root, and a goal with no open tactic that was expanded before (every tactic it sent
    failed) or has no cheap proposal (none was made), once this expansion's batch leaves no cheap
    proposal of an earlier round unsent, send every expensive proposal — with the
    cheap ones of a new round, if any (the root sends all its cheap ones too, with the default
    `first_expansion_k` = 0): nothing the eager expansion proves from the root is lost, and a goal
    only the families can close gets them once its cheap proposals are spent;
  - any other goal sends its top k cheap proposals by prior (k = `cheap_first_k`, else
    `first_expansion_k`; 0 = all of them) and, most likely first, the expensive ones whose
    expected cost fits its allowance `cost_c · visits^cost_alpha` prover seconds minus what it
    already spent on expensive tactics; the rest stay pending for a later expansion (progressive
    widening by prior for the cheap ones, by cost for the expensive ones). A later expansion comes
    as progressive sampling's rule on visits grants it, or at once when every tactic the goal sent
    failed (`search.selection.needs_sampling`), so a goal with untried proposals is never a dead
    end; its expensive proposals wait for its cheap ones as the first rule says (with k = 0 the
    batch never leaves one: all of them go at its second expansion, as before). Why k for the
    cheap ones too: a new goal's 50–80 cheap proposals (policy samples, the fixed list,
    hypothesis tactics) cost seconds of prover time together, paid before the search could look
    past the goal; with the most likely k first, a goal one of them opens is passed at once.

**Measured** (`mcts.expansion = "measured"`): the same, and a cheap tactic whose kind turns out slow
in this search is treated as expensive from then on. Its kind is its head: the first word of
its last `;` step (`intros; nra.` → `nra`, `apply sqrt_lem_1; lra.` → `lra`). Once a head has
`SLOW_HEAD_CALLS` calls averaging at least `EXPENSIVE_SECONDS`, its tactics wait at non-root goals
as the expensive families do (the root still sends everything). Why: the decision procedures and
the policy's nonlinear steps (`nra.`, `nia.`) are cheap by family but run to the prover's
per-tactic timeout (5 s) on goals they cannot close, and the search learns that within seconds.

Identical goals reached by different paths are one node of the graph (`SearchTree` merges by
text: one pending list, one widening schedule and one allowance for every route) and a node never
resends a tactic it tried (`OrNode.tried`), so within a search every automation outcome is
computed once per goal text. The graph and the `CostModel` belong to one search: nothing carries
over to another, and every proof is re-checked by the kernel at the end (`search.solve`). Pure: no
prover, no network.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from search.proposers import family_of, time_limit
from search.tree import SearchTree

#: a family whose tactics carry an Ltac time limit of at least this many seconds is expensive
EXPENSIVE_SECONDS = 1
#: expected seconds of a cheap tactic whose family has not been measured yet in this search
CHEAP_PRIOR_SECONDS = 0.05
#: measured mode: calls of a head before its mean decides whether it is slow
SLOW_HEAD_CALLS = 3

_LAST_STEP_HEAD = re.compile(r"([A-Za-z_][\w']*)[^;]*$")


@lru_cache(maxsize=1 << 16)
def tactic_head(tactic: str) -> str:
    """The first word of a tactic's last `;` step: the kind whose cost the measured mode learns
    (`intros; nra.` → `nra`, `timeout 3 (intros; psatz R 2).` → `psatz`). Cached like
    `is_expensive`: once a head is slow, every classification of every pending tactic asks it."""
    match = _LAST_STEP_HEAD.search(tactic.strip().rstrip("."))
    return match.group(1) if match else ""


@lru_cache(maxsize=1 << 16)
def is_expensive(tactic: str) -> bool:
    """Whether a tactic belongs to an automation family with a time limit >= EXPENSIVE_SECONDS.
    Cached: an expansion asks it of each tactic several times (choose, ordering, batching, stats),
    and `family_of` runs a regex per family."""
    return time_limit(family_of(tactic)) >= EXPENSIVE_SECONDS


@dataclass
class CostModel:
    """One search's cost bookkeeping: measured seconds per family, and per goal the expected
    seconds already granted to its expensive tactics.

    Fields:
      c, alpha: a non-root goal's allowance for expensive tactics is c · visits^alpha seconds.
      cheap_k:  cheap proposals a non-root goal sends per expansion, most likely first
                (`MCTSConfig.cheap_first_k`); 0 = the `width` `choose` is given, as at the root.
      calls, seconds: per family, the calls measured and their summed prover seconds.
      spent:    per node id, the expected seconds of the expensive tactics it has sent.
    """

    c: float
    alpha: float
    cheap_k: int = 0
    measure_heads: bool = False
    calls: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    spent: dict[int, float] = field(default_factory=dict)
    head_calls: dict[str, int] = field(default_factory=dict)
    head_seconds: dict[str, float] = field(default_factory=dict)
    slow_heads: set[str] = field(default_factory=set)

    def expensive(self, tactic: str) -> bool:
        """Expensive by family (`is_expensive`), or, measuring heads, by its head's mean so far."""
        return is_expensive(tactic) or (bool(self.slow_heads) and tactic_head(tactic) in self.slow_heads)

    def record(self, tactic: str, seconds: float) -> None:
        """Add one measured prover call of `tactic` to its family's running mean."""
        family = family_of(tactic)
        self.calls[family] = self.calls.get(family, 0) + 1
        self.seconds[family] = self.seconds.get(family, 0.0) + max(0.0, seconds)
        if self.measure_heads and not is_expensive(tactic):
            head = tactic_head(tactic)
            self.head_calls[head] = calls = self.head_calls.get(head, 0) + 1
            self.head_seconds[head] = total = self.head_seconds.get(head, 0.0) + max(0.0, seconds)
            if calls >= SLOW_HEAD_CALLS and total / calls >= EXPENSIVE_SECONDS:
                self.slow_heads.add(head)
            else:
                self.slow_heads.discard(head)

    def expected_seconds(self, tactic: str) -> float:
        """The family's measured mean seconds per call, else its time limit (cheap: a small prior)."""
        head = tactic_head(tactic) if self.slow_heads else ""
        if head in self.slow_heads:
            return self.head_seconds[head] / self.head_calls[head]
        family = family_of(tactic)
        if self.calls.get(family):
            return self.seconds[family] / self.calls[family]
        return float(time_limit(family)) or CHEAP_PRIOR_SECONDS

    def allowance(self, node_id: int, visits: int) -> float:
        """Expected seconds the goal may still spend on expensive tactics: c · visits^alpha − spent."""
        return self.c * visits ** self.alpha - self.spent.get(node_id, 0.0)

    def cheap_width(self, node_id: int, width: int) -> int:
        """How many cheap proposals this goal sends per expansion: `width` at the root (0 = all:
        the root loses nothing the eager expansion proves), `cheap_k` elsewhere when it is set."""
        return width if node_id == 0 or self.cheap_k <= 0 else self.cheap_k

    def choose(self, tree: SearchTree, node_id: int, width: int, fresh: bool = False) -> list[tuple[str, float]]:
        """Remove and return the pending proposals this expansion of the goal sends (module
        docstring): cheap ones first (the top `cheap_width`, all with 0), then expensive ones, each
        group most likely first; ties keep the order of proposal (the fixed list's own order).
        `fresh`: the goal's pending proposals came from the round asked for this expansion (its
        earlier cheap ones were all sent), so none of an earlier round is left unsent."""
        node = tree.nodes[node_id]
        ranked = sorted(node.pending.items(), key=lambda item: -item[1])
        cheap = [job for job in ranked if not self.expensive(job[0])]
        dear = [job for job in ranked if self.expensive(job[0])]
        k = self.cheap_width(node_id, width)
        chosen = cheap if k <= 0 else cheap[:k]
        earlier_cheap_left = not fresh and len(chosen) < len(cheap)
        if node_id == 0 or (not node.open_edges() and (node.expanded or not cheap) and not earlier_cheap_left):
            granted = dear
        else:
            granted, left = [], self.allowance(node_id, node.visits)
            for job in dear:
                cost = self.expected_seconds(job[0])
                if cost > left:
                    break  # most likely first: a cheaper, less likely one does not jump the queue
                granted.append(job)
                left -= cost
        self.spent[node_id] = self.spent.get(node_id, 0.0) + sum(self.expected_seconds(t) for t, _ in granted)
        for tactic, _ in chosen + granted:
            del node.pending[tactic]
        return chosen + granted

    def has_cheap_pending(self, tree: SearchTree, node_id: int) -> bool:
        """Whether the goal still has a cheap proposal waiting (then it needs no new round yet)."""
        return any(not self.expensive(tactic) for tactic in tree.nodes[node_id].pending)


def cheap_first(jobs: list[tuple[int, tuple[str, float]]],
                expensive: Callable[[str], bool] = is_expensive) -> list[tuple[int, tuple[str, float]]]:
    """(node id, (tactic, log-prob)) jobs with every cheap one before every expensive one, order
    otherwise kept: a goal closed by a cheap tactic never pays for its expensive ones.
    `expensive`: the classification (a `CostModel.expensive` in measured mode)."""
    return sorted(jobs, key=lambda job: expensive(job[1][0]))


def same_class_prefix(jobs: list[tuple[int, tuple[str, float]]], size: int,
                      expensive: Callable[[str], bool] = is_expensive) -> list[tuple[int, tuple[str, float]]]:
    """The first `size` jobs, cut where cheap turns into expensive: one `apply_many` batch never
    mixes the two, so a batch's time is attributed to one class."""
    chunk = jobs[:size]
    if not chunk:
        return chunk
    first = expensive(chunk[0][1][0])
    for index, (_, (tactic, _)) in enumerate(chunk):
        if expensive(tactic) != first:
            return chunk[:index]
    return chunk
