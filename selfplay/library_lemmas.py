"""Library lemmas as self-play problems: which lemmas of a Coq library file can be restated on
their own, and with which header (pure text, no Coq; `selfplay.library_checks` then checks them).

A lemma taken out of its file must still mean what it meant there, so each candidate carries the
header it needs and anything that may depend on the file itself is left out. `library_lemmas`
reads a file's text: the header of a lemma is the file's own `Require` / `From … Require`
sentences before it (at any depth: a library load is global), and the `Import` / `Export` /
`Open Scope` / `Close Scope` / `Implicit Types` sentences in effect where it stands (top level, or
the enclosing sections); an `Import` of a module the file itself defines is left out. Never the
file itself, so the lemma is not in scope by its own name.
Kept: `Theorem|Lemma|Fact|Remark|Corollary|Proposition` sentences at top level or inside sections
that have not (yet) declared a context. Skipped: every lemma inside a `Module` / `Module Type`
(functor parameters, `Include`s and module-local names would change its meaning outside), inside a
section after a `Variable` / `Hypothesis` / `Context` / `Let` / `Parameter` / `Implicit Type` /
`Include` (until its `End`), after a top-level `Axiom` / `Parameter` / `Variable` / `Hypothesis` /
`Context` / `Include` (the rest of the file: the lemma might need it), statements
`lean_interface.coq.declaration.parse_declaration` refuses (attributes are dropped; bodies, mutual `with`), and
statements that use a name or a notation symbol the file itself defined before them (`definitions`:
definitions, constructors, fields, assumed names, earlier lemmas, `Notation`/`Infix` symbols and
keywords; over-approximated on purpose). Without the file such a statement either fails to
elaborate or, worse, means something else (a same-named global, the standard meaning of a symbol
the file redefined); this filter removed every Arith candidate that would not elaborate.

`library_candidates` collects them over a library root (a directory or one `.v` file; `ALIASES`
names the roots of `lean_interface.problems.libraries`), in file order, with ids
`<source>/<file path below the library root, without .v>/<lemma>`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from lean_interface.coq.declaration import parse_declaration
from lean_interface.coq.text import SentenceError, split_sentences, strip_comments, strip_strings, top_level_contains
from lean_interface.problems.libraries import COQ_LIB, DEFAULT_ROOTS

#: short names for the library roots of `lean_interface.problems.libraries`
ALIASES: dict[str, str] = dict(zip(("stdlib", "coquelicot", "flocq", "coqprime", "bignums"), DEFAULT_ROOTS))
#: the declarations a library lemma may be (the brief's list; `Example`s are left out)
LEMMA_KEYWORDS = ("Theorem", "Lemma", "Fact", "Remark", "Corollary", "Proposition")

_ATTRIBUTES = re.compile(r"^(?:#\[[^\]]*\]\s*|(?:Local|Global|Polymorphic|Monomorphic)\s+)*")
_LEMMA = re.compile(r"^(" + "|".join(LEMMA_KEYWORDS) + r")\s+([^\W\d][\w']*)")
_REQUIRE = re.compile(r"^(?:From\s+\S+\s+)?Require\b")
_IMPORT = re.compile(r"^(Import|Export)\s+(.*)\.$", re.DOTALL)
_SCOPE = re.compile(r"^(?:Open|Close)\s+Scope\s+[\w']+\s*\.$")
_IMPLICIT_TYPES = re.compile(r"^Implicit\s+Types?\b")
_SECTION = re.compile(r"^Section\s+([\w']+)\s*\.$")
_MODULE = re.compile(r"^(?:Declare\s+)?Module\s+(?:Type\s+)?(?:(?:Import|Export)\s+)?([^\W\d][\w']*)")
_END = re.compile(r"^End\s+([\w']+)\s*\.$")
#: sentences that give a section (or, at top level, the rest of the file) a context the lemmas may need
_CONTEXT = re.compile(r"^(?:Variables?|Hypothes[ie]s|Context|Parameters?|Axioms?|Conjectures?|Let|Include"
                      r"|Implicit\s+Types?)\b")
_TOP_CONTEXT = re.compile(r"^(?:Variables?|Hypothes[ie]s|Context|Parameters?|Axioms?|Conjectures?|Include)\b")


# ---- one file --------------------------------------------------------------------------------

@dataclass(frozen=True)
class LibraryLemma:
    """A lemma of a library file, restated on its own.

    Fields:
      name:      its name.
      statement: `<Keyword> <name> <binders> : <type>.`, comments and attributes removed.
      header:    the header sentences in effect where it stands (see the module docstring).
      position:  its index among the file's sentences (for ordering).
    """

    name: str
    statement: str
    header: tuple[str, ...]
    position: int


@dataclass
class _Block:
    kind: str  # "section" | "module"
    name: str
    tainted: bool
    active_len: int  # length of the active header list when the block opened


def _clean(text: str) -> str:
    """A sentence without comments; whitespace collapsed unless it holds a string literal."""
    text = strip_comments(text).strip()
    return text if '"' in text else " ".join(text.split())


def _file_modules(sentences: Sequence[str]) -> set[str]:
    names = set()
    for text in sentences:
        match = _MODULE.match(_ATTRIBUTES.sub("", text))
        if match:
            names.add(match.group(1))
    return names


def _imports_own_module(text: str, own: set[str]) -> bool:
    match = _IMPORT.match(text)
    if not match:
        return False
    names = re.findall(r"[^\W\d][\w']*(?:\.[^\W\d][\w']*)*", match.group(2))
    return any(name.split(".")[0] in own for name in names)


def _module_opens_block(text: str) -> bool:
    """`Module X.`, `Module X (P : T).`, `Module Type X.`, `Module X : T.` open a block; `Module X := …`
    and `Declare Module X : T.` are one sentence."""
    if text.startswith("Declare"):
        return False
    return not top_level_contains(text, ":=")


_IDENT_RE = re.compile(r"[^\W\d][\w']*")
_SYMBOLS_RE = re.compile(r"[!#$&*+\-/<=>?@\\^|~;,]+")
_NAMED = re.compile(r"^(?:Program\s+)?(?:Definition|Fixpoint|CoFixpoint|Inductive|CoInductive|Variant|Record|Structure"
                    r"|Class|Instance|Let|Function|Example|Canonical(?:\s+Structure)?|Theorem|Lemma|Fact|Remark"
                    r"|Corollary|Proposition)\s+([^\W\d][\w']*)")
_ASSUMED = re.compile(r"^(?:Variables?|Hypothes[ie]s|Context|Parameters?|Axioms?|Conjectures?)\s+(.*)$", re.DOTALL)
_NOTATION = re.compile(r'^(?:Reserved\s+)?(?:Notation|Infix)\s+"((?:[^"]|"")*)"')
_ABBREVIATION = re.compile(r"^Notation\s+([^\W\d][\w']*)")
_FIELD_OR_CONSTRUCTOR = re.compile(r"(?:\{|;|:=|\|)\s*([^\W\d][\w']*)")


def definitions(bare: str) -> tuple[set[str], set[str]]:
    """The identifiers and notation symbols a sentence defines (over-approximated): declared names,
    constructors, record fields, assumed names, notation keywords and symbols."""
    idents: set[str] = set()
    symbols: set[str] = set()
    named = _NAMED.match(bare)
    if named:
        idents.add(named.group(1))
        if re.match(r"^(?:Co)?Inductive|^Variant|^Record|^Structure|^Class", bare):
            idents.update(_FIELD_OR_CONSTRUCTOR.findall(bare))
            idents.update(re.findall(r"\bwith\s+([^\W\d][\w']*)", bare))
            idents.add(f"Build_{named.group(1)}")
        return idents, symbols
    assumed = _ASSUMED.match(bare)
    if assumed:
        body = assumed.group(1)
        groups = re.findall(r"[({]\s*([^():{}]+?)\s*:", body) if body.lstrip().startswith(("(", "{")) \
            else [body.split(":", 1)[0]]
        for group in groups:
            idents.update(_IDENT_RE.findall(group))
        return idents, symbols
    notation = _NOTATION.match(bare)
    if notation:
        for token in notation.group(1).split():
            if token.startswith("'") and token.endswith("'") and len(token) > 2:
                token = token[1:-1]
                if _IDENT_RE.fullmatch(token):
                    idents.add(token)
                    continue
            if not re.search(r"[\w(){}\[\]]", token):
                symbols.add(token)
        return idents, symbols
    abbreviation = _ABBREVIATION.match(bare)
    if abbreviation:
        idents.add(abbreviation.group(1))
    return idents, symbols


def mentions(statement_body: str, idents: set[str], symbols: set[str]) -> bool:
    """Whether a statement's text (binders and type) uses any of these identifiers or symbols."""
    text = strip_strings(statement_body)
    return bool(idents.intersection(_IDENT_RE.findall(text)) or symbols.intersection(_SYMBOLS_RE.findall(text)))


def is_require(sentence: str) -> bool:
    """Whether a header sentence loads a library (`Require …`, `From … Require …`, attributes aside)."""
    return bool(_REQUIRE.match(_ATTRIBUTES.sub("", sentence)))


def library_lemmas(text: str) -> list[LibraryLemma]:
    """The candidate lemmas of a library file's text, each with its own header (module docstring).
    A file whose sentences cannot be split gives none."""
    try:
        sentences = [_clean(s.text) for s in split_sentences(text)]
    except SentenceError:
        return []
    own_modules = _file_modules(sentences)
    defined: set[str] = set(own_modules)  # names the file defines so far: a statement using one is skipped
    symbols: set[str] = set()  # notation symbols the file defines so far: likewise
    active: list[str] = []  # header sentences in effect here
    blocks: list[_Block] = []
    file_tainted = False
    lemmas: list[LibraryLemma] = []
    for position, sentence in enumerate(sentences):
        bare = _ATTRIBUTES.sub("", sentence)
        in_module = any(b.kind == "module" for b in blocks)
        new_idents, new_symbols = definitions(bare)
        defined |= new_idents
        symbols |= new_symbols
        if _REQUIRE.match(bare):
            active.append(sentence)
            continue
        if _IMPORT.match(bare) or _SCOPE.match(bare) or (_IMPLICIT_TYPES.match(bare) and not blocks):
            if not in_module and not _imports_own_module(bare, own_modules):
                active.append(sentence)
            continue
        section = _SECTION.match(bare)
        if section:
            parent_tainted = blocks[-1].tainted if blocks else False
            blocks.append(_Block("section", section.group(1), parent_tainted, len(active)))
            continue
        if _MODULE.match(bare):
            if _module_opens_block(bare):
                blocks.append(_Block("module", _MODULE.match(bare).group(1), True, len(active)))
            continue
        end = _END.match(bare)
        if end:
            if blocks and blocks[-1].name == end.group(1):
                block = blocks.pop()
                inner = active[block.active_len:]
                # imports and scopes end with their block; library loads stay
                active[block.active_len:] = [s for s in inner if is_require(s)]
            continue
        if _CONTEXT.match(bare):
            if blocks:
                blocks[-1].tainted = True
            elif _TOP_CONTEXT.match(bare):
                file_tainted = True
            continue
        match = _LEMMA.match(bare)
        if not match:
            continue
        if file_tainted or (blocks and blocks[-1].tainted):
            continue
        try:
            declaration = parse_declaration(bare)
        except ValueError:
            continue
        if mentions(f"{declaration.binders} : {declaration.type}", defined - {declaration.name}, symbols):
            continue
        binders = f" {declaration.binders}" if declaration.binders else ""
        statement = f"{declaration.keyword} {declaration.name}{binders} : {declaration.type}."
        lemmas.append(LibraryLemma(declaration.name, statement, tuple(active), position))
    return lemmas


# ---- a library root --------------------------------------------------------------------------

@dataclass(frozen=True)
class Candidate:
    """A library lemma to check: its position in file order, id, and the logical root of the
    library its file belongs to (`Bignums` for user-contrib/Bignums/…, None elsewhere)."""

    index: int
    id: str
    lemma: LibraryLemma
    library: str | None = None


def _library_files(root: Path, exclude: Sequence[str]) -> list[Path]:
    if root.is_file():
        return [root] if root.suffix == ".v" else []
    return [p for p in sorted(root.rglob("*.v")) if not any(x in str(p) for x in exclude)]


def _library_base(root: Path) -> Path:
    """Ids name files below the library root they live in: theories/ or user-contrib/ (so `Arith/Plus`,
    `Flocq/Core/Raux`), else the root's parent directory."""
    return next((base for base in (COQ_LIB / "theories", COQ_LIB / "user-contrib") if root.is_relative_to(base)),
                root.parent)


def library_candidates(root: Path, source: str, exclude: Sequence[str] = ()) -> tuple[list[Candidate], int]:
    """Every candidate under `root` in file order (ids `<source>/<relative path>/<lemma>`), and the
    number of files read."""
    base = _library_base(root)
    files = _library_files(root, exclude)
    candidates: list[Candidate] = []
    ids: set[str] = set()
    for file in files:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        relative = file.relative_to(base).with_suffix("").as_posix()
        library = relative.split("/")[0] if base == COQ_LIB / "user-contrib" else None
        for lemma in library_lemmas(text):
            ident = f"{source}/{relative}/{lemma.name}"
            if ident not in ids:
                ids.add(ident)
                candidates.append(Candidate(len(candidates), ident, lemma, library))
    return candidates, len(files)


__all__ = ["ALIASES", "Candidate", "LEMMA_KEYWORDS", "LibraryLemma", "definitions", "is_require", "library_candidates",
           "library_lemmas", "mentions"]
