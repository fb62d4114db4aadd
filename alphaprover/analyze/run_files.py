"""What an expert-iteration run directory holds, read for `alphaprover analyze`.

The layout is the one `selfplay/expert_iteration.py` and `alphaprover/iterate_cmd.py` write:
`config.yaml` (the resolved settings), `weights/vNNNNNN/` (each published version),
`heldout_slice.json` (the slice, chosen once), `rounds/rNNN/heldout.jsonl` (one row per slice
item a round searched: `problem`, `proved`, `goals` as [text, proved] pairs) and
`script_references.jsonl` (the slice's own proof scripts, replayed once). Every function here
only reads.
"""

from __future__ import annotations

import json
from pathlib import Path

from selfplay.round_metrics import auc, read_rows


def version_dirs(run_dir: Path) -> list[Path]:
    """The run's published versions, oldest first."""
    return sorted(path for path in (run_dir / "weights").glob("v[0-9]*") if path.is_dir())


def slice_problems(run_dir: Path) -> list[str]:
    """The ids of the run's held-out slice: the driver's `heldout_slice.json`, or for a run that
    predates it, the problems its round 0 evaluated."""
    kept = run_dir / "heldout_slice.json"
    if kept.is_file():
        return list(json.loads(kept.read_text(encoding="utf-8"))["problems"])
    return [row["problem"] for row in read_rows(run_dir / "rounds" / "r000" / "heldout.jsonl")]


def yaml_sources(run_dir: Path) -> list[Path]:
    """The factory files a run's saved config names as sources."""
    from omegaconf import OmegaConf

    from alphaprover.iterate_cmd import factory_files

    return factory_files([str(s) for s in OmegaConf.load(run_dir / "config.yaml").get("sources", [])])


def read_rounds(run_dir: Path) -> list[dict[str, bool]]:
    """Per round, in order: held-out problem → proved (a torn last line is skipped)."""
    return [{row["problem"]: bool(row.get("proved")) for row in read_rows(path)}
            for path in sorted((run_dir / "rounds").glob("r[0-9]*/heldout.jsonl"))]


def value_auc(checkpoint: str, heldout_file: Path) -> float:
    """AUC of the checkpoint's value head on the goals of one held-out file: proved vs searched
    without a proof (the `goals` pairs of each row)."""
    from networks.checkpoint import load_checkpoint
    from networks.train_eval import predicted_values

    goals = [(text, bool(label)) for row in read_rows(heldout_file) for text, label in row.get("goals", [])]
    model, tokenizer, _ = load_checkpoint(checkpoint)
    return auc(predicted_values(model, tokenizer, [g for g, _ in goals]), [label for _, label in goals])
