"""The candidate `Variant` every ttrl generator returns, and `make_variant`, which states one.

A generator (`ttrl.generators`) turns the target's `ttrl.statement.Statement` into propositions;
`make_variant` states each as `Theorem <CHECK_NAME> : <proposition>.` under the target's header
and scores its similarity to the target (`ttrl.statement.similarity`). Candidates are unchecked:
`ttrl.vetting.select` elaborates every one in Coq and names the kept ones (docs/ARCHITECTURE.md
§Test-time RL).
"""

from __future__ import annotations

from dataclasses import dataclass

from lean_interface.api import Theorem
from ttrl.statement import normalise, similarity

#: the name candidates are elaborated under (renamed to `<prefix><N>` once kept)
CHECK_NAME = "ttrl_variant_candidate"


@dataclass(frozen=True)
class Variant:
    """One generated problem.

    Fields:
      theorem:     `Theorem <target>_v<N> : <proposition>.` under the target's header.
      kind:        the generator that made it (`specialise`, `drop_hypothesis`, …).
      description: what was changed, in words.
      similarity:  to the target, in [0, 1] (`ttrl.statement.similarity`).
      goal:        for a `subgoal` or `instantiate` variant, the goal's text (`Goal.text`) it
                   closes over: once the variant is proved, that goal has a known proof
                   (`ttrl.lemmas`).
      bridge:      for a bridged variant, the tactic that takes the target's root goal to `goal`
                   (intros, then e.g. `pose proof (h (7%nat)) as h_i`): a proof of the variant
                   then proves the target (`ttrl.lemmas.record_lemma`).
      origin:      the target's root goal text the bridge starts from.
    """

    theorem: Theorem
    kind: str
    description: str
    similarity: float
    goal: str = ""
    bridge: str = ""
    origin: str = ""

    @property
    def proposition(self) -> str:
        """The statement's type: the text between `Theorem <name> :` and the final `.`."""
        return _proposition_of(self.theorem.statement)

    def to_dict(self) -> dict:
        return {"theorem": {"name": self.theorem.name, "header": self.theorem.header,
                            "statement": self.theorem.statement, "language": self.theorem.language},
                "kind": self.kind, "description": self.description, "similarity": self.similarity,
                **({"goal": self.goal} if self.goal else {}),
                **({"bridge": self.bridge, "origin": self.origin} if self.bridge else {})}

    @classmethod
    def from_dict(cls, data: dict) -> "Variant":
        return cls(Theorem(**data["theorem"]), data["kind"], data["description"], float(data["similarity"]),
                   str(data.get("goal", "")), str(data.get("bridge", "")), str(data.get("origin", "")))


def _proposition_of(statement: str) -> str:
    text = statement.strip()
    text = text[:-1] if text.endswith(".") else text
    return text.split(":", 1)[1].strip()


def make_variant(target: Theorem, proposition: str, kind: str, description: str, reference: str,
                 name: str = CHECK_NAME) -> Variant:
    """A Variant stating `proposition` under the target's header, scored against `reference`."""
    proposition = normalise(proposition)
    statement = f"Theorem {name} : {proposition}."
    return Variant(Theorem(name, target.header, statement, target.language), kind, description,
                   similarity(reference, proposition))


def ordinal(index: int) -> str:
    """How a description names the `index`-th hypothesis (0-based): `hypothesis 1`, …"""
    return f"hypothesis {index + 1}"


__all__ = ["CHECK_NAME", "Variant", "make_variant", "ordinal"]
