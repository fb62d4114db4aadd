"""The files and numbers of an expert-iteration run's curve (docs/ARCHITECTURE.md §Expert iteration).

JSON-lines phase files that a killed writer may leave torn (`read_rows`, `append_row`: the
`lean_interface.durable` append and reader, torn lines skipped wherever they stand), the
per-round `curve.tsv` (`append_curve_row`, which upgrades an older run's header when a column is
added, so a resumed run keeps one table), the slice a round evaluates (`spread`), and the two
statistics of a round: the value head's AUC on proved vs unproved goals (`auc`) and the median
teacher-forced log-prob of the held-out slice's script steps (`median`): the steps a proof
script takes before its closing call (`pose proof (h0 (-4)) as h2.`, `induction n`, `exists 3.`),
which no automation call supplies; their log-prob rises before the policy proves more with them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Callable, Sequence

from lean_interface.durable import append_line, read_jsonl, skip_torn, write_atomic

#: columns of curve.tsv, in order
CURVE_COLUMNS = ("round", "weights_version", "heldout_proved", "heldout_attempted", "heldout_rate", "value_auc",
                 "reference_top8", "frequent8_top8", "script_logprob",
                 "search_attempted", "search_proved", "train_proved_total", "learner_step", "policy_loss",
                 "value_loss", "minutes", "competition_proved_total", "competition_bottleneck")


def spread(names: Sequence[str], count: int) -> list[str]:
    """`count` names spread evenly over a sorted list (all of them when there are fewer)."""
    if count >= len(names):
        return list(names)
    step = len(names) / count
    return [names[int(i * step)] for i in range(count)]


def family_of(problem: str) -> str:
    """A factory item's family from its id: `heldout/fam_abs_cases_90000` → `abs_cases` (a name
    without a trailing seed is a family of its own)."""
    name = problem.rsplit("/", 1)[-1]
    stem, _, seed = name.rpartition("_")
    family = stem if seed.isdigit() and stem else name
    return family[4:] if family.startswith("fam_") else family


def spread_by_family(names: Sequence[str], count: int) -> list[str]:
    """`count` names with the families (`family_of`) as even as their sizes allow: one from each
    family in turn (the larger families first when the turns run out), each family's share spread
    over its sorted members; sorted. A family held out whole with many items then weighs in the
    curve as one family, not as a third of it."""
    groups: dict[str, list[str]] = {}
    for name in sorted(names):
        groups.setdefault(family_of(name), []).append(name)
    quotas = dict.fromkeys(groups, 0)
    remaining = min(count, len(names))
    order = sorted(groups, key=lambda family: (-len(groups[family]), family))
    while remaining:
        for family in order:
            if remaining and quotas[family] < len(groups[family]):
                quotas[family] += 1
                remaining -= 1
    return sorted(name for family, members in groups.items() if quotas[family]
                  for name in spread(members, quotas[family]))


def auc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """Area under the ROC curve of `scores` ranking positives (`labels` True) above negatives:
    the probability a random positive scores higher than a random negative (ties count half)."""
    positives = [s for s, y in zip(scores, labels) if y]
    negatives = [s for s, y in zip(scores, labels) if not y]
    if not positives or not negatives:
        raise ValueError("AUC needs at least one positive and one negative")
    ranked = sorted(scores)
    rank: dict[float, float] = {}
    index = 0
    while index < len(ranked):  # average rank of each distinct score (1-based)
        end = index
        while end + 1 < len(ranked) and ranked[end + 1] == ranked[index]:
            end += 1
        rank[ranked[index]] = (index + end) / 2 + 1
        index = end + 1
    positive_ranks = sum(rank[s] for s in positives)
    n_pos, n_neg = len(positives), len(negatives)
    return (positive_ranks - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def median(values: Sequence[float]) -> float:
    """The median (NaN for no values)."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def read_rows(path: Path) -> list[dict]:
    """The JSON lines of `path` (none when it does not exist); torn lines are skipped (`skip_torn`:
    `append_row` ends a torn line and appends after it)."""
    return read_jsonl(path, on_bad=skip_torn, what="a row") if path.is_file() else []


def append_row(path: Path, row: dict) -> None:
    """Append one JSON line and fsync it (after a newline, if a killed writer left a torn line)."""
    append_line(path, json.dumps(row))


def script_steps(path: Path, replay: Callable[[], list[dict]] | None = None) -> list[tuple[str, str]]:
    """(goal, tactic) of the script steps before each closing call, from the references file at
    `path` (rows: problem, goal, tactic, steps still to go); when it is missing, `replay()` makes
    its rows once and they are written atomically (none without `replay`)."""
    if not path.is_file() and replay is not None:
        write_atomic(path, "".join(json.dumps(row) + "\n" for row in replay()))
    return [(row["goal"], row["tactic"]) for row in read_rows(path) if int(row.get("steps", 1)) > 1]


def append_curve_row(path: Path, row: dict) -> bool:
    """Add round `row["round"]` to the TSV at `path` unless it is there (False then). A file whose
    header is an older column list is rewritten under `CURVE_COLUMNS` first, old values kept
    under their names and new columns left empty, so the table stays one table."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    header = lines[0].split("\t") if lines else []
    rows = [dict(zip(header, line.split("\t"))) for line in lines[1:] if line.strip()]
    if any(r.get("round") == str(row["round"]) for r in rows):
        return False
    if header != list(CURVE_COLUMNS):
        write_atomic(path, "".join("\t".join(cells) + "\n" for cells in
                                   [list(CURVE_COLUMNS), *([r.get(c, "") for c in CURVE_COLUMNS] for r in rows)]))
    append_line(path, "\t".join(str(row.get(c, "")) for c in CURVE_COLUMNS))
    return True


__all__ = ["CURVE_COLUMNS", "append_curve_row", "append_row", "auc", "family_of", "median", "read_rows", "script_steps",
           "spread", "spread_by_family"]
