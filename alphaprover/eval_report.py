"""Summaries of an evaluation results file: the Markdown table and the pass-rate-vs-time plot.

Input is the JSONL that `alphaprover eval` appends to, one `ProblemRecord` per line (see
`alphaprover.eval_records`). Everything here is a pure function of those records, so a report can
be rebuilt at any time from a (possibly still growing) results file.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from alphaprover.eval_records import ProblemRecord
from search.outcome import Outcome


@dataclass(frozen=True)
class MethodSummary:
    """Counts and percentiles for one method over the problems it attempted. `prover_calls_per_proof`
    is every tactic the method sent to the prover, proved or not, divided by the proofs it found
    (NaN without one): what a proof costs in prover calls, the measure of whether a policy that
    chooses what is tried (`mcts.first_expansion_k`) buys depth with the same budget."""

    method: str
    proved: int
    attempted: int
    bad_statements: int
    errors: int
    seconds_p50: float
    seconds_p90: float
    prover_calls_p50: float
    prover_calls_p90: float
    proved_seconds_p50: float
    prover_calls_per_proof: float
    families: tuple[tuple[str, int], ...] = ()

    @property
    def rate(self) -> float:
        return self.proved / self.attempted if self.attempted else 0.0


def _percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def summarise(records: Iterable[ProblemRecord]) -> list[MethodSummary]:
    """One summary per method, in the order methods first appear in the records.

    A problem whose statement does not elaborate counts as a bad statement, not as attempted.
    """
    by_method: dict[str, list[ProblemRecord]] = defaultdict(list)
    for record in records:
        by_method[record.method].append(record)
    summaries = []
    for method, rows in by_method.items():
        attempted = [r for r in rows if r.status is not Outcome.BAD_STATEMENT]
        proved = [r for r in attempted if r.status is Outcome.PROVED]
        seconds = [r.seconds for r in attempted]
        calls = [float(r.prover_calls) for r in attempted]
        summaries.append(MethodSummary(
            method=method,
            proved=len(proved),
            attempted=len(attempted),
            bad_statements=len(rows) - len(attempted),
            errors=sum(r.status is Outcome.ERROR for r in attempted),
            seconds_p50=_percentile(seconds, 50),
            seconds_p90=_percentile(seconds, 90),
            prover_calls_p50=_percentile(calls, 50),
            prover_calls_p90=_percentile(calls, 90),
            proved_seconds_p50=_percentile([r.seconds for r in proved], 50),
            prover_calls_per_proof=sum(calls) / len(proved) if proved else float("nan"),
            families=tuple(Counter(f for r in proved for f in r.families).most_common()),
        ))
    return summaries


def markdown_table(summaries: Sequence[MethodSummary]) -> str:
    """A Markdown table with one row per method."""
    lines = [
        "| method | proved | attempted | pass rate | bad statements | errors "
        "| time p50 / p90 (s) | prover calls p50 / p90 | prover calls / proof | time to proof p50 (s) "
        "| closing families |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for s in summaries:
        lines.append(
            f"| {s.method} | {s.proved} | {s.attempted} | {100 * s.rate:.1f}% | {s.bad_statements} "
            f"| {s.errors} | {s.seconds_p50:.1f} / {s.seconds_p90:.1f} "
            f"| {s.prover_calls_p50:.0f} / {s.prover_calls_p90:.0f} | {s.prover_calls_per_proof:.0f} "
            f"| {s.proved_seconds_p50:.2f} | {', '.join(f'{name} {count}' for name, count in s.families) or '-'} |"
        )
    return "\n".join(lines)


def search_depth_table(records: Iterable[ProblemRecord]) -> str:
    """How deep and how fast each searching method went (issue #40's measures), one row per method
    with simulations: on the problems it failed, the median simulations per minute and the median
    deepest goal; over every problem it searched, the mean deepest goal and prover seconds per
    simulation; the depth on failed problems also as a mean (issue #40's "mean depth reached" is
    read there: a proof in one step says nothing about depth). Empty when no record has simulations
    (portfolio only, or older files)."""
    by_method: dict[str, list[ProblemRecord]] = defaultdict(list)
    for record in records:
        if record.status in (Outcome.PROVED, Outcome.FAILED) and record.simulations > 0:
            by_method[record.method].append(record)
    if not by_method:
        return ""
    lines = ["| method | failed | sims/min on failed p50 | depth on failed p50 / mean | mean depth (all) | prover s / sim |",
             "|---|---:|---:|---:|---:|---:|"]
    for method, rows in by_method.items():
        failed = [r for r in rows if r.status is Outcome.FAILED]
        rate = _percentile([60.0 * r.simulations / r.seconds for r in failed if r.seconds > 0], 50)
        depth = _percentile([float(r.max_depth) for r in failed], 50)
        failed_mean = sum(r.max_depth for r in failed) / len(failed) if failed else float("nan")
        mean_depth = sum(r.max_depth for r in rows) / len(rows)
        per_sim = sum(r.prover_seconds for r in rows) / sum(r.simulations for r in rows)
        lines.append(f"| {method} | {len(failed)} | {rate:.0f} | {depth:.1f} / {failed_mean:.2f} | {mean_depth:.2f} "
                     f"| {per_sim:.3f} |")
    return "\n".join(lines)


def differences_table(records: Iterable[ProblemRecord], proof_chars: int = 100) -> str:
    """The problems the methods disagree on, one row each: which method proved it (✓) and which did
    not (·), and the shortest proof found (by lines, joined on one line, cut at `proof_chars`). A
    side-by-side run is read here: "the network adds problems no automation call closes" is a row
    the `mcts-mixed` column proves and the `mcts-fixed` one does not. Only problems every method of
    the file has a searched record for (proved or failed) count, so a run still under way compares
    like with like; a last line gives each method's count of problems no other method proved.
    Empty with fewer than two methods or no disagreement."""
    by_problem: dict[str, dict[str, ProblemRecord]] = defaultdict(dict)
    methods: list[str] = []
    for record in records:
        if record.method not in methods:
            methods.append(record.method)
        if record.status in (Outcome.PROVED, Outcome.FAILED):
            by_problem[record.problem][record.method] = record
    if len(methods) < 2:
        return ""
    rows: list[str] = []
    alone: Counter[str] = Counter()
    for problem in sorted(by_problem):
        outcomes = by_problem[problem]
        if len(outcomes) < len(methods):
            continue
        proved = [m for m in methods if outcomes[m].status is Outcome.PROVED]
        if not proved or len(proved) == len(methods):
            continue
        if len(proved) == 1:
            alone[proved[0]] += 1
        scripts = [outcomes[m].proof for m in proved if outcomes[m].proof]
        shortest = min(scripts, key=lambda text: (text.count("\n"), len(text)), default="")
        shown = " ".join(line.strip() for line in shortest.splitlines())
        if len(shown) > proof_chars:
            shown = shown[: proof_chars - 1] + "…"
        shown = shown.replace("|", "\\|")  # `destruct H as [a|b]` must not split the row
        marks = " | ".join("✓" if m in proved else "·" for m in methods)
        rows.append(f"| {problem} | {marks} | `{shown}` |" if shown else f"| {problem} | {marks} | |")
    if not rows:
        return ""
    lines = ["| problem | " + " | ".join(methods) + " | shortest proof |",
             "|---|" + "---:|" * len(methods) + "---|", *rows,
             "",
             "proved by one method alone: " + ", ".join(f"{m} {alone[m]}" for m in methods)]
    return "\n".join(lines)


def proved_fraction_curve(records: Sequence[ProblemRecord], budget_seconds: float,
                          points: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """(time budgets, fraction of attempted problems proved within that many seconds)."""
    attempted = [r for r in records if r.status is not Outcome.BAD_STATEMENT]
    times = np.sort([r.seconds for r in attempted if r.status is Outcome.PROVED])
    grid = np.linspace(0.0, budget_seconds, points)
    if not attempted:
        return grid, np.zeros_like(grid)
    return grid, np.searchsorted(times, grid, side="right") / len(attempted)


def plot_pass_rate(records: Sequence[ProblemRecord], path: Path, title: str) -> None:
    """Write a PNG: proved fraction against wall-clock budget, one line per method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_method: dict[str, list[ProblemRecord]] = defaultdict(list)
    for record in records:
        by_method[record.method].append(record)
    budget = max((r.budget_seconds for r in records), default=1.0) or 1.0
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    for method, rows in by_method.items():
        grid, fraction = proved_fraction_curve(rows, budget)
        ax.step(grid, 100 * fraction, where="post", label=method)
    ax.set_xlabel("wall-clock budget per problem (s)")
    ax.set_ylabel("problems proved (%)")
    ax.set_title(title)
    ax.set_xlim(0, budget)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
