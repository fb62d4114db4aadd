"""The Lean 4 REPL backend (leanprover-community/repl JSON protocol over stdio)."""

from lean_interface.lean_repl.env import LeanReplEnv

__all__ = ["LeanReplEnv"]
