"""Interpolate two checkpoints of one architecture: (1 − α)·start + α·fine-tune, weight by weight.

Why: a supervised fine-tune on the loop's mix (docs/experiments.md, sessions 43–44) gains the
closing calls and the factory's shapes on the held-out tune slice, and loses skills its start had
(the residue case split that the shipped weights play on the dev subset). Averaging the weights of
a fine-tuned network with those it started from — WiSE-FT (Wortsman et al., "Robust fine-tuning of
zero-shot models", 2022) — is known to keep much of both: the two lie in one basin when one was
trained from the other, so the straight line between them stays low-loss for both distributions.
It costs seconds and no data, so α is chosen by measurement (the probe, the slice), never assumed.

The two must share the architecture and the tokenizer (same config `model` block, byte-identical
`tokenizer.json`), else the weights do not mean the same thing: refused with a one-line error.
The result is written as a checkpoint (float32 unless `--dtype`), its metadata naming both sources
and α (`interpolated_from`), so what ships says what it is.

    python -m networks.interpolate checkpoints/alphaprover-coq-small /work/runs/sft-43b/last \
        /work/runs/soup-0.5 --alpha 0.5
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file

from networks.checkpoint import CONFIG, WEIGHTS, require_checkpoint
from networks.export import DTYPES, write_checkpoint_files
from networks.tokenizer import FILE_NAME as TOKENIZER_FILE


def interpolate_states(start: dict[str, torch.Tensor], end: dict[str, torch.Tensor],
                       alpha: float) -> dict[str, torch.Tensor]:
    """(1 − α)·start + α·end for every floating tensor, computed in float32; integer tensors
    (buffers such as position ids) must be equal and are kept. The same names and shapes on
    both sides, else ValueError."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    if start.keys() != end.keys():
        missing = sorted(start.keys() ^ end.keys())
        raise ValueError(f"the checkpoints have different tensors: {', '.join(missing[:3])}…")
    mixed: dict[str, torch.Tensor] = {}
    for name, a in start.items():
        b = end[name]
        if a.shape != b.shape:
            raise ValueError(f"tensor {name} has shape {tuple(a.shape)} and {tuple(b.shape)}")
        if a.is_floating_point() and b.is_floating_point():
            mixed[name] = torch.lerp(a.float(), b.float(), alpha)
        elif torch.equal(a, b):
            mixed[name] = a
        else:
            raise ValueError(f"integer tensor {name} differs between the checkpoints")
    return mixed


def interpolate_checkpoints(start: str | Path, end: str | Path, target: str | Path, alpha: float,
                            dtype: str = "float32") -> Path:
    """Write the α-interpolation of two checkpoint directories to `target` (config and tokenizer
    from `end`, metadata `interpolated_from = {start, end, alpha}`). ValueError (one line) on a
    non-checkpoint, different architectures or tokenizers, an unknown dtype, or a target that is
    one of the sources."""
    a, b, dst = require_checkpoint(start), require_checkpoint(end), Path(target)
    if dst.exists() and dst.resolve() in (a.resolve(), b.resolve()):
        raise ValueError(f"target {dst} is one of the sources: choose another directory")
    config_a = json.loads((a / CONFIG).read_text(encoding="utf-8"))
    config_b = json.loads((b / CONFIG).read_text(encoding="utf-8"))
    if config_a.get("model") != config_b.get("model"):
        raise ValueError("the checkpoints have different architectures (config 'model' blocks differ)")
    if (a / TOKENIZER_FILE).read_bytes() != (b / TOKENIZER_FILE).read_bytes():
        raise ValueError("the checkpoints have different tokenizers")
    state = interpolate_states(load_file(str(a / WEIGHTS)), load_file(str(b / WEIGHTS)), alpha)
    metadata = dict(config_b.get("metadata", {}))
    metadata["interpolated_from"] = {"start": str(a), "end": str(b), "alpha": alpha}
    return write_checkpoint_files(dst, state, dtype, {**config_b, "metadata": metadata}, b / TOKENIZER_FILE)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("start", help="checkpoint the fine-tune started from (α = 0)")
    parser.add_argument("end", help="the fine-tuned checkpoint (α = 1)")
    parser.add_argument("target", help="directory to write (created)")
    parser.add_argument("--alpha", type=float, required=True, help="weight of END, in [0, 1]")
    parser.add_argument("--dtype", default="float32", help=f"one of {', '.join(DTYPES)}")
    args = parser.parse_args(argv)
    try:
        out = interpolate_checkpoints(args.start, args.end, args.target, args.alpha, args.dtype)
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"interpolated {args.start} -> {args.end} at alpha {args.alpha}: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
