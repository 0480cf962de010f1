"""The positions of ``benchmarks.editing --select imported-name [--drop-imports]``: names that
an import of the file binds (``Path`` after ``from pathlib import Path``), used below it, and
whether a completion item's import edit binds the same thing.

With ``--drop-imports`` every import statement is removed from the buffer (and the file's other
text kept): the name must come with the import that brings it back. An edit is right where the
import it writes binds the name to the same module (a relative module and an absolute one that
name the same project file alike, and a subpath import ``#client/constants`` as the file
package.json's ``imports`` maps it to; ``node:fs`` as ``fs``) and takes the same name from it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from lsprotocol import types
from treecomplete.languages import LanguageSpec
from treecomplete.receivers import Target
from treecomplete.scope import parameters_of
from treecomplete.sources.libraries.node_resolution import resolve

PY_IMPORTS = {"import_statement", "import_from_statement", "future_import_statement"}
JS_SUFFIXES = (".d.ts", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx")


def import_spans(tree, language: LanguageSpec) -> list[tuple[int, int]]:
    """The top-level import statements (and ``const x = require('m')``), each with the line end
    after it."""
    spans = []
    data = tree.root_node.text or b""
    for node in tree.root_node.children:
        if node.type in PY_IMPORTS or node.type == "import_statement" or (
                language.name != "python" and node.type in ("lexical_declaration", "variable_declaration")
                and re.search(rb"=\s*require\s*\(\s*['\"][^'\"]+['\"]\s*\)\s*;?\s*$", node.text or b"")):
            end = node.end_byte
            if data[end:end + 1] == b"\n":
                end += 1
            spans.append((node.start_byte, end))
    return spans


def in_import(node) -> bool:
    """Whether ``node`` is part of an import statement (``argument`` of ``from cleo.io.inputs.argument
    import Argument``), wherever the statement is (JavaScript's ``import_statement`` too)."""
    while node is not None:
        if node.type in PY_IMPORTS:
            return True
        node = node.parent
    return False


def drop(data: bytes, spans: list[tuple[int, int]], offset: int) -> tuple[bytes, int]:
    """``data`` without ``spans``, and where ``offset`` moves to."""
    out, last, moved = [], 0, offset
    for start, end in spans:
        out.append(data[last:start])
        if end <= offset:
            moved -= end - start
        last = end
    out.append(data[last:])
    return b"".join(out), moved


SCOPES = {"function_definition", "lambda", "function_declaration", "function_expression", "arrow_function",
          "method_definition", "generator_function_declaration", "generator_function"}
DECLARES = {"variable_declarator": "name", "assignment": "left", "for_statement": "left", "for_in_statement": "left",
            "as_pattern_target": None, "with_item": None, "catch_clause": "parameter"}


def shadowed(node, name: str) -> bool:
    """Whether a function around ``node`` binds ``name`` itself (a parameter, or a variable,
    an assignment's or a loop's target in its body): there the name is not the import's.
    Read from the tree, apart from the server's own reading."""
    scope = node.parent
    while scope is not None:
        if scope.type in SCOPES and _binds(scope, name):
            return True
        scope = scope.parent
    return False


def _binds(scope, name: str) -> bool:
    if name in parameters_of(scope):
        return True
    body = scope.child_by_field_name("body")
    stack = [body] if body is not None else []
    while stack:
        current = stack.pop()
        if current.type in SCOPES:
            continue  # a nested function's own names
        field = DECLARES.get(current.type, "")
        target = current.child_by_field_name(field) if field else current if field is None else None
        if target is not None and _names_in(target, name):
            return True
        stack.extend(current.named_children)
    return False


def _names_in(target, name: str) -> bool:
    stack = [target]
    while stack:
        current = stack.pop()
        if current.type in ("identifier", "shorthand_property_identifier_pattern") and current.text == name.encode():
            return True
        if current.type not in ("member_expression", "attribute", "subscript", "subscript_expression", "call", "call_expression"):
            stack.extend(current.named_children)
    return False


def canonical(module: str, path: Path, python: bool) -> str:
    """A module as a path where it names a project file (relative, or absolute under a folder
    above ``path``), else as written (``node:`` dropped)."""
    if python:
        if module.startswith("."):
            dots = len(module) - len(module.lstrip("."))
            base = path.parent
            for _ in range(dots - 1):
                base = base.parent
            rest = module[dots:]
            return "path:" + str(base.joinpath(*rest.split("."))) if rest else "path:" + str(base)
        parts = module.split(".")
        for base in path.parents:
            candidate = base.joinpath(*parts)
            if candidate.with_suffix(".py").is_file() or (candidate / "__init__.py").is_file():
                return "path:" + str(candidate)
        return "module:" + module
    if module.startswith("#") and (found := resolve(path.parent, module)) is not None:  # as package.json's `imports` maps it
        module = "./" + os.path.relpath(found, path.parent)
    if module.startswith("."):
        target = os.path.normpath(os.path.join(path.parent, module))
        for suffix in JS_SUFFIXES:
            target = target.removesuffix(suffix)
        return "path:" + target.removesuffix("/index")
    return "module:" + module.removeprefix("node:")


_PY_FROM = re.compile(r"^\s*from\s+(\S+)\s+import\s+\(?\s*([^)\n]*)", re.MULTILINE)
_PY_IMPORT = re.compile(r"^\s*import\s+([\w.]+)(?:\s+as\s+(\w+))?", re.MULTILINE)
_JS_IMPORT = re.compile(r"import\s+(.*?)\s+from\s+['\"]([^'\"]+)['\"]", re.DOTALL)
_JS_REQUIRE = re.compile(r"(?:const|let|var)\s+(.*?)\s*=\s*require\(\s*['\"]([^'\"]+)['\"]\s*\)", re.DOTALL)


def bound_by(text: str, python: bool) -> dict[str, tuple[str, str]]:
    """What the import statements in ``text`` bind: name -> (module, name imported or "")."""
    found: dict[str, tuple[str, str]] = {}
    if python:
        for module, names in _PY_FROM.findall(text):
            for part in names.split(","):
                words = part.split()
                if words:
                    found[words[-1]] = (module, words[0])
        for module, alias in _PY_IMPORT.findall(text):
            found[alias or module.split(".")[0]] = (module if alias else module.split(".")[0], "")
        return found
    for clause, module in _JS_IMPORT.findall(text) + _JS_REQUIRE.findall(text):
        named = re.search(r"\{([^}]*)\}", clause)
        for part in named.group(1).split(",") if named else ():
            words = re.split(r"\s+as\s+|\s*:\s*", part.strip())
            if words and words[0]:
                found[words[-1]] = (module, words[0])
        rest = re.sub(r"\{[^}]*\}", "", clause).replace("* as", "").strip(" ,")
        if re.fullmatch(r"[\w$]+", rest):
            found[rest] = (module, "")
    return found


def edit_binding(item: types.CompletionItem, name: str, python: bool) -> tuple[str, str] | None:
    """What the item's import edits bind ``name`` to (module, imported name), if they bind it."""
    text = "\n".join(edit.new_text for edit in item.additional_text_edits or ())
    return bound_by(text, python).get(name)


def right_edit(item: types.CompletionItem, name: str, target: Target, path: Path, python: bool) -> bool:
    """Whether the item's import edits bind ``name`` as ``target`` did."""
    got = edit_binding(item, name, python)
    if got is None:
        return False
    imported = target.names[0] if target.names else ""
    return canonical(got[0], path, python) == canonical(target.module, path, python) and got[1] == imported
