"""The identifiers of the project's files on disk, for names the buffer has not used yet: the
function a sibling module defines, the attribute a class elsewhere sets.

Each file gives its distinct identifiers in code (comments and strings blanked),
those it writes after a dot (and after which receiver's last word: ``state.scope``), those it
defines at the top level (what an import can take from it) and those its imports take (and
from which module: what the project wants that module to define); a word's weight is the
number of files that use it. Files are also known by the name an import gives them (``core``
for core.py, ``router`` for router/index.js), so that the fallback engine can tell the words
of the files a buffer imports. sources/project_index.py reads the files.

Each workspace folder is a project of its own: a document sees the files of the folder that
holds it (the outermost root above it), not those of the other folders of a multi-root
workspace, which are mostly other projects whose names would crowd the lists (mobx's in
rxjs's imports, with the two open side by side). After a dot the engines read every
folder's files (``snapshot`` without a path): what is written after ``res.`` is the library's,
not the project's (express and koa share it). A document in no indexed folder yet sees them
all.

The document being completed never counts by its file on disk: its buffer is what the user
writes (the fallback engine reads it), and the saved version may hold what the buffer has not
yet or no longer has.

Queries read an immutable snapshot, swapped in whole by the thread, so they never wait for it
and cost O(words with the prefix's first two letters), not O(project).
"""

from __future__ import annotations

import functools
import logging
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path, PurePath, PurePosixPath

import tree_sitter
from pygls.uris import to_fs_path

from ..languages import BY_EXTENSION, JS_EXPORTS, LanguageSpec
from ..words import (
    blank_code,
    exported_names,
    member_pairs,
    member_words,
    taken_from,
    taken_names,
)
from .libraries.module_exports import object_keys, object_named
from .project_imports import bindings_by_name, import_bindings

log = logging.getLogger(__name__)

BUCKET = 100  # words kept per one-letter prefix (and for no prefix), by file count
# the kinds of words Snapshot.words lists by prefix (BOUND: bound by the files' imports)
WORDS, MEMBERS, DEFINED, TAKEN, BOUND = "words", "members", "defined", "taken", "bound"


def module_name(path: PurePath) -> str:
    """What an import calls a file: its stem, or its folder's name for __init__.py and index.js."""
    stem = path.stem if path.suffix in BY_EXTENSION or not path.suffix else path.name
    return path.parent.name if stem in ("__init__", "index") else stem


@functools.lru_cache(maxsize=8192)
def path_of(uri: str) -> str | None:
    """The file a ``file:`` URI names, as the project index names it (remembered for as many
    documents as a day leaves open: resolving one takes 0.2 ms); None where it names none the
    system could open (a null byte in it)."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    try:
        return str(Path(path).resolve()) if path else None
    except (ValueError, OSError):
        return None


NONE: frozenset = frozenset()  # every file's empty set of a kind: one object, not one per file


@dataclass(frozen=True)
class FileWords:
    words: frozenset[str]  # identifiers in code
    members: frozenset[str]  # those written after a dot
    defined: frozenset[str] = frozenset()  # those defined at the top level (languages' exports queries)
    pairs: frozenset[tuple[str, str]] = frozenset()  # (receiver's last word, member): `state.scope` gives (state, scope)
    taken: frozenset[str] = frozenset()  # those its imports take from a module (languages' taken queries)
    # (what an import calls the module, name) for each of those: `from .nodes import Name` gives (nodes, Name)
    taken_from: frozenset[tuple[str, str]] = frozenset()
    # what its imports bind (sources/auto_import.py): (name bound, module, name imported or "", written relative)
    bound: frozenset[tuple[str, str, str, bool]] = frozenset()
    # JavaScript's names an import can take by name (``export``, ``exports.x =``, ``module.exports = { x }``)
    exported: frozenset[str] = frozenset()
    default: str = ""  # the name a JavaScript file's default export has there (``module.exports = req``)
    # those of ``exported`` that it exports from another module (``export { x } from './x'``, a
    # name its imports bind, destructured from one or read off one): an index's, not where defined
    relayed: frozenset[str] = frozenset()


@dataclass
class Snapshot:
    """One language's words over the indexed files."""

    files: dict[str, FileWords] = field(default_factory=dict)  # path -> its words
    df: Counter[str] = field(default_factory=Counter)  # word -> files using it
    member_df: Counter[str] = field(default_factory=Counter)  # word -> files using it after a dot
    defined_df: Counter[str] = field(default_factory=Counter)  # word -> files defining it at the top level
    pair_df: Counter[tuple[str, str]] = field(default_factory=Counter)  # (receiver, member) -> files writing it
    taken_df: Counter[str] = field(default_factory=Counter)  # word -> files whose imports take it
    # (receiver, lower-case first letter or "") -> its members, most files first (BUCKET of them for "")
    after: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    # per kind of word (WORDS, MEMBERS, DEFINED, TAKEN): lower-case prefix (<= 2) -> words, most files first
    buckets: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    modules: dict[str, tuple[str, ...]] = field(default_factory=dict)  # what an import calls a file -> its paths
    taken_from_df: Counter[tuple[str, str]] = field(default_factory=Counter)  # (module, name) -> files importing it
    taken_of: dict[str, tuple[str, ...]] = field(default_factory=dict)  # module -> the names taken from it, most files first
    # name -> how the files' imports bind it: (module, name imported or "", files, files writing it relative), most first
    importers: dict[str, tuple[tuple[str, str, int, int], ...]] = field(default_factory=dict)
    # (name, module, name imported) -> the files whose imports bind it so, for a name that the
    # files bind from more than one module (auto_import.py's nearest importers first)
    binding_files: dict[tuple[str, str, str], tuple[str, ...]] = field(default_factory=dict)
    # name -> the files defining it at the top level (Python) or exporting it by name (JavaScript)
    definers: dict[str, tuple[str, ...]] = field(default_factory=dict)
    relays: dict[str, tuple[str, ...]] = field(default_factory=dict)  # name -> those of its definers relaying it (FileWords.relayed)
    defaulters: dict[str, tuple[str, ...]] = field(default_factory=dict)  # name -> the files default-exporting it so
    folded: dict[str, tuple[str, ...]] = field(default_factory=dict)  # module name, folded (fold) -> its paths
    # a Python project file's key -> the absolute module the imports of it write most often
    # (``tests.helpers`` for tests/helpers.py, even where tests/ has no __init__.py)
    absolute: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, files: dict[str, FileWords]) -> Snapshot:
        df: Counter[str] = Counter()
        member_df: Counter[str] = Counter()
        defined_df: Counter[str] = Counter()
        pair_df: Counter[tuple[str, str]] = Counter()
        taken_df: Counter[str] = Counter()
        taken_from_df: Counter[tuple[str, str]] = Counter()
        for fw in files.values():
            df.update(fw.words)
            member_df.update(fw.members)
            defined_df.update(fw.defined)
            pair_df.update(fw.pairs)
            taken_df.update(fw.taken)
            taken_from_df.update(fw.taken_from)
        taken_of: dict[str, list[str]] = {}
        for module, name in sorted(taken_from_df, key=lambda pair: (-taken_from_df[pair], pair)):
            taken_of.setdefault(module, []).append(name)
        after: dict[tuple[str, str], list[str]] = {}
        for receiver, member in sorted(pair_df, key=lambda pair: (-pair_df[pair], pair)):
            first = after.setdefault((receiver, ""), [])
            if len(first) < BUCKET:
                first.append(member)
            after.setdefault((receiver, member[:1].lower()), []).append(member)
        modules: dict[str, list[str]] = {}
        for path in files:
            modules.setdefault(module_name(Path(path)), []).append(path)
        importers, bound_df, absolute, binding_files = bindings_by_name(files, modules)
        definers: dict[str, list[str]] = {}
        defaulters: dict[str, list[str]] = {}
        relays: dict[str, list[str]] = {}
        for path, fw in files.items():
            for name in fw.exported or (fw.defined if path.endswith((".py", ".pyi")) else ()):
                definers.setdefault(name, []).append(path)
            for name in fw.relayed:
                relays.setdefault(name, []).append(path)
            if fw.default:
                defaulters.setdefault(fw.default, []).append(path)
        buckets = {WORDS: _buckets(df, df), MEMBERS: _buckets(member_df, member_df), DEFINED: _buckets(defined_df, df),
                   TAKEN: _buckets(taken_df, taken_df), BOUND: _buckets(bound_df, bound_df)}
        return cls(files, df, member_df, defined_df, pair_df, taken_df, {r: tuple(m) for r, m in after.items()}, buckets,
                   {name: tuple(paths) for name, paths in modules.items()}, taken_from_df,
                   {module: tuple(names) for module, names in taken_of.items()}, importers, binding_files,
                   {name: tuple(paths) for name, paths in definers.items()},
                   {name: tuple(paths) for name, paths in relays.items()},
                   {name: tuple(paths) for name, paths in defaulters.items()}, _folded(modules), absolute)

    def words(self, prefix: str, exclude: str | None, limit: int, kind: str = WORDS) -> list[tuple[str, int, int]]:
        """Up to ``limit`` words of a kind (WORDS: any; MEMBERS: written after a dot, by the files
        doing so; DEFINED: defined at a file's top level; TAKEN: taken by imports, by the files
        importing it) starting with ``prefix`` (any case), most files first: (word, files using
        it, files using it after a dot), not counting the file ``exclude``."""
        lower = prefix.lower()
        own = self.files.get(exclude) if exclude else None
        out = []
        for word in self.buckets.get(kind, {}).get(lower[:2], ()):
            if len(lower) > 2 and not word.lower().startswith(lower):
                continue
            files, members = self.counts(word, own)
            if (members if kind == MEMBERS else files) and (kind != DEFINED or self.defines(word, own)) \
                    and (kind != TAKEN or self.taken_by(word, own)):
                out.append((word, files, members))
                if len(out) == limit:
                    break
        return out

    def members_of(self, receiver: str, prefix: str, exclude: str | None, limit: int) -> list[tuple[str, int]]:
        """Up to ``limit`` words that the project's files write after ``receiver.``, starting with
        ``prefix`` (any case), most files first: (word, files doing so), not counting ``exclude``."""
        lower = prefix.lower()
        own = self.files.get(exclude) if exclude else None
        out = []
        for word in self.after.get((receiver, lower[:1]), ()):
            if word.lower().startswith(lower) and (files := self.pair_files(receiver, word, own)):
                out.append((word, files))
                if len(out) == limit:
                    break
        return out

    def wanted_from(self, module: str, prefix: str, own: FileWords | None,
                    common: frozenset[str] = frozenset()) -> dict[str, int]:
        """What the project's other files want module ``module`` to define: the names their
        imports take from it (``from .nodes import Name``, ``import { a } from './nodes'``) and
        those they write after ``nodes.`` but ``common`` (what a variable so named has:
        ``nodes.append``), starting with ``prefix`` (any case): word -> files."""
        lower = prefix.lower()
        wanted: dict[str, int] = {}
        for word in self.taken_of.get(module, ()):
            if word.lower().startswith(lower):
                files = self.taken_from_df[(module, word)] - (own is not None and (module, word) in own.taken_from)
                if files > 0:
                    wanted[word] = files
        for word in self.after.get((module, lower[:1]), ()):
            if word.lower().startswith(lower) and word not in common and (files := self.pair_files(module, word, own)):
                wanted[word] = wanted.get(word, 0) + files
        return wanted

    def pair_files(self, receiver: str, word: str, own: FileWords | None) -> int:
        """How many files other than ``own`` write ``receiver.word``."""
        return self.pair_df.get((receiver, word), 0) - (own is not None and (receiver, word) in own.pairs)

    def taken_by(self, word: str, own: FileWords | None) -> int:
        """How many files other than ``own`` import ``word`` from a module."""
        return self.taken_df.get(word, 0) - (own is not None and word in own.taken)

    def defines(self, word: str, own: FileWords | None) -> bool:
        """Whether a file of the project other than ``own`` defines ``word`` at its top level."""
        return self.defined_df.get(word, 0) > (own is not None and word in own.defined)

    def counts(self, word: str, own: FileWords | None) -> tuple[int, int]:
        files, members = self.df.get(word, 0), self.member_df.get(word, 0)
        if own is not None:
            files -= word in own.words
            members -= word in own.members
        return files, members


EMPTY = Snapshot()


def fold(name: str) -> str:
    """A module's name as a binding may spell it: ``child_process``, ``on-finished`` and
    ``childProcess``, ``onFinished`` alike."""
    return name.lower().replace("-", "").replace("_", "").replace(".", "")


def _folded(modules: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for name, paths in modules.items():
        out.setdefault(fold(name), []).extend(paths)
    return {name: tuple(paths) for name, paths in out.items()}


def _buckets(words: Counter[str], order: Counter[str]) -> dict[str, tuple[str, ...]]:
    """``words`` by lower-case prefix (up to two characters; BUCKET of them for a shorter one),
    most ``order`` first."""
    grouped: dict[str, list[str]] = {}
    for word in sorted(words, key=lambda w: (-order[w], w)):
        lower = word.lower()
        for size in range(3):
            bucket = grouped.setdefault(lower[:size], [])
            if size == 2 or len(bucket) < BUCKET:
                bucket.append(word)
    return {key: tuple(found) for key, found in grouped.items()}


def file_words(data: bytes, language: LanguageSpec, pause: Callable[[], object] = lambda: None,
               path: Path | None = None) -> FileWords:
    """A file's distinct identifiers in code, those written after a dot (the fallback engine's
    reading of a buffer), those defined at the top level, its (receiver, member) pairs and the
    names its imports take, also with the module each is taken from, and (given the file's
    ``path``) what its imports bind, relative modules resolved. Words are interned: one string
    per word across files. ``pause`` is called before the parse."""
    pause()
    tree = language.parse(language.parser(), data)
    code = blank_code(data, tree, language)
    words = {w.decode("utf-8", "replace") for w in language.identifier_pattern.findall(code)} - language.reserved_set
    members = {w.decode("utf-8", "replace") for w in member_words(code, language)} & words
    defined = {w.decode("utf-8", "replace") for w in exported_names(tree, language)} & words
    taken = {w.decode("utf-8", "replace") for w in taken_names(tree, language)} & words
    pairs = {(sys.intern(r.decode("utf-8", "replace")), sys.intern(m.decode("utf-8", "replace")))
             for r, m in member_pairs(code, language)}
    modules = {(sys.intern(module_name(PurePosixPath(m.decode("utf-8", "replace")))), sys.intern(n.decode("utf-8", "replace")))
               for m, n in taken_from(tree, language)}

    def interned(found: set[str]) -> frozenset[str]:
        return frozenset(map(sys.intern, found)) if found else NONE

    bound = frozenset(import_bindings(tree, language, path)) if path is not None else NONE
    query = exported_query(language)
    exported, default, relayed = set(), "", set()
    if query is not None:
        captures = tree_sitter.QueryCursor(query).captures(tree.root_node)
        exported = {n.text.decode("utf-8", "replace") for n in captures.get("name", ()) if n.text and not _default_export(n)}
        default = default_name(captures)
        keys: dict[str, str] = {}  # `const helpers = { isFunction }` … `module.exports = helpers`: its keys
        for node in captures.get("object", ()):
            object_keys(object_named(tree.root_node, node), keys, {})
        exported |= keys.keys()
        relayed = {n.text.decode("utf-8", "replace") for n in captures.get("name", ()) if n.text and _from_elsewhere(n)}
        relayed |= exported & _taken_from_imports(tree, language, {b[0] for b in bound})
    return FileWords(interned(words), interned(members), interned(defined), frozenset(pairs) or NONE, interned(taken),
                     frozenset(modules) or NONE, bound or NONE, interned(exported), sys.intern(default), interned(relayed))


def interned_words(words: FileWords) -> FileWords:
    """``words`` with each string the one interned string of its text (a file's words read in
    another process come as copies of their own)."""
    def each(found: frozenset) -> frozenset:
        return frozenset(tuple(map(_interned, w)) if isinstance(w, tuple) else sys.intern(w) for w in found) if found else NONE

    return FileWords(*(_interned(v) if isinstance(v, str) else each(v)
                       for v in (getattr(words, f.name) for f in fields(words))))


def _interned(value: object) -> object:
    return sys.intern(value) if isinstance(value, str) else value


def default_name(captures: dict[str, list[tree_sitter.Node]]) -> str:
    """The name a JavaScript file's default export has in the file (exported_query's captures):
    ``module.exports = req``, ``exports = module.exports = createApplication``, ``var proto =
    module.exports = function``, ``export default Router``, ``export default function fromURI``;
    "" where it has none or several."""
    names = {n.text.decode("utf-8", "replace") for n in captures.get("default", ()) if n.text}
    names |= {n.text.decode("utf-8", "replace") for n in captures.get("name", ()) if n.text and _default_export(n)}
    return names.pop() if len(names) == 1 else ""


def _taken_from_imports(tree: tree_sitter.Tree, language: LanguageSpec, imported: set[str]) -> set[str]:
    """The names that the file binds from what its imports bind (``imported``): the imports'
    own, those destructured from one (``const { Axios } = axios``) and the keys that hold one's
    member (``{ compareIdentifiers: identifiers.compareIdentifiers }``, ``exports.x = m.x``)."""
    out = set(imported)
    if not imported:
        return out
    for _, match in tree_sitter.QueryCursor(_relay_query(language)).matches(tree.root_node):
        source = match.get("from", ())
        if source and source[0].text.decode("utf-8", "replace") in imported:
            out |= {n.text.decode("utf-8", "replace") for n in match.get("taken", ()) if n.text}
    return out


@functools.cache
def _relay_query(language: LanguageSpec) -> tree_sitter.Query:
    return tree_sitter.Query(language.language, """
(variable_declarator name: (object_pattern [(shorthand_property_identifier_pattern) @taken
  (pair_pattern value: (identifier) @taken)]) value: (identifier) @from)
(pair key: (property_identifier) @taken value: (member_expression object: (identifier) @from))
(assignment_expression left: (member_expression property: (property_identifier) @taken)
  right: (member_expression object: (identifier) @from))
""")


def _from_elsewhere(name: tree_sitter.Node) -> bool:
    """Whether ``name`` is exported from another module by an export clause (``export { x }
    from './x'``, ``export { default as y } from './y'``)."""
    statement = name.parent.parent.parent if name.parent is not None and name.parent.parent is not None else None
    return statement is not None and statement.type == "export_statement" and statement.child_by_field_name("source") is not None


def _default_export(name: tree_sitter.Node) -> bool:
    """Whether the declaration that ``name`` names is a default export (``export default function
    f``: imported as the module's default, not by its name)."""
    statement = name.parent.parent if name.parent is not None else None
    return statement is not None and statement.type == "export_statement" and \
        any(child.type == "default" for child in statement.children)


_JS_EXPORTED = """
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_m
  property: (property_identifier) @_x) right: (identifier) @object) (#eq? @_m "module") (#eq? @_x "exports")))
(export_statement declaration: (_ name: (_) @name))
(export_statement value: (identifier) @default)
(assignment_expression left: (member_expression object: (identifier) @_dm property: (property_identifier) @_dx)
  right: (identifier) @default (#eq? @_dm "module") (#eq? @_dx "exports"))
(variable_declarator name: (identifier) @default value: (assignment_expression left: (member_expression
  object: (identifier) @_vm property: (property_identifier) @_vx) (#eq? @_vm "module") (#eq? @_vx "exports")))
(variable_declarator name: (identifier) @default value: (assignment_expression left: (identifier) @_ve
  right: (assignment_expression left: (member_expression object: (identifier) @_wm property: (property_identifier) @_wx)))
  (#eq? @_ve "exports") (#eq? @_wm "module") (#eq? @_wx "exports"))
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name)))
(export_statement (export_clause (export_specifier alias: (_) @name)))
(export_statement (export_clause (export_specifier name: (_) @name !alias)))
(assignment_expression left: (member_expression object: (identifier) @_e property: (property_identifier) @name) (#eq? @_e "exports"))
(assignment_expression left: (member_expression object: (member_expression object: (identifier) @_m
  property: (property_identifier) @_x) property: (property_identifier) @name) (#eq? @_m "module") (#eq? @_x "exports"))
(assignment_expression left: (member_expression object: (identifier) @_m property: (property_identifier) @_x)
  right: (object [(shorthand_property_identifier) @name (pair key: (property_identifier) @name)])
  (#eq? @_m "module") (#eq? @_x "exports"))
"""


@functools.cache
def exported_query(language: LanguageSpec) -> tree_sitter.Query | None:
    """JavaScript's and TypeScript's query of the names a file exports by name."""
    if language.exports_query != JS_EXPORTS:
        return None
    return tree_sitter.Query(language.language, _JS_EXPORTED)
