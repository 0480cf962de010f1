"""What a project file's top-level value is, read from its source, never run: the initialiser of a
``const`` / ``let`` / ``var`` of that name, seen through what does not change its keys (parentheses,
TypeScript's ``as const``, ``satisfies T``, ``x!``, ``Object.freeze(...)``), or a TypeScript ``enum``."""

from __future__ import annotations

import re

import tree_sitter

from ...assignments import given_back
from ...words import node_text
from ...written_types import jsdoc_type
from ..parameter_keys import function_named

_THROUGH = ("parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression")


def top_values(root: tree_sitter.Node) -> dict[str, tuple[tree_sitter.Node | None, str]]:
    """What the file binds at its top level, by name: a variable's initialiser with the type
    written for it (``export const ByteUtils: ByteUtils = ...``: "ByteUtils"; in JavaScript the
    JSDoc just above, ``/** @type {Batch | null} */ export let current_batch = null``: "Batch";
    "" where none is, or it is no single class), or an ``enum_declaration``."""
    out: dict[str, tuple[tree_sitter.Node | None, str]] = {}
    for node in root.named_children:
        inner = node.child_by_field_name("declaration") or node
        if inner.type == "enum_declaration":
            out[node_text(inner.child_by_field_name("name"))] = inner, ""
        elif inner.type in ("lexical_declaration", "variable_declaration"):
            documented = _documented(node)
            for declarator in inner.named_children:
                if declarator.type == "variable_declarator":
                    written = declarator.child_by_field_name("type")
                    kind = written.named_children[0] if written is not None and written.named_children else None
                    out[node_text(declarator.child_by_field_name("name"))] = (
                        declarator.child_by_field_name("value"),
                        node_text(kind) if kind is not None and kind.type == "type_identifier" else documented)
    return out


_JSDOC_TAG = r"/\*\*(?:(?!\*/).)*?@(?:%s)\s*\{([^{}\n]+)\}"
_JSDOC_TYPE = re.compile(_JSDOC_TAG % "type", re.DOTALL)
_JSDOC_RETURNS = re.compile(_JSDOC_TAG % "returns?", re.DOTALL)
_PROMISE = re.compile(r"\s*Promise\s*<(.*)>\s*")


def _documented(node: tree_sitter.Node, tag: re.Pattern = _JSDOC_TYPE, awaited: bool = False) -> str:
    """The class a JSDoc tag (``@type``) right above ``node`` names (written_types.jsdoc_type), or
    "" (``awaited``: X of a ``Promise<X>`` it names, as ``await`` gives)."""
    comment = node.prev_named_sibling
    if comment is None or comment.type != "comment" or comment.end_point[0] + 1 < node.start_point[0]:
        return ""
    found = tag.match(node_text(comment))
    written = found.group(1) if found is not None else ""
    if awaited:
        promised = _PROMISE.fullmatch(written)
        written = promised.group(1) if promised is not None else written
    return (jsdoc_type(written) or "") if written else ""


def unwrapped(node: tree_sitter.Node) -> tuple[tree_sitter.Node, bool]:
    """``node`` seen through what keeps its keys, and whether it is frozen (``Object.freeze``):
    an object that takes no more keys."""
    frozen = False
    while True:
        if node.type in _THROUGH and node.named_children:
            node = node.named_children[0]
        elif (node.type == "call_expression" and node_text(node.child_by_field_name("function")) == "Object.freeze"
              and (arguments := node.child_by_field_name("arguments")) is not None and arguments.named_children):
            node, frozen = arguments.named_children[0], True
        else:
            return node, frozen


def enum_members(enum: tree_sitter.Node) -> list[str]:
    """An ``enum``'s members' names."""
    body = enum.child_by_field_name("body")
    out: list[str] = []
    for member in body.named_children if body is not None else ():
        key = member.child_by_field_name("name") if member.type == "enum_assignment" else member
        name = node_text(key).strip("'\"") if key is not None else ""
        if name.replace("$", "_").isidentifier():
            out.append(name)
    return out


_CLASSES = ("class_declaration", "abstract_class_declaration", "class")


def declared_return(root: tree_sitter.Node, names: tuple[str, ...], awaited: bool = False) -> str:
    """The class that a function the file defines at its top level (``names``: its name, found as
    parameter_keys.function_named finds it) or a method of a top-level class (the class's name,
    the method's) declares it returns, or "": by its written return type (TypeScript's ``function
    f(): Batch``, ``static from(s: string): Address``) or its JSDoc ``@returns {Batch}``; ``Map<K,
    V>``: Map; ``awaited``: X of ``Promise<X>``, as ``await`` gives. Where neither is written: the
    class its ``return`` statements give alike (assignments.given_back: ``return new Batch()``, a
    method's ``return this``)."""
    function = function_named(root, names[0]) if len(names) == 1 else _method(root, names[0], names[1]) if len(names) == 2 else None
    if function is None:
        return ""
    annotation = function.child_by_field_name("return_type")
    kind = annotation.named_children[0] if annotation is not None and annotation.named_children else None
    if kind is None:  # JSDoc's, above the method or the file's statement holding the function
        statement = function
        while function.type != "method_definition" and statement.parent is not None and statement.parent.parent is not None:
            statement = statement.parent
        documented = _documented(statement, _JSDOC_RETURNS, awaited)
        if documented:
            return documented
        given = given_back(function, False, awaited)  # `return new Batch()`, a method's `return this`
        if given == ("this",):
            return names[0] if len(names) == 2 else ""
        return given[0] if given and len(given) == 1 else ""  # not `new models.User()`'s path
    if kind.type == "generic_type":
        arguments = kind.child_by_field_name("type_arguments")
        if not (awaited and node_text(kind.child_by_field_name("name")) == "Promise" and arguments is not None and arguments.named_children):
            return node_text(kind.child_by_field_name("name"))
        kind = arguments.named_children[0]
    return node_text(kind) if kind.type in ("type_identifier", "predefined_type") else ""


def _method(root: tree_sitter.Node, owner: str, name: str) -> tree_sitter.Node | None:
    """The method ``name`` of the class the file declares at its top level by ``owner``."""
    for node in root.named_children:
        inner = node.child_by_field_name("declaration") or node
        if inner.type in _CLASSES and node_text(inner.child_by_field_name("name")) == owner:
            body = inner.child_by_field_name("body")
            return next((m for m in body.named_children if m.type == "method_definition"
                         and node_text(m.child_by_field_name("name")) == name), None) if body is not None else None
    return None
