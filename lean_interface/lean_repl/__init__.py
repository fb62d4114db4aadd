"""The Lean 4 REPL backend (leanprover-community/repl JSON protocol over stdio)."""

from lean_interface.lean_repl.env import LeanReplEnv, check_proof

__all__ = ["LeanReplEnv", "check_proof"]
