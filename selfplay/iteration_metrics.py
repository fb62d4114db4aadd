"""What expert iteration measures each round (docs/ARCHITECTURE.md §Expert iteration): the
numbers of `curve.tsv` and TensorBoard's `curve/*` and `heldout_family/*`.

After a round's evaluation (`log_evaluation`, kept in `rounds/rNNN/heldout.summary.json`): the
held-out proof rate, the value head's AUC on the goals those searches proved vs. searched without
a proof, the policy's 8-beam top-8 on the reference steps beside the "8 most frequent tactics of
the buffer" baseline, and the median log-prob of the slice's own proof-script steps before the
closing call; and, on competition statements, the policy's log-prob of the hardest step of each
hand-checked proof of a train problem (`competition_bottleneck`: the median over the references of
each script's lowest step log-prob, `data/probe/train-references.jsonl` by default, `alphaprover
probe` for the step-by-step view) — a search finds such a proof only when its worst step is one a
few dozen samples draw (above ln 0.1 ≈ −2.3). After the round's learning (`finish_round`): one curve row with the search's
proofs, the train problems proved so far (`train_proved_total`: every source, factory and
variants included), the competition problems among them (`competition_proved_total`: the problems
of the run's benchmark sources, e.g. the miniF2F train split — the count issue #39's train
done-when is about), the learner step and the losses on a fresh batch.
They measure; nothing here reaches the learner.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from lean_interface.durable import write_atomic
from selfplay.iteration_state import RunFiles
from selfplay.replay_buffer import ReplayBuffer
from selfplay.round_metrics import append_curve_row, auc, family_of, median, read_rows, script_steps
from selfplay.runner import LearnerService

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Scorers:
    """The network measurements, each given a published checkpoint directory (None: not measured).

    value:      the value head on each goal (→ value AUC)
    topk:       exact match of the k-beam against (goal, tactic) references (→ reference_top8)
    logprob:    teacher-forced log-prob of each (goal, tactic) step (→ script_logprob)
    scripts:    the held-out slice's proof scripts replayed into steps (rows with goal and tactic)
    competition: the competition references replayed into steps (rows with problem, goal, tactic)
    """

    value: Callable[[Path, list[str]], list[float]] | None = None
    topk: Callable[[Path, list[tuple[str, str]], int], float] | None = None
    logprob: Callable[[Path, list[tuple[str, str]]], list[float]] | None = None
    scripts: Callable[[list[str]], list[dict]] | None = None
    competition: Callable[[], list[dict]] | None = None


class Measurements:
    """The round's numbers over one run's files, buffer and learner."""

    def __init__(self, files: RunFiles, heldout_slice: Sequence[str], buffer: ReplayBuffer, learner: LearnerService,
                 scorers: Scorers, writer=None, started: float | None = None,
                 competition: frozenset[str] = frozenset()) -> None:
        self.files, self.heldout_slice, self.buffer, self.learner = files, heldout_slice, buffer, learner
        self.competition = competition  # ids of the problems of the run's benchmark sources
        self.scorers, self.writer = scorers, writer
        self.started = time.monotonic() if started is None else started

    # ---- what the numbers are measured on ---------------------------------------------------------------
    def script_steps(self) -> list[tuple[str, str]]:
        """(goal, tactic) of every step before the closing one in the held-out slice's own proof
        scripts, replayed once by the `scripts` scorer into `script_references.jsonl` (evaluation
        only: nothing in it reaches the learner). Empty without a replayer or scripts."""
        referencer = self.scorers.scripts
        try:
            return script_steps(self.files.run_dir / "script_references.jsonl",
                                None if referencer is None else lambda: referencer(list(self.heldout_slice)))
        except Exception as error:  # noqa: BLE001 - a measurement; the replay is retried at the next round
            log.warning("script references: replay failed (%s); script_logprob left empty this round", error)
            return []

    def competition_steps(self) -> list[tuple[str, str, str]]:
        """(problem, goal, tactic) of every step of the competition references, replayed once by the
        `competition` scorer into `competition_references.jsonl` (evaluation only). Empty without one."""
        path = self.files.run_dir / "competition_references.jsonl"
        try:
            if not path.is_file() and self.scorers.competition is not None:
                write_atomic(path, "".join(json.dumps(row) + "\n" for row in self.scorers.competition()))
        except Exception as error:  # noqa: BLE001 - a measurement; the replay is retried at the next round
            log.warning("competition references: replay failed (%s); competition_bottleneck left empty", error)
            return []
        return [(row["problem"], row["goal"], row["tactic"]) for row in read_rows(path)] if path.is_file() else []

    def frequent_tactics(self, count: int = 8) -> list[str]:
        """The `count` most frequent policy targets in the training buffer (the baseline)."""
        counts = Counter(r.tactic for e in self.buffer.episodes_iter() for r in e.records if r.tactic)
        return [tactic for tactic, _ in counts.most_common(count)]

    # ---- after the evaluation -----------------------------------------------------------------------------
    def evaluation_summary(self, round_index: int) -> dict[str, float]:
        rows = read_rows(self.files.heldout_path(round_index))
        proved = sum(1 for row in rows if row["proved"])
        summary = {"heldout_proved": proved, "heldout_attempted": len(rows),
                   "heldout_rate": round(proved / max(1, len(rows)), 4), "value_auc": float("nan"),
                   "reference_top8": float("nan"), "frequent8_top8": float("nan"), "script_logprob": float("nan"),
                   "competition_bottleneck": float("nan")}
        scorers = self.scorers
        references = self.files.references()
        if references:
            frequent = set(self.frequent_tactics())
            if frequent:
                summary["frequent8_top8"] = round(sum(t in frequent for _, t in references) / len(references), 4)
            version = self.learner.latest_weights()
            if scorers.topk is not None and version is not None:
                summary["reference_top8"] = round(scorers.topk(version[1], references, 8), 4)
        if scorers.logprob is not None:
            steps, version = self.script_steps(), self.learner.latest_weights()
            if steps and version is not None:
                summary["script_logprob"] = round(median(scorers.logprob(version[1], steps)), 3)
            competition, version = self.competition_steps(), self.learner.latest_weights()
            if competition and version is not None:
                scores = scorers.logprob(version[1], [(goal, tactic) for _, goal, tactic in competition])
                summary["competition_bottleneck"] = round(bottleneck([p for p, _, _ in competition], scores), 3)
        if scorers.value is not None:
            goals = [(text, label) for row in rows for text, label in row.get("goals", [])]
            labels = [bool(label) for _, label in goals]
            if any(labels) and not all(labels):
                version = self.learner.latest_weights()
                if version is not None:
                    scores = scorers.value(version[1], [text for text, _ in goals])
                    summary["value_auc"] = round(auc(scores, labels), 4)
        return summary

    def log_evaluation(self, round_index: int) -> None:
        """The evaluation's summary to `heldout.summary.json` and TensorBoard."""
        summary = self.evaluation_summary(round_index)
        write_atomic(self.files.round_dir(round_index) / "heldout.summary.json", json.dumps(summary))
        if self.writer is not None:
            self.writer.add_scalar("curve/heldout_rate", summary["heldout_rate"], round_index)
            for name in ("value_auc", "reference_top8", "frequent8_top8", "script_logprob", "competition_bottleneck"):
                if summary[name] == summary[name]:  # not NaN
                    self.writer.add_scalar(f"curve/{name}", summary[name], round_index)
            for family, rate in self.family_rates(round_index).items():
                self.writer.add_scalar(f"heldout_family/{family}", rate, round_index)
            self.writer.flush()

    def family_rates(self, round_index: int) -> dict[str, float]:
        """The round's held-out proof rate per factory family (`family_of`): what the curve's one
        number is made of, as TensorBoard's `heldout_family/*` scalars."""
        counts: dict[str, list[int]] = {}
        for row in read_rows(self.files.heldout_path(round_index)):
            proved_attempted = counts.setdefault(family_of(row["problem"]), [0, 0])
            proved_attempted[0] += bool(row["proved"])
            proved_attempted[1] += 1
        return {family: round(proved / attempted, 4) for family, (proved, attempted) in sorted(counts.items())}

    # ---- after the learning --------------------------------------------------------------------------------
    def finish_round(self, round_index: int) -> None:
        """The round's row of `curve.tsv` and its `curve/*` search scalars."""
        # the evaluation as measured at the round's start (written before the round moved on), with the
        # round's own weights: recomputing now would score round r's goals with version r + 1
        summary_path = self.files.round_dir(round_index) / "heldout.summary.json"
        evaluation = json.loads(summary_path.read_text(encoding="utf-8"))
        rows = read_rows(self.files.search_path(round_index))
        _, proved_total = self.files.attempts_so_far()
        row = {"round": round_index, "weights_version": round_index, **evaluation,
               "search_attempted": len(rows), "search_proved": sum(1 for r in rows if r["proved"]),
               "train_proved_total": len(proved_total), "learner_step": self.learner.step,
               **self.learner.fresh_losses(), "minutes": round((time.monotonic() - self.started) / 60, 1),
               "competition_proved_total": len(proved_total & self.competition)}
        append_curve_row(self.files.run_dir / "curve.tsv", row)
        if self.writer is not None:
            self.writer.add_scalar("curve/search_proof_rate", row["search_proved"] / max(1, row["search_attempted"]),
                                   round_index)
            self.writer.add_scalar("curve/train_proved_total", row["train_proved_total"], round_index)
            self.writer.add_scalar("curve/competition_proved_total", row["competition_proved_total"], round_index)
            by_policy = [r for r in rows if r.get("actions") == "policy"]
            if by_policy:
                self.writer.add_scalar("curve/search_policy_proof_rate",
                                       sum(1 for r in by_policy if r["proved"]) / len(by_policy), round_index)
            self.writer.flush()


def bottleneck(problems: Sequence[str], scores: Sequence[float]) -> float:
    """The median over problems of each problem's lowest step score (steps given in any order)."""
    lowest: dict[str, float] = {}
    for problem, score in zip(problems, scores):
        lowest[problem] = min(score, lowest.get(problem, score))
    return median(list(lowest.values()))


__all__ = ["Measurements", "Scorers", "bottleneck"]
