"""The classes a file defines at its top level, seen from outside them: the class by its name
(``class_in_file``), the one a receiver was given an instance of (``c = Cache()`` … ``c.``:
``constructed_in_file``), and what its attributes hold, followed along a receiver
(``c.owner.``, ``self.shop.cart.``: ``attribute_holder``).
"""

from __future__ import annotations

import tree_sitter

from .assignments import assigned_class, attribute_class, returned_by, seen_call
from .context import CompletionContext, member_access
from .open_classes import open_class
from .receivers import CLASS_READ, OWN, OwnClass, Target, chain, read_class, receiver_steps
from .words import node_text

STEPS = 3  # attributes and calls followed along one receiver (`self.shop.cart.owner.`)
_KINDS = {"python": ("class_definition",)}  # others: JavaScript's and TypeScript's
_JS_KINDS = ("class_declaration",)
Span = tuple[int, int, "tree_sitter.Node | None"]  # a class's bytes and its body (None: one being written)


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
    """What the receiver's last attribute or method call gives (as assigned_class writes it:
    ``["Owner"]``, ``["models", "User"]``), where the receiver starts at a name given an instance
    of a class the file defines (``c = Item()``, ``c: Item``, ``const c = new Item()``) or at
    ``self`` / ``this``, and goes on through such classes' attributes (attribute_class) and
    methods' declared results (returned_by): ``c.owner.``, ``self.shop.cart.``, ``b.copy().``,
    ``c.`` of ``c = b.copy()`` or ``c = self.make()``; None elsewhere."""
    access = member_access(context.target) if context.target is not None and context.tree is not None else None
    node, steps = receiver_steps(access.child_by_field_name("object") if access is not None else None, STEPS + 1)
    if node is None or OWN.get(context.language.name) is None:
        return None
    if steps and node.type in ("this", "identifier") and node_text(node) in OWN[context.language.name]:
        return _walked(context, _around(context), steps[::-1], bound)
    if node.type != "identifier":
        return None
    start, given = _instance_of(context, node_text(node), bound, 0)
    return _walked(context, start, given + steps[::-1], bound) if given or steps else None  # `c.`: constructed_in_file's


def _instance_of(context: CompletionContext, name: str, bound: dict[str, Target], depth: int) -> tuple:
    """(the file's class's span, steps) that the name was last given an instance of: ``c =
    Item()``; ``c = b.copy()``, the steps from ``b``'s; (None, []) where nothing says."""
    assigned = assigned_class(context, name)
    if assigned is None and context.language.name != "python":  # `const x = b.make()`: JavaScript's call of a method
        call = seen_call(context.tree.root_node, context.data, context.prefix_start, name)
        if call is not None and len(call.names) > 1 and call.whole and not call.then and not call.awaited:
            assigned = [*call.names[:-1], call.names[-1] + "()"]
    if not assigned or assigned[0] in bound or assigned[0].endswith("()"):
        return None, []
    if len(assigned) == 1:
        return _span(class_node(context, assigned[0])), []
    if assigned[0] in OWN[context.language.name]:  # `x = self.make()`
        return _around(context), assigned[1:]
    if depth >= 1 or assigned[0] == name:
        return None, []
    span, steps = _instance_of(context, assigned[0], bound, depth + 1)
    return span, steps + assigned[1:]


def _around(context: CompletionContext) -> Span | None:
    """The class around the cursor; in JavaScript's tree broken there (the class being written),
    the last ``class X {`` before the cursor whose brace the text has not closed, up to the cursor."""
    node = context.target
    while node is not None and node.type not in _KINDS.get(context.language.name, (*_JS_KINDS, "class")):
        node = node.parent
    if node is not None or context.language.name == "python":
        return _span(node)
    found = open_class(context.data, context.prefix_start)
    return (found.start(), context.prefix_start, None) if found is not None else None


def _span(node: tree_sitter.Node | None) -> Span | None:
    return (node.start_byte, node.end_byte, node.child_by_field_name("body")) if node is not None else None


def _walked(context: CompletionContext, span: Span | None, steps: list[str],
            bound: dict[str, Target]) -> list[str] | None:
    """What ``steps`` give from the file's class ``span``: its attributes' and methods' classes."""
    held = None
    python = context.language.name == "python"
    for step in steps:
        if span is None:
            return None
        start, end, body = span
        if step.endswith("()"):
            found = returned_by(body, step[:-2], python, False) if body is not None else None
            held = list(found) if found is not None else None
        else:
            held = attribute_class(context, start, end, f"{OWN[context.language.name][0]}.{step}")
        if not held:
            return None
        span = _span(class_node(context, held[0])) if len(held) == 1 and held[0] not in bound else None
    return held
