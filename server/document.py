"""An open document: its text, its line index and its tree-sitter tree, kept in step.

Every incremental change is applied in order to the text and, as ``Tree.edit``, to the tree.
The re-parse ``parser.parse(text, old_tree)`` is incremental too and runs lazily, the first
time someone needs the tree after a change: a burst of keystrokes costs one parse, not one per
keystroke. Documents over ``max_bytes`` keep their text but get no tree (a 20 MB parse takes
seconds here); their completions are empty.

Not thread-safe: one thread (the server's document worker) owns all documents.
"""

from __future__ import annotations

import logging

import tree_sitter

from .languages import LanguageSpec
from .positions import UTF16, LineIndex, decode, encode

log = logging.getLogger(__name__)


def ts_point(data: bytes, offset: int) -> tuple[int, int]:
    """Tree-sitter's (row, byte column): its rows count ``\\n`` only, unlike LSP lines."""
    row = data.count(b"\n", 0, offset)
    return row, offset - (data.rfind(b"\n", 0, offset) + 1)


def _advance(point: tuple[int, int], text: bytes) -> tuple[int, int]:
    """The point after ``text`` when it starts at ``point``: O(len(text)), not O(file)."""
    newlines = text.count(b"\n")
    if not newlines:
        return point[0], point[1] + len(text)
    return point[0] + newlines, len(text) - text.rfind(b"\n") - 1


def edit_tree(tree: tree_sitter.Tree, start: int, start_point: tuple[int, int], removed: bytes, inserted: bytes) -> None:
    """Tell ``tree`` that ``removed``, at byte ``start`` / ``start_point``, became ``inserted``."""
    tree.edit(
        start_byte=start,
        old_end_byte=start + len(removed),
        new_end_byte=start + len(inserted),
        start_point=start_point,
        old_end_point=_advance(start_point, removed),
        new_end_point=_advance(start_point, inserted),
    )


ERRORS_REPARSED = 16 * 1024  # bytes of a tree's error nodes parsed afresh at most, per parse


def reparse_errors(tree: tree_sitter.Tree) -> None:
    """Mark the tree's ERROR and MISSING nodes as edited, so that the next incremental parse
    reads them again rather than reusing the subtrees around them. tree-sitter reuses an
    unchanged subtree that holds a MISSING node (``{ a:def`` parsed as a block missing its
    ``}``) where a fresh parse of the same text recovers otherwise (an ERROR holding a pair):
    the incremental tree would differ from the fresh one. Error nodes past ERRORS_REPARSED
    bytes in all are left as they are (a file the grammar cannot read at all would be parsed
    whole at every keystroke)."""
    spans, budget = [], ERRORS_REPARSED
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            budget -= node.end_byte - node.start_byte
            if budget < 0:
                break
            spans.append(node)
            continue
        stack.extend(child for child in node.children if child.has_error)
    for node in spans:
        tree.edit(start_byte=node.start_byte, old_end_byte=node.end_byte, new_end_byte=node.end_byte,
                  start_point=node.start_point, old_end_point=node.end_point, new_end_point=node.end_point)


class Document:
    def __init__(
        self,
        uri: str,
        text: str,
        version: int,
        language: LanguageSpec | None,
        encoding: str = UTF16,
        max_bytes: int | None = None,
    ):
        self.uri = uri
        self.version = version
        self.language = language
        self.encoding = encoding
        self.max_bytes = max_bytes
        self.data = encode(text)
        self._lines: LineIndex | None = LineIndex(self.data)
        self._has_cr = b"\r" in self.data  # only then do LSP lines and tree-sitter rows differ
        self._parser: tree_sitter.Parser | None = None  # made at the first parse
        self._tree: tree_sitter.Tree | None = None
        self._stale = True  # text changed since the last parse

    @property
    def text(self) -> str:
        return decode(self.data)

    @property
    def too_large(self) -> bool:
        return self.max_bytes is not None and len(self.data) > self.max_bytes

    @property
    def lines(self) -> LineIndex:
        """Where the lines start (built again after ``drop_tree``)."""
        if self._lines is None:
            self._lines = LineIndex(self.data)
        return self._lines

    @property
    def tree(self) -> tree_sitter.Tree | None:
        """The syntax tree of the current text (None: no language, or over the size limit)."""
        if self.language is None or self.too_large:
            self._tree = None  # a later parse after shrinking starts afresh
            return None
        if self._parser is None:
            self._parser = self.language.parser()
        if self._stale or self._tree is None:
            old = self._tree
            if old is not None and old.root_node.has_error:
                reparse_errors(old)
            self._tree = self.language.parse(self._parser, self.data, old)
            self._stale = False
        return self._tree

    def drop_tree(self) -> None:
        """Keep the text only (memory): the syntax tree, its parser and the line index go; the
        next use builds them afresh."""
        self._tree = None
        self._parser = None
        self._lines = None
        self._stale = True

    @property
    def parsed(self) -> bool:
        return self._tree is not None

    def offset_at(self, line: int, character: int) -> int:
        return self.lines.offset(self.data, line, character, self.encoding)

    def position_at(self, offset: int) -> tuple[int, int]:
        return self.lines.position(self.data, offset, self.encoding)

    def probe(self, start: int, end: int, text: bytes) -> tuple[bytes, tree_sitter.Tree] | None:
        """The text and tree the document would have with bytes [start, end) replaced by
        ``text``, parsed incrementally from a copy of its tree; the document is unchanged."""
        tree = self.tree
        if tree is None or self._parser is None:
            return None
        data = self.data[:start] + text + self.data[end:]
        copy = tree.copy()
        edit_tree(copy, start, self._ts_point(start), self.data[start:end], text)
        return data, self.language.parse(self._parser, data, copy)

    def _ts_point(self, offset: int) -> tuple[int, int]:
        """The tree-sitter point of an offset: from the line index (a bisect) unless the text
        has a carriage return, where the rows must be counted."""
        if self._has_cr:
            return ts_point(self.data, offset)
        line = self.lines.line_of(offset)
        return line, offset - self.lines.starts[line]

    def replace_all(self, text: str) -> None:
        self.data = encode(text)
        self._lines = LineIndex(self.data)
        self._has_cr = b"\r" in self.data
        self._tree = None
        self._stale = True

    def apply_change(
        self,
        start: tuple[int, int],
        end: tuple[int, int],
        text: str,
    ) -> None:
        """Replace the text between two LSP positions (clamped into the document)."""
        data = self.data
        lo = self.offset_at(*start)
        hi = max(lo, self.offset_at(*end))
        new = encode(text)
        new_data = data[:lo] + new + data[hi:]
        if self._tree is not None:
            edit_tree(self._tree, lo, self._ts_point(lo), data[lo:hi], new)
        self._has_cr = self._has_cr or b"\r" in new
        self.data = new_data
        self.lines.update(new_data, lo, hi, lo + len(new))
        self._stale = True
