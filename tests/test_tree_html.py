"""The HTML view of a search graph: produced, self-contained, well-formed, and (when chromium is
installed) rendered by a real browser without a JavaScript error."""

from __future__ import annotations

import re
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from fake_env import TableEnv, TableEvaluator
from lean_interface.api import Goal
from search.config import Budget, MCTSConfig
from search.mcts import run_mcts
from search.tree import SearchTree
from search.tree_html import render_tree_html, write_tree_html

VOID = {"meta", "br", "hr", "img", "input", "link"}
CHROMIUM = Path("/usr/bin/chromium")


class TagBalance(HTMLParser):
    """Checks that every non-void element is closed, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> with open {self.stack[-3:]}")
        else:
            self.stack.pop()


def solved_tree() -> SearchTree:
    """
        A ──bad──► AND(B, D)      D fails                       (drawn red)
        A ──split──► AND(B, C)    B ──b──► ∎, C ──c──► ∎        (the proof, highlighted; B drawn once)
    """
    table = {("A", "split"): ["B", "C"], ("A", "bad"): ["B", "D"], ("B", "b"): [], ("C", "c"): []}
    proposals = {"A": [("bad", -0.1), ("split", -2.0)], "B": [("b", -0.1)], "C": [("c", -0.1)],
                 "D": [("x <y> & 'z'", -0.1)]}
    result = run_mcts(Goal("A", "A"), TableEnv(table), TableEvaluator(proposals), MCTSConfig(max_expansions=1),
                      Budget())
    assert result.proved
    return result.tree


def test_page_is_produced_self_contained_and_well_formed(tmp_path: Path) -> None:
    tree = solved_tree()
    path = write_tree_html(tree, tmp_path / "sub" / "tree.html", "search <A & B>")
    text = path.read_text(encoding="utf-8")
    parser = TagBalance()
    parser.feed(text)
    parser.close()
    assert parser.errors == [] and parser.stack == []
    assert not re.search(r"\b(src|href)=\"(https?:|//)", text) and "<link" not in text  # no external resources
    goals = [attrs for tag, attrs in parser.tags if tag == "details"]
    assert sorted(int((a["id"] or "n-1")[1:]) for a in goals) == list(range(len(tree)))  # every goal, once
    assert {a["class"] for a in goals} == {"proved", "failed"}
    for attrs in goals:
        assert attrs["class"] == tree.nodes[int((attrs["id"] or "n-1")[1:])].status.value
    proof_edges = [a for tag, a in parser.tags if tag == "div" and "proof" in (a.get("class") or "").split()]
    assert len(proof_edges) == 3  # split, b, c
    assert "<title>search &lt;A &amp; B&gt;</title>" in text
    summaries = [a for tag, a in parser.tags if tag == "summary"]
    assert summaries and all(a.get("title") for a in summaries)  # the goal on hover
    assert "↪ goal #" in text  # B is reached by two tactics and drawn once
    assert "x &lt;y&gt; &amp; &#x27;z&#x27;" not in text  # a failed tactic never becomes an edge


def test_a_deep_graph_renders_without_recursion() -> None:
    tree = SearchTree(Goal("A", "A"))
    parent = 0
    for depth in range(1, 2500):
        tree.add_edge(parent, "next", -1.0, 1.0, [Goal(f"G{depth}", depth)])
        parent = tree.node_id(f"G{depth}")
    text = render_tree_html(tree, "deep", max_nodes=3000)
    assert text.count("<details ") == 2500
    assert "more goals not drawn" in render_tree_html(tree, "deep", max_nodes=10)


def chromium_dump(path: Path) -> tuple[str, str]:
    """(dumped DOM, browser log) of a headless chromium opening `path` with a fresh profile."""
    with tempfile.TemporaryDirectory() as profile:
        completed = subprocess.run(
            [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", "--dump-dom", path.resolve().as_uri()],
            capture_output=True, text=True, timeout=90)
    return completed.stdout, completed.stderr


@pytest.mark.skipif(not CHROMIUM.exists(), reason="chromium is not installed here (CI installs it)")
def test_chromium_renders_the_page_without_js_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.html"  # first, show that this check can see a JS error at all
    broken.write_text("<html><body><script>undefinedFunction();</script></body></html>", encoding="utf-8")
    _, log = chromium_dump(broken)
    assert "Uncaught" in log

    tree = solved_tree()
    page = write_tree_html(tree, tmp_path / "tree.html", "chromium check")
    dom, log = chromium_dump(page)
    assert "Uncaught" not in log, log[-2000:]
    assert f'<span id="count">{len(tree)}</span>' in dom  # the inline script ran to its end
    assert dom.count("<details ") == len(tree)
    assert '<details id="n0" class="proved" open="">' in dom
    assert dom.count('class="edge proof"') == 3
