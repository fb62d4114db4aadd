"""Where a policy loses the multi-step proofs: each script step of held-out factory items, the
policy's beam at that step, and what it proposes instead of the reference.

    PYTHONPATH=. .venv/bin/python benchmarks/script_step_ranks.py --checkpoint checkpoints/alphaprover-coq-small \
        --families fe_instantiate,fe_two_points,recurrence_unroll --per-family 12 --width 16

For every held-out item of the named families (the first `--per-family` by name; seeds ≥ 90 000
and the families held out whole: never trained on) the item's own proof script is replayed in Coq
and, at each step before the closing call, the checkpoint's CTranslate2 beam of `--width` is
compared with the script's step (canonical tactic form). Printed per family and per step index:
how often the reference is in the beam and at which ranks (the search tries the
likeliest first), and of the misses how many have a proposal equal to the
reference up to the name it gives a new hypothesis (`as h2` for `as h3`), and how many proposals
name a hypothesis the goal already has (a step Coq refuses: "h2 is already used"); last, over all
steps, the share whose reference is in the beam and at rank 1.

Evaluation only: nothing is trained on these items.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lean_interface.coq.guard import canonical_tactic  # noqa: E402
from search.goal_facts import hypotheses  # noqa: E402
from selfplay.round_metrics import family_of  # noqa: E402

_AS_NAME = re.compile(r"\bas\s+([A-Za-z_][\w']*)")


def without_new_name(tactic: str) -> str:
    """`tactic` with the name after `as` blanked: `pose proof (h0 2) as h3.` → `pose proof (h0 2) as _.`"""
    return _AS_NAME.sub("as _", tactic)


def names_existing_hypothesis(tactic: str, goal: str) -> bool:
    """Whether `tactic` introduces (`as NAME`) a name the goal's hypotheses already use."""
    taken = {name for name, _ in hypotheses(goal)}
    return any(name in taken for name in _AS_NAME.findall(tactic))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--factory", type=Path, default=ROOT / "data" / "factory" / "factory.jsonl")
    parser.add_argument("--families", default="fe_instantiate,fe_two_points,recurrence_unroll")
    parser.add_argument("--per-family", type=int, default=12)
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--show", type=int, default=3, help="misses printed in full per family")
    args = parser.parse_args()
    if not (args.checkpoint / "config.json").is_file() or not args.factory.is_file():
        print(f"script_step_ranks: error: need a checkpoint dir and {args.factory}", file=sys.stderr)
        return 2

    from lean_interface.coq.proof_replay import ProofReplayer
    from lean_interface.problems.factory.build import read_items
    from lean_interface.problems.factory.family import HELDOUT
    from lean_interface.problems.factory.scripts import script_records
    from networks.engine import CT2Policy

    heldout = sorted(read_items(args.factory, split=HELDOUT), key=lambda item: item.name)
    chosen = []
    for family in (f for f in args.families.split(",") if f):
        members = [item for item in heldout if item.family == family]
        if not members:
            print(f"script_step_ranks: error: no held-out items of family {family!r}", file=sys.stderr)
            return 2
        chosen += members[: args.per_family]
    with ProofReplayer() as replayer:
        records, _ = script_records(chosen, replayer, split=HELDOUT)
    steps = [r for r in records if r.steps > 1]
    policy = CT2Policy.load(args.checkpoint, threads=2)
    beams = policy.beam([r.goal for r in steps], args.width)

    # per (family, step index): the reference's 1-based rank in the beam, None when missing
    ranks: dict[tuple[str, int], list[int | None]] = defaultdict(list)
    renamed: dict[tuple[str, int], int] = defaultdict(int)  # misses equal to a proposal up to the new name
    clashes: dict[tuple[str, int], int] = defaultdict(int)  # beams with a proposal naming a taken hypothesis
    shown: dict[str, int] = defaultdict(int)
    index_in_proof: dict[str, int] = defaultdict(int)
    for record, beam in zip(steps, beams):
        family = family_of(record.lemma)
        key = (family, index_in_proof[record.lemma])
        index_in_proof[record.lemma] += 1
        reference = canonical_tactic(record.tactic) or record.tactic
        proposals = [canonical_tactic(t) or t for t, _ in beam]
        hit = reference in proposals
        ranks[key].append(proposals.index(reference) + 1 if hit else None)
        renamed[key] += not hit and without_new_name(reference) in {without_new_name(p) for p in proposals}
        clashes[key] += any(names_existing_hypothesis(p, record.goal) for p in proposals)
        if not hit and shown[family] < args.show:
            shown[family] += 1
            print(f"--- {record.lemma} step {key[1]}: reference {reference!r}")
            print("    beam: " + " | ".join(proposals[:6]))
    print(f"\n{args.checkpoint}, beam {args.width}, {len(chosen)} held-out items, {len(steps)} steps before the close")
    print("| family | step | steps | reference in beam | its ranks in the beam | misses equal up to the new name "
          "| beams proposing a taken name |")
    print("|---|---:|---:|---:|---|---:|---:|")
    for key, found in sorted(ranks.items()):
        hits = sorted(r for r in found if r is not None)
        print(f"| {key[0]} | {key[1]} | {len(found)} | {len(hits)} | {' '.join(map(str, hits)) or '—'} "
              f"| {renamed[key]} | {clashes[key]} |")
    found_all = [rank for found in ranks.values() for rank in found]
    in_beam = sum(rank is not None for rank in found_all)
    print(f"reference in the beam: {in_beam}/{len(found_all)} steps ({100 * in_beam / max(1, len(found_all)):.0f}%), "
          f"at rank 1: {sum(rank == 1 for rank in found_all)}; misses equal up to the new name: {sum(renamed.values())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
