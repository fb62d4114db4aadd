"""A search graph as one self-contained HTML page (no external resources), for a person to read.

Each goal is a collapsible `<details>` block coloured by status (proved green, failed red, open
grey) showing visits and value; under it, each tactic with its prior, visits and mean value, and
the goals it left (an AND when there are several). The found proof is highlighted and open by
default. A goal reached again (transposition) is drawn once and linked elsewhere.
"""

from __future__ import annotations

import html
from pathlib import Path

from search.tree import SearchTree, Status

_STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
details { margin-left: 1.2em; border-left: 2px solid #ddd; padding-left: .5em; }
summary { cursor: pointer; }
.goal { white-space: pre-wrap; font-family: ui-monospace, monospace; background: #f6f6f6; padding: .3em .5em;
        margin: .2em 0 .4em 0; border-radius: 4px; }
.proved > summary .badge { background: #2e7d32; } .failed > summary .badge { background: #c62828; }
.open > summary .badge { background: #757575; }
.badge { color: white; border-radius: 3px; padding: 0 .4em; font-size: 12px; margin-right: .4em; }
.edge { margin: .2em 0 .2em 1.2em; } .edge.proof > .tactic { background: #fff59d; }
.tactic { font-family: ui-monospace, monospace; font-weight: 600; }
.stats { color: #666; font-size: 12px; } .and { color: #6a1b9a; font-size: 12px; font-weight: 600; }
.ref { font-size: 12px; }
"""

_SCRIPT = """
document.getElementById('expand').onclick = () => document.querySelectorAll('details').forEach(d => d.open = true);
document.getElementById('collapse').onclick = () => document.querySelectorAll('details').forEach(d => d.open = false);
"""


def render_tree_html(tree: SearchTree, title: str, max_nodes: int = 5000) -> str:
    """The page as a string."""
    proof_edges = tree.proof_edges()
    on_proof = {0} if proof_edges else set()
    for node_id, index in proof_edges:
        on_proof.update(tree.nodes[node_id].edges[index].children)
    drawn: set[int] = set()
    parts: list[str] = []

    def draw(node_id: int) -> None:
        node = tree.nodes[node_id]
        if node_id in drawn:
            parts.append(f'<div class="ref"><a href="#n{node_id}">↪ goal #{node_id} (drawn above)</a></div>')
            return
        if len(drawn) >= max_nodes:
            parts.append('<div class="ref">… (more goals not drawn)</div>')
            return
        drawn.add(node_id)
        value = "" if node.value is None else f"V={node.value:.2f}"
        mean = f" mean={node.value_sum / node.visits:.2f}" if node.visits else ""
        is_open = " open" if node_id in on_proof or node_id == 0 else ""
        first_line = node.goal.text.splitlines()[-1] if node.goal.text else ""
        parts.append(
            f'<details id="n{node_id}" class="{node.status.value}"{is_open}><summary>'
            f'<span class="badge">{node.status.value}</span>#{node_id} '
            f'<span class="stats">visits={node.visits} {value}{mean} tactics={len(node.edges)}</span> '
            f'<code>{html.escape(first_line[:120])}</code></summary>'
            f'<div class="goal">{html.escape(node.goal.text)}</div>'
        )
        for index, edge in enumerate(node.edges):
            proof_class = " proof" if (node_id, index) in proof_edges else ""
            mean_edge = f" Q={edge.value_sum / edge.visits:.2f}" if edge.visits else ""
            kind = f'<span class="and">AND ×{len(edge.children)}</span> ' if len(edge.children) > 1 else ""
            closed = " ✔ closes the goal" if not edge.children else ""
            parts.append(
                f'<div class="edge{proof_class}"><span class="tactic">{html.escape(edge.tactic)}</span> '
                f'{kind}<span class="stats">[{edge.status.value}] prior={edge.prior:.3g} '
                f'logp={edge.logprob:.2f} visits={edge.visits}{mean_edge}{closed}</span>'
            )
            for child in edge.children:
                draw(child)
            parts.append("</div>")
        parts.append("</details>")

    draw(0)
    root = tree.root
    summary = (f"{len(tree.nodes)} goals, root {root.status.value}"
               + (f", proof of {root.proof_size} tactics" if root.status is Status.PROVED else ""))
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(summary)} · "
        "<button id=\"expand\">expand all</button> <button id=\"collapse\">collapse all</button></p>"
        f"<div id=\"tree\">{''.join(parts)}</div><script>{_SCRIPT}</script></body></html>\n"
    )


def write_tree_html(tree: SearchTree, path: str | Path, title: str) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_tree_html(tree, title), encoding="utf-8")
    return target
