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


def edit_tree(tree: tree_sitter.Tree, old: bytes, new: bytes, start: int, old_end: int, new_end: int) -> None:
    """Tell ``tree`` that bytes [start, old_end) of ``old`` became [start, new_end) of ``new``."""
    tree.edit(
        start_byte=start,
        old_end_byte=old_end,
        new_end_byte=new_end,
        start_point=ts_point(old, start),
        old_end_point=ts_point(old, old_end),
        new_end_point=ts_point(new, new_end),
    )


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
        self.lines = LineIndex(self.data)
        self._parser = language.parser() if language else None
        self._tree: tree_sitter.Tree | None = None
        self._stale = True  # text changed since the last parse

    @property
    def text(self) -> str:
        return decode(self.data)

    @property
    def too_large(self) -> bool:
        return self.max_bytes is not None and len(self.data) > self.max_bytes

    @property
    def tree(self) -> tree_sitter.Tree | None:
        """The syntax tree of the current text (None: no language, or over the size limit)."""
        if self._parser is None or self.too_large:
            self._tree = None  # a later parse after shrinking starts afresh
            return None
        if self._stale or self._tree is None:
            old = self._tree
            self._tree = self._parser.parse(self.data, old) if old else self._parser.parse(self.data)
            self._stale = False
        return self._tree

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
        edit_tree(copy, self.data, data, start, end, start + len(text))
        return data, self._parser.parse(data, copy)

    def replace_all(self, text: str, version: int) -> None:
        self.data = encode(text)
        self.lines = LineIndex(self.data)
        self._tree = None
        self._stale = True
        self.version = version

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
            edit_tree(self._tree, data, new_data, lo, hi, lo + len(new))
        self.data = new_data
        self.lines.update(new_data, lo, hi, lo + len(new))
        self._stale = True
