"""Types as a declaration file writes them, read for the table of Node's modules
(build_table.py): a class's or an interface's members, bases and members' types by its place
(``Declared``), the class a written type names (``written_type``), what a function's options
object may hold (``option_sources``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import tree_sitter

from ...words import node_text


@dataclass
class Declared:
    """A class or an interface, by its place (``fs.ReadStream``: module fs's; ``Process``: a
    global one, interfaces merged as TypeScript merges them): its instance members, what it
    extends and its members' types, each as written and with the ambient module whose imports
    read it ("" for none)."""

    members: dict[str, str] = field(default_factory=dict)
    bases: list[tuple[str, str]] = field(default_factory=list)  # ("fs", "stream.Readable")
    types: dict[str, tuple[str, str]] = field(default_factory=dict)  # a property's type, a method's result's


PRIMITIVES = {"string": "String", "number": "Number", "boolean": "Boolean"}  # their members are their classes'
_NOTHING = ("null", "undefined", "void", "never")


def written_type(node: tree_sitter.Node | None) -> str | None:
    """The class or interface a written type names, as written but for its type arguments
    (``stream.Readable``, ``Server<A, B>`` -> Server, ``WriteStream & { fd: 1 }`` -> WriteStream,
    ``Server | undefined`` -> Server); a primitive's and an array's class (``string`` -> String,
    ``string[]`` -> Array); None for others (``{ a: 1 }``, ``this``, a function's type, a union
    of two: ``string | Buffer``)."""
    while node is not None:
        if node.type == "type_annotation":
            node = node.named_children[-1] if node.named_children else None
        elif node.type in ("type_identifier", "identifier", "nested_type_identifier", "member_expression"):
            return "".join(node_text(node).split())
        elif node.type == "predefined_type":
            return PRIMITIVES.get(node_text(node))
        elif node.type == "array_type":
            return "Array"
        elif node.type == "readonly_type":  # `readonly string[]`
            node = node.named_children[0] if node.named_children else None
        elif node.type == "generic_type":
            node = node.child_by_field_name("name") or (node.named_children[0] if node.named_children else None)
        elif node.type == "union_type":
            kinds = {written_type(c) for c in node.named_children if node_text(c) not in _NOTHING}
            return kinds.pop() if len(kinds) == 1 else None
        elif node.type in ("intersection_type", "parenthesized_type"):
            node = next((c for c in node.named_children if c.type not in ("object_type", "literal_type", "predefined_type")), None)
        else:
            return None
    return None


def awaited_type(node: tree_sitter.Node | None) -> str | None:
    """What awaiting a value of the written type gives (``Promise<Buffer>`` -> Buffer), where it
    is a promise; else None."""
    while node is not None and node.type in ("type_annotation", "parenthesized_type"):
        node = node.named_children[-1] if node.named_children else None
    if node is None or node.type != "generic_type" or written_type(node) not in ("Promise", "PromiseLike"):
        return None
    arguments = next((c for c in node.named_children if c.type == "type_arguments"), None)
    return written_type(arguments.named_children[0]) if arguments is not None and arguments.named_children else None


def heritage(node: tree_sitter.Node) -> list[str]:
    """The names a class or an interface extends (``extends stream.Readable``, ``extends A, B<T>``)."""
    out = []
    for part in node.named_children:
        clauses = part.named_children if part.type == "class_heritage" else [part]
        for clause in clauses:
            if clause.type in ("extends_clause", "extends_type_clause"):
                out += [name for value in clause.named_children if value.type != "type_arguments" and (name := written_type(value))]
    return out


def option_sources(node: tree_sitter.Node | None) -> tuple[list[str], list[str]]:
    """What an object passed for a parameter of this written type may hold: the keys its
    object types write (``{ flag?: string }``) and the types it names, as written
    (``ObjectEncodingOptions``), through unions and intersections."""
    keys: list[str] = []
    named: list[str] = []
    stack = [node] if node is not None else []
    while stack:
        each = stack.pop()
        if each.type in ("type_annotation", "union_type", "intersection_type", "parenthesized_type"):
            stack.extend(reversed(each.named_children))
        elif each.type == "object_type":
            keys += [node_text(m.child_by_field_name("name")) for m in each.named_children
                     if m.type in ("property_signature", "method_signature") and m.child_by_field_name("name") is not None]
        elif each.type in ("type_identifier", "nested_type_identifier", "generic_type") and (written := written_type(each)):
            named.append(written)
    return keys, named
