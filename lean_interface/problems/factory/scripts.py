"""Demonstrations from the factory's own proof scripts: each TRAIN item's script, replayed in Coq
sentence by sentence, as (goal, tactic, steps-to-go) records the learner can imitate.

Why: every family writes a proof with each statement, and on the multi-step families (instantiate
a `forall` hypothesis at points, unroll a recurrence, give a witness) search with the current
policy finds almost none at expert iteration's budget — round 0 of the run that introduced them
proved 5 of their 20 search problems, none of `fe_instantiate`, `fe_two_points`,
`recurrence_unroll` or `exists_witness` — so expert iteration had nothing to learn from on exactly
the items with headroom. The generator knows a proof of every statement it writes; imitating those
proofs is the supervised stage that search then improves on (AlphaProof, too, starts its RL from a
policy trained on formal proofs).

What is replayed and what is not:
  * train items only: a held-out item's script would be the answer to a problem the curve measures,
    so `script_records` refuses a held-out item (ValueError) rather than skipping it quietly;
  * the script is regenerated from (family, seed) — the JSONL keeps only the statement — and an item
    whose regenerated statement differs from the stored one (a generator changed since the build)
    is counted as `drifted` and not replayed;
  * the replay is `ProofReplayer`'s, the one `alphaprover extract` uses on Coq's libraries, under the
    project prelude and the item's header, so goals are rendered as search renders them and
    tactics are in the one canonical form.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from itertools import groupby
from pathlib import Path
from typing import Callable, Iterable, Sequence

from lean_interface.coq.prelude import DEFAULT_PRELUDE, with_prelude
from lean_interface.coq.proof_replay import ProofReplayer, TacticRecord
from lean_interface.durable import write_atomic
from lean_interface.problems.factory import family_named
from lean_interface.problems.factory.family import TRAIN, Item, candidate

#: the `source` field of every record written here
SOURCE = "factory-script"


@dataclass
class ScriptReport:
    """What one replay of factory scripts did."""

    items: int = 0
    replayed: int = 0          # items whose script replayed to Qed and gave records
    dropped: int = 0           # items the replayer dropped (a sentence failed, focus it could not follow)
    drifted: int = 0           # items whose generator no longer writes the stored statement
    records: int = 0

    def add(self, other: "ScriptReport") -> None:
        """Count `other`'s work in too (one report over several replays)."""
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def proofs_text(items: Sequence[tuple[Item, str]]) -> str:
    """Each item's statement and script, closed by `Qed.` (the part of a file that is replayed)."""
    return "".join(f"{item.statement}\nProof.\n{script}\nQed.\n" for item, script in items)


def proof_file(prelude: str, header: str, items: Sequence[tuple[Item, str]]) -> str:
    """One .v text: prelude and header once, then each item's statement and script."""
    return f"{with_prelude(prelude, header)}\n{proofs_text(items)}"


def scripts_of(items: Iterable[Item], report: ScriptReport, split: str = TRAIN) -> list[tuple[Item, str]]:
    """(item, proof script) for every item whose family still writes its statement. Every item must
    be of `split`: train for demonstrations (a held-out item is refused, never skipped quietly);
    `split=HELDOUT` only for evaluation references (benchmarks/policy_baselines.py), never written
    where a learner reads."""
    scripted = []
    for item in items:
        if item.split != split:
            what = "held out: its script is never replayed for training" if split == TRAIN else f"not {split}"
            raise ValueError(f"{item.name} is {what}")
        report.items += 1
        regenerated = candidate(family_named(item.family), item.seed)
        if regenerated.statement != item.statement:
            report.drifted += 1
            continue
        scripted.append((item, regenerated.proof))
    return scripted


def script_records(items: Iterable[Item], replayer: ProofReplayer, prelude: str = DEFAULT_PRELUDE,
                   chunk: int = 100, on_chunk: Callable[[int], None] | None = None, split: str = TRAIN
                   ) -> tuple[list[TacticRecord], ScriptReport]:
    """Replay the scripts of `items` (all of `split`: train unless evaluating), `chunk` items per
    file, grouped by header."""
    report = ScriptReport()
    scripted = sorted(scripts_of(items, report, split), key=lambda pair: (pair[0].header, pair[0].name))
    records: list[TacticRecord] = []
    for header, group in groupby(scripted, key=lambda pair: pair[0].header):
        pairs = list(group)
        for start in range(0, len(pairs), chunk):
            part = pairs[start : start + chunk]
            found, stats = replayer.replay_file(proofs_text(part), SOURCE, max_seconds=max(60.0, 5.0 * len(part)),
                                                preamble=with_prelude(prelude, header))
            records.extend(found)
            report.replayed += stats.lemmas_ok
            report.dropped += len(part) - stats.lemmas_ok
            if on_chunk is not None:
                on_chunk(len(part))
    report.records = len(records)
    return records, report


def write_records(records: Sequence[TacticRecord], path: Path) -> Path:
    """The records as JSONL in `alphaprover extract`'s format (goal, tactic, steps, source, lemma),
    written atomically (`write_atomic`)."""
    write_atomic(path, "".join(json.dumps(asdict(record), ensure_ascii=False) + "\n" for record in records))
    return path


__all__ = ["SOURCE", "ScriptReport", "proof_file", "script_records", "scripts_of", "write_records"]
