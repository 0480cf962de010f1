"""The edit that adds an import, in the file's own style (sources/auto_import.py offers it).

Python: the name joins an existing ``from m import ...`` of the same module (parenthesised or
not); otherwise a new line, placed in order where the file's top-level imports are sorted, else
after the last of them, else after the module's docstring and leading comments.
JavaScript and TypeScript: the name joins an existing ``import { ... } from 'm'`` or ``const {
... } = require('m')``; otherwise a new ``import`` or ``require`` line, as the file already
writes them (ES modules where it writes neither, but for a CommonJS file, which assigns
``module.exports``), with the file's quotes and semicolons, after its last import.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from ..context import CompletionContext
from .auto_import import Offer

PY_IMPORTS = ("import_statement", "import_from_statement", "future_import_statement")


@dataclass(frozen=True)
class Edit:
    start: int  # byte offsets in the buffer
    end: int
    text: str


HEAD_STATEMENTS = 400  # top-level statements read for the imports (their file's head)
# where the head ends: imports below the first definition are not joined nor followed
DEFINITIONS = frozenset({"function_definition", "class_definition", "decorated_definition", "function_declaration",
                         "class_declaration", "generator_function_declaration"})


class Editor:
    """The edits of one list: the buffer's top-level statements before the cursor are read once."""

    def __init__(self, context: CompletionContext):
        self.context = context
        self._top: list[tree_sitter.Node] | None = None
        self._imports: list | tuple = []  # Python's import statements; JavaScript's imports and requires
        self._shared: dict[str, object] = {}

    def edit(self, offer: Offer) -> Edit | None:
        """The edit that makes ``offer`` bind its name in the buffer."""
        if self._top is None:  # the statements before the first definition: the file's head
            self._top = []
            cursor = self.context.tree.root_node.walk()
            more = cursor.goto_first_child()
            while more and len(self._top) < HEAD_STATEMENTS:
                node = cursor.node
                if node.end_byte > self.context.prefix_start or node.type in DEFINITIONS:
                    break
                self._top.append(node)
                more = cursor.goto_next_sibling()
            python = self.context.language.name == "python"
            self._imports = [node for node in self._top if node.type in PY_IMPORTS] if python else (
                [node for node in self._top if node.type == "import_statement"],
                [node for node in self._top if node.type in ("lexical_declaration", "variable_declaration")
                 and b"require(" in (node.text or b"")])
        if self.context.language.name == "python":
            return _python(self.context.data, self._top, self._imports, offer, self._read)
        return _javascript(self.context, self._top, *self._imports, offer, self._read)

    def _read(self, key: str, compute):
        """What the list's edits share, computed once: ``compute()`` kept under ``key``."""
        if key not in self._shared:
            self._shared[key] = compute()
        return self._shared[key]


def edit(context: CompletionContext, offer: Offer) -> Edit | None:
    """The edit that makes ``offer`` bind its name in the buffer (one list: Editor)."""
    return Editor(context).edit(offer)


def _alone(key: str, compute):
    return compute()


def _python(data: bytes, top: list[tree_sitter.Node], imports: list[tree_sitter.Node], offer: Offer, read=_alone) -> Edit | None:
    named = offer.name if offer.name == offer.imported else f"{offer.imported} as {offer.name}"
    if offer.imported:
        node = read("from", lambda: _from_imports(imports)).get(offer.module.encode())
        if node is not None:
            names = node.children_by_field_name("name")
            if names and not any(child.type == "wildcard_import" for child in node.children):
                return Edit(names[-1].end_byte, names[-1].end_byte, f", {named}")
        line = f"from {offer.module} import {named}"
    else:
        plain = offer.name == offer.module or offer.module.startswith(offer.name + ".")  # `import os.path` binds os
        line = f"import {offer.module}" if plain else f"import {offer.module} as {offer.name}"
    return _new_line(data, top, imports, line, _python_head, read=read)


def _from_imports(imports: list[tree_sitter.Node]) -> dict[bytes, tree_sitter.Node]:
    """The from-imports by their module's text, the first of each."""
    found: dict[bytes, tree_sitter.Node] = {}
    for node in imports:
        module = node.child_by_field_name("module_name")
        if node.type == "import_from_statement" and module is not None and module.text:
            found.setdefault(module.text, node)
    return found


def _python_head(data: bytes, top: list[tree_sitter.Node]) -> int:
    """Where a first import goes: after the module's docstring, else at its first statement
    (below a shebang and leading comments)."""
    for node in top:
        if node.type == "comment":
            continue
        if node.type == "expression_statement" and node.named_child_count and node.named_children[0].type == "string":
            return _line_after(data, node.end_byte)
        return node.start_byte - node.start_point[1]
    return _line_after(data, top[-1].end_byte) if top else 0


def _javascript(context: CompletionContext, top: list[tree_sitter.Node], esm: list[tree_sitter.Node],
                required: list[tree_sitter.Node], offer: Offer, read=_alone) -> Edit | None:
    data = context.data
    quote = read("quote", lambda: _quote(esm + required))
    if esm or not required and not (context.language.name == "javascript" and b"module.exports" in data):
        for node in esm:
            source = node.child_by_field_name("source")
            if source is not None and source.text and source.text[1:-1] == offer.module.encode() and offer.imported:
                specifiers = [n for n in _descendants(node, "named_imports")]
                if specifiers and specifiers[0].named_children:
                    end = specifiers[0].named_children[-1].end_byte
                    return Edit(end, end, f", {_named(offer, ' as ')}")
        clause = f"{{ {_named(offer, ' as ')} }}" if offer.imported else offer.name
        line = f"import {clause} from {quote}{offer.module}{quote}"
        imports = esm
    else:
        for node in required:
            if f"require({quote}{offer.module}{quote})".encode() in (node.text or b"") and offer.imported:
                patterns = [n for n in _descendants(node, "object_pattern")]
                if patterns and patterns[0].named_children:
                    end = patterns[0].named_children[-1].end_byte
                    return Edit(end, end, f", {_named(offer, ': ')}")
        binding = f"{{ {_named(offer, ': ')} }}" if offer.imported else offer.name
        line = f"const {binding} = require({quote}{offer.module}{quote})"
        imports = required
    if read("semicolons " + str(imports is esm), lambda: _semicolons(data, imports)):
        line += ";"
    return _new_line(data, top, imports, line, _javascript_head, sort=False, read=read)


def _named(offer: Offer, alias: str) -> str:
    return offer.name if offer.imported == offer.name else f"{offer.imported}{alias}{offer.name}"


def _javascript_head(data: bytes, top: list[tree_sitter.Node]) -> int:
    """Where a first import goes: after a shebang, leading comments and ``'use strict'``."""
    for node in top:
        if node.type in ("comment", "hash_bang_line"):
            continue
        if node.type == "expression_statement" and node.text and node.text.strip(b";").strip(b"'\"") == b"use strict":
            return _line_after(data, node.end_byte)
        return node.start_byte - node.start_point[1]
    return _line_after(data, top[-1].end_byte) if top else 0


def _new_line(data: bytes, top, imports: list[tree_sitter.Node], line: str, head, sort: bool = True, read=_alone) -> Edit:
    """A new line holding ``line``: in order among sorted imports, else after the last one."""
    if not imports:
        at = read("head", lambda: head(data, top))
        return Edit(at, at, line + "\n")
    texts = read("orders", lambda: [_order((node.text or b"").decode("utf-8", "replace")) for node in imports]) if sort else []
    if sort and read("sorted", lambda: texts == sorted(texts)):
        ours = _order(line)
        for node, text in zip(imports, texts):
            if ours < text and "__future__" not in text[1]:
                at = node.start_byte - node.start_point[1]
                return Edit(at, at, line + "\n")
    at = _line_after(data, imports[-1].end_byte)
    if at > len(data) or at == len(data) and not data.endswith(b"\n"):
        return Edit(len(data), len(data), "\n" + line)
    return Edit(at, at, line + "\n")


def _order(line: str) -> tuple[bool, str]:
    """How sorted Python imports order a line: ``import m`` lines first, then by module."""
    words = line.split()
    return (words[0] == "from", words[1].lower() if len(words) > 1 else "")


def _line_after(data: bytes, offset: int) -> int:
    newline = data.find(b"\n", offset)
    return len(data) if newline < 0 else newline + 1


def _descendants(node: tree_sitter.Node, kind: str):
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == kind:
            yield current
        stack.extend(reversed(current.named_children))


def _quote(nodes: list[tree_sitter.Node]) -> str:
    for node in nodes:
        for string in _descendants(node, "string"):
            if string.text and string.text[:1] in (b"'", b'"'):
                return string.text[:1].decode()
    return "'"


def _semicolons(data: bytes, imports: list[tree_sitter.Node]) -> bool:
    if imports:
        return (imports[-1].text or b"").rstrip().endswith(b";")
    return data.count(b";\n") * 2 >= data.count(b"\n") // 4 or not data.strip()
