"""A JavaScript class still being written: error recovery may leave no class node around the
cursor (``class A { m() { this.``), so the class is found in the text before it."""

from __future__ import annotations

import functools
import re

import tree_sitter

from .context import CompletionContext
from .languages import JAVASCRIPT
from .words import alone

OPEN_READ = 256 * 1024  # a class being written is looked for this far back

# `class X {`, its name group 1; the keyword's bytes first (words.alone): scanned fast
_JS_CLASS = re.compile(alone(b"class", rb"[\w$]") + rb"(?:\s+([A-Za-z_$][\w$]*))?(?:\s+extends\s+[^{]+)?\s*\{")
_BRACES = re.compile(rb"[{}]")


def open_class(data: bytes, offset: int) -> re.Match[bytes] | None:
    """The last ``class X {`` in the OPEN_READ bytes before ``offset`` whose brace is still open
    there (strings and comments not told apart): a JavaScript class being written, which error
    recovery may leave no class node for."""
    for match in reversed(list(_JS_CLASS.finditer(data, max(0, offset - OPEN_READ), offset))):
        depth = 0
        for brace in _BRACES.finditer(data, match.end() - 1, offset):
            depth += 1 if brace.group() == b"{" else -1
            if depth == 0:
                break
        if depth > 0:
            return match
    return None


def closed_class(context: CompletionContext) -> tuple[tree_sitter.Node | None, bytes]:
    """The last class opened before the cursor and not closed, parsed alone with its braces
    closed: error recovery leaves no class node around the cursor in ``class A { m() { this.``."""
    lo = max(0, context.prefix_start - OPEN_READ)
    before = context.data[lo:context.prefix_start]
    for match in reversed(list(_JS_CLASS.finditer(before))):
        text = before[match.start():]
        text = text[:text.rfind(b"\n") + 1] or text  # the cursor's line may not parse
        depth = text.count(b"{") - text.count(b"}")
        if depth > 0:
            source = text + b"}" * depth
            root = _parse_closed(source)
            node = root.named_children[0] if root.named_children else None
            while node is not None and node.type not in ("class_declaration", "class"):
                node = node.named_children[0] if node.named_children else None
            return node, source
    return None, b""


@functools.lru_cache(maxsize=4)
def _parse_closed(source: bytes) -> tree_sitter.Node:
    """The closed class parsed: the same while an identifier is typed after ``this.`` (the
    cursor's line is not part of it)."""
    return JAVASCRIPT.parser().parse(source).root_node
