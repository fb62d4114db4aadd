"""Coq statements as pieces: binders, hypotheses and a conclusion, and the text helpers over them.

Pure text, no Coq: `ttrl.variants` asks Coq for the structure of a statement (the goal after
intros, and which hypotheses are propositions) and uses this module to take that structure apart
and put variants back together. The text handled here is what coqtop prints (`Goal.text`: one
hypothesis per line, `⊢ conclusion` last; operators spaced, notations used), so the rules only need
to be right for Coq's own printing; every statement built from them is elaborated by Coq before
it is used. Tokens, their bracket depth and matching brackets come from the one scanner of Coq text,
`lean_interface.coq.text`; a declaration sentence is read by `lean_interface.coq.declaration`.

Coq precedences the splitting relies on (Coq.Init.Notations): `~` 75, `/\\` 80 (right), `\\/` 85
(right), `<->` 95, `->` 99 (right); `=`, `<`, `<=`, `>`, `>=`, `<>` are at 70, and the chained
forms `a <= b <= c`, `a < b < c`, `a <= b < c`, `a < b <= c` exist in nat, Z, N, Q and R scopes.
Binders (`forall`, `exists`, `fun`, `let`, `match`, …) extend as far right as possible, so an
operator after one belongs to its body and is never split at.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from lean_interface.coq.declaration import DeclarationError, parse_declaration
from lean_interface.coq.text import Token, matching_close, tokens, top_level

_IDENT = re.compile(r"[^\W\d][\w']*")
_NUMERAL = re.compile(r"-?\d+(?:%[A-Za-z_]\w*)?")
_HYP_LINE = re.compile(r"^([^\s:,]+(?:, [^\s:,]+)*) (:=|:) (.*)$")

#: tokens that open a binder or a construct extending to the right: nothing after them is top-level
BINDER_KEYWORDS = frozenset({"forall", "exists", "exists2", "fun", "let", "if", "match", "λ", "∀", "∃", "∃!"})
#: comparison operators (level 70)
COMPARISONS = frozenset({"<", "<=", ">", ">=", "=", "<>"})
#: the operators Coq chains (`a <= b < c` means `a <= b /\\ b < c`)
CHAINABLE = frozenset({"<", "<="})
LOGICAL = frozenset({"/\\", "\\/", "<->", "->", "~"})
#: tokens left out of the similarity measure: layout only
_LAYOUT = frozenset({"(", ")", ","})


def token_texts(text: str) -> list[str]:
    return [t.text for t in tokens(text)]


def identifiers(text: str) -> set[str]:
    return {t for t in token_texts(text) if _IDENT.fullmatch(t)}


def unwrap(text: str) -> tuple[str, str]:
    """`(inner)%scope` or `(inner)` → (inner, "%scope" or ""); anything else → (text, "")."""
    text = text.strip()
    if not text.startswith("("):
        return text, ""
    close = matching_close(text, 0)
    if close < 0:
        return text, ""
    rest = text[close + 1:]
    if rest == "" or re.fullmatch(r"%[A-Za-z_]\w*", rest):
        return text[1:close].strip(), rest
    return text, ""


def parenthesise(text: str) -> str:
    """`text` safe to put before `->` or inside an application: bracketed unless atomic."""
    text = text.strip()
    if _IDENT.fullmatch(text) or re.fullmatch(r"\d+", text):
        return text
    if text.startswith("(") and matching_close(text, 0) == len(text) - 1:
        return text
    return f"({text})"


def _top_level(text: str) -> list[Token]:
    """Depth-0 tokens before the first depth-0 binder keyword (operators after it are its body's)."""
    return top_level(text, BINDER_KEYWORDS)


def split_at(text: str, operator: str) -> list[str]:
    """`text` split at every top-level `operator`; `[text]` when there is none."""
    cuts = [t for t in _top_level(text) if t.text == operator]
    pieces, last = [], 0
    for cut in cuts:
        pieces.append(text[last:cut.start].strip())
        last = cut.end
    pieces.append(text[last:].strip())
    return pieces


def _rewrap(parts: list[str], scope: str) -> list[str]:
    return [f"({p}){scope}" for p in parts] if scope else parts


def conjuncts(text: str) -> list[str]:
    """The parts of a proposition that is a conjunction `A /\\ B /\\ …` or a chained comparison
    `a <= b < c` (parts `a <= b`, `b < c`); `[text]` otherwise. `(A /\\ B)%Z` splits to
    `(A)%Z`, `(B)%Z`."""
    inner, scope = unwrap(text)
    top = {t.text for t in _top_level(inner)}
    if "/\\" in top and not top & {"\\/", "<->", "->"}:
        parts = split_at(inner, "/\\")
        return _rewrap([q for p in parts for q in conjuncts(p)], scope)
    ops = [t for t in _top_level(inner) if t.text in COMPARISONS]
    if len(ops) == 2 and all(t.text in CHAINABLE for t in ops) and not top & LOGICAL:
        first, second = ops
        left, middle = inner[:first.start].strip(), inner[first.end:second.start].strip()
        right = inner[second.end:].strip()
        return _rewrap([f"{left} {first.text} {middle}", f"{middle} {second.text} {right}"], scope)
    return [text]


def iff_sides(text: str) -> tuple[str, str] | None:
    """(A, B) when `text` is `A <-> B` at top level (one `<->`, no `->` outside brackets)."""
    inner, scope = unwrap(text)
    top = [t.text for t in _top_level(inner)]
    if top.count("<->") != 1 or "->" in top:
        return None
    left, right = split_at(inner, "<->")
    if scope:
        left, right = f"({left}){scope}", f"({right}){scope}"
    return left, right


@dataclass(frozen=True)
class Comparison:
    """A proposition `left op right` with one top-level comparison and nothing looser around it."""

    left: str
    op: str
    right: str
    scope: str = ""

    def text(self) -> str:
        body = f"{self.left} {self.op} {self.right}"
        return f"({body}){self.scope}" if self.scope else body


def comparison(text: str) -> Comparison | None:
    inner, scope = unwrap(text)
    top = _top_level(inner)
    if len(top) != len([t for t in tokens(inner) if t.depth == 0]):
        return None                                   # a binder at top level
    ops = [t for t in top if t.text in COMPARISONS]
    if len(ops) != 1 or any(t.text in LOGICAL for t in top):
        return None
    op = ops[0]
    return Comparison(inner[:op.start].strip(), op.text, inner[op.end:].strip(), scope)


def is_integer_numeral(text: str) -> bool:
    return bool(_NUMERAL.fullmatch(text.strip()))


def shift_numeral(text: str, delta: int) -> str:
    """`5` → `6`, `-1%Z` → `0%Z` (an integer numeral with an optional scope key)."""
    match = re.fullmatch(r"(-?\d+)(%[A-Za-z_]\w*)?", text.strip())
    assert match, text
    return f"{int(match.group(1)) + delta}{match.group(2) or ''}"


def numeral_spans(text: str) -> list[tuple[int, int]]:
    """Where the numerals of `text` are (with a `%scope` suffix if any), left to right."""
    spans = []
    toks = tokens(text)
    for i, token in enumerate(toks):
        if not re.fullmatch(r"\d+", token.text):
            continue
        end = token.end
        if (i + 2 < len(toks) and toks[i + 1].text == "%" and toks[i + 1].start == end
                and _IDENT.fullmatch(toks[i + 2].text) and toks[i + 2].start == end + 1):
            end = toks[i + 2].end
        spans.append((token.start, end))
    return spans


def bound_names(text: str) -> set[str]:
    """Names bound inside `text` by `forall`/`exists`/`fun`/`let`/… (up to each binder's `,` or `=>`)."""
    names: set[str] = set()
    binding = False
    for token in tokens(text):
        if token.text in BINDER_KEYWORDS:
            binding = True
        elif token.text in {",", "=>", ":=", "in", "with"}:
            binding = False
        elif binding and _IDENT.fullmatch(token.text):
            names.add(token.text)
    return names


def substitute(text: str, name: str, replacement: str) -> str:
    """`text` with every token `name` (a whole identifier, not part of a qualified name) replaced."""
    out, last = [], 0
    for token in tokens(text):
        if token.text == name:
            out.append(text[last:token.start])
            out.append(replacement)
            last = token.end
    out.append(text[last:])
    return "".join(out)


def similarity(a: str, b: str) -> float:
    """Multiset Jaccard similarity of the tokens of two propositions, in [0, 1].

    |A ∩ B| / |A ∪ B| over token counts (`min`/`max` per token), brackets and commas left out
    (they are layout). 1.0 for the same token bag; 0.0 when nothing is shared.
    """
    ca = Counter(t for t in token_texts(a) if t not in _LAYOUT)
    cb = Counter(t for t in token_texts(b) if t not in _LAYOUT)
    union = sum((ca | cb).values())
    return 1.0 if union == 0 else sum((ca & cb).values()) / union


def normalise(text: str) -> str:
    return " ".join(text.split())


# ---- statements ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Binder:
    """One entry of a statement's context.

    Fields:
      name: its identifier.
      type: its type as Coq printed it.
      prop: True for a hypothesis (its type is a proposition): rendered as `type ->`.
      body: the value of a local definition (`let name : type := body in`), else None.
    """

    name: str
    type: str
    prop: bool = False
    body: str | None = None


@dataclass(frozen=True)
class Statement:
    """A closed proposition: binders in order, then the conclusion."""

    binders: tuple[Binder, ...]
    conclusion: str

    @property
    def variables(self) -> list[Binder]:
        return [b for b in self.binders if not b.prop and b.body is None]

    @property
    def hypotheses(self) -> list[Binder]:
        return [b for b in self.binders if b.prop]

    def used_after(self, index: int) -> bool:
        """Whether binder `index`'s name occurs in any later binder or the conclusion."""
        name = self.binders[index].name
        later = [self.conclusion, *(b.type for b in self.binders[index + 1:]),
                 *(b.body or "" for b in self.binders[index + 1:])]
        return any(name in identifiers(text) for text in later)

    def names(self) -> set[str]:
        found = {b.name for b in self.binders} | identifiers(self.conclusion)
        for b in self.binders:
            found |= identifiers(b.type) | identifiers(b.body or "")
        return found

    def fresh(self, base: str) -> str:
        taken = self.names()
        if base not in taken:
            return base
        index = 0
        while f"{base}{index}" in taken:
            index += 1
        return f"{base}{index}"

    def with_binders(self, binders: Iterable[Binder]) -> "Statement":
        return replace(self, binders=tuple(binders))

    def render(self) -> str:
        """The proposition `forall (x y : T) (f : U), H1 -> H2 -> C`: variables as grouped binders,
        hypotheses as implications (as a named binder when a later part mentions their name)."""
        out: list[str] = []
        group: list[Binder] = []

        def flush() -> None:
            if not group:
                return
            runs: list[tuple[list[str], str]] = []
            for b in group:
                if runs and runs[-1][1] == b.type:
                    runs[-1][0].append(b.name)
                else:
                    runs.append(([b.name], b.type))
            out.append("forall " + " ".join(f"({' '.join(n)} : {t})" for n, t in runs) + ", ")
            group.clear()

        for index, b in enumerate(self.binders):
            if b.body is not None:
                flush()
                out.append(f"let {b.name} : {b.type} := {b.body} in ")
            elif b.prop and not self.used_after(index):
                flush()
                out.append(f"{parenthesise(b.type)} -> ")
            else:
                group.append(b)
        flush()
        out.append(self.conclusion)
        return "".join(out)


def parse_goal_text(text: str) -> tuple[list[tuple[list[str], str, str | None]], str]:
    """Hypothesis lines and conclusion of a canonical goal text (`Goal.text`).

    Returns ([(names, type, body or None), …], conclusion). Raises ValueError for coupled goals
    (several goals joined by a blank line) or a text without a `⊢` line.
    """
    lines = [line for line in text.strip().splitlines()]
    if any(not line.strip() for line in lines):
        raise ValueError("several goals (coupled by an existential variable)")
    if not lines or not lines[-1].startswith("⊢"):
        raise ValueError("no '⊢' line")
    entries: list[tuple[list[str], str, str | None]] = []
    for line in lines[:-1]:
        match = _HYP_LINE.match(line.strip())
        if not match:
            raise ValueError(f"unrecognised hypothesis line {line[:60]!r}")
        names = [n.strip() for n in match.group(1).split(",")]
        if match.group(2) == ":":
            entries.append((names, match.group(3).strip(), None))
        else:
            body, type_ = _split_definition(match.group(3))
            entries.append((names, type_, body))
    return entries, lines[-1][1:].strip()


def _split_definition(text: str) -> tuple[str, str]:
    """`body : type` of a local definition, split at the last top-level ` : `."""
    colons = [t for t in tokens(text) if t.depth == 0 and t.text == ":"]
    if not colons:
        raise ValueError(f"local definition without a type: {text[:60]!r}")
    cut = colons[-1]
    return text[:cut.start].strip(), text[cut.end:].strip()


def join_statement(entries: Sequence[tuple[Sequence[str], str, str | None]], conclusion: str,
                   props: Sequence[bool] | None = None) -> Statement:
    """A Statement from parsed hypothesis lines; `props[i]` says whether line i is a hypothesis
    (all False when unknown: everything becomes a binder, which elaborates either way)."""
    binders = []
    for index, (names, type_, body) in enumerate(entries):
        prop = bool(props[index]) if props is not None else False
        binders.extend(Binder(name, type_, prop and body is None, body) for name in names)
    return Statement(tuple(binders), conclusion)


# ---- declarations --------------------------------------------------------------------------------

def declaration_parts(statement: str) -> tuple[str, str] | None:
    """(binders, type) of one declaration sentence `Theorem name BINDERS : TYPE.` as
    `lean_interface.coq.declaration.parse_declaration` reads it; None where it refuses the text (a
    target's or a model's statement ttrl cannot read is left out, not guessed at)."""
    try:
        declaration = parse_declaration(statement)
    except DeclarationError:
        return None
    return declaration.binders, declaration.type
