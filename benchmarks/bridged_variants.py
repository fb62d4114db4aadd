"""How far bridged variants reach: on each problem, Coq's decision procedures on the target as it
stands, then on each bridged variant (`ttrl.variants.bridged_variants`: a universally quantified
hypothesis instantiated), and the target again through the bridge. No network, no search.

For each problem with a bridged variant, a procedure from `PROCEDURES` (`intros; T`, 5 s in
coqtop's `Timeout`) is tried on the target's root goal; then, if none closes it, on each bridged
variant; a variant so proved becomes the target's closing tactic exactly as in a TTRL run
(`ttrl.lemmas.record_lemma`), which must then close the target's root goal and pass `verify`
(kernel re-check + axiom audit) — the count printed last.

    PYTHONPATH=. .venv/bin/python benchmarks/bridged_variants.py [minif2f-rocq-train] [--limit N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tqdm import tqdm  # noqa: E402

from lean_interface.api import EnvError, ProofStep  # noqa: E402
from lean_interface.coq import CoqEnv  # noqa: E402
from lean_interface.problems.benchmarks import load_benchmark  # noqa: E402
from selfplay.episode import Episode, Outcome  # noqa: E402
from ttrl.lemmas import LemmaTable, record_lemma  # noqa: E402
from ttrl.report import VARIANT_PREFIX  # noqa: E402
from ttrl.variants import bridged_variants  # noqa: E402

PROCEDURES = ("lra", "lia", "nra", "nia", "subst; lra", "ring", "field")


def closes(env: CoqEnv, goal, procedure: str) -> bool:
    result = env.apply(goal, f"intros; {procedure}")
    return result.error is None and not result.goals


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("benchmark", nargs="?", default="minif2f-rocq-train")
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args()
    problems = [p for p in load_benchmark(args.benchmark) if p.theorem is not None]
    problems = problems[: args.limit] if args.limit else problems
    with_bridges, by_automation, through_bridge = 0, [], []
    with CoqEnv(timeout=5.0) as env, tempfile.TemporaryDirectory() as tmp:
        for problem in tqdm(problems, unit="problem"):
            try:
                variants = bridged_variants(problem.theorem, env)
                root = env.start(problem.theorem)
            except EnvError:
                continue
            if not variants:
                continue
            with_bridges += 1
            if any(closes(env, root, p) for p in PROCEDURES):
                by_automation.append(problem.name)
                continue
            table = LemmaTable(Path(tmp) / f"{problem.name}.json")
            for variant in variants:
                procedure = next((p for p in PROCEDURES if closes(env, env.start(variant.theorem), p)), None)
                if procedure is None:
                    continue
                proof = env.render(variant.theorem, ProofStep("intros", (ProofStep(procedure),)))
                record_lemma(table, variants, Episode(f"{VARIANT_PREFIX}{variant.theorem.name}", "variant", False,
                                                      Outcome.PROVED, proof))
                tactic = table.tactics_for(root.text)[-1]
                if env.verify(problem.theorem, env.render(problem.theorem, ProofStep(tactic))).ok:
                    through_bridge.append((problem.name, variant.description))
                    break
    print(f"\n{len(problems)} problems, {with_bridges} with bridged variants; "
          f"{len(by_automation)} of those closed by a procedure as they stand")
    for name, description in through_bridge:
        print(f"  {name}: through the variant '{description}'")
    print(f"proved only through a bridged variant (verified): {len(through_bridge)}")


if __name__ == "__main__":
    main()
