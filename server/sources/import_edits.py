"""The edit that adds an import, in the file's own style (sources/auto_import.py offers it).

Python: the name joins an existing ``from m import ...`` of the same module (parenthesised or
not); otherwise a new line, placed in order where the file's top-level imports are sorted, else
after the last of them, else after the module's docstring and leading comments.
JavaScript and TypeScript: the name joins an existing ``import { ... } from 'm'`` or ``const {
... } = require('m')``; otherwise a new ``import`` or ``require`` line, as the file already
writes them (ES modules where it writes neither, but for a CommonJS file, which assigns
``module.exports``), with the file's quotes and semicolons, after its last import; Node's own
modules with the ``node:`` scheme where the file writes them so (not a package of the same name
installed for the file).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import tree_sitter

from ..context import CompletionContext
from .auto_import import Offer
from .installed import installed
from .library_names import library_names
from .project import path_of

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
    """The edits of one list: what they read of the buffer (its head's statements, imports,
    quotes, order) is read once, where the first edit needs it."""

    def __init__(self, context: CompletionContext):
        self.context = context
        self.data = context.data
        self.python = context.language.name == "python"

    @functools.cached_property
    def top(self) -> list[tree_sitter.Node]:
        """The top-level statements before the cursor and the first definition: the file's head."""
        found: list[tree_sitter.Node] = []
        cursor = self.context.tree.root_node.walk()
        more = cursor.goto_first_child()
        while more and len(found) < HEAD_STATEMENTS:
            node = cursor.node
            if node.end_byte > self.context.prefix_start or node.type in DEFINITIONS:
                break
            found.append(node)
            more = cursor.goto_next_sibling()
        return found

    @functools.cached_property
    def imports(self) -> list[tree_sitter.Node]:
        """Python's import statements; JavaScript's ES imports."""
        kinds = PY_IMPORTS if self.python else ("import_statement",)
        return [node for node in self.top if node.type in kinds]

    @functools.cached_property
    def required(self) -> list[tree_sitter.Node]:
        """JavaScript's ``const x = require('m')`` declarations."""
        return [node for node in self.top if node.type in ("lexical_declaration", "variable_declaration")
                and b"require(" in (node.text or b"")]

    @functools.cached_property
    def from_imports(self) -> dict[bytes, tree_sitter.Node]:
        """Python's from-imports by their module's text, the first of each."""
        found: dict[bytes, tree_sitter.Node] = {}
        for node in self.imports:
            module = node.child_by_field_name("module_name")
            if node.type == "import_from_statement" and module is not None and module.text:
                found.setdefault(module.text, node)
        return found

    @functools.cached_property
    def orders(self) -> list[tuple[bool, str]] | None:
        """How sorted Python imports order the file's import lines; None where they are not sorted."""
        texts = [_order((node.text or b"").decode("utf-8", "replace")) for node in self.imports]
        return texts if texts == sorted(texts) else None

    @functools.cached_property
    def quote(self) -> str:
        for node in self.imports + self.required:
            for string in _descendants(node, "string"):
                if string.text and string.text[:1] in (b"'", b'"'):
                    return string.text[:1].decode()
        return "'"

    def _a_package(self, module: str) -> bool:
        """Whether ``module``, named like one of Node's, is an installed package the file may
        import (npm's punycode, which replaces Node's deprecated one): written as it is named."""
        path = path_of(self.context.uri)
        return path is not None and module in installed(str(Path(path).parent), False).values()

    @functools.cached_property
    def node_scheme(self) -> bool:
        """Whether the file writes Node's own modules with the ``node:`` scheme (``'node:fs'``)."""
        return any(string.text and string.text[1:6] == b"node:"
                   for node in self.imports + self.required for string in _descendants(node, "string"))

    @functools.cached_property
    def semicolons(self) -> bool:
        """Whether a file without imports ends its statements with semicolons (or is empty)."""
        return self.data.count(b";\n") * 2 >= self.data.count(b"\n") // 4 or not self.data.strip()

    @functools.cached_property
    def head(self) -> int:
        """Where a first import goes: below a shebang and leading comments, after a Python
        module's docstring or JavaScript's ``'use strict'``, else at the first statement."""
        for node in self.top:
            if node.type in ("comment", "hash_bang_line"):
                continue
            if node.type == "expression_statement" and _preamble(node, self.python):
                return _line_after(self.data, node.end_byte)
            return node.start_byte - node.start_point[1]
        return _line_after(self.data, self.top[-1].end_byte) if self.top else 0

    def edit(self, offer: Offer) -> Edit:
        """The edit that makes ``offer`` bind its name in the buffer."""
        return self._python(offer) if self.python else self._javascript(offer)

    def _python(self, offer: Offer) -> Edit:
        named = offer.name if offer.name == offer.imported else f"{offer.imported} as {offer.name}"
        if offer.imported:
            node = self.from_imports.get(offer.module.encode())
            if node is not None:
                names = node.children_by_field_name("name")
                if names and not any(child.type == "wildcard_import" for child in node.children):
                    return Edit(names[-1].end_byte, names[-1].end_byte, f", {named}")
            line = f"from {offer.module} import {named}"
        else:
            plain = offer.name == offer.module or offer.module.startswith(offer.name + ".")  # `import os.path` binds os
            line = f"import {offer.module}" if plain else f"import {offer.module} as {offer.name}"
        return self._new_line(self.imports, line, self.orders)

    def _javascript(self, offer: Offer) -> Edit:
        quote, esm = self.quote, self.imports
        module = offer.module
        if module in library_names(self.context.language.name).modules and self.node_scheme and not self._a_package(module):
            module = f"node:{module}"
        if esm or not self.required and not (self.context.language.name == "javascript" and b"module.exports" in self.data):
            for node in esm:
                source = node.child_by_field_name("source")
                if source is not None and source.text and source.text[1:-1] == module.encode() and offer.imported:
                    specifiers = list(_descendants(node, "named_imports"))
                    if specifiers and specifiers[0].named_children:
                        end = specifiers[0].named_children[-1].end_byte
                        return Edit(end, end, f", {_named(offer, ' as ')}")
            clause = f"{{ {_named(offer, ' as ')} }}" if offer.imported else offer.name
            line, imports = f"import {clause} from {quote}{module}{quote}", esm
        else:
            for node in self.required:
                if f"require({quote}{module}{quote})".encode() in (node.text or b"") and offer.imported:
                    patterns = list(_descendants(node, "object_pattern"))
                    if patterns and patterns[0].named_children:
                        end = patterns[0].named_children[-1].end_byte
                        return Edit(end, end, f", {_named(offer, ': ')}")
            binding = f"{{ {_named(offer, ': ')} }}" if offer.imported else offer.name
            line, imports = f"const {binding} = require({quote}{module}{quote})", self.required
        if (imports[-1].text or b"").rstrip().endswith(b";") if imports else self.semicolons:
            line += ";"
        return self._new_line(imports, line, None)

    def _new_line(self, imports: list[tree_sitter.Node], line: str, orders: list[tuple[bool, str]] | None) -> Edit:
        """A new line holding ``line``: in order among sorted imports (``orders``), else after
        the last one, else at the head."""
        data = self.data
        if not imports:
            return Edit(self.head, self.head, line + "\n")
        if orders is not None:
            ours = _order(line)
            for node, text in zip(imports, orders):
                if ours < text and "__future__" not in text[1]:
                    at = node.start_byte - node.start_point[1]
                    return Edit(at, at, line + "\n")
        at = _line_after(data, imports[-1].end_byte)
        if at > len(data) or at == len(data) and not data.endswith(b"\n"):
            return Edit(len(data), len(data), "\n" + line)
        return Edit(at, at, line + "\n")


def _preamble(statement: tree_sitter.Node, python: bool) -> bool:
    """A module's docstring (Python), or ``'use strict'`` (JavaScript)."""
    if python:
        return statement.named_child_count > 0 and statement.named_children[0].type == "string"
    return bool(statement.text) and statement.text.strip(b";").strip(b"'\"") == b"use strict"


def _named(offer: Offer, alias: str) -> str:
    return offer.name if offer.imported == offer.name else f"{offer.imported}{alias}{offer.name}"


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
