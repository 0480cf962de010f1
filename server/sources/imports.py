"""Import positions and module lookups: where the identifier at the cursor is part of an import,
which modules the code before the cursor imports, and which files of the project those are.

- A module position (Python): the identifier starts the module path of an import (``import |``,
  ``from |``). There what cannot name a module (builtins, what the buffer's imports bind) comes
  last.
- An import's name: the identifier names what an import takes (``from m import |``, ``import {
  a, | }``, ``const { a, | } = require('./m')``). There the names the buffer's imports bind
  already are not offered again, and what the project's file for ``m`` defines comes first.
- The imported modules: the names in Python's import statements, the last part of a JavaScript
  module path; the words of the project's files so named (``Imported``) rank above the
  project's other words.

Read from the syntax tree with the languages' imports queries (server/languages.py), and from
the text where unfinished code parses as an error. The project's files come from its index
(server/sources/project.py); nothing here reads the disk but a tsconfig's path aliases
(sources/libraries/path_aliases.py, cached).
"""

from __future__ import annotations

import bisect
import builtins
import functools
import heapq
import posixpath
import re
from collections import Counter
from pathlib import Path, PurePath, PurePosixPath

import tree_sitter

from ..context import CompletionContext, aliased_at
from ..languages import LanguageSpec
from .libraries import path_aliases
from .project import Snapshot, module_name

# Python's builtins, with self and cls: never the module an import names.
BUILTIN_NAMES = frozenset(dir(builtins)) | {"self", "cls"}
IMPORT_NAMES = frozenset({"import_specifier", "named_imports", "import_clause", "namespace_import"})  # JavaScript
EXPORT_NAMES = frozenset({"export_specifier", "export_clause"})  # JavaScript's `export { a, | }` (`from` or not)
_EXPORTED = "(export_specifier name: (_) @name)"
IMPORTED_NAME_LIST = frozenset({"identifier", "dotted_name", "aliased_import", "import_specifier", "named_imports",
                                ",", "(", "{", "as"})  # what may stand between `import` and such a name
IMPORTS = 32 * 1024  # imports are read in the file's first 32 KB
EXPORTS_READ = 64 * 1024  # at an export clause, what is exported already is read this far back
# The first part of the module paths that Python's imports name.
_PY_IMPORT_ROOTS = """
(import_statement name: (dotted_name . (identifier) @root))
(import_statement name: (aliased_import name: (dotted_name . (identifier) @root)))
(import_from_statement module_name: (dotted_name . (identifier) @root))
"""

_FROM_IMPORT = re.compile(rb"\bfrom[ \t]+(\.*)([\w.]*)[ \t]+import\b")
_FROM_BEFORE = re.compile(rb"\bfrom[ \t]+\.*\Z")  # `from .` before a module's first name
# After that name, the rest of it and the names the import takes: `ent import (a, b as c`
_IMPORT_AFTER = re.compile(rb"\w*[ \t]+import[ \t]+\(?[ \t\r\n]*((?:[A-Za-z_]\w*(?:[ \t]+as[ \t]+[A-Za-z_]\w*)?"
                           rb"[ \t\r\n]*,[ \t\r\n]*)*[A-Za-z_]\w*)")
FROM_READ = 4096  # bytes before the cursor searched for the `from m import` it continues
# The rest of a JavaScript import after the cursor, where it names its module: `b } from './m'`,
# or CommonJS's `b } = require('./m')`.
_JS_FROM_AFTER = re.compile(rb"[^;{]*?\}[ \t\r\n]*(?:from|=[ \t\r\n]*require[ \t]*\()[ \t\r\n]*(['\"])([^'\"\r\n]+)\1")
_JS_SUFFIXES = ("", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", "/index.js", "/index.ts")


def imports_end(context: CompletionContext) -> int:
    """Where imports are read up to: the cursor's line start (so that typing on a line reuses
    what was read), within the file's first IMPORTS bytes."""
    return min(context.data.rfind(b"\n", 0, context.prefix_start) + 1, IMPORTS)


def imported_modules(tree: tree_sitter.Tree, language: LanguageSpec, hi: int) -> frozenset[str]:
    """The module names that code before byte ``hi`` imports: every name in Python's import
    statements, the last part of a JavaScript module path (its folder's for an index file)."""
    cursor = tree_sitter.QueryCursor(language.imports)
    cursor.set_byte_range(0, hi)
    names: set[str] = set()
    for capture, nodes in cursor.captures(tree.root_node).items():
        for node in nodes:
            text = node.text or b""
            if capture == "import":
                names.update(w.decode("utf-8", "replace") for w in language.identifier_pattern.findall(text))
            elif capture == "source":
                names.add(module_name(PurePosixPath(text.decode("utf-8", "replace").strip("'\"`"))))
    return frozenset(names - language.reserved_set)


def _module_roots(tree: tree_sitter.Tree, language: LanguageSpec, hi: int) -> set[str]:
    """The top-level packages that Python code before byte ``hi`` imports from (``a`` of
    ``import a.b as c`` and of ``from a.b import c``; not what they bind, not relative imports)."""
    cursor = tree_sitter.QueryCursor(_roots_query(language))
    cursor.set_byte_range(0, hi)
    return {(node.text or b"").decode("utf-8", "replace") for node in cursor.captures(tree.root_node).get("root", ())}


@functools.cache
def _roots_query(language: LanguageSpec) -> tree_sitter.Query:
    return tree_sitter.Query(language.language, _PY_IMPORT_ROOTS)


def module_position(context: CompletionContext) -> bool:
    """Whether the identifier at the cursor starts the module path of an import (Python):
    ``import o``, ``from o``, ``from .o``, ``import a, o``, ``import o as p``."""
    target = context.target
    parent = target.parent if target is not None else None
    if parent is None or not context.language.modules:
        return False
    if parent.type == "ERROR":  # `from o` with no `import` yet
        before = target.prev_sibling
        return before is not None and before.type in ("import", "from")
    if parent.type != "dotted_name" or parent.start_byte != target.start_byte or parent.parent is None:
        return False
    if parent.parent.type == "relative_import":  # `from .o`, finished or not
        return parent.parent.parent is not None and parent.parent.parent.type in ("import_from_statement", "ERROR")
    statement = parent.parent.parent if parent.parent.type == "aliased_import" else parent.parent
    if statement.type == "import_statement":
        return True
    module = statement.child_by_field_name("module_name") if statement.type == "import_from_statement" else None
    return module is not None and module.start_byte == parent.start_byte


_ALIAS_AFTER = re.compile(rb"[\w.]*[ \t]+as[ \t]+([A-Za-z_]\w*)")  # `typing_extensions| as te`


def alias_after(context: CompletionContext) -> str | None:
    """Inside a file, at ``import |`` before `` as te``, the alias: the module is named so that
    its initials (``typing_extensions``) or its start (``typing`` for ``t``) give it."""
    found = _ALIAS_AFTER.match(context.data, context.cursor) if context.language.modules else None
    return found.group(1).decode("utf-8", "replace") if found is not None and module_position(context) else None


def abbreviates(alias: str, module: str) -> bool:
    """Whether ``alias`` is the initials of ``module``'s words (``te``: typing_extensions), or
    its first letter (``t``: typing)."""
    parts = [p for p in re.split(r"[_.]", module) if p]
    return module != alias and ("".join(p[0] for p in parts) == alias or (len(alias) == 1 and module.startswith(alias)))


def modules_defining(context: CompletionContext, project: Snapshot, path: str | None) -> set[str]:
    """At the module of a Python ``from | import a, b`` whose names follow the cursor (inside a
    file), the project's modules (as imports call them) that a file other than the buffer's
    defines every one of: ``_client`` at ``from ._c| import AsyncClient, Client``."""
    if context.language.name != "python" or not module_position(context):
        return set()
    data, start = context.data, context.prefix_start
    if _FROM_BEFORE.search(data, max(0, start - 64), start) is None:
        return set()
    found = _IMPORT_AFTER.match(data, context.cursor, min(len(data), context.cursor + FROM_READ))
    if found is None:
        return set()
    names = {piece.split()[0].decode("utf-8", "replace") for piece in found.group(1).split(b",") if piece.split()}
    prefix = context.prefix.lower()
    return {module for module, paths in project.modules.items() if module.lower().startswith(prefix)
            and any(p != path and names <= project.files[p].defined for p in paths)}


def not_modules(context: CompletionContext) -> frozenset[str]:
    """At a Python module position (``import |``, ``from |``), the words that cannot be the
    module a new import names: builtins, ``self`` and ``cls``, and what the buffer's imports
    bind (``Markup`` of ``from markupsafe import Markup``, ``t`` of ``import typing as t``)
    but the packages they import from and the standard library's modules; elsewhere none.
    (An unknown lowercase word may be a third-party package: it keeps its place.) Not after
    ``from .``: there a sibling module is named again (``from . import nodes``, then ``from
    .nodes import Node``)."""
    if context.tree is None or not module_position(context) or _relative(context):
        return frozenset()
    hi = imports_end(context)
    bound = imported_modules(context.tree, context.language, hi) - _module_roots(context.tree, context.language, hi)
    return (BUILTIN_NAMES | bound) - frozenset(context.language.modules)


def _relative(context: CompletionContext) -> bool:
    """Whether the module path at the cursor is relative (``from .o``)."""
    parent = context.target.parent if context.target is not None else None
    return parent is not None and parent.parent is not None and parent.parent.type == "relative_import"


def listed_names(context: CompletionContext) -> set[str] | None:
    """Where the identifier at the cursor names what an import takes from a module (``from m
    import x``, ``from m import (a, x``, ``import { a, x }``, ``import x from``) or what an export
    clause names (``export { a, x }``, ``export { x } from``), the names that an unfinished import
    or export lists before it (none for a finished import, whose names the definitions query
    finds), and at an export the names the code before it exports already; elsewhere None."""
    listed = _listed_before(context) if context.tree is not None else None
    if listed is None:
        return None
    names = {w.decode("utf-8", "replace") for t, text in listed if t in ("identifier", "dotted_name")
             for w in context.language.identifier_pattern.findall(text)}
    if _exporting(context):
        names |= _exported_before(context)
    return names


def _exporting(context: CompletionContext) -> bool:
    """Whether the identifier at the cursor is in an export clause, finished or not."""
    parent = context.target.parent if context.target is not None else None
    if parent is None or parent.type in EXPORT_NAMES:
        return parent is not None
    return parent.type == "ERROR" and any(c.type == "export" and c.start_byte < context.target.start_byte for c in parent.children)


def _exported_before(context: CompletionContext) -> set[str]:
    """The names that export clauses name in the EXPORTS_READ bytes before the cursor."""
    query = _exported_query(context.language)
    if query is None:
        return set()
    cursor = tree_sitter.QueryCursor(query)
    cursor.set_byte_range(max(0, context.prefix_start - EXPORTS_READ), context.prefix_start)
    return {node.text.decode("utf-8", "replace") for node in cursor.captures(context.tree.root_node).get("name", ())
            if node.text and node.end_byte <= context.prefix_start}


def next_export(context: CompletionContext, project: Snapshot, path: str | None, listed: set[str]) -> str | None:
    """In an export clause after one that re-exports from a module (a barrel file's
    ``export { audit } from './operators/audit'``), the name that comes next in alphabetical order:
    the first, after the last name exported before the cursor, of those that a project file named
    after them defines (``operators/auditTime.ts`` defines ``auditTime``) and that the buffer does
    not export yet (``listed``). Barrels are mostly sorted."""
    if context.language.name == "python" or context.tree is None or not _exporting(context):
        return None
    query = _exported_query(context.language)
    if query is None:
        return None
    cursor = tree_sitter.QueryCursor(query)
    cursor.set_byte_range(max(0, context.prefix_start - EXPORTS_READ), context.prefix_start)
    names = sorted((n for n in cursor.captures(context.tree.root_node).get("name", ()) if n.end_byte <= context.prefix_start),
                   key=lambda n: n.start_byte)
    statement = None  # the last finished export clause's statement (the one being written is an ERROR)
    for name in reversed(names):
        statement = name.parent
        while statement is not None and statement.type not in ("export_statement", "ERROR"):
            statement = statement.parent
        if statement is not None and statement.type == "export_statement":
            break
    if statement is None or statement.type != "export_statement" or statement.child_by_field_name("source") is None:
        return None  # no re-export before: not a barrel
    after, prefix = (names[-1].text or b"").decode("utf-8", "replace").lower(), context.prefix.lower()
    best = None
    for name, paths in project.modules.items():
        lower = name.lower()
        if (lower > after and lower.startswith(prefix) and (best is None or lower < best.lower()) and name not in listed
                and any(p != path and name in project.files[p].defined for p in paths)):
            best = name
    return best


@functools.cache
def _exported_query(language: LanguageSpec) -> tree_sitter.Query | None:
    try:
        return tree_sitter.Query(language.language, _EXPORTED)
    except (tree_sitter.QueryError, NameError, SyntaxError):  # a grammar without export clauses
        return None


def _listed_before(context: CompletionContext) -> list[tuple[str, bytes]] | None:
    """listed_names' (type, text) of what an unfinished import lists since its last `import`."""
    target = context.target
    parent = target.parent if target is not None else None
    if parent is None or module_position(context) or aliased_at(context):  # an alias names no import's name
        return None
    if parent.type in IMPORT_NAMES or parent.type in EXPORT_NAMES:
        return []
    if _required_pattern(target):  # the names it takes besides: no definitions query finds them
        return [("identifier", c.text or b"") for c in parent.named_children
                if c.type == "shorthand_property_identifier_pattern" and c.start_byte != target.start_byte]
    if parent.type == "dotted_name" and parent.parent is not None:
        statement = parent.parent.parent if parent.parent.type == "aliased_import" else parent.parent
        if statement is not None and statement.type == "import_from_statement":
            return []  # `from m import x` and `from m import x as y`
        parent, target = parent.parent, parent
    if parent.type != "ERROR":
        return None
    # Unfinished, an ERROR node: only names and punctuation since its last `import` (or `export`).
    between: list[tuple[str, bytes]] | None = None
    for child in parent.children:
        if child.start_byte >= target.start_byte:
            break
        between = [] if child.type in ("import", "export") else None if between is None else between + [(child.type, child.text or b"")]
    return between if between is not None and all(t in IMPORTED_NAME_LIST for t, _ in between) else None


def sorted_between(context: CompletionContext) -> tuple[str, str] | None:
    """At a Python ``from m import a, |, c`` name between two others that are in order (as isort
    writes them), those two, lower-cased: the name typed sorts between them; elsewhere None."""
    target = context.target
    name = target.parent if target is not None and context.language.name == "python" else None
    if name is None or name.type != "dotted_name" or name.parent is None:
        return None
    item = name.parent if name.parent.type == "aliased_import" else name
    statement = item.parent
    if statement is None or statement.type != "import_from_statement" or statement.child_by_field_name("module_name") == name:
        return None
    listed = statement.children_by_field_name("name")
    at = next((i for i, n in enumerate(listed) if n.start_byte == item.start_byte), None)
    if at is None or at == 0 or at == len(listed) - 1:
        return None
    before, after = (_imported_name(listed[at - 1]), _imported_name(listed[at + 1]))
    return (before, after) if before < after else None


def _imported_name(node: tree_sitter.Node) -> str:
    """The name an import's item takes from its module (``x`` of ``x as y``), lower-cased."""
    inner = node.child_by_field_name("name") if node.type == "aliased_import" else node
    return (inner.text or b"").decode("utf-8", "replace").lower()


def _required_pattern(target: tree_sitter.Node) -> bool:
    """Whether ``target`` names what a CommonJS ``const { a, | } = require('./m')`` takes."""
    pattern = target.parent
    declarator = pattern.parent if pattern is not None and target.type == "shorthand_property_identifier_pattern" else None
    if declarator is None or pattern.type != "object_pattern" or declarator.type != "variable_declarator":
        return False
    value = declarator.child_by_field_name("value")
    function = value.child_by_field_name("function") if value is not None and value.type == "call_expression" else None
    return function is not None and function.text == b"require"


def from_import(context: CompletionContext) -> tuple[int, str] | None:
    """The module of the ``from m import`` that the cursor continues: its leading dots and its
    dotted name; None where there is none (call where listed_names says the cursor names what an
    import takes)."""
    if context.language.name != "python":
        found = _JS_FROM_AFTER.match(context.data, context.cursor, min(len(context.data), context.cursor + FROM_READ))
        return (0, found.group(2).decode("utf-8", "replace")) if found else None
    found = list(_FROM_IMPORT.finditer(context.data, max(0, context.prefix_start - FROM_READ), context.prefix_start))
    if not found:
        return None
    return len(found[-1].group(1)), found[-1].group(2).decode("utf-8", "replace").strip(".")


def module_defines(context: CompletionContext, project: Snapshot, path: str | None) -> set[str]:
    """Where the cursor names what ``from m import`` takes (Python), the names that the project's
    file for ``m`` defines at its top level: ``pkg/m.py`` or ``pkg/m/__init__.py`` (relative to
    the buffer's folder for ``from .m``), else every file the import could mean by name. In
    JavaScript the module comes after the names (``import { a, | } from './m'``, ``const { a, | } =
    require('./m')``): where the text after the cursor names it, the names of the file it
    resolves to (``./m``, ``./m.js``, ``./m/index.js``...) relative to the buffer's folder, else
    of the files so named."""
    if context.language.name != "python":
        return _js_module_defines(context, project, path)
    found = from_import(context)
    if found is None:
        return set()
    dots, dotted = found
    parts = [p for p in dotted.split(".") if p]
    if not parts:
        return set()  # `from . import x` names modules
    files = [f for f in project.modules.get(parts[-1], ()) if f != path]
    tail = "/".join(parts)
    if dots and path:
        parents = PurePath(path).parents
        base = parents[dots - 1].as_posix() if dots <= len(parents) else ""
        tail = f"{base}/{tail}"
    exact = [f for f in files if PurePath(f).as_posix().endswith((f"{tail}.py", f"{tail}/__init__.py"))]
    return {word for f in exact or files for word in project.files[f].defined}


def _js_module_defines(context: CompletionContext, project: Snapshot, path: str | None) -> set[str]:
    found = _JS_FROM_AFTER.match(context.data, context.cursor, min(len(context.data), context.cursor + FROM_READ))
    if found is None:
        return set()
    spec = found.group(2).decode("utf-8", "replace")
    files = [f for f in project.modules.get(module_name(PurePosixPath(spec)), ()) if f != path]
    base = None
    if spec.startswith(".") and path:
        base = posixpath.normpath(posixpath.join(PurePath(path).parent.as_posix(), spec))
    elif path and len(files) > 1:  # a tsconfig path alias (`@/lib/api`), as the project's files have it
        aliased = path_aliases.mapped(Path(path).parent, spec, lambda p: _project_file(project, str(p)))
        base = posixpath.normpath(aliased.as_posix()) if aliased is not None else None
    if base is not None:
        candidates = {base + suffix for suffix in _JS_SUFFIXES}
        exact = [f for f in files if PurePath(f).as_posix() in candidates]
        files = exact or files
    return {word for f in files for word in project.files[f].defined}


def _project_file(project: Snapshot, base: str) -> str | None:
    """The project file that ``base`` names as an import does (``base.ts``, ``base/index.js``)."""
    return next((base + suffix for suffix in _JS_SUFFIXES if base + suffix in project.files), None)


class Imported(dict):
    """The words of the files a buffer imports (word -> files using it), sorted by their lower
    case too, so that those with a prefix are found by bisection, not by a scan of them all.
    Each order is built when first asked (a document's first request after a dot or with a
    prefix needs one of the two, its next keystrokes the same)."""

    def __init__(self, counts: Counter[str]):
        super().__init__(counts)
        self._words: list[str] | None = None  # by lower case, then as written
        self._lower: list[str] | None = None  # each one's lower case: what bisection reads
        self._most_used: list[tuple[str, int]] | None = None

    @classmethod
    def of(cls, project: Snapshot, modules: frozenset[str], path: str | None) -> Imported:
        """The words of the project's files that ``modules`` name (but the buffer's own, ``path``)."""
        counts: Counter[str] = Counter()
        for f in {f for name in modules for f in project.modules.get(name, ()) if f != path}:
            counts.update(project.files[f].words)
        return cls(counts)

    def _by_lower(self) -> list[str]:
        if self._words is None:
            words = sorted(self)
            words.sort(key=str.lower)  # stable: ties of lower case stay as written
            self._words = words
        return self._words

    def best(self, prefix: str, limit: int) -> list[tuple[str, int]]:
        """The ``limit`` words used by the most files among those starting with ``prefix`` (lower case)."""
        if not prefix:  # after a dot: ordered once, ties as below
            if self._most_used is None:
                self._most_used = sorted(((w, self[w]) for w in self._by_lower()), key=lambda item: -item[1])
            return self._most_used[:limit]
        words = self._by_lower()
        if self._lower is None:
            self._lower = [w.lower() for w in words]
        start = bisect.bisect_left(self._lower, prefix)
        end = bisect.bisect_left(self._lower, prefix + "\U0010ffff", start)
        return heapq.nlargest(limit, ((w, self[w]) for w in words[start:end]), key=lambda item: item[1])
