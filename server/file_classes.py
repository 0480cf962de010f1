"""The classes a file defines at its top level, seen from outside them: the class by its name
(``class_in_file``), the class or an enum's member a receiver names (``Color.``, ``Color.RED.``:
``class_itself``), the one a receiver was given an instance of (``c = Cache()`` … ``c.``:
``constructed_in_file``), and what its attributes hold, followed along a receiver
(``c.owner.``, ``self.shop.cart.``: ``attribute_holder``).
"""

from __future__ import annotations

from dataclasses import replace

import tree_sitter

from .assignments import assigned_class, attribute_class, returned_by, seen_call
from .context import CompletionContext, member_access
from .open_classes import open_class
from .receivers import CLASS_READ, OWN, OwnClass, Target, chain, read_class, receiver_steps
from .scope import local_to
from .sources.libraries.python_definitions import ENUM_BASES
from .words import node_text

STEPS = 3  # attributes and calls followed along one receiver (`self.shop.cart.owner.`)
_KINDS = {"python": ("class_definition",)}  # others: JavaScript's and TypeScript's
_JS_KINDS = ("class_declaration",)
SELF = ("Self", "this")  # what a method declares it returns where that is its own class's instance
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


CLASS, MEMBER, INSTANCE = "class", "member", "instance"  # what class_itself's receiver is of its class


def class_itself(context: CompletionContext, bound: dict[str, Target]) -> tuple[OwnClass, str] | None:
    """A class the file defines at its top level, and what the receiver is of it: the class
    itself (``Color.``, ``Foo.``: CLASS), one of its members that is an instance of it (a Python
    enum's: ``Color.RED.``, ``c.`` of ``c = Color.RED`` or of ``for c in Color:``: MEMBER), or the
    instance its call makes (``A().``, ``new Foo().``: INSTANCE); not where an import or a local of
    the functions around binds the class's name."""
    python = context.language.name == "python"
    names = chain(context.receiver)
    if names is None:  # `A().`, `new Foo().`
        names, view = [_called(context)], INSTANCE
    elif len(names) == 1 and python and class_node(context, names[0]) is None:
        names, view = assigned_class(context, names[0]) or [], MEMBER  # `c = Color.RED`
    else:
        view = CLASS if len(names) == 1 else MEMBER
    if not names or not names[0] or len(names) != (2 if view == MEMBER else 1) or names[0] in bound \
            or names[0] in OWN.get(context.language.name, ()) \
            or local_to(context.language.name, context.target, context.data, context.prefix_start, names[0]) is not None:
        return None
    own = class_in_file(context, names[0])
    if own is None or view != MEMBER:
        return (own, view) if own is not None else None
    member = names[1] in own.assigned or names[1] == "[]"  # `for c in Color:`: each of its members
    return (own, MEMBER) if python and member and _enum(context, own, bound, 0) else None


def instance_side(context: CompletionContext, own: OwnClass, bound: dict[str, Target]) -> OwnClass:
    """What an instance of the class has: its members but the ``static`` ones (JavaScript), but
    a Python enum's members (its body's assignments: ``Color.RED`` has no ``GREEN``)."""
    if own.statics:
        return replace(own, members={n: k for n, k in own.members.items() if n not in own.statics or n in own.dual})
    if own.assigned and context.language.name == "python" and _enum(context, own, bound, 0):
        return replace(own, members={n: k for n, k in own.members.items() if n not in own.assigned})
    return own


def _called(context: CompletionContext) -> str | None:
    """The name a receiver calls or constructs (``A().``, ``new Foo().``), else None."""
    access = member_access(context.target) if context.target is not None else None
    made = access.child_by_field_name("object") if access is not None else None
    if made is None or made.type not in ("call", "new_expression"):
        return None
    function = made.child_by_field_name("function" if made.type == "call" else "constructor")
    return node_text(function) if function is not None and function.type == "identifier" else None


def _enum(context: CompletionContext, own: OwnClass, bound: dict[str, Target], depth: int) -> bool:
    """Whether a Python class of the file derives from one of the enum module's (``Enum``,
    ``enum.IntEnum``), directly or through the file's classes."""
    for base in own.bases:
        head, _, last = base.rpartition(".")
        target = bound.get(head or last)
        if last in ENUM_BASES and (target is None or target.module == "enum"):
            return True
        if not head and target is None and depth < STEPS and (inner := class_in_file(context, last)) is not None \
                and _enum(context, inner, bound, depth + 1):
            return True
    return False


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
    start, given = _instance_of(context, node_text(node), bound, 0, bool(steps) and steps[-1].endswith("()"))
    return _walked(context, start, given + steps[::-1], bound) if given or steps else None  # `c.`: constructed_in_file's


def _instance_of(context: CompletionContext, name: str, bound: dict[str, Target], depth: int, called: bool) -> tuple:
    """(the file's class's span, steps) that the name was last given an instance of: ``c =
    Item()``; ``c = b.copy()``, the steps from ``b``'s; where ``called`` (a method of the name is
    called next) and the name is a class the file defines, that class (``Q.make()``, ``q =
    Q.make()``: its classmethods and statics); (None, []) where nothing says."""
    assigned = assigned_class(context, name)
    if assigned is None and context.language.name != "python":  # `const x = b.make()`: JavaScript's call of a method
        call = seen_call(context.tree.root_node, context.data, context.prefix_start, name)
        if call is not None and len(call.names) > 1 and call.whole and not call.then and not call.awaited:
            assigned = [*call.names[:-1], call.names[-1] + "()"]
    if assigned is None and called and name not in bound \
            and local_to(context.language.name, context.target, context.data, context.prefix_start, name) is None:
        return _span(class_node(context, name)), []
    if not assigned or assigned[0] in bound or assigned[0].endswith("()"):
        return None, []
    if len(assigned) == 1:
        return _span(class_node(context, assigned[0])), []
    if assigned[0] in OWN[context.language.name]:  # `x = self.make()`
        return _around(context), assigned[1:]
    if depth >= 1 or assigned[0] == name:
        return None, []
    span, steps = _instance_of(context, assigned[0], bound, depth + 1, assigned[1].endswith("()"))
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
            if held and held[-1] in SELF and held[:-1] in ([], ["typing"], ["typing_extensions"]) and body is not None:
                held = [node_text(body.parent.child_by_field_name("name"))]  # `-> Self`, TypeScript's `: this`
        else:
            held = attribute_class(context, start, end, f"{OWN[context.language.name][0]}.{step}")
        if not held:
            return None
        span = _span(class_node(context, held[0])) if len(held) == 1 and held[0] not in bound else None
    return held
