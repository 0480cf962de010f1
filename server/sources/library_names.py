"""The standard library's and Node's names for auto-import (sources/auto_import.py): which
module real code imports each name from, and how often (libraries/python_imports.json,
javascript_imports.json: build_usage.py), then the members it reads after a module's name
(python_usage.json, javascript_usage.json)."""

from __future__ import annotations

import bisect
import functools
import json
import logging
import re
import sysconfig
from pathlib import Path

log = logging.getLogger(__name__)

LIBRARIES = Path(__file__).parent / "libraries"

_NODE_MODULE = re.compile(r"[A-Za-z_$][\w$]*(?:/[A-Za-z_$][\w$]*)?")  # fs, fs/promises; not a member (crypto.subtle)
_PY_MODULE = re.compile(r"(?!test\b|idlelib\b|lib2to3\b)[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*")


class LibraryNames:
    """The standard library's (Node's) names: name -> [(module, name imported, files)], most
    first, from what real code imports (python_imports.json, javascript_imports.json); and
    ``starting`` lists them by prefix. The members that real code reads after the module's name
    (``sys.intern``, ``path.parse``: python_usage.json, javascript_usage.json) and rarely imports
    come after, for a name the buffer uses already, and are not listed by prefix; last, in
    ``declared`` (Python), the rest of what a module declares (typeshed's stubs:
    python_stdlib_names.json, of the modules real code imports names from), the modules real
    code imports most first (``cast`` of typing before ctypes')."""

    def __init__(self, language: str):
        self.by_name: dict[str, list[tuple[str, str, int]]] = {}
        self.used: dict[str, list[tuple[str, str, int]]] = {}
        self.declared: dict[str, list[tuple[str, str, int]]] = {}  # (module, name, files importing the module)
        self.builtins: frozenset[str] = frozenset()  # Python's builtins (typeshed's): never imported
        self.modules: frozenset[str] = frozenset()  # Node's own modules (fs, fs/promises): JavaScript's table
        try:
            self._read(language)
        except (OSError, ValueError) as error:  # a damaged table costs these names, nothing else
            log.warning("library names for %s not read: %s", language, error)
        for table in (self.by_name, self.used, self.declared):
            for found in table.values():
                found.sort(key=lambda entry: (-entry[2], entry[0]))
        self._lower = sorted((name.lower(), name) for name in self.by_name)

    def _read(self, language: str) -> None:
        if language == "python":  # what real code imports (python_imports.json): `from m import x`, `import m`
            imports = json.loads((LIBRARIES / "python_imports.json").read_text())["modules"]
            for module, names in imports.items():
                if not _PY_MODULE.fullmatch(module):
                    continue  # a module of the library's own tests
                for name, files in names.items():
                    if name or "." not in module:
                        self._add(name or module, module, name, files)
            usage = json.loads((LIBRARIES / "python_usage.json").read_text())["modules"]
            stdlib = Path(sysconfig.get_paths()["stdlib"])
            for module, members in usage.items():
                for member, files in members.items() if _PY_MODULE.fullmatch(module) and _a_module(module, imports, stdlib) else ():
                    if not member.startswith("_") and all(m != module for m, _, _ in self.by_name.get(member, ())):
                        self.used.setdefault(member, []).append((module, member, files))
            declared = json.loads((LIBRARIES / "python_stdlib_names.json").read_text())["modules"]
            self.builtins = frozenset(declared.get("builtins", ()))
            for module, names in declared.items():  # modules real code takes names from (typing, not webbrowser)
                named = sum(files for name, files in imports.get(module, {}).items() if name)
                if _PY_MODULE.fullmatch(module) and module != "builtins" and named:
                    self._declare(module, names, named)
            return
        usage = json.loads((LIBRARIES / "javascript_usage.json").read_text())["modules"]
        table = json.loads((LIBRARIES / "javascript.json").read_text())
        modules, globals_ = table["modules"], frozenset(table.get("globals", ()))
        self.modules = frozenset(module for module in modules if _NODE_MODULE.fullmatch(module))
        imports = json.loads((LIBRARIES / "javascript_imports.json").read_text())["modules"]
        for module, members in modules.items():
            if module not in self.modules:
                continue
            imported = imports.get(module, {})
            for name in {module, re.sub(r"_(\w)", lambda m: m.group(1).upper(), module)} if "/" not in module else ():
                self._add(name, module, "", imported.get("", 0) + 1)  # child_process as childProcess
            for member, files in imported.items():
                if member:
                    self._add(member, module, member, files)
            used = usage.get(module, {})
            for member in members if module not in ("process", "console") else ():  # globals' members: not imported
                # a global's name (setTimeout, read as timers/promises' member too) only as real code imports it
                if member in used and member not in imported and member not in globals_:
                    self.used.setdefault(member, []).append((module, member, used[member]))

    def _declare(self, module: str, names, files: int) -> None:
        """``module``'s names that neither what real code imports nor what it reads offers from it."""
        for name in names:
            if not name.startswith("_") and all(m != module for m, _, _ in self.by_name.get(name, ())) \
                    and all(m != module for m, _, _ in self.used.get(name, ())):
                self.declared.setdefault(name, []).append((module, name, files))

    def _add(self, name: str, module: str, imported: str, uses: int) -> None:
        if not name.startswith("_"):
            self.by_name.setdefault(name, []).append((module, imported, uses))

    def starting(self, prefix: str, limit: int) -> list[str]:
        """Up to ``limit`` names starting with ``prefix`` (any case), most used first."""
        lower = prefix.lower()
        lo = bisect.bisect_left(self._lower, (lower,))
        found = []
        for key, name in self._lower[lo:]:
            if not key.startswith(lower):
                break
            found.append(name)
        found.sort(key=lambda name: -self.by_name[name][0][2])
        return found[:limit]


def _a_module(module: str, imports: dict, stdlib: Path) -> bool:
    """Whether an import can name ``module``: a top-level one, one that real code imports from
    (python_imports.json: ``os.path``), or a file or package of the standard library (the folder
    ``stdlib``); not a receiver that python_usage.json holds as well (``os.environ``,
    ``datetime.datetime``)."""
    if "." not in module or module in imports:
        return True
    path = stdlib.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def library_names(language: str) -> LibraryNames:
    """Python's table, or Node's for JavaScript and TypeScript alike (one copy)."""
    return _library_names("python" if language == "python" else "javascript")


@functools.cache
def _library_names(table: str) -> LibraryNames:
    return LibraryNames(table)
