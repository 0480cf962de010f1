"""How the project's files import one another: what each file's imports bind (import_bindings,
read with its words), and over all files, where each name comes from (bindings_by_name) and
the project file an absolute Python module names (project_file). sources/project.py's
Snapshot holds what these give; sources/auto_import.py reads it.

A project file's key is ``@`` and its absolute path, without its suffix where a Python module
names it (``@/p/pkg/nodes``), as its importers write it in JavaScript (``@/p/src/util``,
``@/p/src/util.js``: file_stem makes them one; a tsconfig path alias, ``@/util``, resolved).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Protocol

import tree_sitter

from .. import receivers
from ..languages import LanguageSpec
from .libraries import node_resolution, path_aliases


class Binds(Protocol):
    """What bindings_by_name reads of a file (sources/project.py's FileWords)."""

    bound: frozenset[tuple[str, str, str, bool]]  # (name, module, name imported or "", written relative)


def bindings_by_name(files: dict[str, Binds], modules: dict[str, list[str]]) -> tuple[
        dict[str, tuple[tuple[str, str, int, int], ...]], Counter[str], dict[str, str], dict[tuple[str, str, str], tuple[str, ...]]]:
    """How the files' imports bind each name (Snapshot.importers), an absolute module that names
    a project file counted as that file (``whoosh.query`` and ``.query`` alike); how many files
    bind each name; the absolute module written for each project file so named
    (Snapshot.absolute: the one its imports write most often); and, for a name bound from more
    than one module, which files bind it each way (Snapshot.binding_files)."""
    binders: dict[tuple[str, str, str], list[str]] = {}  # (name, module, name imported) -> the files
    relative: Counter[tuple[str, str, str]] = Counter()
    written: Counter[tuple[str, str]] = Counter()
    for path, fw in files.items():
        python = path.endswith((".py", ".pyi"))
        for name, module, imported, written_relative in fw.bound:
            found = project_file(module, modules) if python and not module.startswith("@") else None
            if found:
                written[(found, module)] += 1
            key = (name, found or module, imported)
            binders.setdefault(key, []).append(path)
            relative[key] += written_relative
    out: dict[str, list[tuple[str, str, int, int]]] = {}
    bound_df: Counter[str] = Counter()
    for (name, module, imported), binding in sorted(binders.items(), key=lambda item: (-len(item[1]), item[0])):
        out.setdefault(name, []).append((module, imported, len(binding), relative[(name, module, imported)]))
        bound_df[name] += len(binding)
    absolute: dict[str, str] = {}
    for (key, module), _ in sorted(written.items(), key=lambda item: -item[1]):
        absolute.setdefault(key, module)
    binding_files = {(name, module, imported): tuple(binders[(name, module, imported)])
                     for name, found in out.items() if len(found) > 1 for module, imported, _, _ in found}
    return {name: tuple(found) for name, found in out.items()}, bound_df, absolute, binding_files


_STEM_SUFFIXES = (".d.ts", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")


def file_stem(key: str) -> str:
    """A JavaScript project file's key without its extension or ``/index``: one for the ways
    its imports write it (``./router``, ``./router/index.js``)."""
    for suffix in _STEM_SUFFIXES:
        if key.endswith(suffix):
            key = key[: -len(suffix)]
            break
    return key.removesuffix("/index")


def is_file_key(module: str) -> bool:
    """Whether ``module`` is a project file's key (``@`` and its absolute path), not a module
    as written (an npm scope's package, ``@popperjs/core``, starts with ``@`` too)."""
    return module.startswith("@") and os.path.isabs(module[1:])


def project_file(module: str, modules: dict[str, list[str]]) -> str | None:
    """``@`` and the path (without its suffix; a package's folder) of the project file that the
    absolute Python module ``module`` names, if one does."""
    parts = module.split(".")
    if not all(parts):
        return None
    tail = "/" + "/".join(parts)
    for path in modules.get(parts[-1], ()):
        stem = Path(path).with_suffix("")
        written = (str(stem.parent) if stem.name == "__init__" else str(stem)).replace("\\", "/")
        if written.endswith(tail):
            return "@" + str(Path(written))
    return None


def import_bindings(tree: tree_sitter.Tree, language: LanguageSpec, path: Path) -> set[tuple[str, str, str, bool]]:
    """What a file's imports bind: (name, module, name imported or "", written relative), a
    relative module resolved from ``path`` to ``@`` and a path (``.nodes`` -> ``@/p/pkg/nodes``,
    ``./util`` -> ``@/p/src/util``)."""
    out = set()
    python = language.name == "python"
    for name, target in receivers.bindings(tree, language, [(0, tree.root_node.end_byte)]).items():
        module = target.module
        if not name or not module or len(target.names) > 1:
            continue
        relative = module.startswith(".")
        if relative:
            module = python_module_path(path, module) if python else "@" + os.path.normpath(os.path.join(path.parent, module))
        elif not python and (aliased := _aliased(path.parent, module)) is not None:
            module = aliased
        elif not python and module.startswith("@/"):
            continue  # an alias no config here maps (a bundler's): no npm package, and read as a file key it would mislead
        out.add((name, module, target.names[0] if target.names else "", relative))
    return out


def _aliased(folder: Path, module: str) -> str | None:
    """The key of the project file that the path alias ``module`` (tsconfig's ``paths``) names."""
    found = path_aliases.mapped(folder, module, node_resolution.file_of)
    return "@" + os.path.normpath(found) if found is not None else None


def python_module_path(path: Path, module: str) -> str:
    """The key (``@`` and a path, without a suffix) of the module that the relative import
    ``module`` (``.core``, ``..``) names from the file ``path``."""
    dots = len(module) - len(module.lstrip("."))
    base = path.parent
    for _ in range(dots - 1):
        base = base.parent
    rest = module[dots:]
    return "@" + str(base.joinpath(*rest.split("."))) if rest else "@" + str(base)
