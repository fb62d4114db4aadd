"""One environment API for proof assistants (see `lean_interface.api`), three backends:

* `coq`       — Coq 8.16 through coqtop (`lean_interface.coq.CoqEnv`); runs everywhere here.
* `lean_repl` — Lean 4 through leanprover-community/repl (`lean_interface.lean_repl.LeanReplEnv`).
* `leandojo`  — Lean 4 through LeanDojo (`lean_interface.leandojo_env.LeanDojoEnv`, optional extra).

`make_env(name, **options)` builds one from a backend config (the Hydra `backend` group).

Also here, being the bottom layer every package may import: `problems/` (where statements come
from) and `durable` (the atomic write, the fsynced append and the JSONL reader every run file uses).
"""

from __future__ import annotations

import inspect
from typing import Any

from lean_interface.api import EnvError, Goal, ProofEnv, ProofStep, TacticResult, Theorem, Verdict

BACKENDS = ("coq", "lean_repl", "leandojo")


def _backend_class(name: str) -> type[ProofEnv]:
    if name == "coq":
        from lean_interface.coq import CoqEnv

        return CoqEnv
    if name == "lean_repl":
        from lean_interface.lean_repl import LeanReplEnv

        return LeanReplEnv
    if name == "leandojo":
        from lean_interface.leandojo_env import LeanDojoEnv

        return LeanDojoEnv
    raise EnvError(f"unknown backend {name!r} (choose from {', '.join(BACKENDS)})")


def make_env(name: str, **options: Any) -> ProofEnv:
    """Build backend `name` with `options` (unknown options are a one-line EnvError)."""
    cls = _backend_class(name)
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self"}
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise EnvError(f"backend {name!r} has no option(s) {', '.join(unknown)}")
    return cls(**options)


__all__ = ["BACKENDS", "EnvError", "Goal", "ProofEnv", "ProofStep", "TacticResult", "Theorem", "Verdict", "make_env"]
