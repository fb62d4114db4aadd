"""Replay existing Coq proofs sentence by sentence and record (goal, tactic, steps-to-go).

This is where the supervised data comes from: Coq's own libraries, replayed through coqtop from
the top of each file. For every tactic sentence inside a proof we record the goal it was applied
to (the first focused goal, canonical text) and the number of tactics on the longest branch of the
proof below that goal (this tactic included) — the value target.

To know which goals a tactic created we keep a model of coqtop's focus: a stack of scopes, each a
list of goal-node ids (bullets and braces push scopes; `}` and repeated bullets pop them). After
every sentence the model's focused count must equal what `Show.` reports; when it does not (a
multi-goal tactic such as `all: …`, shelving, `Unshelve`), the lemma is dropped and counted —
never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator

from lean_interface.coq.goals import GoalsView, parse_goals
from lean_interface.coq.guard import TacticRefused, normalise_tactic
from lean_interface.coq.process import CoqDied, CoqProcess
from lean_interface.coq.text import Sentence, is_focus_sentence, split_sentences, strip_comments

_ENDERS = ("Qed", "Defined", "Save", "Admitted", "Abort")
_SELECTOR = re.compile(r"^(\d+)\s*:\s*(.*)$", re.DOTALL)
_BRACE_SELECTOR = re.compile(r"^(\d+)\s*:\s*\{$")


@dataclass(frozen=True)
class TacticRecord:
    """One supervised example."""

    goal: str
    tactic: str
    steps: int
    source: str
    lemma: str


@dataclass
class ReplayStats:
    """What happened while replaying one file."""

    lemmas_ok: int = 0
    lemmas_dropped: int = 0
    records: int = 0
    sentence_errors: int = 0
    file_failed: str = ""
    drop_reasons: list[str] = field(default_factory=list)  # per dropped lemma, one line: which step failed and Coq's error


class _LemmaDropped(Exception):
    """This lemma cannot be mirrored faithfully: skip to its end and count it as dropped."""


@dataclass
class _Node:
    goal: str
    tactic: str | None = None
    children: list[int] = field(default_factory=list)


class _ProofModel:
    """Goal nodes of the proof in progress and coqtop's focus, mirrored."""

    def __init__(self, root_goal: str) -> None:
        self.nodes = [_Node(root_goal)]
        self.scopes: list[tuple[str, list[int]]] = [("root", [0])]

    @property
    def focused(self) -> list[int]:
        return self.scopes[-1][1]

    def focus(self, kind: str, index: int = 0) -> None:
        if kind not in ("{", "root") and not kind.startswith("{"):
            # a bullet: close finished scopes of the same bullet first
            kinds = [k for k, _ in self.scopes]
            if kind in kinds:
                while True:
                    popped_kind, goals = self.scopes.pop()
                    if goals:
                        raise _LemmaDropped("bullet closed an unfinished scope")
                    if popped_kind == kind:
                        break
        parent = self.focused
        if index >= len(parent):
            raise _LemmaDropped("focus on a missing goal")
        self.scopes.append((kind, [parent.pop(index)]))

    def unfocus(self) -> None:
        while self.scopes and self.scopes[-1][0] not in ("{",):
            kind, goals = self.scopes.pop()
            if goals or kind == "root":
                raise _LemmaDropped("'}' with unfinished goals")
        if not self.scopes:
            raise _LemmaDropped("unbalanced '}'")
        kind, goals = self.scopes.pop()
        if goals:
            raise _LemmaDropped("'}' with unfinished goals")

    def apply(self, index: int, tactic: str, new_count: int, first_goal_after: str | None) -> None:
        focused = self.focused
        if index >= len(focused):
            raise _LemmaDropped("tactic on a missing goal")
        node_id = focused.pop(index)
        produced = new_count - len(focused)
        if produced < 0:
            raise _LemmaDropped("tactic changed other goals")
        node = self.nodes[node_id]
        node.tactic = tactic
        for _ in range(produced):
            self.nodes.append(_Node(""))
            node.children.append(len(self.nodes) - 1)
        focused[index:index] = node.children

    def steps(self, node_id: int) -> int:
        node = self.nodes[node_id]
        return 1 + max((self.steps(c) for c in node.children), default=0)


class ProofReplayer:
    """Replays whole `.v` files through one coqtop process (reused across files)."""

    def __init__(self, timeout: float = 10.0, memory_mb: int = 4096, extra_args: tuple[str, ...] = ()) -> None:
        self.timeout = timeout
        self.process = CoqProcess(extra_args=extra_args, memory_mb=memory_mb)

    def close(self) -> None:
        self.process.close()

    def __enter__(self) -> "ProofReplayer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def replay_file(self, text: str, source: str, max_seconds: float = 300.0,
                    preamble: str = "") -> tuple[list[TacticRecord], ReplayStats]:
        """Replay `text` and record its proofs. `preamble` (a prelude and header) is loaded first
        and not replayed: its lemmas are neither recorded nor counted, so a prelude that proves
        lemmas of its own adds no records and leaves `lemmas_ok` the count of `text`'s proofs."""
        import time

        stats = ReplayStats()
        records: list[TacticRecord] = []
        try:
            loaded = split_sentences(preamble)
            sentences = split_sentences(text)
        except ValueError as error:
            stats.file_failed = f"split: {error}"
            return records, stats
        deadline = time.monotonic() + max_seconds
        try:
            if not self.process.alive:
                self.process.restart()
            try:
                self.process.back_to(self.process.initial_state)
            except CoqDied:
                self.process.restart()  # a previous file left coqtop where BackTo cannot return
            for sentence in loaded:
                reply = self._run(" ".join(sentence.text.split()))
                if reply.error:
                    stats.file_failed = f"preamble: {' '.join(sentence.text.split())[:60]}: {reply.error[:80]}"
                    return records, stats
            for lemma_records in self._replay(sentences, source, stats, deadline):
                records.extend(lemma_records)
        except CoqDied as error:
            stats.file_failed = f"coqtop died: {error}"
            self.process.restart()
        except TimeoutError:
            stats.file_failed = "file time limit"
        stats.records = len(records)
        return records, stats

    def _run(self, sentence: str):
        return self.process.run(sentence, timeout=self.timeout)

    def _show(self) -> GoalsView:
        reply = self._run("Show.")
        if reply.error:
            raise _LemmaDropped(f"Show failed: {reply.error}")
        try:
            return parse_goals(reply.output)
        except ValueError as error:
            raise _LemmaDropped(str(error)) from None

    def _replay(self, sentences: list[Sentence], source: str, stats: ReplayStats,
                deadline: float) -> Iterator[list[TacticRecord]]:
        import time

        index = 0
        while index < len(sentences):
            if time.monotonic() > deadline:
                raise TimeoutError
            sentence = " ".join(sentences[index].text.split())
            index += 1
            if self.process.proof != "Coq":
                # leftover proof (should not happen): leave it
                self._run("Abort All.")
            reply = self._run(sentence)
            if reply.error:
                stats.sentence_errors += 1
                continue
            if self.process.proof == "Coq":
                continue
            lemma = self.process.proof
            records, index = self._replay_proof(sentences, index, source, lemma, stats, deadline)
            if records is not None:
                yield records

    def _replay_proof(self, sentences: list[Sentence], index: int, source: str, lemma: str,
                      stats: ReplayStats, deadline: float) -> tuple[list[TacticRecord] | None, int]:
        """Replay one proof starting after its statement; return (records or None, next index)."""
        import time

        model: _ProofModel | None = None
        dropped = ""
        while index < len(sentences):
            if time.monotonic() > deadline:
                raise TimeoutError
            sentence = " ".join(strip_comments(sentences[index].text).split())
            index += 1
            head = sentence.split(" ", 1)[0].rstrip(".")
            if head in _ENDERS:
                reply = self._run(sentence)
                if reply.error or head in ("Admitted", "Abort") or dropped or model is None:
                    if self.process.proof != "Coq":
                        self._run("Abort.")
                    stats.lemmas_dropped += 1
                    stats.drop_reasons.append(dropped or (f"{head} failed: {reply.error[:80]}" if reply.error
                                                          else f"{head}" if model is not None else "no tactic"))
                    return None, index
                stats.lemmas_ok += 1
                return self._records(model, source, lemma), index
            if dropped:
                continue  # skip to the end of this proof
            if self.process.proof == "Coq":
                stats.lemmas_dropped += 1  # the proof ended without an ender (e.g. `Proof term.`)
                stats.drop_reasons.append("proof ended without Qed")
                return None, index - 1
            try:
                if model is None:
                    model = _ProofModel(self._first_goal())
                self._step(model, sentence)
            except _LemmaDropped as error:
                dropped = str(error) or "dropped"
        stats.lemmas_dropped += 1
        stats.drop_reasons.append(dropped or "file ended inside the proof")
        return None, index

    def _first_goal(self) -> str:
        view = self._show()
        if view.first is None:
            raise _LemmaDropped("no goal at proof start")
        return view.first.text

    def _step(self, model: _ProofModel, sentence: str) -> None:
        body = sentence[:-1].strip() if sentence.endswith(".") else sentence.strip()
        if sentence.startswith("Proof"):
            if self._run(sentence).error:
                raise _LemmaDropped("Proof failed")
            return
        if is_focus_sentence(sentence):
            if self._run(sentence).error:
                raise _LemmaDropped("focus failed")
            brace = _BRACE_SELECTOR.match(sentence)
            if sentence == "}":
                model.unfocus()
            elif sentence == "{":
                model.focus("{")
            elif brace:
                model.focus("{", int(brace.group(1)) - 1)
            else:
                model.focus(sentence)
            self._check(model)
            return
        if sentence[:1].isupper():
            # a vernacular command inside a proof (Show, Check, Hint…): run it, record nothing
            if self._run(sentence).error:
                raise _LemmaDropped("command failed")
            return
        goal_index, tactic = 0, body
        selector = _SELECTOR.match(body)
        if selector:
            goal_index, tactic = int(selector.group(1)) - 1, selector.group(2).strip()
        elif re.match(r"^(all|par|!|\[)", body) and ":" in body.split(" ", 1)[0] + " ":
            raise _LemmaDropped("multi-goal selector")
        focused = model.focused
        if goal_index >= len(focused):
            raise _LemmaDropped("selector out of range")
        if goal_index:
            shown = self._run(f"Show {goal_index + 1}.")
            if shown.error:
                raise _LemmaDropped("cannot show selected goal")
            from lean_interface.coq.goals import parse_show

            model.nodes[focused[goal_index]].goal = parse_show(shown.output).text
        elif not model.nodes[focused[0]].goal:
            view = self._show()
            if view.first is None:
                raise _LemmaDropped("no focused goal")
            model.nodes[focused[0]].goal = view.first.text
        reply = self._run(sentence)
        if reply.error:
            raise _LemmaDropped(f"`{sentence[:80]}` failed on replay: {' '.join(reply.error.split())[:120]}")
        view = self._show()
        model.apply(goal_index, tactic, view.count, view.first.text if view.first else None)
        self._check(model, view)

    def _check(self, model: _ProofModel, view: GoalsView | None = None) -> None:
        view = view or self._show()
        if view.count != len(model.focused):
            raise _LemmaDropped(f"focus model mismatch ({view.count} vs {len(model.focused)})")
        if view.first is not None and model.focused:
            first = model.nodes[model.focused[0]]
            if not first.goal:
                first.goal = view.first.text

    @staticmethod
    def _records(model: _ProofModel, source: str, lemma: str) -> list[TacticRecord]:
        records = []
        for node_id, node in enumerate(model.nodes):
            if node.tactic is None or not node.goal:
                continue
            try:
                tactic = normalise_tactic(node.tactic)
            except TacticRefused:
                continue  # e.g. a proof step using `fix`: keep the tree, skip the example
            records.append(TacticRecord(node.goal, tactic, model.steps(node_id), source, lemma))
        return records
