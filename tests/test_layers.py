"""Imports run one way (docs/ARCHITECTURE.md §Parts): alphaprover → ttrl → selfplay → search,
networks → lean_interface; and no module of ours imports itself round a circle. Every import
statement of every module is read — those inside functions too — so a lazy upward import, or a
lazy import that closes a circle, fails here as surely as a top-level one."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterable

ROOT = Path(__file__).resolve().parent.parent
OURS = ("alphaprover", "ttrl", "selfplay", "search", "networks", "lean_interface", "configs")
#: which of our packages each package may import (itself aside); the CLI package may import any
ALLOWED: dict[str, set[str]] = {
    "lean_interface": set(),
    "search": {"lean_interface"},
    "networks": {"search", "lean_interface"},
    "selfplay": {"search", "networks", "lean_interface"},
    "ttrl": {"selfplay", "search", "networks", "lean_interface"},
}


def imported_names(path: Path, module: str = "") -> list[str]:
    """The dotted names every import statement of `path` names, anywhere in its body: `import a.b`
    gives `a.b`, `from a import b` gives `a.b` (b may be a module or a name defined in a). Relative
    imports are resolved against `module`, the dotted name of `path` itself."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[:len(package) - node.level + 1], *([base] if base else [])])
            found += [base if alias.name == "*" else f"{base}.{alias.name}".lstrip(".") for alias in node.names]
    return found


def imported_packages(path: Path) -> set[str]:
    """Our top-level packages that module `path` imports anywhere in its body."""
    return {name.split(".")[0] for name in imported_names(path) if name.split(".")[0] in OURS}


def module_files(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Dotted module name → file, for every module of `packages` below `root` (`a/__init__.py` is `a`)."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    """Module → the modules of ours its import statements name. A name that is not a module (the
    `a.b` of `from a import b` when b is a function) stands for the nearest enclosing module, the
    one that defines it. The packages above an imported module (their `__init__`) run first too,
    but that is Python's order, not an import statement: no edge."""
    modules = module_files(root, packages)

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets = {owner(name) for name in imported_names(path, module)}
        graph[module] = {target for target in targets if target is not None and target != module}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle per group of modules that import each other round a circle (a strongly connected
    component of two or more), as its path `[a, b, …, a]`, starting at the group's first name."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:          # Tarjan's algorithm; depth is bounded by the module count
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(_circle_through(graph, group) for group in groups)


def _circle_through(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """The shortest circle from the group's first module back to itself, inside the group."""
    start = min(group)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & group):
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start] if node != start else [start, start]
                if target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    raise AssertionError(f"no circle in the strongly connected group {sorted(group)}")


def test_imports_run_one_way() -> None:
    violations = []
    for package, allowed in ALLOWED.items():
        for path in sorted((ROOT / package).rglob("*.py")):
            for imported in imported_packages(path) - allowed - {package}:
                violations.append(f"{path.relative_to(ROOT)} imports {imported}")
    assert not violations, "\n".join(violations)


def test_no_module_imports_itself_round_a_circle() -> None:
    circles = import_cycles(import_graph(ROOT, OURS))
    assert not circles, "import circles:\n" + "\n".join(" → ".join(circle) for circle in circles)


def test_the_reader_sees_lazy_imports(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import os\n\ndef f():\n    from ttrl.variants import x\n    import alphaprover.cli\n")
    assert imported_packages(module) == {"ttrl", "alphaprover"}


def test_the_cycle_finder_names_a_circle(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "from pkg.b import f\n",
        "b.py": "def f():\n    from pkg.sub import c\n",               # a lazy import closes it
        "sub/__init__.py": "",
        "sub/c.py": "from .. import a\nfrom pkg.d import g\n",          # `a` is a module; relative
        "d.py": "import os\n\ng = os.sep\n",                            # imported, imports nothing back
        "e.py": "from pkg.d import g\nfrom pkg import b\n",             # outside the circle
    }
    for name, text in files.items():
        (package / name).write_text(text)
    graph = import_graph(tmp_path, ["pkg"])
    assert graph["pkg.sub.c"] == {"pkg.a", "pkg.d"} and graph["pkg.e"] == {"pkg.d", "pkg.b"}
    assert import_cycles(graph) == [["pkg.a", "pkg.b", "pkg.sub.c", "pkg.a"]]
    (package / "d.py").write_text("import pkg.d\n")                     # a module naming itself: no circle
    assert import_cycles(import_graph(tmp_path, ["pkg"])) == [["pkg.a", "pkg.b", "pkg.sub.c", "pkg.a"]]
    (package / "b.py").write_text("def f():\n    pass\n")
    assert import_cycles(import_graph(tmp_path, ["pkg"])) == []
