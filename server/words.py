"""Words of source code as the completion engines read them: the spans of comments and strings
and the kinds of the names defined there (tree-sitter queries), code with those spans blanked,
the words written after a dot and the (receiver, member) pairs, and the names a file defines at
its top level.

The fallback engine (engines/fallback.py) reads the window around the cursor with these, and
the project index (project.py) the workspace's files, so that both count the same words. The
tree says what is code; words are then found with regular expressions over the blanked bytes,
which costs O(bytes) and copes with code that does not parse. Nothing here keeps state.
"""

from __future__ import annotations

import functools
import re

import tree_sitter

from .engines.base import Kind
from .grammars import definition_kind
from .languages import LanguageSpec, operator_regex

KINDS = {"function": Kind.FUNCTION, "class": Kind.CLASS, "module": Kind.MODULE}  # the scan query's captures


def node_text(node: tree_sitter.Node | None) -> str:
    """A node's source text (empty for no node)."""
    return node.text.decode("utf-8", "replace") if node is not None and node.text else ""


def scan(tree: tree_sitter.Tree, language: LanguageSpec, lo: int, hi: int) -> tuple[list[tuple[int, int]], dict[bytes, Kind]]:
    """The comment and string spans of [lo, hi), sorted, and the kinds of the names defined there."""
    spans: list[tuple[int, int]] = []
    kinds: dict[bytes, Kind] = {}
    if lo >= hi:
        return spans, kinds
    cursor = tree_sitter.QueryCursor(language.scan)
    cursor.set_byte_range(lo, hi)
    if not language.grammar_only:  # the capture names the kind
        for capture, nodes in cursor.captures(tree.root_node).items():
            if capture == "skip":
                spans.extend((n.start_byte, n.end_byte) for n in nodes)
            else:
                kinds.update((n.text, KINDS[capture]) for n in nodes if n.text)
    else:  # a grammar's tags.scm: ``@name`` is what a ``@definition.<kind>`` defines
        for _, captures in cursor.matches(tree.root_node):
            if "skip" in captures:
                spans.extend((n.start_byte, n.end_byte) for n in captures["skip"])
                continue
            if "name_keyword" in captures:  # a keyword written as a name here: a name (Kind.VARIABLE)
                kinds.update((n.text, Kind.VARIABLE) for n in captures["name_keyword"] if n.text)
                continue
            kind = next((k for k in map(definition_kind, captures) if k), None)
            if kind is not None:
                kinds.update((n.text, KINDS[kind]) for n in captures.get("name", ()) if n.text)
    spans.sort()
    return spans, kinds


def blank(data: bytes, spans: list[tuple[int, int]], lo: int, hi: int) -> bytes:
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


def blank_code(data: bytes, tree: tree_sitter.Tree, language: LanguageSpec) -> bytes:
    """A whole file with its comments and strings blanked."""
    return blank(data, scan(tree, language, 0, len(data))[0], 0, len(data))


def exported_names(tree: tree_sitter.Tree, language: LanguageSpec, top: bool = False) -> set[bytes]:
    """The names a file defines at its top level: what an import can take from it. ``top``: only
    the top level's statements are read (not a TypeScript namespace's exports), in a time that
    grows with them, not with the file (0.2 ms, not 10, in a file of 100 KB)."""
    cursor = tree_sitter.QueryCursor(language.exports)
    if top:
        cursor.set_max_start_depth(language.exports_depth)
    return {node.text for node in cursor.captures(tree.root_node).get("name", ()) if node.text}


def taken_names(tree: tree_sitter.Tree, language: LanguageSpec) -> set[bytes]:
    """The names a file's imports take from modules (languages' taken queries)."""
    return _captured_names(language.taken, tree) if language.taken_query else set()


def taken_from(tree: tree_sitter.Tree, language: LanguageSpec) -> set[tuple[bytes, bytes]]:
    """(module, name) for each name a file's imports take from a module: the module's last
    dotted part in Python (``from .a.b import c``: b), its path in JavaScript."""
    if not language.taken_from_query:
        return set()
    return {(caps["module"][0].text or b"", caps["name"][0].text or b"")
            for _, caps in tree_sitter.QueryCursor(language.taken_from).matches(tree.root_node)}


def _captured_names(query: tree_sitter.Query, tree: tree_sitter.Tree) -> set[bytes]:
    found = tree_sitter.QueryCursor(query).captures(tree.root_node).get("name", ())
    return {node.text for node in found if node.text}


@functools.cache
def member_pattern(identifier_chars: str, operators: tuple[str, ...] = (".",)) -> re.Pattern[bytes]:
    """A member operator (a dot) and the word after it (group 1)."""
    chars = identifier_chars.encode() + rb"\x80-\xff"
    return re.compile(operator_regex(operators) + rb"\s*([" + chars + rb"]+)")


def member_words(code: bytes, language: LanguageSpec) -> list[bytes]:
    """The words written after a dot in ``code`` (``obj.word``; ``obj->word`` in C)."""
    return member_pattern(language.identifier_chars, language.member_operators).findall(code)


@functools.cache
def _pair_pattern(identifier_chars: str, operators: tuple[str, ...]) -> re.Pattern[bytes]:
    chars = identifier_chars.encode() + rb"\x80-\xff"
    return re.compile(rb"(?<![" + chars + rb"])(?![0-9])([" + chars + rb"]+)\s*(?=" + operator_regex(operators)
                      + rb"\s*([" + chars + rb"]+))")


def member_pairs(code: bytes, language: LanguageSpec) -> list[tuple[bytes, bytes]]:
    """The (word before the dot, word after it) pairs of ``code``: ``a.b.c`` gives (a, b), (b, c)."""
    return _pair_pattern(language.identifier_chars, language.member_operators).findall(code)


@functools.cache
def _receiver_pattern(identifier_chars: str) -> re.Pattern[str]:
    return re.compile(r"(?<![" + identifier_chars + r"\w])(?![0-9])([" + identifier_chars + r"\w]+)\s*\Z")


def receiver_word(receiver: str | None, language: LanguageSpec) -> str | None:
    """The last word of the object before the dot (``state`` for ``context.state``), if it ends in one."""
    match = _receiver_pattern(language.identifier_chars).search(receiver) if receiver else None
    return match.group(1) if match else None


def alone(word: bytes, before: bytes = rb"[\w$.]") -> bytes:
    """A pattern of ``word`` (a regular expression of fixed width, a name escaped) where no
    ``before`` stands just before it, the word first: the scan then looks for the word alone,
    where a lookbehind first is tried at every offset (~40 times slower over 16 KB)."""
    return word + rb"(?<!" + before + word + rb")"
