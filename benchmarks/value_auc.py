"""How well the value head tells provable from unprovable statements (issue 74 item 5).

For each problem of an eval run's JSONL (`alphaprover eval`, e.g. `data/evals/dev-eval.jsonl`), the
root goal the search starts from (our Coq env's canonical text) is valued by a checkpoint's value
head; the label is whether the run's method proved it within its budget. Printed per method: the
AUC (the chance a proved statement is valued above a failed one, ties half) of the value head, of
the no-network value (−number of goals: 1 for every root, so 0.5) and of a trivial feature, the
goal's length (shorter valued higher), side by side on the same goals. An AUC near 0.5, or no
better than the length's, says the head's ranking of goals cannot steer a search; `mcts-mixed` vs
`mcts-mixed+neutral` in one eval run (`+experiment=value-dev`) then measures what it does in search.

Root goals only: the eval records keep each search's proof, not its tree, so the goals inside
failed searches are not there to value. Measuring only: nothing is tuned on these numbers.

    PYTHONPATH=. .venv/bin/python benchmarks/value_auc.py data/evals/dev-eval.jsonl [--checkpoint DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tqdm import tqdm  # noqa: E402

from lean_interface.api import EnvError  # noqa: E402
from lean_interface.coq.env import CoqEnv  # noqa: E402
from lean_interface.problems.benchmarks import load_benchmark  # noqa: E402
from search.evaluator import EvalRequest  # noqa: E402

BENCHMARK_OF = {"dev-eval": "minif2f-rocq-dev", "test-eval": "minif2f-rocq-test", "valid-eval": "minif2f-rocq-valid",
                "train-eval": "minif2f-rocq-train", "proposers-train": "minif2f-rocq-train",
                "value-dev": "minif2f-rocq-dev"}


def auc(scores: list[float], labels: list[bool]) -> float | None:
    """P(score of a positive > score of a negative), ties counted half; None without both classes."""
    positives = [s for s, y in zip(scores, labels) if y]
    negatives = [s for s, y in zip(scores, labels) if not y]
    if not positives or not negatives:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def outcomes(path: Path) -> dict[str, dict[str, bool]]:
    """method → problem → proved, from an eval JSONL (the last row of a pair wins)."""
    found: dict[str, dict[str, bool]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            found[row["method"]][row["problem"]] = row["status"] == "proved"
    return found


def root_goals(benchmark: str, names: set[str]) -> dict[str, str]:
    """problem → the canonical text of its root goal (problems Coq cannot state are left out)."""
    goals: dict[str, str] = {}
    problems = [p for p in load_benchmark(benchmark) if p.name in names and p.theorem is not None]
    with CoqEnv() as env:
        for problem in tqdm(problems, desc="root goals", unit="problem"):
            try:
                goals[problem.name] = env.start(problem.theorem).text
            except EnvError:
                continue
    return goals


def _fmt(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("eval_jsonl", type=Path)
    parser.add_argument("--benchmark", default="", help="default: from the file's name (dev-eval → minif2f-rocq-dev)")
    parser.add_argument("--checkpoint", default="checkpoints/alphaprover-coq-small")
    args = parser.parse_args()
    if not args.eval_jsonl.is_file():
        sys.exit(f"value_auc: {args.eval_jsonl} not found")
    benchmark = args.benchmark or BENCHMARK_OF.get(args.eval_jsonl.stem, "")
    if not benchmark:
        sys.exit(f"value_auc: name the benchmark of {args.eval_jsonl} with --benchmark")
    by_method = outcomes(args.eval_jsonl)
    names = {name for proved in by_method.values() for name in proved}
    goals = root_goals(benchmark, names)

    from networks.evaluator import NetworkEvaluator

    network = NetworkEvaluator.from_checkpoint(args.checkpoint, threads=1)
    ordered = sorted(goals)
    values = dict(zip(ordered, (a.value for a in network.evaluate([EvalRequest(goals[n], 0) for n in ordered]))))
    print(f"{args.eval_jsonl.name}: {len(goals)} root goals of {benchmark}, value head of {args.checkpoint}")
    print(f"{'method':28} {'proved':>9} {'value AUC':>10} {'neutral':>8} {'length':>7}")
    any_proved: dict[str, bool] = defaultdict(bool)
    for method, proved in by_method.items():
        common = [n for n in ordered if n in proved]
        labels = [proved[n] for n in common]
        for n in common:
            any_proved[n] |= proved[n]
        row = (auc([values[n] for n in common], labels), auc([-1.0] * len(common), labels),
               auc([-float(len(goals[n])) for n in common], labels))
        print(f"{method:28} {sum(labels):>4}/{len(labels):<4} {_fmt(row[0]):>10} {_fmt(row[1]):>8} {_fmt(row[2]):>7}")
    common = [n for n in ordered if n in any_proved]
    labels = [any_proved[n] for n in common]
    print(f"{'any method':28} {sum(labels):>4}/{len(labels):<4} {_fmt(auc([values[n] for n in common], labels)):>10} "
          f"{_fmt(auc([-1.0] * len(common), labels)):>8} {_fmt(auc([-float(len(goals[n])) for n in common], labels)):>7}")


if __name__ == "__main__":
    main()
