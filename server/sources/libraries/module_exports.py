"""What a JavaScript module exports, read from its source, never run: ES ``export``
declarations, CommonJS's ``module.exports = {...}``, ``exports.a = ...``, what the file assigns
to its default export's name, and, where the default export is a class or a function, its
``prototype``."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import tree_sitter

from ...words import node_text
from .declarations import CLASS, FUNCTION, VARIABLE, Reader, Scope, kind, parser

_COMMONJS = """
(assignment_expression left: (member_expression object: (identifier) @object property: (property_identifier) @name)
  right: (_) @value (#eq? @object "exports"))
(assignment_expression left: (member_expression object: (member_expression object: (identifier) @module
  property: (property_identifier) @exports) property: (property_identifier) @name) right: (_) @value
  (#eq? @module "module") (#eq? @exports "exports"))
(assignment_expression left: (member_expression object: (identifier) @module property: (property_identifier) @exports)
  right: (object) @object (#eq? @module "module") (#eq? @exports "exports"))
"""


_EXPORTED_NAME = re.compile(rb"(?m)^[ \t]*(?:exports[ \t]*=[ \t]*)?module\.exports[ \t]*=[ \t]*([A-Za-z_$][\w$]*)[ \t]*;?[ \t]*$")
_EXPORTS_ALIAS = re.compile(rb"\b(?:var|let|const)[ \t]+([A-Za-z_$][\w$]*)[ \t]*=[ \t]*(?:module\.)?exports[ \t]*[,;\n]")
_COMMONJS_WORD = re.compile(rb"(?<![\w$.])(?:module\.exports|exports\s*[.\[=])")  # where a module may take exports as it runs
_DEFINED_EXPORT = re.compile(rb"Object\.defineProperty\(\s*(?:module\.)?exports\s*,\s*['\"]([A-Za-z_$][\w$]*)['\"]")


@functools.cache
def _commonjs_query() -> tree_sitter.Query:
    import tree_sitter_javascript

    return tree_sitter.Query(tree_sitter.Language(tree_sitter_javascript.language()), _COMMONJS)


def object_named(root: tree_sitter.Node, node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """``node`` if it is an object literal; for an identifier, the object literal a top-level
    declaration of that name is initialised with; else None."""
    if node is None or node.type == "object":
        return node
    if node.type != "identifier":
        return None
    for statement in root.children:
        if statement.type in ("lexical_declaration", "variable_declaration"):
            for declarator in statement.named_children:
                name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
                if name is not None and name.text == node.text and value is not None and value.type == "object":
                    return value
    return None


def object_keys(obj: tree_sitter.Node | None, out: dict[str, str], known: dict[str, str]) -> None:
    """An object literal's keys into ``out``: a method or a function value a function, a
    shorthand key (``{ isArray }``) of the kind ``known`` (the file's declarations) gives it."""
    for pair in obj.named_children if obj is not None else ():
        key = pair.child_by_field_name("key") if pair.type in ("pair", "method_definition") else pair
        if pair.type == "method_definition":
            key = pair.child_by_field_name("name")
        if key is None:
            continue
        name = node_text(key).strip("'\"")
        if name.replace("$", "_").isidentifier():
            value = pair.child_by_field_name("value")
            out.setdefault(name, FUNCTION if pair.type == "method_definition" or (value is not None and "function" in value.type)
                           else known.get(name, VARIABLE) if pair.type == "shorthand_property_identifier" else VARIABLE)


@dataclass
class JavaScriptModule:
    names: dict[str, str]  # what the module exports, name -> kind
    spreads: list[str]  # the identifiers an exported object spreads (``{ ...utils }``): their modules' names too
    tree: tree_sitter.Tree
    export_from: list[str]  # the modules ``export * from`` re-exports
    static: bool  # an ES module (``export`` statements, no CommonJS ``exports``): its namespace holds its exports alone


def javascript_exports(data: bytes) -> dict[str, str]:
    """A JavaScript module's exports (``javascript_module``)."""
    return javascript_module(data).names


def javascript_module(data: bytes) -> JavaScriptModule:
    """A JavaScript module's exports: ES ``export`` declarations and CommonJS's
    ``module.exports = {...}``, ``exports.a = ...``, ``module.exports.a = ...``."""
    tree = parser(False).parse(data)
    root = tree.root_node
    scope = Reader().read_tree(root)
    out = {n: k for n, k in scope.values.items() if n in scope.exported}
    spreads: list[str] = []
    exported_as = list(_EXPORTED_NAME.finditer(data))  # `module.exports = name`
    # `export default { a, b }`, `export default Engine` / `module.exports = Engine` where
    # `const Engine = { find() {…} }`: the object's keys, what a default import reads after its name
    # `export default AxiosHeaders` / `module.exports = AxiosHeaders`, a class of the file: its statics
    defaults = [statement.child_by_field_name("value") for statement in root.children if statement.type == "export_statement"]
    defaults += [root.descendant_for_byte_range(match.start(1), match.end(1)) for match in exported_as]
    defaults += [d.child_by_field_name("name") for d in _default_declarations(root) if d.type == "class_declaration"]
    for value in defaults:
        if value is not None:
            found = object_named(root, value)
            object_keys(found, out, scope.values)
            spreads += [node_text(entry.named_children[0]) for entry in (found.named_children if found is not None else ())
                        if entry.type == "spread_element" and entry.named_children and entry.named_children[0].type == "identifier"]
            for name, kind in scope.statics.get(node_text(value), {}).items() if value.type == "identifier" else ():
                out.setdefault(name, kind)
    if any(_constructible(value, scope) for value in (*defaults, *_default_declarations(root))):
        out.setdefault("prototype", VARIABLE)  # the default export is a class or a function
    for _, captures in tree_sitter.QueryCursor(_commonjs_query()).matches(root):
        if "object" in captures and captures["object"][0].type == "object":
            object_keys(captures["object"][0], out, scope.values)
        elif "name" in captures:
            value = captures["value"][0]
            kind = FUNCTION if "function" in value.type else CLASS if value.type == "class" else VARIABLE
            out.setdefault(node_text(captures["name"][0]), kind)
    # `module.exports = status` then `status.message = ...`, `var common = exports` then `common.setup = ...`,
    # `export default AxiosError` then `AxiosError.ERR_BAD_REQUEST = ...`; `Object.defineProperty(exports, 'json', ...)`
    named = [m.group(1) for m in (*exported_as, *_EXPORTS_ALIAS.finditer(data))]
    named += [value.text for value in defaults if value is not None and value.type == "identifier"]
    for name in dict.fromkeys(named):
        for member, kind in assigned_members(data, name.decode()).items():
            out.setdefault(member, kind)
    for match in _DEFINED_EXPORT.finditer(data):
        out.setdefault(match.group(1).decode(), VARIABLE)
    static = any(statement.type == "export_statement" for statement in root.children) and not _COMMONJS_WORD.search(data)
    return JavaScriptModule(out, spreads, tree, scope.export_from, static)


def assigned_members(data: bytes, name: str) -> dict[str, str]:
    """What a module assigns to ``name``'s members at the start of a line (``AxiosError.ERR_BAD_REQUEST
    = ...``, ``status.message = function``), name -> kind."""
    out: dict[str, str] = {}
    for member in re.finditer(rb"(?m)^[ \t]*" + re.escape(name.encode()) + rb"\.([A-Za-z_$][\w$]*)[ \t]*=(?!=)[ \t]*(function|class)?", data):
        out.setdefault(member.group(1).decode(), FUNCTION if member.group(2) == b"function" else CLASS if member.group(2) else VARIABLE)
    return out




def _constructible(value: tree_sitter.Node | None, scope: Scope) -> bool:
    """Whether ``value`` is a class or a function (not an arrow function), or names one the module declares."""
    return value is not None and (value.type in ("class", "class_declaration", "function_expression", "function", "function_declaration")
                                  or (value.type == "identifier" and kind(scope.values.get(node_text(value), "")) in (FUNCTION, CLASS)))


def _default_declarations(root: tree_sitter.Node) -> list[tree_sitter.Node]:
    """``export default class …`` / ``function …``, and the right side of ``module.exports = …``."""
    out = []
    for statement in root.children:
        if statement.type == "export_statement" and any(c.type == "default" for c in statement.children):
            out.append(statement.child_by_field_name("declaration"))
        elif statement.type == "expression_statement" and statement.named_children[0].type == "assignment_expression":
            assigned = statement.named_children[0]
            if node_text(assigned.child_by_field_name("left")) == "module.exports":
                out.append(assigned.child_by_field_name("right"))
    return [node for node in out if node is not None]


PROTOTYPE = re.compile(r"([A-Za-z_$][\w$]*)\.prototype(?:\.([A-Za-z_$][\w$]*))?")


def prototype_members(into: dict[str, str], name: str | None, value: tree_sitter.Node) -> None:
    """A prototype's assignment: ``Bar.prototype.run = function …`` (``name`` run), ``Bar.prototype
    = { run() {…}, size: 0 }``."""
    keys: dict[str, str] = {name: FUNCTION if "function" in value.type else VARIABLE} if name is not None else {}
    if name is None and value.type == "object":
        object_keys(value, keys, {})
    for key, kind in keys.items():
        into.setdefault(key, "method" if kind == FUNCTION else "attribute")
