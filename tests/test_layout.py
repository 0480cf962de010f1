"""The package's modules import each other without circles (type-checking imports included), so
each can be read, tested and changed from its dependencies up."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"treecomplete": ROOT / "server", "treecomplete.models": ROOT / "models"}
PACKAGES.update({f"treecomplete.{'.'.join(init.parent.relative_to(ROOT / 'server').parts)}": init.parent
                 for init in (ROOT / "server").glob("*/**/__init__.py")})


def _modules() -> dict[str, Path]:
    found = {}
    for package, folder in PACKAGES.items():
        for path in folder.glob("*.py"):
            found[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` (at ``path``) imports, wherever the import stands."""
    package = name if path.stem == "__init__" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)  # `from . import linear_weights`
    return {m for m in found if m in modules and m != name}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A circle of imports, if there is one (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_cycle_finder_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_two_modules_import_each_other():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert {"treecomplete.sources.libraries.known", "treecomplete.ranking.features"} <= set(graph)
    assert graph["treecomplete.engines.fallback"] >= {"treecomplete.sources.project", "treecomplete.sources.imports",
                                                      "treecomplete.words"}
    assert _cycle(graph) is None
