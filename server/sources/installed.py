"""The packages installed for a file, for auto-import (sources/auto_import.py): their names, and
the names each exports at its top level (sources/package_exports.py).

Python: the top-level modules of the environment the file's imports come from, found as the
libraries find it (the ``pythonPath`` setting, a ``.venv`` or ``venv`` folder above the file,
``VIRTUAL_ENV`` / ``CONDA_PREFIX``), never the server's own (a shell where treecomplete's
own environment is active names it in ``VIRTUAL_ENV``: torch's names are no imports to offer
in every project). JavaScript: the packages of the ``node_modules`` folders above the file
that the package.json beside one depends on, as TypeScript's own auto-import reads
package.json (every package where none declares any, or in a monorepo's root).

The names are listed once per environment (the ``.venv``, or the chain of ``node_modules``
folders), however many folders' files share it, and listed again when a package is installed or
removed there (``_fresh``). The exports are read on a daemon thread, parsed with tree-sitter,
never run; until they are read, a request finds none (it never waits).
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

from .libraries.node_resolution import package_manifest
from .libraries.python_environment import linked_folders, user_environment
from .package_exports import binding_name, javascript_exports, python_exports
from .project import fold

log = logging.getLogger(__name__)

MAX_PACKAGES = 400  # packages read per folder
CHECK = 5.0  # seconds between two looks at whether an environment's packages changed
TOOLING = frozenset({"pip", "setuptools", "pkg_resources", "wheel", "distutils"})  # what installs, not what code imports


_python_path = ""  # the pythonPath setting (set_python_path)


def set_python_path(path: str) -> None:
    """The ``pythonPath`` setting: the interpreter whose packages a Python file imports, before
    a ``.venv`` above the file."""
    global _python_path
    if path != _python_path:
        _python_path = path
        forget_environments()


_environments: dict[tuple[str, bool], tuple[float, tuple[str, ...]]] = {}  # (folder, Python or not) -> (when, found)


def environment_of(folder: str, python: bool) -> tuple[str, ...]:
    """Where the packages of a file in ``folder`` are installed: its environment's site-packages
    folders (Python), the ``node_modules`` folders above it, nearest first (JavaScript); ()
    where there are none. Looked for again after CHECK seconds: a ``.venv`` or a
    ``node_modules`` made while the server runs is found."""
    key = (folder, python)
    now = time.monotonic()
    found = _environments.get(key)
    if found is None or now - found[0] >= CHECK:
        if len(_environments) >= 1024:
            _environments.clear()
        found = _environments[key] = (now, _environment(folder, python))
    return found[1]


def forget_environments() -> None:
    """Look for every folder's environment again at its next use."""
    _environments.clear()


def _environment(folder: str, python: bool) -> tuple[str, ...]:
    if python:
        return tuple(map(str, user_environment(Path(folder), None, _python_path, skip=Path(sys.prefix)) or ()))
    return tuple(str(above / "node_modules") for above in (Path(folder), *Path(folder).parents)
                 if (above / "node_modules").is_dir())


def installed(folder: str, python: bool) -> dict[str, str]:
    """The packages installed for a file in ``folder``, by the name an import binds (a Python
    module's name; ``on-finished`` as onFinished): name -> the module an import names."""
    return _installed(_fresh(environment_of(folder, python), python), python)


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
    return _folded(_fresh(environment_of(folder, False), False))


_checked: dict[tuple[tuple[str, ...], bool], tuple[float, tuple[int, ...]]] = {}  # when looked at, what was seen


def _fresh(environment: tuple[str, ...], python: bool) -> tuple[str, ...]:
    """``environment``, once what was read of it is forgotten if a package was installed or
    removed there since (``pip install`` or ``npm install`` while the server runs): its folders
    are looked at, at most once every CHECK seconds."""
    key = (environment, python)
    now = time.monotonic()
    seen = _checked.get(key)
    if environment and (seen is None or now - seen[0] >= CHECK):
        stamp = _stamp(environment, python)
        _checked[key] = (now, stamp)
        if seen is not None and seen[1] != stamp:
            log.info("packages installed or removed in %s: read again", ", ".join(environment))
            for cached in (_installed, _folded, _declared, _requested):
                cached.cache_clear()
            EXPORTS.forget(key)
    return environment


def _stamp(environment: tuple[str, ...], python: bool) -> tuple[int, ...]:
    """What a package installed or removed changes: the modification times of the environment's
    folders (their entries change), and JavaScript's scope folders (``@types``) and the
    package.json beside each ``node_modules`` (its dependencies)."""
    paths = list(map(Path, environment))
    if not python:
        for modules in map(Path, environment):
            paths.append(modules.parent / "package.json")
            try:
                paths += sorted(entry for entry in modules.iterdir() if entry.name.startswith("@"))
            except OSError:
                pass
    stamp = []
    for path in paths:
        try:
            stamp.append(path.stat().st_mtime_ns)
        except OSError:
            stamp.append(-1)
    return tuple(stamp)


@functools.lru_cache(maxsize=64)
def _folded(environment: tuple[str, ...]) -> dict[str, str]:
    return {fold(name): package for name, package in _installed(environment, False).items()}


def _packages(environment: tuple[str, ...], python: bool) -> list[tuple[str, Path]]:
    """(the name an import binds, the package's folder or module file), first found first
    (Python's in the folders an editable install adds after site-packages); JavaScript's only
    those a package.json beside a ``node_modules`` folder depends on, where ``_declared`` says so."""
    found: list[tuple[str, Path]] = []
    if python:  # then the folders the .pth files of editable installs add (`pip install -e`)
        sites = tuple(map(Path, environment))
        for site in sites + linked_folders(sites):
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
                found.append((binding_name(package.name), package))
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
        except Exception:  # a broken .dist-info (an unreadable RECORD) costs its modules the priority  # noqa: BLE001
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
        self._epochs: dict[Key, int] = {}  # forgotten how often: a read begun before is not stored
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Memory: forget what was read (read again when next asked), the packages installed
        and what each package.json depends on too (they may have changed since)."""
        with self._lock:
            for key in self._queued | set(self._read):
                self._epochs[key] = self._epochs.get(key, 0) + 1
            self._read.clear()
            self._sorted.clear()
            self._queued.clear()
        for cached in (_installed, _folded, _declared, _requested):
            cached.cache_clear()

    def forget(self, key: Key) -> None:
        """Forget what was read of one environment (read again when next asked)."""
        with self._lock:
            self._epochs[key] = self._epochs.get(key, 0) + 1
            self._read.pop(key, None)
            self._sorted.pop(key, None)
            self._queued.discard(key)

    def of(self, folder: str, python: bool) -> dict[str, list[tuple[str, str]]]:
        """The exports read for ``folder``'s environment; none yet where they are being read (a
        thread starts)."""
        key = (_fresh(environment_of(folder, python), python), python)
        if not key[0]:
            return {}
        found = self._read.get(key)
        if found is not None:
            return found
        with self._lock:
            if key not in self._queued:
                self._queued.add(key)
                threading.Thread(target=self._fill, args=(key, self._epochs.get(key, 0)), name="treecomplete-exports",
                                 daemon=True).start()
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

    def _fill(self, key: Key, epoch: int) -> None:
        environment, python = key
        out: dict[str, list[tuple[str, str]]] = {}
        try:
            for _, path in _read_first(_packages(environment, python), python, environment):
                module = _module(path, python)
                for name, imported in (python_exports(path) if python else javascript_exports(path)):
                    out.setdefault(name, []).append((module, imported))
        except Exception as error:  # a package that cannot be read costs its names, nothing else  # noqa: BLE001
            log.warning("installed packages of %s not all read: %s", ", ".join(environment), error)
        with self._lock:
            if self._epochs.get(key, 0) == epoch:  # else forgotten meanwhile: of() queues it again
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


EXPORTS = Exports()
