"""Export a training checkpoint as the artifact that ships: bfloat16 weights, no optimiser state.

A run directory's `last/` holds float32 weights (77 MB for the 19 M-parameter model) and the
optimiser's `training_state.pt` (155 MB); the repo ships `model.safetensors`, `config.json` and
`tokenizer.json` only, with weights in bfloat16 (half the bytes; loading casts back to float32).
The rounding changes the network's outputs a little, so what ships is measured as exported: run
this first, then evaluate the exported directory (docs/ARCHITECTURE.md, Data, "Checkpoints").

    python -m networks.export /work/runs/sft-43b/last /tmp/candidate --run sft-43b/last \
        --note "fine-tune: the learn-phase mix, 1,500 steps"
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from networks.checkpoint import CONFIG, WEIGHTS, require_checkpoint
from networks.tokenizer import FILE_NAME as TOKENIZER_FILE

DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}


def export_checkpoint(source: str | Path, target: str | Path, dtype: str = "bfloat16",
                      metadata: dict | None = None) -> Path:
    """Copy `source` to `target` with floating weights cast to `dtype` and `metadata` merged in.

    Only the three files a checkpoint consists of are written; the config's metadata gains
    `weights_dtype` and `exported_from` so the artifact says what it is. ValueError (one line) on
    a source that is not a checkpoint, an unknown dtype, or a target that is the source.
    """
    src, dst = require_checkpoint(source), Path(target)
    if dst.exists() and dst.resolve() == src.resolve():
        raise ValueError(f"export target {dst} is the source: choose another directory")
    config = json.loads((src / CONFIG).read_text(encoding="utf-8"))
    merged = dict(config.get("metadata", {}))
    merged.update(metadata or {})
    merged.setdefault("exported_from", str(src))
    config["metadata"] = merged
    return write_checkpoint_files(dst, load_file(str(src / WEIGHTS)), dtype, config, src / TOKENIZER_FILE)


def write_checkpoint_files(target: Path, state: dict[str, torch.Tensor], dtype: str, config: dict,
                           tokenizer_file: Path) -> Path:
    """Write the three files of a checkpoint: `state`'s floating tensors cast to `dtype`, `config`
    with `weights_dtype` set in its metadata, and a copy of `tokenizer_file`. ValueError (one line)
    on an unknown dtype, before anything is written."""
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r} (choose from {', '.join(DTYPES)})")
    cast = {name: (tensor.to(DTYPES[dtype]) if tensor.is_floating_point() else tensor).contiguous()
            for name, tensor in state.items()}
    config = {**config, "metadata": {**config.get("metadata", {}), "weights_dtype": dtype}}
    target.mkdir(parents=True, exist_ok=True)
    save_file(cast, str(target / WEIGHTS))
    shutil.copyfile(tokenizer_file, target / TOKENIZER_FILE)
    (target / CONFIG).write_text(json.dumps(config, indent=2), encoding="utf-8")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="checkpoint directory, e.g. RUN/last")
    parser.add_argument("target", help="directory to write (created)")
    parser.add_argument("--dtype", default="bfloat16", help=f"one of {', '.join(DTYPES)}")
    parser.add_argument("--run", help="metadata 'run': the name the model card uses")
    parser.add_argument("--note", help="metadata 'trained_on': one line on data and schedule")
    args = parser.parse_args(argv)
    extra = {key: value for key, value in (("run", args.run), ("trained_on", args.note)) if value}
    try:
        out = export_checkpoint(args.source, args.target, args.dtype, extra)
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    size = (out / WEIGHTS).stat().st_size
    print(f"exported {args.source} -> {out} ({args.dtype}, {size / 2**20:.1f} MiB of weights)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
