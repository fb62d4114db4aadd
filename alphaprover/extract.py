"""`alphaprover extract`: the supervised tactic dataset, replayed from Coq's own libraries.

Every `.v` file under the source roots is replayed through coqtop (`ProofReplayer`); each tactic
of each completed proof becomes one JSONL record `{goal, tactic, steps, source, lemma}`. Files are
split into train/valid by a hash of their path, so no file contributes to both. A file or lemma
that fails to replay is counted and skipped, never fatal. The default roots are
`lean_interface.problems.libraries.DEFAULT_ROOTS`.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Sequence

from tqdm import tqdm

from lean_interface.problems.libraries import DEFAULT_EXCLUDE


@dataclass
class ExtractSummary:
    files: int = 0
    files_failed: int = 0
    lemmas_ok: int = 0
    lemmas_dropped: int = 0
    records_train: int = 0
    records_valid: int = 0
    failures: dict[str, str] = field(default_factory=dict)


def is_valid_file(path: str, valid_every: int) -> bool:
    """Deterministic file-level split: about 1 in `valid_every` files goes to valid."""
    return zlib.crc32(path.encode()) % valid_every == 0


def discover(roots: Sequence[str], exclude: Sequence[str]) -> list[Path]:
    files: list[Path] = []
    for root in roots:
        base = Path(root)
        if not base.is_dir():
            raise ValueError(f"source root {root} is not a directory")
        files.extend(p for p in sorted(base.rglob("*.v")) if not any(x in str(p) for x in exclude))
    return files


_REPLAYER = None


def _init_worker(timeout: float) -> None:
    global _REPLAYER
    from lean_interface.coq.proof_replay import ProofReplayer

    _REPLAYER = ProofReplayer(timeout=timeout)


def _replay_one(args: tuple[str, float]) -> tuple[str, list[dict], dict]:
    path, max_seconds = args
    assert _REPLAYER is not None
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    records, stats = _REPLAYER.replay_file(text, path, max_seconds=max_seconds)
    return path, [asdict(r) for r in records], asdict(stats)


def extract(roots: Sequence[str], out_dir: Path, workers: int = 2, valid_every: int = 20,
            timeout: float = 10.0, file_seconds: float = 300.0, exclude: Sequence[str] = DEFAULT_EXCLUDE,
            limit: int | None = None) -> ExtractSummary:
    """Replay every file under `roots`; write `train.jsonl`, `valid.jsonl` and `summary.json`."""
    files = discover(roots, exclude)
    if limit is not None:
        files = files[:limit]
    if not files:
        raise ValueError("no .v files found under the source roots")
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = ExtractSummary(files=len(files))
    train_path, valid_path = out_dir / "train.jsonl", out_dir / "valid.jsonl"
    with train_path.open("w", encoding="utf-8") as train, valid_path.open("w", encoding="utf-8") as valid, \
            mp.get_context("spawn").Pool(workers, initializer=_init_worker, initargs=(timeout,)) as pool:
        jobs = [(str(f), file_seconds) for f in files]
        bar = tqdm(pool.imap_unordered(_replay_one, jobs), total=len(jobs), desc="extract", unit="file")
        for path, records, stats in bar:
            summary.lemmas_ok += stats["lemmas_ok"]
            summary.lemmas_dropped += stats["lemmas_dropped"]
            if stats["file_failed"]:
                summary.files_failed += 1
                summary.failures[path] = stats["file_failed"]
            to_valid = is_valid_file(path, valid_every)
            handle = valid if to_valid else train
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            if to_valid:
                summary.records_valid += len(records)
            else:
                summary.records_train += len(records)
            bar.set_postfix(train=summary.records_train, valid=summary.records_valid)
    (out_dir / "summary.json").write_text(json.dumps(asdict(summary), indent=2), encoding="utf-8")
    return summary
