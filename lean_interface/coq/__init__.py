"""The Coq backend: coqtop driven sentence by sentence, path-addressed goals, coqc verification."""

from lean_interface.coq.env import CoqEnv, CoqGoalRef
from lean_interface.coq.files import theorem_from_file, theorem_from_proposition, theorem_from_text

__all__ = ["CoqEnv", "CoqGoalRef", "theorem_from_file", "theorem_from_proposition", "theorem_from_text"]
