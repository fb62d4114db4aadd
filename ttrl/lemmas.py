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
* `LemmaTable` is `<target dir>/lemmas.json` (goal → closing tactics), written by the TTRL
  session and re-read by actors (in-process or Ray) when it changes. Goals are keyed up to the
  names of their hypotheses and variables (`goal_key`): `intros m` and `intros n` reach the same
  goal, and the closing tactic does not depend on the names (revert, then `change`);
* a *bridged* variant (`ttrl.variants.bridged_variants`: the target's goal after a bridge tactic
  such as `pose proof (h (7%nat)) as h_i`, closed into a statement) also gives the target's own
  root goal a closing tactic: the bridge, then the variant's closing tactic;
* `WithLemmas` wraps an actor's evaluator: a goal in the table gets its closing tactics at its
  first expansion with prior 1 (log-probability 0), and a value of at least −1 (one tactic left).

Soundness does not rest on any of this: the tactic runs in the prover like any other, and a
target proof that uses it is checked from scratch by the kernel with the axiom audit
(docs/ARCHITECTURE.md §Soundness) — the variant's proof is inlined in the target's script.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Sequence

from lean_interface.api import ProofStep, Theorem
from lean_interface.coq.text import SentenceError, split_sentences
from lean_interface.durable import write_atomic
from search.evaluator import EvalRequest, Evaluation, Evaluator
from search.outcome import Outcome
from selfplay.episode import Episode
from ttrl.candidate import Variant, _proposition_of
from ttrl.report import VARIANT_PREFIX
from ttrl.statement import parse_goal_text, substitute

log = logging.getLogger(__name__)

#: reverts every hypothesis (the last first, so dependents go before what they depend on)
REVERT_ALL = "repeat match goal with H : _ |- _ => revert H end"


class ScriptError(ValueError):
    """A script that is not in the backend's rendered shape (tactics, `{ … }` blocks)."""


def script_tree(script: str) -> ProofStep:
    """The proof tree of a script rendered by the Coq backend (`CoqEnv.render`): a tactic, then
    its only subgoal's proof inline, or one `{ … }` block per subgoal. Raises ScriptError."""
    try:
        sentences = [s.text.strip() for s in split_sentences(script)]
    except SentenceError as error:
        raise ScriptError(str(error)) from None
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


def goal_key(text: str) -> str:
    """The goal text with its hypotheses and variables renamed `_k0`, `_k1`, … in order, so goals
    that differ only by those names share a key; the text itself if it does not parse."""
    try:
        entries, conclusion = parse_goal_text(text)
    except ValueError:
        return text
    names = [name for group, _, _ in entries for name in group]
    parts = [*(f"{type_} := {body}" if body is not None else type_ for _, type_, body in entries), conclusion]
    renamed = {name: f"_k{index}" for index, name in enumerate(names)}
    for old, new in renamed.items():
        parts = [substitute(part, old, new) for part in parts]
    lines = [f"{', '.join(renamed[n] for n in group)} : {part}" for (group, _, _), part in zip(entries, parts)]
    return "\n".join([*lines, f"⊢ {parts[-1]}"])


class LemmaTable:
    """`lemmas.json`: goal key (`goal_key`) → closing tactics. Readers see the file as it was last
    saved (atomic replace) and reload it when its modification time changes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.entries: dict[str, list[str]] = {}
        self.origins: dict[str, str] = {}      # tactic → the variant whose proof it replays
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
        self.origins = {str(t): str(name) for t, name in data.get("origins", {}).items()}
        self._stamp = stamp

    def add(self, goal: str, tactic: str, origin: str = "") -> bool:
        """Record a closing tactic for `goal` (replaying variant `origin`'s proof) and save; False
        if it was known already."""
        known = self.entries.setdefault(goal_key(goal), [])
        if tactic in known:
            return False
        known.append(tactic)
        if origin:
            self.origins[tactic] = origin
        write_atomic(self.path, json.dumps({"lemmas": self.entries, "origins": self.origins}, indent=1,
                                           ensure_ascii=False))
        self._stamp = self.path.stat().st_mtime_ns
        return True

    def tactics_for(self, goal: str) -> list[str]:
        return self.entries.get(goal_key(goal), [])

    def used_in(self, script: str) -> list[str]:
        """The variants whose closing tactics a proof script contains (in the table's order)."""
        text = " ".join(script.split())
        used = [self.origins.get(t, "") for tactics in self.entries.values() for t in tactics
                if " ".join(t.split()) in text]
        return list(dict.fromkeys(name for name in used if name))

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


class SubgoalLemmas:
    """Expert iteration's lemma recorder (`selfplay.subgoals.LemmaRecorder`): a proved subgoal
    problem's proof → a closing tactic for the open goal it came from, in the run's `lemmas.json`,
    which the search actors' evaluators offer first (`WithLemmas`): a later search of the target
    that reaches that goal again closes it at once, and the target's proof carries the subgoal's
    proof inline (checked with the rest by the kernel)."""

    def __init__(self, path: str | Path) -> None:
        self.table = LemmaTable(path)

    def __call__(self, theorem: Theorem, goal: str, proof: str) -> bool:
        """Record `proof` of subgoal `theorem` for `goal`; True when the entry is new."""
        try:
            tactic = closing_tactic(_proposition_of(theorem.statement), proof)
        except (ScriptError, IndexError) as error:
            log.warning("the proof of %s is not reusable: %s", theorem.name, error)
            return False
        return self.table.add(goal, tactic, origin=theorem.name)

    def is_lemma_tactic(self, tactic: str) -> bool:
        """Whether `tactic` is one of the table's closing tactics (never a policy target: it is
        a whole proof in one sentence)."""
        self.table.reload()
        return tactic in self.table.origins


def record_lemma(table: LemmaTable, variants: Sequence[Variant], episode: Episode) -> str | None:
    """A proved subgoal (or bridged) variant's episode → a closing tactic for its goal in `table`,
    and for a bridged variant also one for the goal its bridge starts from (the target's root:
    bridge, then the closing tactic); the variant's name when an entry is new, None otherwise (any
    other episode, a proof already known)."""
    if episode.outcome is not Outcome.PROVED or episode.disprove or not episode.proof \
            or not episode.problem.startswith(VARIANT_PREFIX):
        return None
    name = episode.problem[len(VARIANT_PREFIX):]
    variant = next((v for v in variants if v.theorem.name == name), None)
    if variant is None or not variant.goal:
        return None
    try:
        tactic = closing_tactic(variant.proposition, episode.proof)
    except ScriptError as error:
        log.warning("the proof of %s is not reusable: %s", name, error)
        return None
    added = table.add(variant.goal, tactic, origin=name)
    if variant.bridge and variant.origin:   # the bridge, then the variant's proof: the target's goal closes
        added = table.add(variant.origin, f"({variant.bridge}); {tactic}", origin=name) or added
    return name if added else None


__all__ = ["LemmaTable", "REVERT_ALL", "ScriptError", "SubgoalLemmas", "WithLemmas", "closing_tactic", "goal_key", "one_tactic", "record_lemma",
           "script_tree"]
