"""The keys an object passed to a JavaScript or TypeScript function of the file or the project
may hold, read from the function's own code: a destructured parameter (``function
listen({ port, host = 'localhost' })``), its default (``opts = { retries: 3 }``), a TypeScript
object type written for it (``p: { port: number }``), and the members the body reads of a
parameter (``opts.timeout``, ``const { signal } = opts``). What options.py offers where Node's
declarations say nothing of the callee."""

from __future__ import annotations

import re

import tree_sitter

from .. import languages
from ..words import alone, node_text

FUNCTIONS = languages.FUNCTIONS["javascript"]
BODY_READ = 64 * 1024  # bytes of a function's body searched for a parameter's members
_PATTERN_KEYS = {"shorthand_property_identifier_pattern": None, "pair_pattern": "key", "object_assignment_pattern": "left"}


def function_named(root: tree_sitter.Node, name: str) -> tree_sitter.Node | None:
    """The function a file declares at its top level by ``name`` (``function f``, ``const f = (…) =>``,
    either exported, ``exports.f = function …``; ``default``: the default export, ``module.exports
    = f`` too)."""
    values: dict[str, tree_sitter.Node] = {}
    default = None
    for statement in root.named_children:
        inner = statement.child_by_field_name("declaration") or statement.child_by_field_name("value") or statement
        if inner.type in FUNCTIONS and inner.child_by_field_name("name") is not None:
            values[node_text(inner.child_by_field_name("name"))] = inner
        for declarator in inner.named_children if inner.type in ("lexical_declaration", "variable_declaration") else ():
            value = declarator.child_by_field_name("value")
            if declarator.type == "variable_declarator" and value is not None and value.type in FUNCTIONS:
                values[node_text(declarator.child_by_field_name("name"))] = value
        if statement.type == "export_statement" and any(c.type == "default" for c in statement.children):
            default = inner
        elif statement.type == "expression_statement" and statement.named_children[0].type == "assignment_expression":
            assigned = statement.named_children[0]
            left, right = node_text(assigned.child_by_field_name("left")), assigned.child_by_field_name("right")
            if left == "module.exports":
                default = right
            elif left.startswith(("exports.", "module.exports.")) and right is not None and right.type in FUNCTIONS:
                values.setdefault(left.rsplit(".", 1)[1], right)  # `exports.connect = function (url, opts) {…}`
    if name != "default":
        return values.get(name)
    if default is not None and default.type == "identifier":
        default = values.get(node_text(default))
    return default if default is not None and default.type in FUNCTIONS else None


def parameter_keys(function: tree_sitter.Node, index: int) -> list[str]:
    """The keys the ``index``-th parameter of ``function`` may be given, in the order the code
    writes them; [] where nothing says."""
    parameters = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
    if parameters is None:
        return []
    listed = [p for p in parameters.named_children if p.type != "comment"] if parameters.type == "formal_parameters" else [parameters]
    if index >= len(listed):
        return []
    parameter = listed[index]
    keys: list[str] = []
    pattern, default, written = parameter, None, None
    if parameter.type in ("required_parameter", "optional_parameter"):  # TypeScript's
        pattern, default, written = parameter.child_by_field_name("pattern"), parameter.child_by_field_name("value"), parameter.child_by_field_name("type")
    if pattern is not None and pattern.type == "assignment_pattern":
        pattern, default = pattern.child_by_field_name("left"), pattern.child_by_field_name("right")
    if pattern is not None and pattern.type == "object_pattern":
        keys += _pattern_keys(pattern)
    if default is not None and default.type == "object":
        keys += [node_text(p.child_by_field_name("key") or p) for p in default.named_children if p.type in ("pair", "shorthand_property_identifier")]
    if written is not None:
        keys += [node_text(m.child_by_field_name("name")) for t in written.named_children if t.type == "object_type"
                 for m in t.named_children if m.type in ("property_signature", "method_signature")]
    if pattern is not None and pattern.type == "identifier":
        keys += _read_in_body(function, node_text(pattern))
    return [k.strip("'\"") for k in dict.fromkeys(keys) if k.strip("'\"").replace("$", "_").isidentifier()]


def _pattern_keys(pattern: tree_sitter.Node) -> list[str]:
    keys = []
    for part in pattern.named_children:
        if part.type in _PATTERN_KEYS:
            field = _PATTERN_KEYS[part.type]
            key = part.child_by_field_name(field) if field else part
            keys.append(node_text(key if key is not None else part.named_children[0]))
    return keys


def _read_in_body(function: tree_sitter.Node, name: str) -> list[str]:
    """The members the body reads of ``name`` (``opts.timeout``, ``const { signal } = opts``)."""
    body = function.child_by_field_name("body")
    text = body.text[:BODY_READ] if body is not None and body.text else b""
    word = re.escape(name.encode())
    keys = [m.group(1).decode() for m in re.finditer(alone(word) + rb"\s*\??\.\s*([A-Za-z_$][\w$]*)", text)]
    for destructured in re.finditer(rb"\{([^{}]*)\}\s*=\s*" + word + rb"(?![\w$])", text):
        keys += [m.group(1).decode() for m in re.finditer(rb"(?:^|,)\s*([A-Za-z_$][\w$]*)", destructured.group(1))]
    return keys
