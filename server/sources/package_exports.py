"""What an installed package exports at its top level, read from its files with tree-sitter,
never run (sources/installed.py reads every package of an environment through these).

Python: what a package's ``__init__`` (``.pyi`` first) lists in ``__all__``, else what it
defines or takes from its own submodules (``from .core import Command``, ``from .more import
*``). JavaScript: what its main file (package.json's ``exports`` for ``.``, ``main``,
``module``) exports by name (``exports.x``, ``module.exports = { x }``, ``export``), with what
it exports of its own other files (``export * from './x'``), and its default export, under the
name it has there (``module.exports = convert``).
"""

from __future__ import annotations

import functools
import re
import time
from pathlib import Path

import tree_sitter

from ..languages import JAVASCRIPT, PYTHON
from ..receivers import bindings
from ..words import exported_names
from .libraries.node_resolution import LOOK_AGAIN, package_manifest, package_of
from .project import default_name, exported_query
from .project_imports import python_module_path

MAX_FILE = 512 * 1024  # a larger package file is not read
_ALL = re.compile(rb"__all__\s*(?:=|\+=)\s*[\[(]([^\])]*)[\])]")
_STRING = re.compile(rb"""['"]([A-Za-z_][A-Za-z0-9_]*)['"]""")


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() and path.stat().st_size <= MAX_FILE else None
    except OSError:
        return None


def python_exports(path: Path, depth: int = 0) -> list[tuple[str, str]]:
    """A Python package's or module's top-level names: its ``__all__``, else what it defines and
    takes from its own submodules, all of those of a submodule it imports ``*`` from too
    (``from .more import *``)."""
    files = [path / "__init__.pyi", path / "__init__.py"] if path.is_dir() else [path.with_suffix(".pyi"), path]
    data = next((d for d in map(_read, files) if d is not None), None)
    if data is None:
        return []
    listed = _ALL.search(data)
    if listed:
        return [(name, name) for name in sorted({m.decode() for m in _STRING.findall(listed.group(1))})]
    tree = PYTHON.parser().parse(data)
    names = {n.decode("utf-8", "replace") for n in exported_names(tree, PYTHON, top=True)}
    package = path.name.removesuffix(".py")
    names |= {name for name, target in bindings(tree, PYTHON, [(0, len(data))]).items()
              if target.names and (target.module.startswith(".") or target.module.split(".")[0] == package)}
    for module in _STAR_IMPORT.findall(data) if depth < 2 else ():
        target = Path(python_module_path(path / "__init__.py" if path.is_dir() else path, module.decode())[1:])
        names |= {name for name, _ in python_exports(target if target.is_dir() else target.with_suffix(".py"), depth + 1)}
    return [(name, name) for name in sorted(names) if not name.startswith("_")]


_STAR_IMPORT = re.compile(rb"^from\s+(\.+[A-Za-z_][\w.]*)\s+import\s+\*", re.M)


def javascript_exports(path: Path) -> list[tuple[str, str]]:
    """A package's names exported from its main file (``_main_file``), as (name, name imported):
    by name (``Object.defineProperty(exports, "x", …)`` too, as TypeScript compiles a
    re-export), what it exports from its own other files (``export * from './x'``,
    ``__exportStar(require("./x"), exports)``: RELAYS files at most), and its default export
    under the name it has there (``module.exports = convert``: imported as the default, "")."""
    main = _main_file(path)
    if main is None:
        return []
    package, main = path.resolve(), main.resolve()
    named: set[str] = set()
    default, pending, seen = "", [main], set()
    while pending and len(seen) <= RELAYS:
        target = pending.pop(0)
        if target in seen or target != main and not target.is_relative_to(package) or (data := _read(target)) is None:
            continue
        seen.add(target)
        tree = JAVASCRIPT.parser().parse(data)
        captures = tree_sitter.QueryCursor(exported_query(JAVASCRIPT)).captures(tree.root_node)
        named |= _named(tree, captures)
        default = default_name(captures) if target == main else default
        pending += _stars(tree, target.parent)
    out = [(name, name) for name in sorted(named)]
    return out + [(default, "")] if default and not default.startswith("_") else out


RELAYS = 64  # a package's files read for what its main file exports from them


def binding_name(package: str) -> str:
    """The name code binds a JavaScript package under: its name after any scope, each part after
    a ``-`` or ``.`` capitalised (``on-finished``: onFinished, ``@sinonjs/samsam``: samsam)."""
    return re.sub(r"[-.](\w)", lambda m: m.group(1).upper(), package.rsplit("/", 1)[-1])


def own_package(folder: Path) -> tuple[str, Path] | None:
    """The JavaScript package that a project file in ``folder`` is part of (the nearest
    package.json above it naming one, outside node_modules): the name an import binds it under
    (``binding_name``) and its main file (``_main_file``), which the package's own bin scripts,
    examples and tests import by a path (``const semver = require('../')``); None where there is
    none. Read again once package_of looks at the disk again."""
    found = package_of(folder)
    return _own_package(*found[:2], int(time.monotonic() // LOOK_AGAIN)) if found is not None else None


@functools.lru_cache(maxsize=64)
def _own_package(root: Path, name: str, _epoch: int) -> tuple[str, Path] | None:
    main = _main_file(root)
    return (binding_name(name), main.resolve()) if main is not None else None


def _main_file(path: Path) -> Path | None:
    """The JavaScript file that ``require`` or ``import`` of the package reads: package.json's
    ``exports`` for ``.`` (``require``, ``node``, ``import`` or ``default``), else ``main``,
    else ``module``, else index.js."""
    manifest = package_manifest(path / "package.json")
    for entry in (_exported_entry(manifest.get("exports")), manifest.get("main"), manifest.get("module"), "index.js"):
        if isinstance(entry, str) and (found := _script(path / entry)) is not None:
            return found
    return None


def _exported_entry(exports, depth: int = 0) -> str | None:
    """The file an ``exports`` field gives for ``.`` under the conditions a script is read with,
    the first of an array's that gives one (node_resolution's ``_export_entry`` reads a
    package's declarations first, and no array)."""
    if isinstance(exports, str) or depth > 4:
        return exports if isinstance(exports, str) else None
    if isinstance(exports, list):
        return next((e for e in (_exported_entry(x, depth + 1) for x in exports) if e), None)
    if not isinstance(exports, dict):
        return None
    if "." in exports:
        return _exported_entry(exports["."], depth + 1)
    for condition in ("require", "node", "import", "default"):
        if condition in exports and (found := _exported_entry(exports[condition], depth + 1)):
            return found
    return None


def _script(base: Path) -> Path | None:
    """The JavaScript file ``base`` names, as Node completes it."""
    for candidate in (base, Path(str(base) + ".js"), base / "index.js"):
        if candidate.suffix in (".js", ".cjs", ".mjs") and candidate.is_file():
            return candidate
    return None


def _named(tree: tree_sitter.Tree, captures: dict[str, list[tree_sitter.Node]]) -> set[str]:
    """The names a file exports by name (exported_query's ``captures`` of its ``tree``, and
    ``Object.defineProperty(exports, "x", …)``), but private ones (``_x``)."""
    nodes = captures.get("name", []) + tree_sitter.QueryCursor(_DEFINED).captures(tree.root_node).get("name", [])
    names = {n.text.decode("utf-8", "replace") for n in nodes if n.text}
    return {name for name in names if not name.startswith("_")}


def _stars(tree: tree_sitter.Tree, folder: Path) -> list[Path]:
    """The package's own files that a file exports everything of (``export * from './x'``,
    ``__exportStar(require("./x"), exports)``), in the order the file names them."""
    found = []
    nodes = tree_sitter.QueryCursor(_STARS).captures(tree.root_node).get("spec", [])
    for node in sorted(nodes, key=lambda n: n.start_byte):  # as written: the captures come in no fixed order
        spec = node.text.decode("utf-8", "replace") if node.text else ""
        if spec.startswith("./") or spec.startswith("../"):
            if (target := _script(folder / spec)) is not None:
                found.append(target.resolve())
    return found


_DEFINED = tree_sitter.Query(JAVASCRIPT.language, """
(call_expression function: (member_expression object: (identifier) @_o property: (property_identifier) @_d)
  arguments: (arguments . (identifier) @_e . (string (string_fragment) @name)) (#eq? @_o "Object")
  (#eq? @_d "defineProperty") (#eq? @_e "exports"))
""")
_STARS = tree_sitter.Query(JAVASCRIPT.language, """
(export_statement "*" source: (string (string_fragment) @spec))
(call_expression function: (identifier) @_f arguments: (arguments (call_expression function: (identifier) @_r
  arguments: (arguments (string (string_fragment) @spec)))) (#match? @_f "__exportStar$") (#eq? @_r "require"))
""")
