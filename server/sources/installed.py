"""The packages installed for a file, for auto-import (sources/auto_import.py): their names, and
the names each exports at its top level.

Python: the top-level modules of the environment the file's imports come from, found as the
libraries find it (the ``pythonPath`` setting, a ``.venv`` or ``venv`` folder above the file,
``VIRTUAL_ENV`` / ``CONDA_PREFIX``), never the server's own (a shell where treecomplete's
own environment is active names it in ``VIRTUAL_ENV``: torch's names are no imports to offer
in every project); a package exports what its ``__init__`` (``.pyi`` first) lists in
``__all__``, else what it defines or takes from its own submodules (``from .core import
Command``, ``from .more import *``). JavaScript: the packages of the ``node_modules`` folders
above the file that the package.json beside one depends on, as TypeScript's own auto-import
reads package.json (every package where none declares any, or in a monorepo's root); a package
exports what its main file (package.json's ``exports`` for ``.``, ``main``, ``module``) exports
by name (``exports.x``, ``module.exports = { x }``, ``export``), with what it exports of its own
other files (``export * from './x'``), and its default export, under the name it has there
(``module.exports = convert``).

The names are listed once per environment (the ``.venv``, or the chain of ``node_modules``
folders), however many folders' files share it. The exports are read on a daemon thread, parsed
with tree-sitter, never run; until they are read, a request finds none (it never waits).
"""

from __future__ import annotations

import bisect
import functools
import logging
import re
import sys
import threading
import time
from importlib import metadata
from pathlib import Path, PurePath

import tree_sitter

from ..languages import JAVASCRIPT, PYTHON
from ..receivers import bindings
from ..words import exported_names
from .libraries.node_resolution import package_manifest
from .libraries.python_environment import user_environment
from .project import default_name, exported_query, fold
from .project_imports import python_module_path

log = logging.getLogger(__name__)

MAX_FILE = 512 * 1024  # a larger package file is not read
MAX_PACKAGES = 400  # packages read per folder
TOOLING = frozenset({"pip", "setuptools", "pkg_resources", "wheel", "distutils"})  # what installs, not what code imports
_ALL = re.compile(rb"__all__\s*(?:=|\+=)\s*[\[(]([^\])]*)[\])]")
_STRING = re.compile(rb"""['"]([A-Za-z_][A-Za-z0-9_]*)['"]""")


_python_path = ""  # the pythonPath setting (set_python_path)


def set_python_path(path: str) -> None:
    """The ``pythonPath`` setting: the interpreter whose packages a Python file imports, before
    a ``.venv`` above the file."""
    global _python_path
    if path != _python_path:
        _python_path = path
        environment_of.cache_clear()


@functools.lru_cache(maxsize=1024)
def environment_of(folder: str, python: bool) -> tuple[str, ...]:
    """Where the packages of a file in ``folder`` are installed: its environment's site-packages
    folders (Python), the ``node_modules`` folders above it, nearest first (JavaScript); ()
    where there are none."""
    if python:
        return tuple(map(str, user_environment(Path(folder), None, _python_path, skip=Path(sys.prefix)) or ()))
    return tuple(str(above / "node_modules") for above in (Path(folder), *Path(folder).parents)
                 if (above / "node_modules").is_dir())


def installed(folder: str, python: bool) -> dict[str, str]:
    """The packages installed for a file in ``folder``, by the name an import binds (a Python
    module's name; ``on-finished`` as onFinished): name -> the module an import names."""
    return _installed(environment_of(folder, python), python)


@functools.lru_cache(maxsize=64)
def _installed(environment: tuple[str, ...], python: bool) -> dict[str, str]:
    out: dict[str, str] = {}
    try:
        for name, path in _packages(environment, python):
            out.setdefault(name, _module(path, python))
    except OSError:
        pass
    return out


def folded(folder: str) -> dict[str, str]:
    """installed()'s JavaScript packages by their folded name (``typeis`` for type-is)."""
    return _folded(environment_of(folder, False))


@functools.lru_cache(maxsize=64)
def _folded(environment: tuple[str, ...]) -> dict[str, str]:
    return {fold(name): package for name, package in _installed(environment, False).items()}


def _packages(environment: tuple[str, ...], python: bool) -> list[tuple[str, Path]]:
    """(the name an import binds, the package's folder or module file), first found first;
    JavaScript's only those a package.json beside a ``node_modules`` folder depends on, where
    ``_declared`` says so."""
    found: list[tuple[str, Path]] = []
    if python:
        for site in map(Path, environment):
            for entry in sorted(site.iterdir()):
                stem = entry.name.removesuffix(".py")
                if stem.isidentifier() and not stem.startswith("_") and stem not in TOOLING \
                        and (entry.suffix == ".py" or (entry / "__init__.py").is_file()):
                    found.append((stem, entry))
        return found
    for modules in map(Path, environment):
        entries = sorted(modules.iterdir()) if modules.is_dir() else []
        # then the scoped packages (`@sinonjs/samsam`) by the name after their scope, as code binds them
        scoped = [p for e in entries if e.name.startswith("@") and e.name != "@types" and e.is_dir() for p in sorted(e.iterdir())]
        for package in [e for e in entries if not e.name.startswith("@")] + scoped:
            if not package.name.startswith((".", "@")):
                found.append((re.sub(r"[-.](\w)", lambda m: m.group(1).upper(), package.name), package))
    declared, strict = _declared(environment)
    return [entry for entry in found if _module(entry[1], False) in declared] if strict else found


def _read_first(packages: list[tuple[str, Path]], python: bool, environment: tuple[str, ...]) -> list[tuple[str, Path]]:
    """At most MAX_PACKAGES of ``packages``, in their order: where there are more, those the
    user asked for first (JavaScript's that the package.json beside a ``node_modules`` folder
    depends on: a project's 700 packages list its own ``@docusaurus/utils`` after every unscoped
    one; Python's that ``_requested`` names: a conda environment of more than 400 modules lists
    scipy, torch and yaml late), then the first of the others."""
    if len(packages) <= MAX_PACKAGES:
        return packages
    wanted = _requested(environment) if python else _declared(environment)[0]
    first = sorted(range(len(packages)), key=lambda i: _module(packages[i][1], python) not in wanted)[:MAX_PACKAGES]
    return [packages[i] for i in sorted(first)]


_SPECS = re.compile(r"^# update specs: (.*)$", re.M)
_SPEC_NAME = re.compile(r"""['"](?:[^'"]*::)?([A-Za-z0-9][A-Za-z0-9_.\-]*)""")


@functools.lru_cache(maxsize=64)
def _requested(environment: tuple[str, ...]) -> frozenset[str]:
    """The top-level modules of the distributions installed in ``environment`` that a user
    asked for by name, not as another's dependency: pip and uv leave a ``REQUESTED`` file in
    their ``.dist-info``; conda lists them in its ``conda-meta/history`` (``# update specs:``).
    A distribution's modules: its ``top_level.txt``, else the first folder of its files."""
    asked = {_canonical(name) for name in _conda_specs(environment)}
    modules: set[str] = set()
    for dist in metadata.distributions(path=list(environment)):
        try:
            if dist.read_text("REQUESTED") is None and _canonical(dist.metadata["Name"] or "") not in asked:
                continue
            top = dist.read_text("top_level.txt")
            names = top.split() if top else [PurePath(file).parts[0] for file in dist.files or () if PurePath(file).parts]
        except (OSError, ValueError):  # a broken .dist-info costs its modules the priority
            continue
        modules |= {name.removesuffix(".py") for name in names if name.removesuffix(".py").isidentifier()}
    return frozenset(modules)


def _conda_specs(environment: tuple[str, ...]) -> list[str]:
    """The package names of conda's ``# update specs:`` lines (``conda-forge::numpy>=1.2``:
    numpy) in the history of the conda environment whose site-packages ``environment`` holds."""
    names: list[str] = []
    for site in map(Path, environment):
        for prefix in site.parents[:3]:  # lib/python3.X/site-packages, Lib/site-packages
            try:
                history = (prefix / "conda-meta" / "history").read_text(errors="replace")
            except OSError:
                continue
            names += [name for specs in _SPECS.findall(history) for name in _SPEC_NAME.findall(specs)]
            break
    return names


def _canonical(name: str) -> str:
    """A distribution's name as its index compares names (PEP 503): ``Ruamel.YAML`` is ruamel-yaml."""
    return re.sub(r"[-_.]+", "-", name).lower()


_DEPENDENCIES = ("dependencies", "peerDependencies", "optionalDependencies", "devDependencies")
_WORKSPACES = ("lerna.json", "pnpm-workspace.yaml")  # a monorepo's root, besides package.json's "workspaces"


@functools.lru_cache(maxsize=64)
def _declared(environment: tuple[str, ...]) -> tuple[frozenset[str], bool]:
    """The packages that the package.json beside each ``node_modules`` folder depends on, and
    whether only those are offered: where one declares any and none is a monorepo's root (whose
    packages' own package.json files name what they import)."""
    folders = [Path(modules).parent for modules in environment]
    manifests = [package_manifest(folder / "package.json") for folder in folders]
    names = frozenset(name for manifest in manifests for field in _DEPENDENCIES for name in _names(manifest.get(field)))
    root = any("workspaces" in manifest for manifest in manifests) or any((f / w).is_file() for f in folders for w in _WORKSPACES)
    return names, bool(names) and not root


def _names(field) -> list[str]:
    return [name for name in field if isinstance(name, str)] if isinstance(field, dict) else []


def _module(path: Path, python: bool) -> str:
    """What an import names the package at ``path``: a Python module's name, a package's folder
    name (with its scope: ``@sinonjs/samsam``)."""
    if python:
        return path.name.removesuffix(".py")
    return f"{path.parent.name}/{path.name}" if path.parent.name.startswith("@") else path.name


Key = tuple[tuple[str, ...], bool]  # (an environment, Python or not)


class Exports:
    """What the installed packages export, per environment: name -> [(module, name)], read on
    a daemon thread once per environment."""

    def __init__(self) -> None:
        self._read: dict[Key, dict[str, list[tuple[str, str]]]] = {}
        self._sorted: dict[Key, list[tuple[str, str]]] = {}  # (lower-case name, name), sorted
        self._queued: set[Key] = set()
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Memory: forget what was read (read again when next asked), the packages installed
        and what each package.json depends on too (they may have changed since)."""
        with self._lock:
            self._read.clear()
            self._sorted.clear()
            self._queued.clear()
        for cached in (_installed, _folded, _declared, _requested):
            cached.cache_clear()

    def of(self, folder: str, python: bool) -> dict[str, list[tuple[str, str]]]:
        """The exports read for ``folder``'s environment; none yet where they are being read (a
        thread starts)."""
        key = (environment_of(folder, python), python)
        if not key[0]:
            return {}
        found = self._read.get(key)
        if found is not None:
            return found
        with self._lock:
            if key not in self._queued:
                self._queued.add(key)
                threading.Thread(target=self._fill, args=(key,), name="treecomplete-exports", daemon=True).start()
        return {}

    def wait(self, folder: str, python: bool, timeout: float = 60.0) -> dict[str, list[tuple[str, str]]]:
        """of(), waiting up to ``timeout`` seconds for the read to end: for the tools that gather
        ranking lists (benchmarks/ranking.py ``complete_list``), so that each list knows what a
        server that has run a while knows; a request never waits."""
        key = (environment_of(folder, python), python)
        deadline = time.monotonic() + timeout
        found = self.of(folder, python)
        while key[0] and key not in self._read and time.monotonic() < deadline:
            time.sleep(0.01)
        return self._read.get(key, found)

    def _fill(self, key: Key) -> None:
        environment, python = key
        out: dict[str, list[tuple[str, str]]] = {}
        try:
            for _, path in _read_first(_packages(environment, python), python, environment):
                module = _module(path, python)
                for name, imported in (_python_exports(path) if python else _javascript_exports(path)):
                    out.setdefault(name, []).append((module, imported))
        except Exception as error:  # a package that cannot be read costs its names, nothing else  # noqa: BLE001
            log.warning("installed packages of %s not all read: %s", ", ".join(environment), error)
        self._sorted[key] = sorted((name.lower(), name) for name in out)
        self._read[key] = out

    def starting(self, folder: str, python: bool, prefix: str, limit: int) -> list[str]:
        """Up to ``limit`` exported names starting with ``prefix`` (any case), in order."""
        names = self._sorted.get((environment_of(folder, python), python))
        if not names or not prefix:
            return []
        lower = prefix.lower()
        found = []
        for key, name in names[bisect.bisect_left(names, (lower,)):]:
            if not key.startswith(lower) or len(found) == limit:
                break
            found.append(name)
        return found


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() and path.stat().st_size <= MAX_FILE else None
    except OSError:
        return None


def _python_exports(path: Path, depth: int = 0) -> list[tuple[str, str]]:
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
    package = _module(path, True)
    names |= {name for name, target in bindings(tree, PYTHON, [(0, len(data))]).items()
              if target.names and (target.module.startswith(".") or target.module.split(".")[0] == package)}
    for module in _STAR_IMPORT.findall(data) if depth < 2 else ():
        target = Path(python_module_path(path / "__init__.py" if path.is_dir() else path, module.decode())[1:])
        names |= {name for name, _ in _python_exports(target if target.is_dir() else target.with_suffix(".py"), depth + 1)}
    return [(name, name) for name in sorted(names) if not name.startswith("_")]


_STAR_IMPORT = re.compile(rb"^from\s+(\.+[A-Za-z_][\w.]*)\s+import\s+\*", re.M)


def _javascript_exports(path: Path) -> list[tuple[str, str]]:
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


EXPORTS = Exports()
