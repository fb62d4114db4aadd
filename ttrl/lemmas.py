"""Proved subgoal variants reused as closing tactics for the goals they came from (TTRL lemmas).

A `subgoal` variant (`ttrl.variants.from_subgoals`) is an open goal of a failed target attempt,
closed over its hypotheses into a statement `forall (x : T) …, P -> C` and searched on its own,
with a whole search's budget instead of the share of one the target's tree gave it. When it is
proved, the goal it came from has a known proof, and every later search — the target's periodic
and final attempts above all — that reaches that goal again should close it at once instead of
searching it again. That is what this module adds:

* `script_tree` reads a proof script as the Coq backend renders it back into a `ProofStep` tree;
* `one_tactic` turns such a tree into ONE Ltac sentence (`t; [a | b]` for several subgoals), the
  form a search edge needs;
* `closing_tactic` prefixes it with "revert every hypothesis, then `change` the goal to the
  variant's statement" — the reverted goal *is* the variant's statement up to binder names, and
  `change` makes the names the variant's proof expects;
* `LemmaTable` is `<target dir>/lemmas.json` (goal text → closing tactics), written by the TTRL
  session and re-read by actors (in-process or Ray) when it changes;
* `WithLemmas` wraps an actor's evaluator: a goal in the table gets its closing tactics at its
  first expansion with prior 1 (log-probability 0), and a value of at least −1 (one tactic left).

Soundness does not rest on any of this: the tactic runs in the prover like any other, and a
target proof that uses it is checked from scratch by the kernel with the axiom audit
(docs/ARCHITECTURE.md §Soundness) — the variant's proof is inlined in the target's script.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from lean_interface.api import ProofStep
from lean_interface.coq.sentences import split_sentences
from search.evaluator import EvalRequest, Evaluation, Evaluator
from ttrl.report import write_atomic

#: reverts every hypothesis (the last first, so dependents go before what they depend on)
REVERT_ALL = "repeat match goal with H : _ |- _ => revert H end"


class ScriptError(ValueError):
    """A script that is not in the backend's rendered shape (tactics, `{ … }` blocks)."""


def script_tree(script: str) -> ProofStep:
    """The proof tree of a script rendered by the Coq backend (`CoqEnv.render`): a tactic, then
    its only subgoal's proof inline, or one `{ … }` block per subgoal. Raises ScriptError."""
    sentences = [s.text.strip() for s in split_sentences(script)]
    position = 0

    def step() -> ProofStep:
        nonlocal position
        if position >= len(sentences) or sentences[position] in ("{", "}"):
            raise ScriptError("a tactic was expected")
        tactic = sentences[position][:-1].strip() if sentences[position].endswith(".") else sentences[position]
        position += 1
        if position < len(sentences) and sentences[position] == "{":
            children = []
            while position < len(sentences) and sentences[position] == "{":
                position += 1
                children.append(step())
                if position >= len(sentences) or sentences[position] != "}":
                    raise ScriptError("an unclosed block")
                position += 1
            if len(children) < 2:
                raise ScriptError("a single subgoal is rendered inline, not in a block")
            return ProofStep(tactic, tuple(children))
        if position < len(sentences) and sentences[position] != "}":
            return ProofStep(tactic, (step(),))
        return ProofStep(tactic)

    tree = step()
    if position != len(sentences):
        raise ScriptError("text after the proof")
    return tree


def one_tactic(step: ProofStep) -> str:
    """The proof as one Ltac expression: `(t)` alone, `(t); (rest)` for one subgoal, and
    `(t); [(a) | (b)]` dispatching several subgoals in the order the prover listed them."""
    head = f"({step.tactic})"
    if not step.children:
        return head
    if len(step.children) == 1:
        return f"{head}; ({one_tactic(step.children[0])})"
    return f"{head}; [{' | '.join(f'({one_tactic(c)})' for c in step.children)}]"


def closing_tactic(proposition: str, script: str) -> str:
    """One tactic that proves a goal whose hypotheses and conclusion close into `proposition`,
    replaying `script` (the variant's proof). Raises ScriptError for a script of another shape."""
    return f"({REVERT_ALL}); change ({' '.join(proposition.split())}); ({one_tactic(script_tree(script))})"


class LemmaTable:
    """`lemmas.json`: goal text → closing tactics. Readers see the file as it was last saved
    (atomic replace) and reload it when its modification time changes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.entries: dict[str, list[str]] = {}
        self._stamp: float | None = None
        self.reload()

    def reload(self) -> None:
        """Re-read the file if it changed since the last read (a missing file is an empty table)."""
        try:
            stamp = self.path.stat().st_mtime_ns
        except FileNotFoundError:
            self.entries, self._stamp = {}, None
            return
        if stamp == self._stamp:
            return
        data = json.loads(self.path.read_text(encoding="utf-8"))
        self.entries = {str(goal): [str(t) for t in tactics] for goal, tactics in data.get("lemmas", {}).items()}
        self._stamp = stamp

    def add(self, goal: str, tactic: str) -> bool:
        """Record a closing tactic for `goal` and save; False if it was known already."""
        known = self.entries.setdefault(goal, [])
        if tactic in known:
            return False
        known.append(tactic)
        write_atomic(self.path, json.dumps({"lemmas": self.entries}, indent=1, ensure_ascii=False))
        self._stamp = self.path.stat().st_mtime_ns
        return True

    def tactics_for(self, goal: str) -> list[str]:
        return self.entries.get(goal, [])

    def __len__(self) -> int:
        return len(self.entries)


class WithLemmas:
    """An evaluator whose round-0 answer for a goal in the table also holds the goal's closing
    tactics (log-probability 0, first) and a value of at least −1. Reloads the table per call."""

    def __init__(self, inner: Evaluator, table: LemmaTable) -> None:
        self.inner = inner
        self.table = table

    def evaluate(self, requests: Sequence[EvalRequest]) -> list[Evaluation]:
        answers = self.inner.evaluate(requests)
        self.table.reload()
        if not self.table.entries:
            return list(answers)
        out = []
        for request, answer in zip(requests, answers):
            known = self.table.tactics_for(request.goal) if request.round == 0 else []
            if not known:
                out.append(answer)
                continue
            sampled = [(t, lp) for t, lp in answer.tactics if t not in known]
            out.append(Evaluation(tuple((t, 0.0) for t in known) + tuple(sampled), max(answer.value, -1.0)))
        return out


__all__ = ["LemmaTable", "REVERT_ALL", "ScriptError", "WithLemmas", "closing_tactic", "one_tactic", "script_tree"]
