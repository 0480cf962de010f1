"""Python modules' and classes' members, read from source and never imported: the standard
library from typeshed's stubs, third-party packages from the environment's site-packages
(``.pyi`` first, then ``.py``), both through ``typeshed_client``, which finds a module's file
and its names (definitions, assignments, ``__all__``, re-exports) with Python's ``ast``. Which
folders make a document's environment: python_environment.py.
"""

from __future__ import annotations

import ast
import functools
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path

from ...engines.base import Kind
from . import python_docs
from .members import Members
from .python_definitions import kind_of, self_attributes
from .python_results import BASES, CallResults

log = logging.getLogger(__name__)

USAGE = Path(__file__).with_name("python_usage.json")
MAX_FILE = 2 * 1024 * 1024  # a larger module file is not read
MAX_NAMES = 2000  # names listed per module or class
MAX_READ = 4096  # names whose members are kept per environment
PARSED = 48 << 20  # bytes of parsed stubs and sources kept per environment, as estimated (PER_SOURCE_BYTE)
PER_SOURCE_BYTE = 37  # bytes a parsed module holds per byte of its file (150 standard stubs: 38 MB for 1.0 MB)
IGNORED_BASES = frozenset({"object", "Generic", "Protocol", "NamedTuple", "TypedDict", "Enum"})


class PythonLibraries(CallResults):
    """Resolves dotted names (``os.path``, ``pathlib.Path``) to their members in one
    environment. Slow (reads files): the loader thread calls it, never a request. Each module's
    file and names are read once, and each name's members kept, until a file read changes on
    disk: then everything is read afresh (typeshed_client's resolver keeps modules too)."""

    def __init__(self, paths: tuple[Path, ...], pause: Callable[[], object] = lambda: None):
        """``pause`` is called before each module is parsed (the loader's gate: a read waits
        there while the server works, so that it holds the interpreter one module at most)."""
        import typeshed_client  # only once a library is read

        self._tc = typeshed_client
        self._pause = pause
        self.context = typeshed_client.get_search_context(search_path=list(paths), allow_py_files=True)
        self._reset()

    def _reset(self) -> None:
        self.resolver = _pausing(self._tc)(self.context, self._pause)
        self._sizes: dict[tuple[str, ...], int] = {}  # a parsed module -> its file's bytes
        self._paths: dict[str, Path | None] = {}  # dotted -> its file
        self._parsed: dict[str, dict | None] = {}  # dotted -> its names
        self._read: dict[str, tuple[Members | None, dict[str, float]]] = {}  # dotted -> members, their files' mtimes

    def read(self, dotted: str) -> tuple[Members | None, list[str]]:
        """members(), and the module files it read (to read again when one changes; where
        nothing is found, the folders too that the missing module would be made in, ``pkg/`` of
        ``pkg.utils`` and each folder of the search path: a package installed or a project
        module written later changes them, and forgets that name alone); the same name asked
        for from another folder of the environment is not read twice."""
        cached = self._read.get(dotted)
        if cached is not None:
            if all(_mtime(path) == mtime for path, mtime in cached[1].items()):
                return cached[0], list(cached[1])
            if cached[0] is None:
                self._forget_missing(dotted)  # only where it would be made changed
            else:
                self._reset()  # a file changed: nothing read before can be trusted
        if len(self._read) >= MAX_READ or self.parsed_bytes() >= PARSED:
            self._reset()
        members = self.members(dotted)
        parts = dotted.split(".")
        files = [str(f) for f in (self._module(".".join(parts[:i])) for i in range(1, len(parts) + 1)) if f is not None]
        if members is None:
            files += [str(f) for f in self._would_hold(parts) if str(f) not in files]
        self._read[dotted] = (members, {path: _mtime(path) for path in files})
        return members, files

    def _would_hold(self, parts: list[str]) -> list[Path]:
        """The folders of the search path a module of the dotted ``parts`` would be made in: each
        folder's own, and its packages on the way that exist (``pkg/`` for ``pkg.utils``)."""
        found = []
        for base in self.context.search_path:
            for i in range(len(parts)):
                folder = base.joinpath(*parts[:i])
                if not folder.is_dir():
                    break
                found.append(folder)
        return found

    def _forget_missing(self, dotted: str) -> None:
        """Forget that ``dotted`` and the modules on its way were not found (read again)."""
        from typeshed_client.finder import ModulePath

        self._read.pop(dotted, None)
        parts = dotted.split(".")
        for i in range(1, len(parts) + 1):
            prefix = ".".join(parts[:i])
            if self._paths.get(prefix, "") is None:
                del self._paths[prefix]
            if prefix in self._parsed and self._parsed[prefix] is None:
                del self._parsed[prefix]
            module = self.resolver._module_cache.get(ModulePath(tuple(parts[:i])))
            if module is not None and not module.exists:
                del self.resolver._module_cache[ModulePath(tuple(parts[:i]))]

    def parsed_bytes(self) -> int:
        """The estimated bytes of the modules the resolver keeps parsed: PER_SOURCE_BYTE times
        their files' sizes."""
        total = 0
        for module in getattr(self.resolver, "_module_cache", ()):
            size = self._sizes.get(module)
            if size is None:
                path = self._module(".".join(module))
                try:
                    size = path.stat().st_size if path is not None else 0
                except OSError:
                    size = 0
                self._sizes[module] = size
            total += size
        return total * PER_SOURCE_BYTE

    def members(self, dotted: str) -> Members | None:
        """The members of module or class ``dotted``; None where it names neither. A last name
        marked ``()`` (``logging.getLogger()``) is called: the members of the class it returns;
        a last ``[]`` (``builtins.open().[]``) is an element of what comes before: the members of
        the class iterating it gives (_instance); an attribute (``os.environ``, ``pathlib.Path.parent``):
        the members of the class it holds (_attribute)."""
        if dotted.endswith(("()", ".[]")):
            found = self._instance(dotted)
            return self._class_members(found[0], found[1], dotted) if found is not None else None
        if self._module(dotted) is not None:
            return self._module_members(dotted)
        found = self._resolve(dotted)
        if found is not None and isinstance(found[1].ast, ast.ClassDef):
            return self._class_members(found[0], found[1], dotted)
        if found is not None and isinstance(found[1].ast, self._tc.ImportedName):  # `from m import sub` where sub is a module
            target = ".".join(found[1].ast.module_name + ((found[1].ast.name,) if found[1].ast.name else ()))
            if target != dotted and self._module(target) is not None:
                return self._module_members(target)
        enum = self._enum_member(dotted)
        if enum is not None:  # `HTTPStatus.OK.`: an instance of the enum, with the `name` and `value` of enum.Enum
            out = self._class_members(enum[0], enum[1], dotted)
            for name, child in (enum[1].child_nodes or {}).items():
                if isinstance(child.ast, (ast.Assign, ast.AnnAssign)):
                    out.names.pop(name, None)  # the enum's other members: not what a member's dot reads
            if (base := self._resolve("enum.Enum")) is not None:
                self._class_members(base[0], base[1], dotted, BASES, out)
            return out
        held = self._attribute(dotted)  # `os.environ`, `Path.parent`: what the attribute holds
        return self._class_members(held[0], held[1], dotted) if held is not None else None

    def find(self, dotted: str) -> Path | None:
        """The file of module ``dotted`` in this environment (the standard library's stubs too)."""
        return self._module(dotted)

    def _module(self, dotted: str) -> Path | None:
        if dotted not in self._paths:
            self._paths[dotted] = self._find(dotted)
        return self._paths[dotted]

    def _find(self, dotted: str) -> Path | None:
        try:
            path = self._tc.get_stub_file(dotted, search_context=self.context)
            if path is None and "." not in dotted:  # a module of one file (six.py), which typeshed_client leaves out
                path = next((p / f"{dotted}.{suffix}" for suffix in ("pyi", "py") for p in self.context.search_path
                             if (p / f"{dotted}.{suffix}").is_file()), None)
            if path is None or path.stat().st_size > MAX_FILE:
                return None
            return path
        except (OSError, ValueError, SyntaxError) as error:
            log.info("module %s not read: %s", dotted, error)
            return None

    def _names(self, dotted: str) -> dict | None:
        if dotted not in self._parsed:
            self._parsed[dotted] = self._parse(dotted)
        return self._parsed[dotted]

    def _parse(self, dotted: str) -> dict | None:
        """A module's names: the resolver's parse of it (one parse for both), else, for a module of
        one file the resolver does not find, a parse of its own."""
        from typeshed_client.finder import ModulePath

        try:
            module = self.resolver.get_module(ModulePath(tuple(dotted.split("."))))
            names = module.names if module.exists else None
            if names is None and "." not in dotted and (path := self._module(dotted)) is not None:
                from typeshed_client.finder import parse_stub_file
                from typeshed_client.parser import parse_ast

                self._pause()
                names = parse_ast(parse_stub_file(path), self.context, ModulePath((dotted,)), file_path=path)
            return names
        except (OSError, ValueError, SyntaxError, RecursionError, UnicodeDecodeError) as error:
            log.info("module %s not read: %s", dotted, error)
            return None

    def _resolve(self, dotted: str):
        """(module, NameInfo) of a name defined in a module, following re-exports."""
        try:
            found = self.resolver.get_fully_qualified_name(dotted)
        except (OSError, ValueError, SyntaxError, RecursionError, UnicodeDecodeError) as error:
            log.info("%s not resolved: %s", dotted, error)
            return None
        if isinstance(found, self._tc.ImportedInfo):
            return ".".join(found.source_module), found.info
        if isinstance(found, self._tc.NameInfo):
            return dotted.rsplit(".", 1)[0], found
        module, _, name = dotted.rpartition(".")
        info = (self._names(module) or {}).get(name) if module and "." not in module else None
        return (module, info) if info is not None else None  # in a module of one file

    def _module_members(self, dotted: str) -> Members:
        out = Members(dotted)
        path = self._module(dotted)
        names = self._names(dotted) or {}
        stub = path is not None and path.suffix == ".pyi"
        listed = _all(names)
        out.complete = "__getattr__" not in names  # a module's __getattr__ (PEP 562) answers any name
        package = dotted.split(".")[0]
        for name, info in list(names.items())[:MAX_NAMES]:
            if name == "__all__" or (listed is not None and name not in listed and not info.is_exported):
                continue
            node = info.ast
            if isinstance(node, self._tc.ImportedName):
                source = node.module_name
                if stub and not info.is_exported:
                    continue
                if not stub and listed is None and (name.startswith("_") or source[:1] not in ((package,), ("",), ())):
                    continue  # `import os`, `from typing import Any` in a package's .py: not what it offers
                kind, detail, signature, doc = self._imported_kind(node)
            else:
                if name.startswith("_") and listed is None:
                    continue
                kind, detail, signature = kind_of(name, node)
                doc = self._doc(dotted, name, node)
                if kind.base == Kind.VARIABLE and isinstance(node, ast.Assign) and self._module(f"{dotted}.{name}") is not None:
                    kind, detail = Kind.MODULE, ""  # `path = _path` in os
            out.add(name, kind, f"{detail}from {dotted}", usage().get(dotted, {}).get(name, 0), signature, dotted, doc)
        if path is not None and path.name.startswith("__init__."):
            for sub in _submodules(path.parent):
                out.add(sub, Kind.MODULE, f"module {dotted}.{sub}", usage().get(dotted, {}).get(sub, 0), origin=dotted)
        return out

    def _imported_kind(self, node) -> tuple[Kind, str, str, str | tuple[str, str]]:
        """What a name a module imports and offers is: kind, detail, signature, documentation."""
        target = ".".join(node.module_name + ((node.name,) if node.name else ()))
        if node.name is None or self._module(target) is not None:
            return Kind.MODULE, "", "", ""
        found = self._resolve(target)
        if found is None:
            return Kind.VARIABLE, "", "", ""
        return (*kind_of(node.name, found[1].ast), self._doc(found[0], node.name, found[1].ast))

    def _doc(self, module: str, qualname: str, node) -> str | tuple[str, str]:
        """The first paragraph of a definition's docstring: its own, else where the standard
        library's source has it (a stub's: read on resolve, not here)."""
        definitions = getattr(node, "definitions", None)
        found = python_docs.docstring(definitions[0] if definitions else node)
        if found or not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not definitions:
            return found
        return (module, qualname)

    def _class_members(self, module: str, info, dotted: str, depth: int = 0, out: Members | None = None) -> Members:
        out = out if out is not None else Members(dotted)
        if {"__getattr__", "__getattribute__"} & set(info.child_nodes or {}):
            out.complete = False  # any name may be a member
        where = f"{module}.{info.name}"
        for name, child in (info.child_nodes or {}).items():
            if not name.startswith("_"):
                kind, detail, signature = kind_of(name, child.ast, method=True)
                doc = self._doc(module, f"{info.name}.{name}", child.ast)
                out.add(name, kind, f"{detail}from {where}", signature=signature, origin=where, doc=doc)
        for name in self_attributes(info.ast):
            out.add(name, Kind.FIELD, f"from {where}", origin=where)
        for base in info.ast.bases:
            written = ast.unparse(base).split("[")[0]
            if written.split(".")[-1] in IGNORED_BASES:
                continue
            found = self._base(module, written) if depth < BASES else None
            if found is None:
                out.complete = False  # a base we could not read may define more
            else:
                self._class_members(found[0], found[1], dotted, depth + 1, out)
        return out

    def _base(self, module: str, written: str):
        """A base class as written in ``module``: defined there or imported there."""
        names = self._names(module) or {}
        head, _, rest = written.partition(".")
        info = names.get(head)
        if info is None:
            found = self._resolve(f"builtins.{written}")
        elif isinstance(info.ast, ast.ClassDef) and not rest:
            return module, info
        elif isinstance(info.ast, self._tc.ImportedName):
            source = ".".join(info.ast.module_name + ((info.ast.name,) if info.ast.name else ()))
            found = self._resolve(f"{source}.{rest}" if rest else source)
        else:
            found = None
        return found if found is not None and isinstance(found[1].ast, ast.ClassDef) else None


@functools.cache
def _pausing(typeshed_client):
    """typeshed_client's resolver, calling ``pause`` before each module it parses (a subclass:
    a function stored on the resolver would hold it in a cycle, freed only by a full collection)."""

    class PausingResolver(typeshed_client.Resolver):
        def __init__(self, search_context, pause: Callable[[], object]):
            super().__init__(search_context)
            self.pause = pause

        def get_module(self, module_name):
            if module_name not in self._module_cache:
                self.pause()
            return super().get_module(module_name)

    return PausingResolver


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return -1.0


@functools.cache
def usage() -> dict[str, dict[str, int]]:
    """How many files of real code use each member of the standard library's modules
    (python_usage.json, build_usage.py)."""
    try:
        return json.loads(USAGE.read_text(encoding="utf-8"))["modules"]
    except (OSError, ValueError, KeyError) as error:
        log.warning("%s not read: %s", USAGE, error)
        return {}


def _all(names: dict) -> set[str] | None:
    info = names.get("__all__")
    if info is None or not isinstance(info.ast, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        return None
    value = info.ast.value
    if isinstance(value, (ast.List, ast.Tuple)):
        return {e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return None


def _submodules(folder: Path) -> list[str]:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    out = []
    for entry in entries[:MAX_NAMES]:
        name, _, suffix = entry.name.partition(".")
        if name.startswith("_") or not name.isidentifier():
            continue
        try:
            if suffix in ("py", "pyi") or (not suffix and entry.is_dir() and any(
                    (Path(entry.path) / f"__init__.{s}").is_file() for s in ("py", "pyi"))):
                out.append(name)
        except OSError:
            continue
    return sorted(set(out))
