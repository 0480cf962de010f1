"""Names the file has not imported yet, each offered with the import that binds it.

Where a name is completed (not after a dot, not at a declaration or an import) and the file
binds no such name, an item for it carries the import to add (sources/import_edits.py writes
it). Where the import comes from, most likely first, at most OFFERS modules a name:
- the project's other files: how their imports bind the name (``from whoosh.query import And``,
  ``const { join } = require('path')``), most files first, the nearest counting most
  (``_nearest_first``); a relative import resolved and written again from this file;
- a project file that defines the name at its top level, the nearest first (JavaScript: exports
  it by name, or exports under that name as its default: ``module.exports = req``; a file
  exporting it from another, an index, after those; and one nearer than every file binding the
  name from elsewhere before that binding); JavaScript: the package's own main file under the
  package's name, as its bin scripts, examples and tests import it (``const semver = require('../')``);
- an installed package of that name, or one that exports it (sources/installed.py);
- the standard library's and Node's modules: what real code imports from each, then the
  members it reads after the module's name, then the rest they declare (sources/library_names.py).
In the list a name's other modules follow its first, DEFER candidates later where the project's
files make one far less likely (``_dominated``); the ranker reads where each name would come
from (``AutoImport.signals``, ranking/features.py IMPORT_NAMES).

Nothing is read from disk at a request but whether a Python folder is a package, the
installed packages' names, the package.json a subpath import (``#x``) is read from and the
tsconfig whose path aliases (``@/lib/api``) a new import may be written with (each cached): the
project index (sources/project.py) keeps each file's import bindings. Whether the buffer binds
a name is read around its occurrences (sources/bound.py), kept while the user types elsewhere.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass, replace
from pathlib import Path

from ..context import NAME, CompletionContext
from ..engines.base import Candidate, Kind
from ..languages import LanguageSpec
from .bound import SCOPES, bound_in
from .buffer import PROJECT
from .import_specs import as_imported, relative_style, written
from .imports import module_position
from .installed import EXPORTS, folded, installed
from .library_names import library_names
from .package_exports import own_package
from .libraries.node_resolution import resolve
from .project import BOUND, fold, path_of
from .project_imports import file_stem, is_file_key

OFFERS = 3  # modules offered for one name, most likely first
DEFER = 4  # candidates between a name's first item and a far less likely module's (_dominated)
NEAR = 0.5  # an importing file's weight, to the power of the folders between it and the file (_nearest_first)
EXTRA = 8  # names no other source lists, added per request
EXTRA_AFTER = 2  # characters typed before they are (a first keystroke lists enough)


@dataclass(frozen=True)
class Offer:
    """An import that binds ``name``: ``module`` as this file writes it, the name it takes from
    there (``""``: the module itself, or a JavaScript default export)."""

    name: str
    module: str
    imported: str = ""
    origin: str = "project"  # "project" (its files import or define it) or "library"
    files: int = 0  # project files that import it so


def offers(name: str, language: LanguageSpec, project, path: str | None) -> list[Offer]:
    """The imports that may bind ``name`` in the file ``path``, most likely first (at most
    OFFERS): the project's imports of it, a project module of that name, a project file defining
    it (JavaScript: exporting it by name, or as its default export of that name, then a file
    exporting it from another: Snapshot.relays; the package's own main file under the package's
    name), an installed package of that name, what real
    code imports from the standard library, what an installed package exports, the members real
    code reads after a standard module's name; where none of these knows the name, what a
    standard module declares (``cast``: typing, ctypes). Never the file's own module."""
    out: list[Offer] = []
    seen: set[str] = set()  # the modules offered: ``@`` and a path for a project file, however written
    python = language.name == "python"

    absolute = project.absolute if project is not None else {}

    def add(key: str, imported: str, relative: bool = False, origin: str = "project", files: int = 0) -> None:
        same = key if python or folder is None else _file_named(key, folder)
        module = written(key, relative, language, path, absolute.get(key)) if same not in seen and len(out) < OFFERS else None
        if module and all(o.module != module for o in out):  # a workspace package's file: its name, imported already
            seen.add(same)
            out.append(Offer(name, module, imported, origin, files))

    own = project.files.get(path) if project is not None and path is not None else None
    here, folder = _place(path) if path is not None else (None, None)
    style = relative_style(own)
    if here is not None and not python:  # never the file itself, however its importers write it
        seen.add(_file_named(here, folder))
    definers = _nearest_files(project.definers.get(name, ()), path) if project is not None else []
    relays = project.relays.get(name, ()) if project is not None and not python else ()
    if python:
        defined = [(d, name) for d in definers]
    else:  # a file exporting the name by name before a guess at a module's default export
        defaulters = _nearest_files(project.defaulters.get(name, ()), path) if project is not None else []
        # by name, then as the file's default export of that name (`module.exports = req`), then
        # a file exporting it from another (an index: the file defining it is imported within a
        # package); the extension as this file writes its relative imports
        defined = [(d, name) for d in definers if d not in relays] + [(d, "") for d in defaulters] \
            + [(d, name) for d in definers if d in relays]

    def key_of(defining: str) -> str:  # a defining file as an import of this file names it
        if python:
            stem = Path(defining).with_suffix("")
            return "@" + str(stem.parent if stem.name == "__init__" else stem)
        return "@" + as_imported(defining, own)

    importers = project.importers.get(name, ()) if project is not None else ()
    bindings = []  # how the other files bind the name, the nearest most first
    for module, imported, files, relative in _nearest_first(importers, name, project, path):
        files -= own is not None and any(b[0] == name and b[1] == module for b in own.bound)
        if files > 0 and not (python and _itself(module, imported, here, project)):
            bindings.append((module, imported, files, relative))
    # JavaScript: a file defining the name before a binding where it lies nearer than every file
    # binding it so (svelte's server visitors below its server transform, the client's imported by
    # the client's transform); never an index relaying it, nor a file that a binding names
    named = {_file_named(module, folder) for module, *_ in bindings} if bindings and not python and folder else None
    near = [e for e in defined if e[0] not in relays and _file_named(key_of(e[0]), folder) not in named] if named else []
    for module, imported, files, relative in bindings:
        users = project.binding_files.get((name, module, imported), ()) if near else ()
        far = min((_steps(folder, os.path.dirname(f)) for f in users if f != path), default=0)
        for entry in [e for e in near if _steps(folder, os.path.dirname(e[0])) < far]:
            add(key_of(entry[0]), entry[1])
            near.remove(entry)
        add(module, imported, 2 * relative > files, files=files)
    if not python:
        for defining, imported in defined:
            add(key_of(defining), imported)
        mine = own_package(Path(folder)) if folder is not None and project is not None else None
        if mine is not None and mine[0] == name and str(mine[1]) in project.files:
            add("@" + as_imported(str(mine[1]), own), "")  # `const semver = require('../')`: the package's main file
    modules = (project.modules.get(name, ()) if python else project.folded.get(fold(name), ())) if project is not None else ()
    for found in modules if path is not None else ():
        stem = Path(found).with_suffix("")
        target = stem.parent if stem.name in ("__init__", "index") else stem
        if found != path and found not in definers and (target.name == name or not python and fold(target.name) == fold(name)):
            # `from . import nodes`, `const context = require('./context')`, `const View = require('./view')`
            add("@" + str(target.parent), name, style) if python else add("@" + str(target), "")
    for defining, imported in defined if python else ():
        add(key_of(defining), imported, style)
    packages = installed(folder, python) if folder is not None else {}  # an untitled buffer has none
    package = packages.get(name) or (None if python or folder is None else folded(folder).get(fold(name)))
    if package:  # `typeis` for type-is too
        add(package, "", origin="library")
    library = library_names(language.name)
    for module, imported, _ in library.by_name.get(name, []):  # what real code imports from the standard library
        add(module, imported, origin="library")
    for module, imported in EXPORTS.of(folder, python).get(name, ()) if folder is not None else ():
        add(module, imported, origin="library")  # what an installed package exports (typing_extensions' Any after typing's)
    for module, imported, _ in library.used.get(name, []):
        add(module, imported, origin="library")
    for module, imported, _ in library.declared.get(name, []) if not out else ():  # what else a standard module declares
        add(module, imported, origin="library")
    return out


def _itself(module: str, imported: str, here: str | None, project) -> bool:
    """Python: whether ``from module import imported`` would import from the file ``here`` (a
    module key) itself: its own module, or the package its ``__init__.py`` makes, but for a
    submodule of it (``from . import nodes`` in pkg/__init__.py)."""
    if here is None or module not in (here, _made_by(here)):
        return False
    below = os.path.join(module[1:], imported)
    return module == here or below + ".py" not in project.files and os.path.join(below, "__init__.py") not in project.files


@functools.lru_cache(maxsize=256)
def _made_by(here: str) -> str | None:
    """The key of the package that the ``__init__`` module key ``here`` makes, else None."""
    own = Path(here[1:])
    return "@" + str(own.parent) if own.name == "__init__" else None


def _nearest_first(importers: tuple[tuple[str, str, int, int], ...], name: str, project, path: str | None
                   ) -> tuple[tuple[str, str, int, int], ...] | list[tuple[str, str, int, int]]:
    """The ways the project's files bind ``name`` (Snapshot.importers), where more than one
    module: the modules ordered by their importing files (but ``path``) weighted by nearness,
    each NEAR to the power of the folders between it and ``path`` (a file beside it 1, one in
    the folder above 0.5): tests under tests/sync/ import ``Page`` from ``sync_api``, those
    under tests/async/ from ``async_api``. How a module is imported (by name, as a default or
    a namespace) keeps the order of most files first."""
    if len(importers) < 2 or path is None:
        return importers
    here = os.path.dirname(path)
    weights: dict[str, float] = {}
    for module, imported, _, _ in importers:
        files = project.binding_files.get((name, module, imported), ())
        weights[module] = weights.get(module, 0.0) + sum(NEAR ** _steps(here, os.path.dirname(f)) for f in files if f != path)
    return sorted(importers, key=lambda entry: -weights[entry[0]])


def _nearest_files(files: tuple[str, ...], path: str | None) -> list[str]:
    """The project files defining a name but ``path``, the nearest to ``path`` first (folders
    between them, _steps; the index's order among equals): transform-server.js beside
    visitors/Component.js takes that one, not the client's or the analysis' of that name."""
    others = [f for f in files if f != path]
    if len(others) < 2 or path is None:
        return others
    here = os.path.dirname(path)
    return sorted(others, key=lambda f: _steps(here, os.path.dirname(f)))


@functools.lru_cache(maxsize=4096)
def _steps(a: str, b: str) -> int:
    """Folders between two folders: up from ``a`` to their common folder, then down to ``b``."""
    common = len(Path(os.path.commonpath((a, b))).parts)
    return len(Path(a).parts) + len(Path(b).parts) - 2 * common


@functools.lru_cache(maxsize=4096)
def _file_named(key: str, folder: str) -> str:
    """JavaScript: the project file a module key names, whichever way it is written: without
    its extension or ``/index`` (project_imports.file_stem), a subpath import (``#client/constants``)
    resolved through the package.json ``imports`` above ``folder``; another module as it is.
    Two of a name's offers naming one file are one offer."""
    if key.startswith("#"):
        found = resolve(Path(folder), key)
        if found is None:
            return key
        key = "@" + str(found)
    return file_stem(key) if is_file_key(key) else key


@functools.lru_cache(maxsize=256)
def _place(path: str) -> tuple[str, str]:
    """The file ``path`` as a module key (``@`` and its path without the suffix), and its folder."""
    return "@" + str(Path(path).with_suffix("")), str(Path(path).parent)


# the fallback engine's signals (sources/buffer.py) of a name it found nowhere: its tier past PROJECT
UNLISTED = (float(PROJECT + 1),) + (0.0,) * 22
KEPT = 64  # names whose binding is kept from one request to the next
ATTACHED = 15  # the list's first candidates that may carry an import (each costs a look through the buffer)
NAMES = frozenset({"python", "javascript", "typescript", "typescriptreact"})


def _dominated(first: Offer, other: Offer) -> bool:
    """Whether the project's files make ``other`` far less likely than ``first`` (the name's first
    module): two files or more import the name from that one and a third as many or fewer from
    this one (none, for a library's guess). Its item then comes DEFER candidates later."""
    return first.files >= 2 and other.files * 3 <= first.files


def _scope(context: CompletionContext) -> int:
    """Where the innermost function or class around the cursor starts (-1: none)."""
    node = context.target
    while node is not None:
        if node.type in SCOPES:
            return node.start_byte
        node = node.parent
    return -1


class AutoImport:
    """The source: which of a list's names need an import here and which it does not hold yet
    (sources/position.py's facts, read through the fallback engine)."""

    def __init__(self, fallback):
        self.fallback = fallback
        self.enabled = True  # the autoImport setting
        # whether the buffer binds each name: the document and the scope around the cursor, its
        # text and the start of the line then at the cursor, the names read
        self._bound: tuple[tuple[str, int], bytes, int, dict[str, bool]] = (("", -1), b"", 0, {})

    def here(self, context: CompletionContext) -> bool:
        """Whether the cursor is where an unimported name may be written (a name, not one being
        declared, not in an import) and the autoImport setting is on."""
        return self.enabled and self.at_a_name(context)

    def at_a_name(self, context: CompletionContext) -> bool:
        """Whether the cursor is where an unimported name may be written, whatever the setting."""
        if context.category != NAME or context.language.name not in NAMES:
            return False
        where = self.fallback.declaring(context)
        return not (where.declaration or where.parameter) and self.fallback.imported_names(context) is None \
            and not module_position(context)

    def signals(self, context: CompletionContext, texts) -> dict[str, tuple[float, float, float, float]]:
        """Where the names ``texts`` would be imported from, as the ranker reads it
        (features.IMPORT_NAMES), for those with any: ln(1 + the project's files that import the
        name, this one's saved version left out), 1 where a project file defines it at its top
        level (JavaScript: exports it by name or as its default of that name), ln(1 + the files
        of real code that import it from a standard or Node module), and 1 where a package
        installed for the file (sources/installed.py) is named so or exports it. Whether the
        buffer binds it is the buffer's signals' to say; these are what the name is beyond it.
        Only where an unimported name may be written (``at_a_name``), whatever the autoImport
        setting: the ranking is the same with it off, its items have no import."""
        if not self.at_a_name(context):
            return {}
        view = self.fallback.project_view(context)
        snapshot, path = (view.snapshot, view.path) if view is not None else (None, path_of(context.uri))
        own = {b[0] for b in view.own.bound} if view is not None and view.own is not None else set()
        by_name = library_names(context.language.name).by_name
        python = context.language.name == "python"
        folder = _place(path)[1] if path is not None else None
        packages = installed(folder, python) if folder is not None else {}
        by_fold = folded(folder) if folder is not None and not python else {}  # `typeis` for type-is too
        exported = EXPORTS.of(folder, python) if folder is not None else {}
        out = {}
        for text in texts:
            importing, defined = 0, 0.0
            if snapshot is not None:
                importing = sum(entry[2] for entry in snapshot.importers.get(text, ())) - (text in own)
                defined = 1.0 if any(d != path for d in snapshot.definers.get(text, ())) \
                    or not python and any(d != path for d in snapshot.defaulters.get(text, ())) else 0.0
            standard = max((uses for _, _, uses in by_name.get(text, ())), default=0)
            dependency = 1.0 if text in packages or text in exported or by_fold and fold(text) in by_fold else 0.0
            if importing > 0 or defined or standard or dependency:
                out[text] = (math.log1p(max(importing, 0)), defined, math.log1p(standard), dependency)
        return out

    def extra(self, context: CompletionContext, listed: set[str]) -> list[str]:
        """Names with the prefix typed (EXTRA_AFTER characters at least) that the project's
        imports bind or the libraries export, not in ``listed``: what only an import would bring
        (EXTRA of them)."""
        if len(context.prefix) < EXTRA_AFTER or not self.here(context):
            return []
        view = self.fallback.project_view(context)
        found = [word for word, _, _ in view.snapshot.words(context.prefix, view.path, EXTRA, BOUND)] if view else []
        found += library_names(context.language.name).starting(context.prefix, EXTRA)
        path = view.path if view else path_of(context.uri)
        if path is not None:
            lower = context.prefix.lower()
            folder, python = _place(path)[1], context.language.name == "python"
            found += sorted(n for n in installed(folder, python) if n.lower().startswith(lower))
            found += EXPORTS.starting(folder, python, context.prefix, EXTRA)
        out = []
        for word in found:
            if word not in listed and word not in out and context.language.identifier.fullmatch(word):
                out.append(word)
        return out[:EXTRA]

    def _still_bound(self, context: CompletionContext) -> dict[str, bool]:
        """The names read before whose answer still holds: the cursor is in the same function or
        class (a binding there counts only inside it), the text changed only between the start of
        the line the cursor was on and the end of its line now (typing), and the name is written
        in neither version of that stretch."""
        data, uri = context.data, context.uri
        line = data.rfind(b"\n", 0, context.prefix_start) + 1
        scope = _scope(context)
        before, old, old_line, read = self._bound
        kept: dict[str, bool] = {}
        if before == (uri, scope) and read:  # the same functions and classes hold the cursor
            lo = min(line, old_line)
            hi = data.find(b"\n", context.cursor)
            hi = len(data) if hi < 0 else hi
            tail = len(data) - hi
            if len(old) >= lo + tail and old[:lo] == data[:lo] and old[len(old) - tail:] == data[hi:]:
                changed = old[lo:len(old) - tail] + b"\n" + data[lo:hi]
                kept = {name: value for name, value in list(read.items())[-KEPT:] if name.encode() not in changed}
        self._bound = ((uri, scope), data, line, kept)
        return kept

    def attach(self, context: CompletionContext, candidates: list[Candidate]) -> list[Candidate]:
        """The list, its first ATTACHED names that the buffer does not bind carrying the import
        that would (Candidate.auto_import), each followed by the same name from the other
        modules offered (DEFER candidates later where far less likely: ``_dominated``)."""
        if not candidates or not self.here(context):
            return candidates
        view = self.fallback.project_view(context)
        snapshot, path = (view.snapshot, view.path) if view is not None else (None, path_of(context.uri))
        cursor = (context.prefix_start, context.cursor + 1)
        bound = self._still_bound(context)
        builtins = library_names(context.language.name).builtins
        out: list[Candidate] = []
        later: list[tuple[int, list[Candidate]]] = []  # (the position they follow, items)
        for position, candidate in enumerate(candidates):
            while later and later[0][0] < position:
                out.extend(later.pop(0)[1])
            out.append(candidate)
            keyword = candidate.kind == Kind.KEYWORD
            if position >= ATTACHED or candidate.kind in (Kind.SNIPPET, Kind.ARGUMENT) \
                    or keyword and candidate.text not in context.language.importable_keywords \
                    or not context.language.identifier.fullmatch(candidate.text):
                continue
            found = offers(candidate.text, context.language, snapshot, path)
            if keyword or candidate.text in builtins:  # a keyword that is a name too (`get`), a builtin
                found = [offer for offer in found if offer.origin == "project" and offer.files]  # (`len`): as the project imports it
            if not found:
                continue
            if candidate.text not in bound:
                bound[candidate.text] = bound_in(context.data, context.language, candidate.text, cursor, context.tree)
            if bound[candidate.text]:
                continue
            out.pop()
            deferred = []
            for offer in found:
                kind = Kind.MODULE if not offer.imported and candidate.kind == Kind.VARIABLE \
                    else Kind.VARIABLE if keyword else candidate.kind
                detail = f"auto-import from {offer.module}" + (f" · {candidate.detail}" if candidate.detail else "")
                item = replace(candidate, kind=kind, detail=detail, origin=offer.module, auto_import=offer)
                (deferred if offer is not found[0] and _dominated(found[0], offer) else out).append(item)
            if deferred:
                later.append((position + DEFER, deferred))
        for _, items in later:
            out.extend(items)
        return out
