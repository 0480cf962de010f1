"""The classes a file defines at its top level, seen from outside them: the class by its name
(``class_in_file``), the one a receiver was given an instance of (``c = Cache()`` … ``c.``:
``constructed_in_file``), and what its attributes hold, followed along a receiver
(``c.owner.``, ``self.shop.cart.``: ``attribute_holder``).
"""

from __future__ import annotations

import tree_sitter

from .assignments import assigned_class, attribute_class
from .context import CompletionContext
from .receivers import CLASS_READ, OWN, OwnClass, Target, chain, read_class
from .words import node_text

ATTRIBUTES = 3  # attributes followed along one receiver (`self.shop.cart.owner.`)
_KINDS = {"python": ("class_definition",)}  # others: JavaScript's and TypeScript's
_JS_KINDS = ("class_declaration",)


def class_node(context: CompletionContext, name: str) -> tree_sitter.Node | None:
    """The class the file defines at its top level by that name."""
    kinds = _KINDS.get(context.language.name, _JS_KINDS)
    for child in context.tree.root_node.named_children if context.tree is not None else ():
        if child.type in ("decorated_definition", "export_statement"):
            child = child.child_by_field_name("definition") or child.child_by_field_name("declaration") or child
        if child.type in kinds and node_text(child.child_by_field_name("name")) == name:
            return child
    return None


def class_in_file(context: CompletionContext, name: str) -> OwnClass | None:
    """A class the file defines at its top level by that name, read as receivers.own_class reads
    one (not one over CLASS_READ bytes)."""
    node = class_node(context, name)
    body = node.child_by_field_name("body") if node is not None else None
    if body is None or not body.named_children or node.end_byte - node.start_byte > CLASS_READ:
        return None
    return read_class(node, context.data, context.language.name, "")


def constructed_in_file(context: CompletionContext, bound: dict[str, Target]) -> OwnClass | None:
    """The class the file defines at its top level whose instance the receiver was last
    assigned (``const c = new Cache()`` … ``c.``, ``c = Cache()`` … ``c.``, ``self.cache =
    Cache()`` … ``self.cache.``), where no import binds that name."""
    names = chain(context.receiver)
    own = names is not None and len(names) == 2 and names[0] in OWN.get(context.language.name, ())
    assigned = assigned_class(context, ".".join(names)) if names and (len(names) == 1 or own) else None
    if not assigned or len(assigned) != 1 or assigned[0].endswith("()") or assigned[0] in bound:
        return None
    return class_in_file(context, assigned[0])


def attribute_holder(context: CompletionContext, bound: dict[str, Target]) -> list[str] | None:
    """What the receiver's last attribute holds (as assigned_class writes it: ``["Owner"]``,
    ``["models", "User"]``), where the receiver is a name given an instance of a class the file
    defines (``c = Item()``, ``c: Item``, ``const c = new Item()``), or ``self`` / ``this``,
    then attributes of such classes (assignments.attribute_class); None elsewhere."""
    names = chain(context.receiver)
    own = OWN.get(context.language.name)
    if not names or not own or not 2 <= len(names) <= ATTRIBUTES + 1 or context.tree is None:
        return None
    if names[0] in own:
        node = context.target
        while node is not None and node.type not in _KINDS.get(context.language.name, (*_JS_KINDS, "class")):
            node = node.parent
    else:
        assigned = assigned_class(context, names[0])
        if not assigned or len(assigned) != 1 or assigned[0].endswith("()") or assigned[0] in bound:
            return None
        node = class_node(context, assigned[0])
    held = None
    for attribute in names[1:]:
        if node is None:
            return None
        held = attribute_class(context, node, f"{own[0]}.{attribute}")
        if not held:
            return None
        node = class_node(context, held[0]) if len(held) == 1 and held[0] not in bound else None
    return held
