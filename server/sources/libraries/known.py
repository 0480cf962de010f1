"""The members of the receiver before a dot, where the buffer says what it is
(server/receivers.py) and its library or class can be read: what the fallback engine offers
and ranks first after that dot.

Everything read from disk goes through the loader (loader.py): the environment a document's
imports come from, each module or class. A request uses what is read and asks for the rest.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote, urlparse

from ... import calls, file_classes, receivers, scope, type_paths, written_types
from ...context import ATTRIBUTE, CompletionContext
from ...document import Document
from ...languages import LanguageSpec
from .. import imports
from . import javascript, node_table, package_types, path_aliases
from ...recent import Recent
from ..installed import environment_of
from ..reader_process import ReaderProcess
from .loader import Loader
from .members import Members, class_members
from .node_resolution import file_of
from .python import PythonLibraries
from .python_definitions import ENUM_BASES
from .python_environment import environment, import_folders, import_root, linked_folders, project_module

log = logging.getLogger(__name__)

BASES = 3  # classes of the file followed this deep
ENVIRONMENTS = 4  # Python environments whose parsed modules are kept: the most recently used
BUILTINS = receivers.Target("builtins")  # what a name no import binds may be (`print(`, `open(`)


class Libraries:
    def __init__(self, quiet=lambda: True, separate: bool = False):
        """``quiet``: whether the server is quiet, for the reads nothing waits for (loader.py).
        ``separate``: Python's modules are parsed in a child process (reader_process.py), as the
        server does; else on the loader's thread."""
        self.loader = Loader(quiet)
        self.reader = ReaderProcess(ENVIRONMENTS) if separate else None
        self.python_path = ""  # the pythonPath setting
        self.roots: list[Path] = []  # the workspace folders
        # by environment, the most recently used last (the loader's thread)
        self._python: OrderedDict[tuple[Path, ...], PythonLibraries] = OrderedDict()
        self._cleared = False  # clear() asked the loader's thread to drop what it keeps (_forget)
        self._environments: dict[tuple[Path | None, str], tuple[Path, ...]] = {}  # by folder and pythonPath (ditto)
        self._bindings: Recent[str, tuple[bytes, dict[str, receivers.Target]]] = Recent(256)  # uri -> (bytes read, bindings)

    def members(self, context: CompletionContext) -> Members | None:
        """After a dot, the receiver's members where they are known (and read)."""
        if context.category != ATTRIBUTE or context.tree is None or context.language.name not in receivers.OWN:
            return None
        bound = self.bindings(context)
        head = (receivers.chain(context.receiver) or [])[:1]
        if head and head[0] in bound and (start := scope.local_to(context.language.name, context.target, context.data,
                                                                   context.prefix_start, head[0])) is not None:
            line = context.data.rfind(b"\n", 0, context.prefix_start) + 1
            if head[0] not in receivers.bindings(context.tree, context.language, [(start, max(start, line))]):
                bound = {name: target for name, target in bound.items() if name != head[0]}  # not the import: a local
        own = receivers.own_class(context)
        if own is not None:
            return self._class(context, own, bound, 0)
        constructed = file_classes.constructed_in_file(context, bound)
        if constructed is not None:  # `const c = new Cache()` … `c.`, Cache defined in the file
            return self._class(context, file_classes.instance_side(context, constructed, bound), bound, 0)
        if (itself := file_classes.class_itself(context, bound)) is not None:
            cls, view = itself
            if view != file_classes.CLASS:  # `Color.RED.`, `A().`, `new Foo().`: what an instance has
                return self._class(context, file_classes.instance_side(context, cls, bound), bound, 0)
            if context.language.name == "python":  # `Color.`: the class's and its bases', not enum.Enum's `name`
                cls = replace(cls, bases=[b for b in cls.bases if b.rpartition(".")[2] not in ENUM_BASES])
                return self._class(context, cls, bound, 0)
            statics = self._statics(context, cls, bound, 0)  # `Foo.`: its static members and its prototype, its bases' statics
            if statics is not None:
                return statics
        target = receivers.target_of(context, bound)
        if target is not None and _project_class_itself(context, target, bound):  # `Batch.`, not `b = new Batch()` … `b.`
            target = receivers.Target(target.module, (*target.names, javascript.STATICS))
        returned = None
        if context.language.name != "python" and (called := calls.call_result(context, bound)) is not None:
            if node_table.typed(called):  # `const s = fs.createReadStream(p)` … `s.`: what it returns
                target = called
            elif called.names == ("()",) and not node_table.builtin(called.module):  # `new Foo()` of `require('./foo')`
                target = receivers.Target(called.module, ("default",))  # the instance of the class it exports
            elif target is None and _own(context.uri, called.module, context.language.name):
                returned = called  # `get_batch()` of a project file: what its JSDoc says it returns, below
            elif target is None and called.module and not node_table.builtin(called.module):
                target = called  # `const c = createClient()` of a package: what its declarations say it returns
        wanted = written_types.declared_type_name(context) if target is None else None  # `user: User` … `user.`
        if target is None and wanted is None and (walked := type_paths.walked(context)) is not None:
            wanted, rest = walked  # `a.owner.`, `a.holder().` of `a: Account`: the type the file's own types lead to
            origin = bound.get(wanted) if rest else None  # the rest is read where that type is declared
            if origin is not None and origin.names and not node_table.builtin(origin.module):  # a module the buffer imports
                found = self._target(context, receivers.Target(origin.module, (*origin.names, *rest)))
                return replace(found, declared=True) if found is not None else None
            if rest:
                wanted = None  # nowhere to read it (`s.split(',').` of `s: string`): the readings below
        if wanted is not None and (typed := written_types.type_members(context.tree.root_node, context.data, wanted)):
            found = self._class(context, file_classes.instance_side(context, typed, bound), bound, 0)  # declared in the file
            found.declared = True
            return found
        if wanted is not None and wanted not in bound and context.language.name == "javascript":  # `@param {Batch} b`
            bound = {**written_types.jsdoc_imports(context.data[:receivers.BINDINGS_READ]), **bound}  # of `@import { Batch }`
        if wanted in bound and bound[wanted].names and not node_table.builtin(bound[wanted].module):  # a project file's, a package's
            found = self._target(context, bound[wanted])
            return replace(found, declared=True) if found is not None else None
        if target is None and wanted is not None and (named := node_table.global_class(wanted)) is not None:
            found = self._target(context, receivers.Target("", (named, "prototype")))  # `s: string`, `m: Map<K, V>`
            return replace(found, declared=True) if found is not None else None
        if target is None and returned is not None and (found := self._target(context, returned)) is not None:
            return found
        if target is None:  # `str(value).`, `", ".`, `new URL(s).`, `Object.keys(o).`: a builtin class's instance
            target = receivers.builtin_instance(context)
        if target is None and wanted is None and (held := file_classes.attribute_holder(context, bound)) is not None:
            inner = file_classes.class_in_file(context, held[0]) if len(held) == 1 and held[0] not in bound else None
            if inner is not None:  # `c.owner.` of `c = Item()`, Item's `owner: Owner`, both the file's classes
                return self._class(context, file_classes.instance_side(context, inner, bound), bound, 0)
            target = receivers.held_target(context, held, bound)
        if target is None and wanted is None and (named := self._named_like(context, bound)) is not None:
            return named
        if target is None and context.language.name != "python":  # `Math.`, `JSON.`, `process.`: a global's
            names = receivers.chain(context.receiver)
            target = receivers.Target("", tuple(names)) if names and len(names) == 1 else None
            if names and len(names) == 2 and node_table.typed(global_property := receivers.Target("", tuple(names))):
                target = global_property  # `process.stdout.`
        return self._target(context, target) if target is not None else None

    def _named_like(self, context: CompletionContext, bound: dict[str, receivers.Target]) -> Members | None:
        """A receiver named as a class the buffer imports from the project or defines (``option.``
        with ``Option`` imported, ``http_client.`` with ``class HttpClient``): that class's members,
        as a guess (not complete: the other words are not lowered)."""
        names = receivers.chain(context.receiver)
        if not names or len(names) != 1 or not names[0][:1].islower():
            return None
        word = names[0].lstrip("_")
        name = "".join(p[:1].upper() + p[1:] for p in word.split("_")) if "_" in word else word[:1].upper() + word[1:]
        target = bound.get(name)
        found = None
        if target is not None and target.names and _own(context.uri, target.module, context.language.name):
            found = self._target(context, target)
        elif target is None and (inner := file_classes.class_in_file(context, name)) is not None:
            found = self._class(context, inner, bound, 0)
        return replace(found, complete=False) if found is not None else None

    def import_members(self, context: CompletionContext) -> Members | None:
        """Where the cursor names what ``from m import`` (``import { | } from 'm'``) takes, the
        members of a library module ``m`` (not the project's: server/sources/imports.py has those)."""
        found = imports.from_import(context)
        if found is None or found[0] or not found[1] or found[1].startswith("."):
            return None
        return self._target(context, receivers.Target(found[1]))

    def bindings(self, context: CompletionContext) -> dict[str, receivers.Target]:
        """The names the buffer's imports bind: in the file's head and the window before the cursor."""
        lo = max(receivers.BINDINGS_READ, context.prefix_start - receivers.BINDINGS_READ)
        line = context.data.rfind(b"\n", 0, context.prefix_start) + 1
        ranges = [(0, min(receivers.BINDINGS_READ, line))] + ([(lo, line)] if lo < line else [])
        return self._bound(context.uri, context.tree, context.language, context.data, ranges)

    def opened(self, doc: Document) -> None:
        """A document opened: the modules its imports name are read ahead of the first dot (and
        Python's builtins, which a call's keyword arguments and `print(` need), and in TypeScript
        the types it imports from the project's files (``user: User`` … ``user.``)."""
        if doc.tree is not None and doc.language is not None and doc.language.name in receivers.OWN:
            if doc.language.name == "python":
                reader = self.reader
                if reader is not None and not reader.running() and not reader.unavailable:  # started beside the open
                    threading.Thread(target=reader.warm, name="treecomplete-reader-start", daemon=True).start()
                self._read("python", _folder(doc.uri), BUILTINS, ask=False)
            bound = self._bound(doc.uri, doc.tree, doc.language, doc.data, [(0, min(receivers.BINDINGS_READ, len(doc.data)))])
            if doc.language.name in receivers.TYPED:
                folder = _folder(doc.uri)
                for target in {t for t in bound.values() if t.names and _own(doc.uri, t.module, doc.language.name)}:
                    self._read(doc.language.name, folder, target, ask=False)

    def _bound(self, uri: str, tree, language: LanguageSpec, data: bytes, ranges: list[tuple[int, int]]) -> dict[str, receivers.Target]:
        """Cached while the bytes they are read from stay the same; the modules they name are
        asked for at once (`json.` is typed after `import json`)."""
        key = b"".join(data[a:b] for a, b in ranges)
        cached = self._bindings.get(uri)
        if cached is not None and cached[0] == key:
            return cached[1]
        bound = receivers.bindings(tree, language, ranges)
        self._bindings[uri] = (key, bound)
        folder = _folder(uri)
        for target in {receivers.Target(t.module) for t in bound.values()}:
            self._read(language.name, folder, target, ask=False)
        return bound

    def forget(self, uri: str) -> None:
        self._bindings.pop(uri, None)

    def keys_of(self, context: CompletionContext, target: receivers.Target, index: int) -> list[str] | None:
        """The keys an object passed as argument ``index`` to the project's function ``target``
        may hold (javascript.keys_of), where they are read."""
        folder = _folder(context.uri)
        return self.loader.get(("javascript-keys", folder, target, index), lambda: javascript.keys_of(folder, target, index, self.loader.gate))

    def read_target(self, context: CompletionContext, target: receivers.Target) -> Members | None:
        """The members of ``target`` as a document at ``context`` finds it, where they are read."""
        return self._target(context, target)

    def _target(self, context: CompletionContext, target: receivers.Target) -> Members | None:
        return self._read(context.language.name, _folder(context.uri), target)

    def _read(self, language: str, folder: Path | None, target: receivers.Target, ask: bool = True) -> Members | None:
        """What ``target`` names, where it is read; ``ask``: a request needs it (it may wait for it)."""
        # per folder and the environment it has now (a .venv or node_modules made later: read anew)
        found = environment_of(str(folder), language == "python") if folder is not None else ()
        if language == "python":  # its environment is found on the loader's thread; read once per environment
            python_path = self.python_path
            return self.loader.get(("python", folder, found, python_path, target),
                                   lambda: self._read_python(folder, python_path, target), ask)
        return self.loader.get(("javascript", folder, found, target), lambda: self._javascript(folder, target), ask)

    def _javascript(self, folder: Path | None, target: receivers.Target) -> tuple[Members | None, list[str]]:
        self._forget_if_cleared()
        return javascript.read(folder, target, self.loader.gate)

    def _read_python(self, folder: Path | None, python_path: str, target: receivers.Target) -> tuple[Members | None, list[str]]:
        """A Python target read in the environment of ``folder``, and with the project's own
        package where the import names it (``from .core import Base``) (the loader's thread)."""
        env = self._environment(folder, python_path)
        module = target.module
        own = project_module(folder, module) if folder is not None else None
        if own is not None:
            root, module = own
            env = env if root in env else (*env, root)
        elif module.startswith("."):
            return None, []
        elif folder is not None and self._libraries(env).find(module.split(".")[0]) is None:
            root = import_root(folder, module.split(".")[0], self._workspace(folder))
            if root is None:  # not made yet: read again once a folder it would be made in changes
                members, files = self._libraries(env).read(".".join((module,) + target.names))
                return members, files + [str(f) for f in import_folders(folder, self._workspace(folder)) if f.is_dir()]
            env = env if root in env else (*env, root)
        return self._libraries(env).read(".".join((module,) + target.names))

    def _workspace(self, folder: Path) -> Path | None:
        return next((r for r in self.roots if folder == r or r in folder.parents), None)

    def _environment(self, folder: Path | None, python_path: str) -> tuple[Path, ...]:
        """The environment of a document's folder (on the loader's thread: it looks at the disk)."""
        key = (folder, python_path, environment_of(str(folder), True) if folder is not None else ())
        if key not in self._environments:
            self._environments[key] = environment(folder, self._workspace(folder) if folder is not None else None, python_path)
        found = self._environments[key]
        return found + linked_folders(found)  # editable installs, as their .pth files have them now

    def clear(self) -> None:
        """Memory: forget what was read (the loader's entries, the environments' parsed modules,
        the packages' declarations and TypeScript files' types: now where no read is under way,
        else on the loader's thread before its next read)."""
        if self.reader is not None:
            self.reader.release()  # its parsed modules go now, whatever the loader does
        if not self.loader.clear(self._forget):
            self._cleared = True

    def _forget(self) -> None:
        self._python.clear()
        package_types.forget()
        javascript.forget()

    def _forget_if_cleared(self) -> None:
        if self._cleared:
            self._forget()
            self._cleared = False

    def _libraries(self, env: tuple[Path, ...]) -> PythonLibraries | _InChild:
        self._forget_if_cleared()
        if env not in self._python:
            self._python[env] = _InChild(self.reader, env, self.loader.gate) if self.reader is not None \
                else PythonLibraries(env, self.loader.gate)
            while len(self._python) > ENVIRONMENTS:  # each keeps up to python.PARSED bytes of parsed modules
                self._python.popitem(last=False)
        self._python.move_to_end(env)
        return self._python[env]

    def _class(self, context: CompletionContext, own: receivers.OwnClass, bound: dict, depth: int) -> Members:
        """The class's own members, then its bases': in the file, or imported."""
        out = class_members(own.name, own.members, not own.dynamic, signatures=own.signatures)
        for base in own.bases:
            head, _, rest = base.partition(".")
            found: Members | None = None
            if head in bound:
                target = bound[head]
                names = target.names + tuple(filter(None, rest.split(".")))
                if not names and context.language.name == "javascript" and target.module.startswith("."):
                    names = ("default",)  # `const Base = require('./base')`: the class the file exports
                elif context.language.name != "python" and node_table.builtin(target.module):  # `extends Transform`
                    names = (*names[:-1], names[-1] + "()") if names else ("()",)  # of Node's: its instance
                found = self._target(context, receivers.Target(target.module, names))
            elif not rest and depth < BASES and (inner := file_classes.class_in_file(context, head)) is not None:
                found = self._class(context, inner, bound, depth + 1)
            _inherit(out, found)
        return out

    def _statics(self, context: CompletionContext, own: receivers.OwnClass, bound: dict, depth: int) -> Members | None:
        """A JavaScript class of the file seen as itself (``Foo.``): its statics (javascript.class_statics),
        then its bases', which it inherits: a base the file defines, or one an import binds to a
        project file's or a package's class."""
        out = javascript.class_statics(own, context.data)
        if out is None or not own.bases:
            return out
        out.complete = not own.dynamic
        for base in own.bases:
            found: Members | None = None
            if base in bound and not node_table.builtin(bound[base].module):
                target = bound[base]  # `class B extends A`, A imported by name or as a file's default export
                found = self._target(context, receivers.Target(target.module, (*(target.names or ("default",)), javascript.STATICS)))
            elif depth < BASES and (inner := file_classes.class_in_file(context, base)) is not None:
                found = self._statics(context, inner, bound, depth + 1)
            _inherit(out, found)
        return out


def _inherit(out: Members, found: Members | None) -> None:
    """A base's members (``found``; None where it could not be read) after the class's own."""
    if found is None:
        out.complete = False
        return
    out.complete = out.complete and found.complete
    for member in found.names.values():
        out.take(member)


class _InChild:
    """An environment's PythonLibraries in the reader process: each call waits at the loader's
    gate first. Where no child can start, in the server's process."""

    def __init__(self, reader: ReaderProcess, env: tuple[Path, ...], pause):
        self._reader, self._env, self._pause = reader, env, pause
        self._here: PythonLibraries | None = None

    def read(self, dotted: str) -> tuple[Members | None, list[str]]:
        return self._call("read", dotted)

    def find(self, dotted: str) -> Path | None:
        return self._call("find", dotted)

    def _call(self, op: str, dotted: str):
        if not self._reader.unavailable:
            self._pause()
            try:
                return getattr(self._reader, op)(self._env, dotted)
            except RuntimeError:
                if not self._reader.unavailable:
                    raise
        if self._here is None:
            self._here = PythonLibraries(self._env, self._pause)
        return getattr(self._here, op)(dotted)


def _project_class_itself(context: CompletionContext, target: receivers.Target, bound: dict[str, receivers.Target]) -> bool:
    """Whether the receiver is a name that a JavaScript or TypeScript import binds to what a
    project file or a package exports by name (``import { Batch } from './batch.js'`` … ``Batch.``)."""
    names = receivers.chain(context.receiver)
    return (context.language.name != "python" and not node_table.builtin(target.module) and len(target.names) == 1
            and target.names[0] != "default" and names is not None and len(names) == 1 and bound.get(names[0]) == target)


def _own(uri: str, module: str, language: str) -> bool:
    """Whether an import of ``module`` in the file ``uri`` names a file of the project: a relative
    one, or (JavaScript, TypeScript) a tsconfig path alias that leads to a file (``@/lib/api``)."""
    if module.startswith("."):
        return True
    folder = _folder(uri) if language != "python" else None
    return folder is not None and path_aliases.mapped(folder, module, file_of) is not None


def _folder(uri: str) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path)).parent
