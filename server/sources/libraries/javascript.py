"""JavaScript modules' members: Node's built-in modules and the language's globals from the
shipped table (node_table.py), other modules resolved as Node resolves them
(relative paths; ``node_modules`` up the folders, ``@types`` too; ``package.json``'s ``types``,
``exports``, ``main``), preferring ``.d.ts`` declarations to the JavaScript's exports.
Called on the loader's thread only: it reads the disk.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable
from pathlib import Path

import tree_sitter

from ...engines.base import Kind
from ...languages import JAVASCRIPT, TSX, TYPESCRIPT
from ...receivers import OwnClass, Target, bindings, read_class
from ... import type_paths, written_types
from ...written_types import all_types
from ...words import node_text
from ..parameter_keys import function_named, parameter_keys
from . import package_types
from .declarations import FUNCTION, VARIABLE, Reader
from .module_exports import PROTOTYPE, assigned_members, javascript_module, object_keys, prototype_members
from .members import Member, Members, class_members
from .node_table import builtin, declared_members, global_class, instance, table, table_key
from .node_resolution import file_of, linked, resolve, would_hold
from .project_values import declared_return, enum_members, top_values, unwrapped

log = logging.getLogger(__name__)

MAX_FILE = 2 * 1024 * 1024  # a larger file is not read
STATICS = "<statics>"  # a target's last name where it is a project class itself, not its instance (``Batch.``)
FOLLOW = 4  # re-exports (``module.exports = require('./lib/x')``, ``export * from``) followed this deep
SOURCES = 16  # and at most this many of a module's
_REQUIRED = re.compile(rb"module\.exports\s*=\s*require\(\s*['\"]([^'\"]+)['\"]\s*\)")


def read(folder: Path | None, target: Target, pause: Callable[[], object] = lambda: None,
         depth: int = 0) -> tuple[Members | None, list[str]]:
    """The members of ``target`` (a module specifier and names after it, or a global: module
    ""), and the files they were read from (``depth``: _project_class's)."""
    spec = target.module.removeprefix("node:")
    if not spec and target.names[1:] == ("prototype",):  # an instance of a global class (`'a'.`, `new URL(s).`)
        return instance(target.names[0]), []
    if not spec:
        found = table()["globals"].get(target.names[0]) if len(target.names) == 1 else None
        typed = table().get("types", {}).get(".".join(target.names)) if len(target.names) > 1 else None  # `process.stdout.`
        return (declared_members(target.names[0], found, "global", target.names[0], True) if found else instance(typed, ".".join(target.names))), []
    builtin = table()["modules"]
    if spec in builtin or spec.split("/")[0] in builtin:
        if target.names == ("default",):  # `this.e = new EventEmitter()` of `require('events')`: `events()`
            target = Target(target.module, ("()",))
        name = table_key(target)  # `fs`, `util.inspect` (a namespace of util), `fs.createReadStream()`
        found = builtin.get(name) or (builtin.get("/".join((spec,) + target.names)) if target.names else None)  # `fs/promises`
        if found is None and target.names:  # `fs.createReadStream(p)`, `new EventEmitter()`: an instance
            return instance(table().get("types", {}).get(name), name), []
        return (declared_members(name, found, f"node:{spec}", name) if found else None), []
    if folder is None:
        return None, []
    path = resolve(folder, spec)
    if path is None:  # not there (yet): the folders that an install or a new file changes
        return None, [str(f) for f in would_hold(folder, spec)]
    if target.names and path.name.endswith(DECLARATIONS):
        files: list[str] = []  # `new Client()`, `c: Client`, `create()`, `Client.` of a package's declarations
        itself = target.names[-1:] == (STATICS,)
        found = package_types.members(package_types.read(path, files, pause), target.names[:-1] if itself else target.names, itself)
        if found is None or not found[1]:
            return None, files
        out = declared_members(found[0], found[1], spec, "", True)
        out.complete = found[2]
        return out, files
    own = spec.startswith(".") or "node_modules" not in path.parts or linked(path)  # the project's file (`@/lib/api`: an alias's too)
    if target.names and not own and target.names != ("default",):
        return None, []  # a package's sources: its default export's instance only (`new Koa()`)
    read_from = [str(path)]
    if target.names[-1:] == (STATICS,):  # `import { Batch } from './batch.js'` … `Batch.`: the class itself
        return _project_class(path, target.names[:-1], pause, statics=True, depth=depth, files=read_from), read_from
    if target.names:  # an instance of a class of the project's own: `const { Base } = require('./base')`, `Base` its default
        return _project_class(path, target.names, pause, depth=depth, files=read_from), read_from
    files: list[str] = []
    names, static = _exports(path, files, 0)
    members = declared_members(spec, names, spec, spec) if names else None
    if members is not None and "prototype" in names:  # the module exports a function or a class
        _function_own(members, spec)
    if members is None and own and not path.name.endswith(".d.ts"):
        return _project_class(path, ("default",), pause, values_only=True), files  # `module.exports = [...]`
    if members is not None and own and not path.name.endswith(".d.ts"):
        # the project's own objects take members as it runs (koa's context.app); an ES module's namespace does not
        members.complete = static
    return members, files


def keys_of(folder: Path | None, target: Target, index: int, pause: Callable[[], object] = lambda: None) -> tuple[list[str], list[str]]:
    """The keys an object passed as argument ``index`` to the function a project file or a
    package exports as ``target.names[0]`` (``default``: its default export) may hold, by its
    declarations (package_types.option_keys) or its code (parameter_keys.py), and the files read."""
    path = resolve(folder, target.module) if folder is not None and not builtin(target.module) else None
    if path is None or len(target.names) != 1:
        return [], []
    if path.name.endswith(DECLARATIONS):
        files: list[str] = []
        return package_types.option_keys(package_types.read(path, files, pause), target.names[0], index), files
    data = _source(path)
    if data is None:
        return [], []
    function = function_named((_TYPED.get(path.suffix) or JAVASCRIPT).parser().parse(data).root_node, target.names[0])
    return (parameter_keys(function, index) if function is not None else []), [str(path)]


DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")  # a declaration file's suffixes
_TYPED = {".ts": TYPESCRIPT, ".tsx": TSX, ".mts": TYPESCRIPT, ".cts": TYPESCRIPT}  # a TypeScript file's grammar


def _source(path: Path) -> bytes | None:
    """A project file's bytes (none past MAX_FILE); None, logged, where it cannot be read."""
    try:
        return path.read_bytes() if path.stat().st_size <= MAX_FILE else b""
    except OSError as error:
        log.info("%s not read: %s", path, error)
        return None


def _project_class(path: Path, names: tuple[str, ...], pause: Callable[[], object] = lambda: None,
                   values_only: bool = False, statics: bool = False, depth: int = 0,
                   files: list[str] | None = None) -> Members | None:
    """The members of an instance of a class that a project file defines at its top level by
    ``names[0]`` (``default``: the one ``module.exports`` or ``export default`` names), read as
    the class around the cursor is read (server/receivers.py); not complete where it has bases.
    A variable whose JSDoc names its class: an instance's of that class, read in another file
    where the file imports it (``depth``: such steps taken to get here, at most two; ``files``
    gets the files read). In a TypeScript file, an interface or an object type alias by that
    name too. ``statics``: the class's own members instead (``static``, and assigned to its name
    in the file). A variable or the default export the file initialises with a value: that
    value's (``_value``; ``values_only``: nothing else)."""
    if not names or path.name.endswith(".d.ts"):
        return None
    data = _source(path)
    if data is None:
        return None
    typed = _TYPED.get(path.suffix)
    awaited = names[-1:] == ("await",)
    called = names[:-1] if awaited else names  # `current().`, `Address.from(s).`: what the function returns
    call = 0 < len(called) <= 2 and called[-1].endswith("()") and (len(called) == 1 or not called[0].endswith("()"))
    returns = (*called[:-1], called[-1][:-2]) if call else ()
    if typed is not None:  # `import { Retryer } from './retryer'` … `retryer: Retryer` … `retryer.`
        tree = None
        if (statics and len(names) == 1) or call:  # the name's value or the function is read from the tree, parsed once here
            pause()
            tree = typed.parse(typed.parser(), data)
        types = _typescript_types(typed.name, data, pause, tree)
        if len(names) > 1 and names[0] in types and not statics:  # `a.owner.` of `a: Account`
            return _type_path(path, data, tree, typed, names, types, pause, depth, files)
        if call:
            written = declared_return(tree.root_node, returns, awaited)
            if written in types:
                return _class_or_statics(types[written], data, False, f" from {path.name}")
            return _written_members(written, data, tree, typed, path, pause, depth, files) if written else None
        declared = top_values(tree.root_node).get(names[0]) if tree is not None else None
        if declared is not None:  # the name's value (`ByteUtils.`): of the type written for it, else by its initialiser
            value, written = declared
            if written in types:  # `export const ByteUtils: ByteUtils = ...`
                return _class_or_statics(types[written], data, False, f" from {path.name}")
            if value is not None:  # `export const Aspect = {...}`, an enum
                return _value(value, (), path.name)
        own = types.get(names[0])
        return _class_or_statics(own, data, statics, f" from {path.name}") if own is not None and len(names) == 1 else None
    tree = JAVASCRIPT.parser().parse(data)
    root = tree.root_node
    classes: dict[str, tree_sitter.Node] = {}  # and functions: a constructor's `this.x =` and prototype
    prototypes: dict[str, dict[str, str]] = {}  # `Bar.prototype.run = function` -> {"Bar": {"run": "method"}}
    default = None
    tops = top_values(root)
    values = {name: value for name, (value, _) in tops.items() if value is not None}  # a top-level variable's initialiser
    for node in root.named_children:
        inner = node.child_by_field_name("declaration") or node.child_by_field_name("value") or node
        if inner.type in ("class_declaration", "class", "function_declaration"):
            classes[node_text(inner.child_by_field_name("name"))] = inner
            if node.type == "export_statement" and any(c.type == "default" for c in node.children):
                default = inner
        elif node.type == "expression_statement" and (assigned := node.named_children[0]).type == "assignment_expression":
            left, right = assigned.child_by_field_name("left"), assigned.child_by_field_name("right")
            if node_text(left) == "module.exports" and right is not None:
                default = right if right.type in ("class", *_VALUES) else classes.get(node_text(right), values.get(node_text(right), default))
            elif right is not None and right.type == "class" and node_text(left).startswith(("exports.", "module.exports.")):
                classes[node_text(left).rsplit(".", 1)[1]] = right
            elif right is not None and (owner := PROTOTYPE.fullmatch(node_text(left))) is not None:
                prototype_members(prototypes.setdefault(owner.group(1), {}), owner.group(2), right)
    found = default if names[0] == "default" else classes.get(names[0], values.get(names[0]))
    written = tops[names[0]][1] if names[0] in tops and len(names) == 1 and not values_only else ""
    if call:  # `get_batch().`: what its JSDoc says it returns
        written = declared_return(root, returns, awaited)
        if not written:
            return None
        found, names = None, (names[0],)  # the instance of what it names, as a variable's below (not `await`'s, the method's)
    if written in classes:  # `/** @type {Batch | null} */ export let current_batch = null`, Batch a class of the file
        found, statics = classes[written], False  # the variable itself is an instance
    elif written and (members := _written_members(written, data, tree, JAVASCRIPT, path, pause, depth, files)) is not None:
        return members
    if found is not None and found.type not in ("class_declaration", "class", "function_declaration"):
        return _value(found, names[1:], path.name)  # `export const cache = new Map()`, `module.exports = [...]`
    if found is None or len(names) > 1 or values_only:
        return None
    own = read_class(found, data, "javascript", "")
    if found.type == "function_declaration" and not statics:  # a constructor function: what `this.` and its prototype take
        own.members.update(prototypes.get(own.name, {}))
        if not own.members:
            return None  # a plain function: no instance to speak of
        return class_members(own.name, own.members, False, f" from {path.name}", own.signatures)
    if found.type == "function_declaration":
        own.members, own.statics = {}, set()  # its body's are not the function's own
    return _class_or_statics(own, data, statics, f" from {path.name}", prototype=True)


def _type_path(path: Path, data: bytes, tree: tree_sitter.Tree | None, language, names: tuple[str, ...], types: dict,
               pause: Callable[[], object], depth: int, files: list[str] | None) -> Members | None:
    """The members of what the steps ``names[1:]`` (``owner``, ``holder()``) give from the type
    ``names[0]`` that a project's TypeScript file declares (type_paths.resolve), read on in the
    module the file imports a type from (at most two such steps away), else a global class's.
    ``tree``: the file's, where the caller parsed it."""
    if tree is None:
        pause()
        tree = language.parse(language.parser(), data)
    walked = type_paths.resolve(tree.root_node, names[0], names[1:])
    if walked is None:
        return None
    kind, rest = walked
    if not rest and kind in types:
        return _class_or_statics(types[kind], data, False, f" from {path.name}")
    if not rest:
        return _written_members(kind, data, tree, language, path, pause, depth, files)
    origin = bindings(tree, language, [(0, len(data))]).get(kind)
    if origin is None or not origin.names or depth >= 2:
        return None
    members, more = read(path.parent, Target(origin.module, (*origin.names, *rest)), pause, depth + 1)
    if files is not None:
        files += more
    return members


def _written_members(written: str, data: bytes, tree: tree_sitter.Tree, language, path: Path, pause: Callable[[], object],
                     depth: int, files: list[str] | None) -> Members | None:
    """An instance's members of the class ``written`` that a project file names and does not
    define: one it imports (by ES or JSDoc ``@import``, read at most two such steps away; the file
    read added to ``files``), else a global one (``Map``)."""
    target = {**written_types.jsdoc_imports(data), **bindings(tree, language, [(0, len(data))])}.get(written)
    members, more = read(path.parent, target, pause, depth + 1) if target is not None and depth < 2 else (None, [])
    if files is not None:
        files += more
    return members or instance(global_class(written))


def class_statics(own: OwnClass, data: bytes) -> Members | None:
    """A class the buffer defines, seen as itself (``Foo.``): its static members, those the
    buffer assigns to its name, its ``prototype``."""
    return _class_or_statics(own, data, True, "", prototype=True)


def _class_or_statics(own: OwnClass, data: bytes, statics: bool, source: str, prototype: bool = False) -> Members | None:
    """An instance's members of the class ``own`` read from ``data`` (its statics left out), or
    with ``statics`` the class's own: its ``static`` members, those the file assigns to its name
    (``AxiosError.ERR_BAD_REQUEST = ...``) and, with ``prototype`` (a JavaScript class or
    function), its ``prototype``; None where it has none. Never a ``#private`` member: this is
    the class seen from outside."""
    complete = not own.dynamic and not own.bases
    outside = {n: k for n, k in own.members.items() if not n.startswith("#")}
    if not statics:
        return class_members(own.name, {n: k for n, k in outside.items() if n not in own.statics or n in own.dual}, complete, source, own.signatures)
    members = {n: k for n, k in outside.items() if n in own.statics} | ({"prototype": "attribute"} if prototype else {})
    for name, kind in assigned_members(data, own.name).items():
        members.setdefault(name, "method" if kind == FUNCTION else "attribute")
    return class_members(own.name, members, complete, source, own.signatures) if members else None


_VALUES = {"array": "Array", "string": "String", "template_string": "String", "regex": "RegExp"}


def _value(node: tree_sitter.Node, names: tuple[str, ...], source: str) -> Members | None:
    """The members of a value a project file exports, by its initialiser: an instance of a
    global class (``new Map()``), a literal (``[...]``: an array's), an object literal's keys (not
    complete: an object takes keys as the program runs), a key of it after ``names``
    (``raf.tasks`` of ``{ tasks: new Set() }``); a frozen object's keys (``Object.freeze({...})``)
    and an enum's members, complete."""
    node, frozen = unwrapped(node)
    if node.type == "enum_declaration" and not names:
        enum, detail = Members(source), f"of enum {node_text(node.child_by_field_name('name'))} from {source}"
        for name in enum_members(node):
            enum.add(name, Kind.ENUM_MEMBER, detail, origin=source)
        return enum if enum.names else None
    for name in names:
        if node.type != "object":
            return None
        pair = next((p for p in node.named_children if p.type == "pair" and node_text(p.child_by_field_name("key")).strip("'\"") == name), None)
        if pair is None or pair.child_by_field_name("value") is None:
            return None
        node = pair.child_by_field_name("value")
    if node.type == "object":
        keys: dict[str, str] = {}
        object_keys(node, keys, {})
        found = declared_members(source, keys, source, "", True) if keys else None
        if found is not None:
            found.complete = frozen and not names
        return found
    made = node.child_by_field_name("constructor") if node.type == "new_expression" else None
    return instance(node_text(made) if made is not None and made.type == "identifier" else _VALUES.get(node.type))


_TYPES: dict[tuple[str, bytes], dict] = {}  # (language, a digest of a file's bytes) -> its types; the loader's thread only
TYPES_KEPT = 64  # files whose types are kept


def forget() -> None:
    """Memory: drop the TypeScript files' types kept (the loader's thread)."""
    _TYPES.clear()


def _typescript_types(language: str, data: bytes, pause: Callable[[], object], tree: tree_sitter.Tree | None = None) -> dict:
    """The types a project's TypeScript file declares at its top level (written_types.all_types),
    read once for the several names a buffer imports from it, parsed once ``pause`` lets it
    (the loader's gate), where the caller has not parsed it (``tree``)."""
    key = (language, hashlib.blake2b(data, digest_size=16).digest())
    if key not in _TYPES:
        if len(_TYPES) >= TYPES_KEPT:
            _TYPES.pop(next(iter(_TYPES)))
        if tree is None:
            pause()
            grammar = TSX if language == TSX.name else TYPESCRIPT
            tree = grammar.parse(grammar.parser(), data)
        _TYPES[key] = all_types(tree.root_node, data)
    return _TYPES[key]


FUNCTION_OWN = {"call": "(thisArg, ...args)", "apply": "(thisArg, args?)", "bind": "(thisArg, ...args)",
                "toString": "()", "length": "", "name": ""}  # what every function has (lib.es5.d.ts's Function)


def _function_own(members: Members, where: str) -> None:
    """A function's own members, listed after the rest (``Members.after``): kept out of the ranked
    items, where they were behind on the validation split (docs/decisions.md)."""
    for name, parameters in FUNCTION_OWN.items():
        kind = Kind.METHOD if parameters else Kind.PROPERTY
        shown = f"{name}{parameters} " if parameters else ""
        members.after[name] = Member(name, kind, f"{shown}of Function, {where}", signature=parameters, origin="Function")


def _exports(path: Path, files: list[str], depth: int) -> tuple[dict[str, str], bool]:
    """What the module at ``path`` exports, name -> kind, with what it re-exports (``export * from``,
    ``module.exports = require(...)``) FOLLOW deep; and whether that is all its namespace holds:
    an ES module of JavaScript whose every re-export was read and is one too."""
    try:
        if path.stat().st_size > MAX_FILE:
            return {}, False
        data = path.read_bytes()
    except OSError as error:
        log.info("%s not read: %s", path, error)
        return {}, False
    files.append(str(path))
    if b"\0" in data[:1024]:
        return {}, False  # binary
    static = False
    if path.name.endswith((".d.ts", ".ts")):
        reader = Reader()
        scope = reader.read(data)
        names = scope.members(reader.interfaces)
        sources = scope.export_from
    elif path.suffix == ".json":  # `const pkg = require('./package.json')`: its keys
        try:
            parsed = json.loads(data)
        except ValueError:
            parsed = None
        names = {key: VARIABLE for key in parsed if isinstance(key, str)} if isinstance(parsed, dict) else {}
        sources = []
    else:
        module = javascript_module(data)
        names, static = module.names, module.static
        sources = module.export_from + [m.group(1).decode("utf-8", "replace") for m in _REQUIRED.finditer(data)]
        if module.spreads:  # `{ ...utils }` of `import * as utils from './utils.js'`: that module's names
            bound = bindings(module.tree, JAVASCRIPT, [(0, len(data))])
            sources += [bound[name].module for name in module.spreads if name in bound and not bound[name].names]
    static = static and (not sources or depth < FOLLOW) and len(sources) <= SOURCES
    for source in sources[:SOURCES] if depth < FOLLOW else ():
        found = file_of(path.parent / source) if source.startswith(".") else None
        if found is not None and str(found) in files:
            continue  # read already (a cycle, or two re-exports of one module): its names are in
        more, whole = _exports(found, files, depth + 1) if found is not None else ({}, False)
        static = static and whole
        for name, kind in more.items():
            names.setdefault(name, kind)
    return names, static
