"""Variant candidates from a language model: the request, and the reading of its reply.

The optional `llm` source of ttrl variants (docs/ARCHITECTURE.md §Test-time RL): a model behind an
OpenAI-compatible endpoint (`POST <endpoint>/v1/chat/completions`, plain urllib) is shown the
target and asked for related theorems; every `Theorem name … .` declaration in its reply becomes a
candidate `Variant` stating `forall BINDERS, TYPE`. Nothing here talks to Coq: the candidates go
through the same elaboration, deduplication and ranking as every other variant
(`ttrl.variants.llm_variants` and `generate_variants`, which call `llm_candidates`).

A reply is free text (prose, code fences, proofs): a declaration is found by its keyword and name,
ends where Coq would end its sentence (`lean_interface.coq.text.sentence_end`), and is read by the
one declaration parser (`ttrl.statement.declaration_parts`); what it refuses is dropped.
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request

from lean_interface.api import Theorem
from lean_interface.coq.declaration import DECLARATION_HEAD, closed
from lean_interface.coq.text import SentenceError, sentence_end, strip_comments
from ttrl.candidate import Variant, make_variant
from ttrl.statement import declaration_parts, normalise

log = logging.getLogger(__name__)

LLM_PROMPT = (
    "You help a theorem prover practise. Here is a Coq theorem:\n\n{header}\n\n{statement}\n\n"
    "Write {n} different related Coq theorems that are easier, more special, more general, or parts "
    "of it (they may be false). Use only what the header above provides. Give each as one line "
    "`Theorem name : statement.` and no proofs."
)


def parse_theorem_statements(reply: str) -> list[str]:
    """Every `Theorem name … .` declaration sentence in a model's reply, in order (code fences and
    prose around them ignored; comments removed; whitespace collapsed)."""
    try:
        text = strip_comments(reply)
    except SentenceError:
        text = reply
    out = []
    for match in DECLARATION_HEAD.finditer(text):
        try:
            end = sentence_end(text, match.start())
        except SentenceError:
            continue
        if end is not None:
            out.append(normalise(text[match.start():end + 1]))
    return out


def request_reply(endpoint: str, model: str, prompt: str, timeout: float) -> str | None:
    """The model's reply to one user message (all choices joined), or None with a warning when the
    endpoint fails or answers out of shape."""
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": prompt}],
                       "temperature": 1.0}).encode()
    request = urllib.request.Request(f"{endpoint.rstrip('/')}/v1/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = json.loads(response.read().decode())
        return "\n".join(choice["message"]["content"] for choice in data["choices"])
    except (urllib.error.URLError, OSError, ValueError, KeyError, TypeError) as error:
        log.warning("language-model variants unavailable from %s: %s", endpoint, error)
        return None


def llm_candidates(target: Theorem, endpoint: str | None, model: str, n: int, reference: str,
                   timeout: float = 60.0) -> list[Variant]:
    """Unchecked `llm` variants of `target` proposed by the model (at most 4n statements read from
    its reply), scored against `reference`; [] when `endpoint` is None or the request fails."""
    if endpoint is None:
        return []
    prompt = LLM_PROMPT.format(header=target.header.strip(), statement=target.statement.strip(), n=n)
    reply = request_reply(endpoint, model, prompt, timeout)
    if reply is None:
        return []
    out = []
    for statement in parse_theorem_statements(reply)[: 4 * n]:
        parts = declaration_parts(statement)
        if parts is not None:
            out.append(make_variant(target, closed(*parts), "llm", f"language model ({model})", reference))
    return out


__all__ = ["LLM_PROMPT", "llm_candidates", "parse_theorem_statements", "request_reply"]
