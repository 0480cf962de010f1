"""The fallback engine: identifiers of the buffer ranked by recency and frequency.

It answers while a neural model loads, when none is available, and for languages without one.
It must stay fast on any file: it reads a bounded window around the cursor (plus the file's
head, where imports live) with one regular expression, after blanking comments and strings, so
a request costs O(window), not O(file). Kinds come from the tree (definitions query).

Scores, higher first (d = identifiers since the last occurrence, c = occurrences). A word gets
the first of these that applies, in this order:
- seen in code before the cursor, in the window: 10 - ln(1+d) + 0.5 ln(1+c)
- seen in comments or strings before the cursor, in the window: 3.2 + 0.3 ln(1+c)
- seen further back than the window: 3.5 + 0.3 ln(1+c)
- seen after the cursor: 3 - 0.5 ln(1+d) + 0.5 ln(1+c)
- seen in other open documents of the language: 2 + 0.3 ln(1+c)
- after `obj.`, written after `obj.` in files of the project on disk (server/project.py; f =
  those files; the PROJECT_WORDS most used that match the prefix), or used in the files that the
  code before the cursor imports (f = those files using it; as many): 2.5 + 0.3 ln(1+f)
- used in other files of the project (f = files using it; the PROJECT_WORDS most used that match
  the prefix; after a dot those written after a dot by the most files, and where an import
  names what it takes from a module as many again that a file defines at its top level): 1 + 0.3 ln(1+f)
  (both: +1 after a dot if the project writes it after a dot, -1 elsewhere if it only ever does,
  +4 where an import names what it takes if a file defines it, +6 more if ``from m import``
  names the file that does, or, in JavaScript, ``} from './m'`` or ``} = require('./m')`` after
  the cursor)
- the language's common builtins, after a dot its standard types' and modules' common members,
  where an import names a module the standard library's modules: 1; keywords (not after a dot
  or in an import): 0.5
Where an import names what it takes, a name the buffer's imports bind already is not offered.
Where an import names a module, the builtins and what the buffer's imports bind (but the
packages they import from) come last.
At a declaration's name (server/declarations.py), a name its block declares already is not
offered, nor a keyword; a name the file only uses after a dot, after `self.` among others, and
does not define gets +3 instead of -3 (``self._write_title()``, then ``def _write_title``); the
project's top-level definitions are listed as at an import, and get +2 at a declaration of the
file's top level. At a member's name in a JavaScript class body or object literal (a declaration
too), a name the file only uses after a dot is not lowered, the project's member names are
listed as after a dot, and the modifiers not yet written (``static``, ``async``, ``get``, ``set``)
are the keywords offered. There, and at a Python method's name, the methods ``this.`` or ``self.``
calls before the cursor and that the class neither defines before it nor assigns come first. At a
parameter's name, the parameters listed before it are not offered, nor a
keyword. At the start of a JavaScript ``const`` or ``let``'s value, the name it declares is not
offered (reading it there throws).
The words of this document (the first four) then get, after `obj.`, +4 if seen after the same
`obj.` and +2 if seen after any dot, or elsewhere -3 if only ever seen after a dot; and every
word +2 when it starts with the prefix in the case typed.
"""

from __future__ import annotations

import bisect
import builtins
import functools
import heapq
import math
import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pathlib import Path, PurePath, PurePosixPath
from typing import TYPE_CHECKING

import tree_sitter
from pygls.uris import to_fs_path

from ..context import ATTRIBUTE, NAME, CompletionContext
from ..declarations import ACCESSORS, MODIFIERS, Declaring, declaring, top_level
from ..document import Document
from ..languages import BY_EXTENSION, LanguageSpec
from .base import Candidate, Kind

if TYPE_CHECKING:
    from ..project import ProjectIndex, Snapshot

# Python's builtins, with self and cls: never the module an import names.
BUILTIN_NAMES = frozenset(dir(builtins)) | {"self", "cls"}
# The kinds of words the project index lists by prefix (server/project.py, Snapshot.words).
WORDS, MEMBERS, DEFINED = "words", "members", "defined"
IMPORT_NAMES = frozenset({"import_specifier", "named_imports", "import_clause", "namespace_import"})  # JavaScript
IMPORTED_NAME_LIST = frozenset({"identifier", "dotted_name", "aliased_import", "import_specifier", "named_imports",
                                ",", "(", "{", "as"})  # what may stand between `import` and such a name

# Bytes read around the cursor. Tree queries over a range cost more than linearly in its size
# (2.7 ms for 96 KB, 0.55 ms for 32 KB here). 16 KB before the cursor (plus regex-only word
# counts further back) scores as well as 32 KB on the editing benchmark at half the cost.
WINDOW_BEFORE = 16 * 1024
WINDOW_AFTER = 8 * 1024
HEAD = 8 * 1024  # the file's head is always read: imports
FAR = 256 * 1024  # before the window: words only (no tree query, comments not blanked)
OTHER_DOCUMENT = 256 * 1024  # what is read of each other open document
KINDS = {"function": Kind.FUNCTION, "class": Kind.CLASS, "module": Kind.MODULE}
PENDING = 20  # above any other score: a method the class calls and has not defined, at a member's name
# Where a word was found, the first that applies (a candidate's ``features`` say which, for the
# neural engine's ranker): its tier, then ln(1+d) and ln(1+c) as in the scores above, whether it
# followed the same receiver / any dot (after a dot), whether only ever after a dot (elsewhere),
# whether it starts with the prefix in the case typed, then (whatever its tier) ln(1+f), f the
# project's other files that use it, and whether a file the buffer imports does.
# PROJECT (files of the project on disk, server/project.py) ranks between OTHER and BUILTIN; it
# is numbered last so that the ranker's tier columns of the others stay where they were.
CODE, QUOTED, FAR_BACK, AFTER, OTHER, BUILTIN, KEYWORD, PROJECT = range(8)
PROJECT_WORDS = 30  # project words considered per request, most files first (and as many from imported files)
IMPORTS = 32 * 1024  # imports are read in the file's first 32 KB
_OWN_MEMBER = re.compile(rb"\b(?:self|cls|this)\s*\.\s*([A-Za-z_$][\w$]*)")  # members of the object whose class is written


def _scan(tree: tree_sitter.Tree, language: LanguageSpec, lo: int, hi: int) -> tuple[list[tuple[int, int]], dict[bytes, Kind]]:
    """The comment and string spans of [lo, hi), sorted, and the kinds of the names defined there."""
    spans: list[tuple[int, int]] = []
    kinds: dict[bytes, Kind] = {}
    if lo >= hi:
        return spans, kinds
    cursor = tree_sitter.QueryCursor(language.scan)
    cursor.set_byte_range(lo, hi)
    for capture, nodes in cursor.captures(tree.root_node).items():
        if capture == "skip":
            spans.extend((n.start_byte, n.end_byte) for n in nodes)
        else:
            kinds.update((n.text, KINDS[capture]) for n in nodes if n.text)
    spans.sort()
    return spans, kinds


def _blank(data: bytes, spans: list[tuple[int, int]], lo: int, hi: int) -> bytes:
    """data[lo:hi] with the given spans (comments, strings) replaced by a space."""
    if lo >= hi:
        return b""
    pieces, pos = [], lo
    for start, end in spans:
        start, end = max(start, lo), min(end, hi)
        if start >= end:
            continue
        if start >= pos:
            pieces.append(data[pos:start])
            pos = end
        elif end > pos:
            pos = end
    pieces.append(data[pos:hi])
    return b" ".join(pieces)


def parse_in_pieces(data: bytes, language: LanguageSpec, pause: Callable[[], object] = lambda: None) -> tree_sitter.Tree:
    """A whole file's tree (what the project index reads, on its own thread), parsed from 4 KB
    pieces, calling ``pause`` before each: tree-sitter holds the GIL while it parses, and each
    piece lets the server's worker in (a 229 KB file held it 32 ms in one piece; in pieces no
    thread waited more than 9 ms)."""

    def piece(offset: int, _point) -> bytes:
        pause()
        return data[offset:offset + 4096]

    return language.parser().parse(piece)


def blank_code(data: bytes, tree: tree_sitter.Tree, language: LanguageSpec) -> bytes:
    """A whole file with its comments and strings blanked."""
    return _blank(data, _scan(tree, language, 0, len(data))[0], 0, len(data))


def exported_names(tree: tree_sitter.Tree, language: LanguageSpec) -> set[bytes]:
    """The names a file defines at its top level: what an import can take from it."""
    found = tree_sitter.QueryCursor(language.exports).captures(tree.root_node).get("name", ())
    return {node.text for node in found if node.text}


@functools.cache
def _member_pattern(identifier_chars: str) -> re.Pattern[bytes]:
    chars = identifier_chars.encode() + rb"\x80-\xff"
    return re.compile(rb"\.\s*([" + chars + rb"]+)")


def member_words(code: bytes, language: LanguageSpec) -> list[bytes]:
    """The words written after a dot in ``code`` (``obj.word``)."""
    return _member_pattern(language.identifier_chars).findall(code)


@functools.cache
def _pair_pattern(identifier_chars: str) -> re.Pattern[bytes]:
    chars = identifier_chars.encode() + rb"\x80-\xff"
    return re.compile(rb"(?<![" + chars + rb"])(?![0-9])([" + chars + rb"]+)\s*(?=\.\s*([" + chars + rb"]+))")


def member_pairs(code: bytes, language: LanguageSpec) -> list[tuple[bytes, bytes]]:
    """The (word before the dot, word after it) pairs of ``code``: ``a.b.c`` gives (a, b), (b, c)."""
    return _pair_pattern(language.identifier_chars).findall(code)


def receiver_word(receiver: str | None, language: LanguageSpec) -> str | None:
    """The last word of the object before the dot (``state`` for ``context.state``), if it ends in one."""
    match = _receiver_pattern(language.identifier_chars).search(receiver) if receiver else None
    return match.group(1) if match else None


@functools.cache
def _receiver_pattern(identifier_chars: str) -> re.Pattern[str]:
    return re.compile(r"(?<![" + identifier_chars + r"\w])(?![0-9])([" + identifier_chars + r"\w]+)\s*\Z")


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


@dataclass
class _Position:
    """What the fallback engine read of one context's position (None: not read yet)."""

    context: CompletionContext | None
    declaring: Declaring | None = None
    not_modules: frozenset[str] | None = None
    imported: set[str] | None = None  # imported_here's names; None where the cursor names no import's name
    imported_read: bool = False


def _module_roots(tree: tree_sitter.Tree, language: LanguageSpec, hi: int) -> set[str]:
    """The top-level packages that Python code before byte ``hi`` imports from (``a`` of
    ``import a.b as c`` and of ``from a.b import c``; not what they bind, not relative imports)."""
    cursor = tree_sitter.QueryCursor(language.imports)
    cursor.set_byte_range(0, hi)
    roots: set[str] = set()
    for nodes in cursor.captures(tree.root_node).values():
        for statement in nodes:
            if statement.type == "import_from_statement":
                paths = [statement.child_by_field_name("module_name")]
            else:
                paths = [n.child_by_field_name("name") if n.type == "aliased_import" else n
                         for n in statement.children_by_field_name("name")]
            for path in paths:
                if path is not None and path.type == "dotted_name" and path.named_child_count:
                    roots.add((path.named_children[0].text or b"").decode("utf-8", "replace"))
    return roots


def module_name(path: PurePath) -> str:
    """What an import calls a file: its stem, or its folder's name for __init__.py and index.js."""
    stem = path.stem if path.suffix in BY_EXTENSION or not path.suffix else path.name
    return path.parent.name if stem in ("__init__", "index") else stem


_FROM_IMPORT = re.compile(rb"\bfrom[ \t]+(\.*)([\w.]*)[ \t]+import\b")
FROM_READ = 4096  # bytes before the cursor searched for the `from m import` it continues


# The rest of a JavaScript import after the cursor, where it names its module: `b } from './m'`,
# or CommonJS's `b } = require('./m')`.
_JS_FROM_AFTER = re.compile(rb"[^;{]*?\}[ \t\r\n]*(?:from|=[ \t\r\n]*require[ \t]*\()[ \t\r\n]*(['\"])([^'\"\r\n]+)\1")
_JS_SUFFIXES = ("", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", "/index.js", "/index.ts")


def _from_module_defines(context: CompletionContext, project: Snapshot, path: str | None) -> set[str]:
    """Where the cursor names what ``from m import`` takes (Python), the names that the project's
    file for ``m`` defines at its top level: ``pkg/m.py`` or ``pkg/m/__init__.py`` (relative to
    the buffer's folder for ``from .m``), else every file the import could mean by name. In
    JavaScript the module comes after the names (``import { a, | } from './m'``, ``const { a, | } =
    require('./m')``): where the text
    after the cursor names it, the names of the file it resolves to (``./m``, ``./m.js``,
    ``./m/index.js``...) relative to the buffer's folder, else of the files so named."""
    if context.language.name != "python":
        return _js_from_module_defines(context, project, path)
    found = list(_FROM_IMPORT.finditer(context.data, max(0, context.prefix_start - FROM_READ), context.prefix_start))
    if not found:
        return set()
    dots, dotted = len(found[-1].group(1)), found[-1].group(2).decode("utf-8", "replace").strip(".")
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


def _js_from_module_defines(context: CompletionContext, project: Snapshot, path: str | None) -> set[str]:
    found = _JS_FROM_AFTER.match(context.data, context.cursor, min(len(context.data), context.cursor + FROM_READ))
    if found is None:
        return set()
    spec = found.group(2).decode("utf-8", "replace")
    files = [f for f in project.modules.get(module_name(PurePosixPath(spec)), ()) if f != path]
    if spec.startswith(".") and path:
        base = posixpath.normpath(posixpath.join(PurePath(path).parent.as_posix(), spec))
        candidates = {base + suffix for suffix in _JS_SUFFIXES}
        exact = [f for f in files if PurePath(f).as_posix() in candidates]
        files = exact or files
    return {word for f in files for word in project.files[f].defined}


class Imported(dict):
    """The words of the files a buffer imports (word -> files using it), sorted by their lower
    case too, so that those with a prefix are found by bisection, not by a scan of them all."""

    def __init__(self, counts: Counter[str]):
        super().__init__(counts)
        self.keys_sorted = sorted((w.lower(), w) for w in counts)
        # for no prefix (after a dot): ordered once, ties as best() breaks them
        self.most_used = sorted(((w, counts[w]) for _, w in self.keys_sorted), key=lambda item: -item[1])

    def best(self, prefix: str, limit: int) -> list[tuple[str, int]]:
        """The ``limit`` words used by the most files among those starting with ``prefix`` (lower case)."""
        if not prefix:
            return self.most_used[:limit]
        start = bisect.bisect_left(self.keys_sorted, (prefix,))
        end = bisect.bisect_left(self.keys_sorted, (prefix + "\U0010ffff",), start)
        return heapq.nlargest(limit, ((w, self[w]) for _, w in self.keys_sorted[start:end]), key=lambda item: item[1])


EMPTY_IMPORTS = Imported(Counter())


def _module_position(context: CompletionContext) -> bool:
    """Whether the identifier at the cursor starts the module path of an import (Python):
    ``import o``, ``from o``, ``import a, o``, ``import o as p``."""
    target = context.target
    parent = target.parent if target is not None else None
    if parent is None or not context.language.modules:
        return False
    if parent.type == "ERROR":  # `from o` with no `import` yet
        before = target.prev_sibling
        return before is not None and before.type in ("import", "from")
    if parent.type != "dotted_name" or parent.start_byte != target.start_byte or parent.parent is None:
        return False
    statement = parent.parent.parent if parent.parent.type == "aliased_import" else parent.parent
    if statement.type == "import_statement":
        return True
    module = statement.child_by_field_name("module_name") if statement.type == "import_from_statement" else None
    return module is not None and module.start_byte == parent.start_byte


def _listed_before(context: CompletionContext) -> list[tuple[str, bytes]] | None:
    """Where the identifier at the cursor names what an import takes from a module (``from m
    import x``, ``from m import (a, x``, ``import { a, x }``, ``import x from``): the (type,
    text) of what an unfinished import lists before it, since its last `import` (empty for a
    finished one, whose names the definitions query finds); elsewhere None."""
    target = context.target
    parent = target.parent if target is not None else None
    if parent is None or _module_position(context):
        return None
    if parent.type in IMPORT_NAMES:
        return []
    if _required_pattern(target):  # the names it takes besides: no definitions query finds them
        return [("identifier", c.text or b"") for c in parent.named_children
                if c.type == "shorthand_property_identifier_pattern" and c.start_byte != target.start_byte]
    if parent.type == "dotted_name" and parent.parent is not None:
        if parent.parent.type == "import_from_statement":
            return []
        parent, target = parent.parent, parent
    if parent.type != "ERROR":
        return None
    # Unfinished, an ERROR node: only names and punctuation since its last `import`.
    between: list[tuple[str, bytes]] | None = None
    for child in parent.children:
        if child.start_byte >= target.start_byte:
            break
        between = [] if child.type == "import" else None if between is None else between + [(child.type, child.text or b"")]
    return between if between is not None and all(t in IMPORTED_NAME_LIST for t, _ in between) else None


def _required_pattern(target: tree_sitter.Node) -> bool:
    """Whether ``target`` names what a CommonJS ``const { a, | } = require('./m')`` takes."""
    pattern = target.parent
    declarator = pattern.parent if pattern is not None and target.type == "shorthand_property_identifier_pattern" else None
    if declarator is None or pattern.type != "object_pattern" or declarator.type != "variable_declarator":
        return False
    value = declarator.child_by_field_name("value")
    function = value.child_by_field_name("function") if value is not None and value.type == "call_expression" else None
    return function is not None and function.text == b"require"


class FallbackEngine:
    name = "fallback"

    def __init__(self, open_documents: Callable[[], Iterable[Document]] = lambda: (), project: ProjectIndex | None = None):
        self._open_documents = open_documents
        self.project = project
        self._counts: dict[str, tuple[int, Counter[str]]] = {}  # uri -> (version, counts)
        self._heads: dict[str, tuple[bytes, tuple]] = {}  # uri -> (head bytes, its scan)
        self._far: dict[str, tuple[bytes, Counter[bytes]]] = {}  # uri -> (far bytes, word counts)
        self._imports: dict[str, tuple] = {}  # uri -> (project snapshot, bytes read, imported modules, their files' words)
        self._last = _Position(None)  # what complete() read of its context's position, for the neural engine

    def complete(self, context: CompletionContext, limit: int) -> list[Candidate]:
        tree = context.tree
        if context.category not in (ATTRIBUTE, NAME) or tree is None:
            return []
        language, data = context.language, context.data
        pattern = language.identifier_pattern
        # The window starts on a 4 KB boundary, so that what lies before it stays the same while
        # one types, and its word counts can be reused.
        lo = max(0, (context.prefix_start - WINDOW_BEFORE) // 4096 * 4096)
        hi = min(len(data), context.cursor + WINDOW_AFTER)
        head = min(HEAD, lo)

        head_spans, kinds = self._scan_head(context, tree, head)
        kinds = dict(kinds)
        spans, window_kinds = _scan(tree, language, lo, hi)
        kinds.update(window_kinds)
        before = _blank(data, head_spans, 0, head) + b"\n" + _blank(data, spans, lo, context.prefix_start)
        after = _blank(data, spans, context.cursor, hi)
        keywords = language.not_identifiers(context.category == ATTRIBUTE)
        prefix = context.prefix.lower()
        # Words stay bytes until they pass the prefix filter: most never need decoding.
        raw_prefix = prefix.encode("utf-8", "surrogatepass")
        size = len(raw_prefix)

        def matching(words: Iterable[bytes]) -> list[bytes]:
            return [w for w in words if w[:size].lower() == raw_prefix]

        def text(word: bytes) -> str:
            return word.decode("utf-8", "replace")

        def wanted(word: str) -> bool:
            return word.lower().startswith(prefix) and word not in keywords

        scores: dict[str, float] = {}
        signals: dict[str, list[float]] = {}  # word -> [tier, ln(1+d), ln(1+c), same, member, only member, case] (+ project, imported)
        words_before = pattern.findall(before)
        n = len(words_before)
        last = {w: i for i, w in enumerate(words_before)}
        count = Counter(words_before)
        for word in matching(last):
            if (name := text(word)) not in keywords:
                d, c = math.log1p(n - last[word]), math.log1p(count[word])
                scores[name] = 10 - d + 0.5 * c
                signals[name] = [CODE, d, c, 0, 0, 0, 0]

        # Comments and docs name identifiers too (`res.sendStatus(200)` in a JSDoc example).
        quoted = Counter(pattern.findall(b" ".join(data[max(a, lo):min(b, context.prefix_start)] for a, b in spans)))
        for word in matching(quoted):
            if (name := text(word)) not in keywords and name not in scores:
                scores[name] = 3.2 + 0.3 * math.log1p(quoted[word])
                signals[name] = [QUOTED, 0, math.log1p(quoted[word]), 0, 0, 0, 0]

        far_count = self._far_words(context, max(head, lo - FAR), lo)
        for word in matching(far_count):
            if (name := text(word)) not in keywords and name not in scores:
                scores[name] = 3.5 + 0.3 * math.log1p(far_count[word])
                signals[name] = [FAR_BACK, 0, math.log1p(far_count[word]), 0, 0, 0, 0]

        words_after = pattern.findall(after)
        first_after: dict[bytes, int] = {}
        for i, w in enumerate(words_after):
            first_after.setdefault(w, i)
        count_after = Counter(words_after)
        for word in matching(first_after):
            name = text(word)
            if name not in scores and name not in keywords and name != context.prefix:
                d, c = math.log1p(first_after[word]), math.log1p(count_after[word])
                scores[name] = 3 - 0.5 * d + 0.5 * c
                signals[name] = [AFTER, d, c, 0, 0, 0, 0]

        where = self.declaring(context)
        declaration, parameter = where.declaration, where.parameter
        member = where.member is not None  # a class body's or object literal's member
        self._adjust_for_dots(context, before, count, scores, signals, kinds if declaration else None, member)

        for other in self._others(context):
            for word, c in other.items():
                if word not in scores and wanted(word):
                    scores[word] = 2 + 0.3 * math.log1p(c)
                    signals[word] = [OTHER, 0, math.log1p(c), 0, 0, 0, 0]

        project = self.project.snapshot(language) if self.project is not None else None
        imported = EMPTY_IMPORTS
        imported_here = self._imported_names(context, kinds)  # None: the cursor names no import's name
        import_name = imported_here is not None
        declared = where.taken  # not declared twice, nor read in its own `const` initialiser
        receiver = receiver_word(context.receiver, language) if context.category == ATTRIBUTE else None
        own = None
        if project is not None:
            path = path_of(context.uri)
            own = project.files.get(path) if path else None
            imported = self._imported(context, tree, project, path)
            top_declaration = declaration and top_level(context)  # its line not indented
            listed = ((MEMBERS, WORDS) if member else (DEFINED, WORDS) if import_name or declaration
                      else (MEMBERS,) if context.category == ATTRIBUTE else (WORDS,))
            found = [(w, f, 1.5) for w, f in project.members_of(receiver, prefix, path, PROJECT_WORDS)] if receiver else []
            found += [(w, f, 1.5) for w, f in imported.best(prefix, PROJECT_WORDS)]
            found += [(w, f, 0) for kind in listed for w, f, _ in project.words(context.prefix, path, PROJECT_WORDS, kind)]
            for word, files, bonus in found:
                if word in scores or word in keywords:
                    continue
                scores[word] = 1 + bonus + 0.3 * math.log1p(files)
                signals[word] = [PROJECT, 0, 0, 0, 0, 0, 0]
                used, members = project.counts(word, own)
                if (context.category == ATTRIBUTE or member) and members:
                    scores[word] += 1
                    signals[word][4] = 1
                elif context.category != ATTRIBUTE and members == used:
                    scores[word] -= 1
                    signals[word][5] = 1
                if import_name and project.defines(word, own):
                    scores[word] += 4
                elif top_declaration and project.defines(word, own):
                    scores[word] += 2
            if import_name:  # `from .utils._headers import g`: what that module defines, first
                for word in _from_module_defines(context, project, path):
                    if wanted(word) and word not in (imported_here or ()):
                        if word not in scores:  # as a project word defined elsewhere: 1 + 4
                            scores[word], signals[word] = 5.0, [PROJECT, 0, 0, 0, 0, 0, 0]
                        scores[word] += 6

        module = _module_position(context)
        common = language.modules if module else language.members if context.category == ATTRIBUTE else language.builtins
        for word in common:
            if word not in scores and wanted(word):
                scores[word] = 1.0
                signals[word] = [BUILTIN, 0, 0, 0, 0, 0, 0]
        if module:  # `import |`, `from |`: what cannot name a module last
            for word in self.not_modules(context) & scores.keys():
                scores[word] -= 20
        if context.category == NAME and not module and not import_name and not declaration and not parameter:
            offered: Iterable[str] = language.keywords
        elif member and not where.member & ACCESSORS:  # `static |`: what may come before a member's name
            offered = sorted(MODIFIERS - where.member)
        else:
            offered = ()
        for word in offered:
            if word.lower().startswith(prefix) and word not in scores:
                scores[word] = 0.5
                signals[word] = [KEYWORD, 0, 0, 0, 0, 0, 0]
        for word in where.pending:  # methods the class calls and has not defined yet: first
            if wanted(word):
                if word not in scores:  # called further back than the window
                    scores[word], signals[word] = 0.0, [FAR_BACK, 0, 0, 0, 0, 0, 0]
                scores[word] += PENDING

        if context.prefix:  # the case the user typed is a strong hint
            for word in scores:
                if word.startswith(context.prefix):
                    scores[word] += 2
                    signals[word][6] = 1
        for word in (imported_here or set()) | declared:
            scores.pop(word, None)  # `import { a, b, a`, `const a; const a`: not imported, nor declared, twice
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
        for word, _ in ranked:  # for any tier: in how many of the project's other files (after a dot), in an imported one, defined
            used, members = project.counts(word, own) if project is not None else (0, 0)
            defined = project is not None and project.defines(word, own)
            pair = project.pair_files(receiver, word, own) if project is not None and receiver else 0
            signals[word] += [math.log1p(used), 1.0 if word in imported else 0.0, math.log1p(members),
                              1.0 if defined else 0.0, 1.0 if defined and import_name else 0.0, math.log1p(pair)]
        return [
            Candidate(
                text=word,
                kind=Kind.KEYWORD if signals[word][0] == KEYWORD else kinds.get(word.encode("utf-8", "surrogatepass"), Kind.VARIABLE),
                score=score,
                detail=f"{'keyword' if signals[word][0] == KEYWORD else 'identifier'} · fallback engine",
                features=tuple(signals[word]),
            )
            for word, score in ranked
        ]

    # The neural engine asks what follows right after complete() with the same context: each is
    # read once per context (``_Position``).

    def _position(self, context: CompletionContext) -> _Position:
        if self._last.context is not context:
            self._last = _Position(context)
        return self._last

    def declaring(self, context: CompletionContext) -> Declaring:
        """What the identifier at the cursor declares, and what is not offered there
        (server/declarations.py)."""
        position = self._position(context)
        if position.declaring is None:
            position.declaring = declaring(context)
        return position.declaring

    def not_modules(self, context: CompletionContext) -> frozenset[str]:
        """At a Python module position (``import |``, ``from |``), the words that cannot be the
        module a new import names: builtins, ``self`` and ``cls``, and what the buffer's imports
        bind (``Markup`` of ``from markupsafe import Markup``, ``t`` of ``import typing as t``)
        but the packages they import from and the standard library's modules; elsewhere none.
        (An unknown lowercase word may be a third-party package: it keeps its place.)"""
        position = self._position(context)
        if position.not_modules is None:
            position.not_modules = frozenset()
            if context.tree is not None and _module_position(context):
                hi = min(context.data.rfind(b"\n", 0, context.prefix_start) + 1, IMPORTS)
                bound = imported_modules(context.tree, context.language, hi) - _module_roots(context.tree, context.language, hi)
                position.not_modules = (BUILTIN_NAMES | bound) - frozenset(context.language.modules)
        return position.not_modules

    def imported_here(self, context: CompletionContext) -> set[str]:
        """Where the cursor names what an import takes: the names that the buffer's imports bind
        already (but the one being typed), which it would not import twice; elsewhere nothing."""
        position = self._position(context)
        if not position.imported_read:
            self._imported_names(context)
        return position.imported or set()

    def declared_here(self, context: CompletionContext) -> set[str]:
        """Where the cursor names what a statement declares: the names its block declares
        already before it (server/declarations.py); elsewhere nothing."""
        return set(self.declaring(context).taken)

    def _imported_names(self, context: CompletionContext, kinds: dict[bytes, Kind] | None = None) -> set[str] | None:
        """imported_here's names, or None where the cursor names no import's name; ``kinds``:
        the definitions already scanned around the cursor, if at hand."""
        listed = _listed_before(context) if context.tree is not None else None
        names = None
        if listed is not None:
            names = {w.decode("utf-8", "replace") for t, text in listed if t in ("identifier", "dotted_name")
                     for w in context.language.identifier_pattern.findall(text)}  # what an unfinished import lists
            if kinds is None:
                lo = max(0, (context.prefix_start - WINDOW_BEFORE) // 4096 * 4096)
                kinds = dict(self._scan_head(context, context.tree, min(HEAD, lo))[1])
                kinds.update(_scan(context.tree, context.language, lo, min(len(context.data), context.cursor + WINDOW_AFTER))[1])
            names.update(w.decode("utf-8", "replace") for w, kind in kinds.items() if kind == Kind.MODULE)
            names.discard(context.prefix)
        position = self._position(context)
        position.imported, position.imported_read = names, True
        return names

    def _adjust_for_dots(self, context: CompletionContext, before: bytes, count: Counter[bytes], scores: dict[str, float],
                         signals: dict[str, list[float]], declaring: dict[bytes, Kind] | None = None,
                         member: bool = False) -> None:
        """Member names after a dot, plain names elsewhere (``count``: all occurrences). At a
        declaration (``declaring``: the kinds of the names the file defines around the cursor), a
        name only ever used after a dot, after ``self.`` among others, and not defined is what is
        being declared more often than not: ``self._write_title()`` above, then ``def
        _write_title``. (Any receiver's members would lift JavaScript's property names at
        ``const |``: fewer names declared there were among the first five.) At a member's name
        (``member``), the other names only used after a dot are not lowered: members are
        what a dot reads."""
        as_member = Counter(member_words(before, context.language))
        if context.category == ATTRIBUTE:
            same_receiver: set[bytes] = set()
            if context.receiver:
                receiver = re.escape(context.receiver.encode("utf-8", "surrogatepass"))
                chars = context.language.identifier_chars.encode() + rb"\x80-\xff"
                member = _member_pattern(context.language.identifier_chars).pattern
                same_receiver = set(re.findall(rb"(?<![" + chars + rb"])" + receiver + rb"\s*" + member, before))
            for word in scores:
                raw = word.encode("utf-8", "surrogatepass")
                if raw in same_receiver:
                    scores[word] += 4
                    signals[word][3] = 1
                elif raw in as_member:
                    scores[word] += 2
                    signals[word][4] = 1
        else:
            own_members = set(_OWN_MEMBER.findall(before)) if declaring is not None else set()
            for word in scores:
                raw = word.encode("utf-8", "surrogatepass")
                if as_member[raw] and as_member[raw] == count[raw]:
                    if declaring is not None and raw not in declaring and raw in own_members:
                        scores[word] += 3
                    elif not member:
                        scores[word] -= 3
                        signals[word][5] = 1

    def _imported(self, context: CompletionContext, tree: tree_sitter.Tree, project: Snapshot, path: str | None) -> Imported:
        """The words of the project files that the code before the cursor imports (by module
        name: ``from .core import x`` reads core.py, ``require('./lib/router')`` router.js or
        router/index.js), each with the number of those files using it. Read up to the cursor's
        line, so that typing on a line reuses them; cached while the index stays the same."""
        hi = min(context.data.rfind(b"\n", 0, context.prefix_start) + 1, IMPORTS)
        key = context.data[:hi]
        cached = self._imports.get(context.uri)
        if cached is not None and cached[0] is project and cached[1] == key:
            return cached[3]
        modules = imported_modules(tree, context.language, hi)
        if cached is not None and cached[0] is project and cached[2] == modules:
            words = cached[3]
        else:
            counts: Counter[str] = Counter()
            for f in {f for name in modules for f in project.modules.get(name, ()) if f != path}:
                counts.update(project.files[f].words)
            words = Imported(counts)
        self._imports[context.uri] = (project, key, modules, words)
        return words

    def _scan_head(self, context: CompletionContext, tree: tree_sitter.Tree, head: int) -> tuple:
        """The file's head rarely changes while one types further down: reuse its scan."""
        key = context.data[:head]
        cached = self._heads.get(context.uri)
        if cached is None or cached[0] != key:
            cached = (key, _scan(tree, context.language, 0, head))
            self._heads[context.uri] = cached
        return cached[1]

    def _far_words(self, context: CompletionContext, lo: int, hi: int) -> Counter[bytes]:
        if lo >= hi:
            return Counter()
        key = context.data[lo:hi]
        cached = self._far.get(context.uri)
        if cached is None or cached[0] != key:
            cached = (key, Counter(context.language.identifier_pattern.findall(key)))
            self._far[context.uri] = cached
        return cached[1]

    def _others(self, context: CompletionContext) -> Iterable[Counter[str]]:
        """Identifier counts of the other open documents of the same language (cached by version)."""
        for doc in self._open_documents():
            if doc.uri == context.uri or doc.language is not context.language or doc.too_large:
                continue
            cached = self._counts.get(doc.uri)
            if cached is None or cached[0] != doc.version:
                tree = doc.tree
                if tree is None:
                    continue
                end = min(len(doc.data), OTHER_DOCUMENT)
                text = _blank(doc.data, _scan(tree, doc.language, 0, end)[0], 0, end)
                words = context.language.identifier_pattern.findall(text)
                cached = (doc.version, Counter(w.decode("utf-8", "replace") for w in words))
                self._counts[doc.uri] = cached
            yield cached[1]

    def forget(self, uri: str) -> None:
        self._counts.pop(uri, None)
        self._heads.pop(uri, None)
        self._far.pop(uri, None)
        self._imports.pop(uri, None)


@functools.lru_cache(maxsize=1024)
def path_of(uri: str) -> str | None:
    """The file a ``file:`` URI names, as the project index names it."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return str(Path(path).resolve()) if path else None
