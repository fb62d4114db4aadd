"""Average published checkpoints of one run, parameter by parameter (a uniform "soup" of the
last rounds' weights), and write the result as a checkpoint `alphaprover eval` can load:

    PYTHONPATH=. .venv/bin/python benchmarks/average_weights.py /tmp/avg-v2-v4 \\
        runs/expert-3/weights/v000002 runs/expert-3/weights/v000003 runs/expert-3/weights/v000004
    alphaprover eval /tmp/heldout-slice --methods "mcts-network@/tmp/avg-v2-v4,mcts-network@runs/expert-3/weights/v000004" \\
        --simulations 32 --seconds 20 decoding=beam

Why: an expert-iteration curve that dips (run 3: 79 → 71 → 73 of 96 held-out items after rounds
2–4) may be the noise of a constant learning rate rather than forgetting; if an average of the last
rounds' weights proves at least what its best member proves, publishing an average (the learner's
`ema_decay`) is the fix to measure in a run. The checkpoints must share architecture and tokenizer.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from networks.checkpoint import is_checkpoint, load_checkpoint, save_checkpoint  # noqa: E402


def average_checkpoints(directories: list[Path], out_dir: Path) -> None:
    """Write the parameter-wise mean of `directories` (first one's tokenizer and metadata) to `out_dir`."""
    model, tokenizer, metadata = load_checkpoint(directories[0])
    total = {name: tensor.detach().double().clone() for name, tensor in model.state_dict().items()}
    for directory in directories[1:]:
        if (directory / "tokenizer.json").read_bytes() != (directories[0] / "tokenizer.json").read_bytes():
            raise ValueError(f"{directory} has another tokenizer than {directories[0]}")
        other, _, _ = load_checkpoint(directory)
        for name, tensor in other.state_dict().items():
            total[name] += tensor.double()
    model.load_state_dict({name: (tensor / len(directories)).to(model.state_dict()[name].dtype)
                           for name, tensor in total.items()})
    save_checkpoint(out_dir, model, tokenizer, {**metadata, "averaged": [str(d) for d in directories]})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("checkpoints", type=Path, nargs="+")
    args = parser.parse_args()
    missing = [str(path) for path in args.checkpoints if not is_checkpoint(path)]
    if missing:
        print(f"average_weights: error: not a checkpoint: {', '.join(missing)}", file=sys.stderr)
        return 2
    try:
        with torch.no_grad():
            average_checkpoints(args.checkpoints, args.out_dir)
    except ValueError as error:
        print(f"average_weights: error: {error}", file=sys.stderr)
        return 2
    print(f"average of {len(args.checkpoints)} checkpoints written to {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
