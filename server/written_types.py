"""Types a TypeScript file writes: the type written for a receiver (``user: User`` … ``user.``)
and the members of the interfaces, object type aliases and classes a file declares at its top
level."""

from __future__ import annotations

import re

import tree_sitter

from .context import CompletionContext
from .receivers import TYPED, OwnClass, chain, last_match, read_class
from .words import node_text

TYPE_READ = 16 * 1024  # a name's annotation is looked for this far back


def declared_type_name(context: CompletionContext) -> str | None:
    """In TypeScript, the type written for the receiver, a single name, in the TYPE_READ bytes
    before the cursor (``user: User`` … ``user.``: ``User``)."""
    names = chain(context.receiver) if context.language.name in TYPED and context.tree is not None else None
    if not names or len(names) != 1:
        return None
    name = re.escape(names[0].encode())
    annotation = re.compile(rb"(?<![\w$.])" + name + rb"\s*\??\s*:\s*([A-Za-z_$][\w$]*)\s*(?=[,)=;\n<]|$)")
    found = last_match(annotation, context.data, max(0, context.prefix_start - TYPE_READ), context.prefix_start)
    return found.group(1).decode() if found is not None else None


def type_members(root: tree_sitter.Node, data: bytes, wanted: str) -> OwnClass | None:
    """The members of the interface, object type alias or class that a file (its tree's
    ``root``) declares at its top level by the name ``wanted``. Not complete where it extends
    another or has an index signature."""
    for child in root.named_children:
        node = child.child_by_field_name("declaration") if child.type == "export_statement" else child
        if node is not None and node_text(node.child_by_field_name("name")) == wanted and (found := _type_of(node, data)):
            return found
    return None


def all_types(root: tree_sitter.Node, data: bytes) -> dict[str, OwnClass]:
    """type_members of every type a file declares at its top level, by name (the first of a name)."""
    found: dict[str, OwnClass] = {}
    for child in root.named_children:
        node = child.child_by_field_name("declaration") if child.type == "export_statement" else child
        name = node_text(node.child_by_field_name("name")) if node is not None else ""
        if name and name not in found and (own := _type_of(node, data)) is not None:
            found[name] = own
    return found


def _type_of(node: tree_sitter.Node, data: bytes) -> OwnClass | None:
    if node.type in ("class_declaration", "abstract_class_declaration"):
        own = read_class(node, data, "javascript", "")
        own.dynamic = own.dynamic or any(c.type == "class_heritage" for c in node.named_children)
        return own
    body = node.child_by_field_name("body") if node.type == "interface_declaration" else \
        node.child_by_field_name("value") if node.type == "type_alias_declaration" else None
    if body is None or body.type not in ("interface_body", "object_type"):
        return None
    own = OwnClass(node_text(node.child_by_field_name("name")))
    for member in body.named_children:
        if member.type in ("property_signature", "method_signature"):
            own.members.setdefault(node_text(member.child_by_field_name("name")),
                                   "method" if member.type == "method_signature" else "attribute")
        elif member.type == "index_signature":
            own.dynamic = True  # any key is a member
    own.dynamic = own.dynamic or any(c.type == "extends_type_clause" for c in node.named_children)
    return own
