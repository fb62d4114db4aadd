"""Reading the loop-proof ledger (`data/loop-proofs/minif2f-rocq-train.jsonl`): one row per
(problem, run) with the run's shortest kernel-verified script. `analyze export-train-proofs`
writes it (alphaprover/analyze/train_proofs.py); `analyze proofs-beyond --ledger`,
`alphaprover eval-proofs` and `alphaprover train`'s default demonstrations read it. Its own module
so that readers and the writer do not import each other.
"""

from __future__ import annotations

import json
from pathlib import Path

from alphaprover.config import UsageError


def ledger_rows(path: Path) -> list[dict]:
    """The ledger's rows ([] when the file does not exist); UsageError for a malformed line."""
    if not path.is_file():
        return []
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row, dict) or not {"problem", "script", "run"} <= row.keys():
                raise ValueError
        except ValueError:
            raise UsageError(f"{path}:{number}: not a ledger row (problem, script, run, …)") from None
        rows.append(row)
    return rows


__all__ = ["ledger_rows"]
