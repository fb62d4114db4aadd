"""The real-Coq check every proposer's integration test makes: on a generic goal of its shape, one of
its tactics closes the root goal, and the script passes `verify` from scratch (module compile,
coqchk, statement check, axiom audit)."""

from __future__ import annotations

from typing import Sequence

from lean_interface.coq import CoqEnv, theorem_from_proposition
from search.proposers import Proposer


def assert_closes_and_verifies(env: CoqEnv, label: str, proposers: Sequence[Proposer], proposition: str,
                               header: str) -> str:
    """The closing tactic; fails the test when the proposers offer nothing, nothing closes, or the
    proof does not verify."""
    theorem = theorem_from_proposition(proposition, name=f"proposer_{label}", header=header)
    root = env.start(theorem)
    tactics = [t for p in proposers for t in p.tactics(root.text)]
    assert tactics, f"{label} proposes nothing for {proposition}"
    closing = next((t for t in tactics if env.apply(root, t).closed), None)
    assert closing is not None, f"no {label} tactic closed {proposition}: {tactics}"
    verdict = env.verify(theorem, closing)
    assert verdict.ok, verdict.message
    return closing
