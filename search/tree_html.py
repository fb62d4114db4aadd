"""A search graph as one self-contained HTML page (inline CSS and JS, no external resources).

Each goal is a collapsible `<details>` block coloured by status (proved green, failed red, open
grey) with its visits and value; hovering its summary shows the whole goal, which is also printed
inside. Under it, each tactic with its prior, log-prob, visits and mean value, and the goals it
left (marked AND when there are several). The found proof is highlighted and open by default;
buttons expand or collapse everything, or show the proof only. A goal reached again
(transposition) is drawn once and linked from elsewhere.
"""

from __future__ import annotations

import html
from pathlib import Path

from search.proposers import family_of
from search.tree import SearchTree, Status
from search.tree import proof_edges as extract_proof_edges

_NODE, _EDGE, _CLOSE = range(3)  # work items of the drawing stack

_STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
details { margin-left: 1.2em; border-left: 2px solid #ddd; padding-left: .5em; }
summary { cursor: pointer; }
.goal { white-space: pre-wrap; font-family: ui-monospace, monospace; background: #f6f6f6; padding: .3em .5em;
        margin: .2em 0 .4em 0; border-radius: 4px; }
.proved > summary .badge { background: #2e7d32; } .failed > summary .badge { background: #c62828; }
.open > summary .badge { background: #757575; }
.badge { color: white; border-radius: 3px; padding: 0 .4em; font-size: 12px; margin-right: .4em; }
.edge { margin: .2em 0 .2em 1.2em; } .edge.proof > .tactic { background: #fff59d; outline: 1px solid #f9a825; }
.edge[data-status=failed] > .tactic { color: #c62828; } .edge[data-status=proved] > .tactic { color: #2e7d32; }
.tactic { font-family: ui-monospace, monospace; font-weight: 600; }
.stats { color: #666; font-size: 12px; } .and { color: #6a1b9a; font-size: 12px; font-weight: 600; }
.ref { font-size: 12px; margin-left: 1.2em; }
body.proof-only .edge:not(.proof) { display: none; }
"""

_SCRIPT = """
const all = () => document.querySelectorAll('details');
document.getElementById('expand').onclick = () => all().forEach(d => d.open = true);
document.getElementById('collapse').onclick = () => all().forEach(d => d.open = false);
document.getElementById('proof-only').onclick = () => {
  document.body.classList.toggle('proof-only');
  document.querySelectorAll('.edge.proof > details').forEach(d => d.open = true);
};
document.getElementById('count').textContent = String(document.querySelectorAll('details').length);
"""


def _node_open(tree: SearchTree, node_id: int, on_proof: set[int], parts: list[str]) -> None:
    node = tree.nodes[node_id]
    value = "" if node.value is None else f" V={node.value:.2f}"
    mean = f" mean={node.value_sum / node.visits:.2f}" if node.visits else ""
    is_open = " open" if node_id in on_proof or node_id == 0 else ""
    conclusion = node.goal.text.splitlines()[-1] if node.goal.text else ""
    proof = f" proof={node.proof_size}" if node.status is Status.PROVED else ""
    parts.append(
        f'<details id="n{node_id}" class="{node.status.value}"{is_open}>'
        f'<summary title="{html.escape(node.goal.text, quote=True)}">'
        f'<span class="badge">{node.status.value}</span>#{node_id} '
        f'<span class="stats">visits={node.visits}{value}{mean} tactics={len(node.edges)} '
        f'rounds={node.rounds}{" (glance first)" if node.glanced else ""} pending={len(node.pending)}{proof}</span> '
        f'<code>{html.escape(conclusion[:120])}</code></summary>'
        f'<div class="goal">{html.escape(node.goal.text)}</div>'
    )


def _edge_open(tree: SearchTree, node_id: int, index: int, on_proof_edge: bool, parts: list[str]) -> None:
    edge = tree.nodes[node_id].edges[index]
    mean = f" Q={edge.value_sum / edge.visits:.2f}" if edge.visits else ""
    kind = f'<span class="and">AND ×{len(edge.children)}</span> ' if len(edge.children) > 1 else ""
    closed = f" ✔ closes the goal · family {family_of(edge.tactic)}" if not edge.children else ""
    parts.append(
        f'<div class="edge{" proof" if on_proof_edge else ""}" data-status="{edge.status.value}">'
        f'<span class="tactic">{html.escape(edge.tactic)}</span> {kind}'
        f'<span class="stats">[{edge.status.value}] prior={edge.prior:.3g} logp={edge.logprob:.2f} '
        f'visits={edge.visits}{mean}{closed}</span>'
    )


def render_tree_html(tree: SearchTree, title: str, max_nodes: int = 5000) -> str:
    """The page as a string. At most `max_nodes` goals are drawn (the rest are summarised)."""
    proof = extract_proof_edges(tree)
    on_proof = {0} if proof else set()
    for node_id, index in proof:
        on_proof.update(tree.nodes[node_id].edges[index].children)
    drawn: set[int] = set()
    parts: list[str] = []
    # an explicit stack instead of recursion: graphs can be thousands of goals deep
    stack: list[tuple[int, int, int]] = [(_NODE, 0, 0)]
    while stack:
        kind, node_id, index = stack.pop()
        if kind == _CLOSE:
            parts.append("</details>" if index < 0 else "</div>")
            continue
        if kind == _EDGE:
            _edge_open(tree, node_id, index, (node_id, index) in proof, parts)
            stack.append((_CLOSE, node_id, index))
            stack.extend((_NODE, c, 0) for c in reversed(tree.nodes[node_id].edges[index].children))
            continue
        if node_id in drawn:
            parts.append(f'<div class="ref"><a href="#n{node_id}">↪ goal #{node_id} (drawn elsewhere)</a></div>')
            continue
        if len(drawn) >= max_nodes:
            parts.append('<div class="ref">… (more goals not drawn)</div>')
            continue
        drawn.add(node_id)
        _node_open(tree, node_id, on_proof, parts)
        stack.append((_CLOSE, node_id, -1))
        stack.extend((_EDGE, node_id, i) for i in reversed(range(len(tree.nodes[node_id].edges))))
    root = tree.root
    summary = (f"{len(tree.nodes)} goals, root {root.status.value}"
               + (f", proof of {root.proof_size} tactics" if root.status is Status.PROVED else ""))
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(summary)} · <span id=\"count\"></span> drawn · "
        "<button id=\"expand\">expand all</button> <button id=\"collapse\">collapse all</button> "
        "<button id=\"proof-only\">proof only</button></p>"
        f"<div id=\"tree\">{''.join(parts)}</div><script>{_SCRIPT}</script></body></html>\n"
    )


def write_tree_html(tree: SearchTree, path: str | Path, title: str) -> Path:
    """Write the page to `path` (parent directories created); returns the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_tree_html(tree, title), encoding="utf-8")
    return target
