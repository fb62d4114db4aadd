"""Imports run one way (docs/ARCHITECTURE.md §Parts): alphaprover → ttrl → selfplay → search,
networks → lean_interface. Every import statement of every module is read — those inside functions
too — so a lazy upward import fails here as surely as a top-level one."""

from __future__ import annotations

import ast
from pathlib import Path

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


def imported_packages(path: Path) -> set[str]:
    """Our top-level packages that module `path` imports anywhere in its body."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found.update(name.split(".")[0] for name in names if name.split(".")[0] in OURS)
    return found


def test_imports_run_one_way() -> None:
    violations = []
    for package, allowed in ALLOWED.items():
        for path in sorted((ROOT / package).rglob("*.py")):
            for imported in imported_packages(path) - allowed - {package}:
                violations.append(f"{path.relative_to(ROOT)} imports {imported}")
    assert not violations, "\n".join(violations)


def test_the_reader_sees_lazy_imports(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import os\n\ndef f():\n    from ttrl.variants import x\n    import alphaprover.cli\n")
    assert imported_packages(module) == {"ttrl", "alphaprover"}
