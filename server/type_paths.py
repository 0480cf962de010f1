"""TypeScript: a receiver as a written type and the members taken from it in turn, and where
those lead through the types a file declares.

    a.owner.            of ``a: Account``                  -> ("Account", ("owner",))
    a.holder().         a method's result                  -> ("Account", ("holder()",))
    h.                  of ``const h = a.holder()``        -> ("Account", ("holder()",))
    this.acct.owner.    of a field ``acct: Account``       -> ("Account", ("owner",))
    m.get(k)!.          of ``m: Map<string, Box>``         -> ("Box", ())

``resolve`` walks the steps through the classes, interfaces and object types a file declares
at its top level (a property's written type, a method's written return type) until a type the
file does not declare: the module that declares it reads the rest the same way
(server/sources/libraries/javascript.py).
"""

from __future__ import annotations

import re
from dataclasses import replace

import tree_sitter

from .assignments import ASSIGNMENT_READ, PROMISED, seen_at
from .context import CompletionContext, member_access
from .python_types import last_match
from .open_classes import open_class
from .receivers import AWAIT, TYPED, receiver_steps
from .words import alone, node_text
from .written_types import TS_TYPE, declared_type_name

DEPTH = 2  # names followed to what they were last given (`const h = a.holder()` … `h.`)
NODES = 8  # members, calls and wrappers read along one receiver
_SINGLE = re.compile(TS_TYPE)
_DECLARED = ("class_declaration", "abstract_class_declaration", "interface_declaration", "type_alias_declaration")
_METHODS = ("method_definition", "method_signature", "abstract_method_signature")
_FIELDS = ("property_signature", "public_field_definition")
# `users: Map<string, User>`, `users = new Map<string, User>(`: the value type (group 1)
_MAP = rb"\s*[?!]?\s*(?::\s*(?:Readonly|Weak)?Map\s*<|=\s*new\s+(?:Weak)?Map\s*<)\s*[^<>=;\n]+?,\s*([A-Za-z_$][\w$]*)\s*>"
_PROMISE = rb"\s*[?!]?\s*:\s*Promise\s*<\s*([A-Za-z_$][\w$]*)\s*>"  # `p: Promise<User>`: User
_GENERIC = re.compile(rb"([A-Za-z_$][\w$]*)\s*<.*>()", re.S)  # `Map<string, User>`: Map
# what a step after a member reads inside its written type: a promise's result, a map's value
_UNWRAPPED = {(AWAIT,): PROMISED,
              ("get()",): re.compile(rb"(?:Readonly|Weak)?Map\s*<[^<>]+?,\s*(.*?)\s*>", re.S)}
_GIVEN = rb"\s*(?::[^=\n]*)?=(?![=>])"  # `x = `, `const x: T = ` (not `==`, `=>`)

Path = tuple[str, tuple[str, ...]]


def walked(context: CompletionContext) -> Path | None:
    """The receiver's path (receiver_path) walked through the file's own types (resolve): the
    type it ends at and the steps left for the module declaring that type; None where there is
    no path or it leads nowhere."""
    path = receiver_path(context)
    return resolve(context.tree.root_node, *path) if path is not None else None


def receiver_path(context: CompletionContext) -> Path | None:
    """The written type the receiver starts from and the members taken from it; None where
    nothing says and outside TypeScript."""
    if context.language.name not in TYPED or context.tree is None or context.target is None:
        return None
    access = member_access(context.target)
    obj = access.child_by_field_name("object") if access is not None else None
    return _path(context, obj, 0) if obj is not None else None


def _path(context: CompletionContext, node: tree_sitter.Node | None, depth: int) -> Path | None:
    head, steps = receiver_steps(node, NODES, unwrap=True)
    steps.reverse()  # innermost first
    if head is None:
        return None
    if head.type == "this" and steps and not steps[0].endswith("()") and steps[0] != AWAIT:
        return _named(context, f"this.{steps[0]}", steps[1:], depth)  # a field: `this.acct.owner`
    if head.type == "this" and steps:  # `this.make()`: the class around the cursor's method
        name = _class_around(context, head)
        return (name, tuple(steps)) if name else None
    if head.type == "new_expression":
        made = head.child_by_field_name("constructor")
        return (node_text(made), tuple(steps)) if made is not None and made.type == "identifier" else None
    if head.type == "identifier":
        return _named(context, node_text(head), steps, depth)
    return None


def _named(context: CompletionContext, name: str, steps: list[str], depth: int) -> Path | None:
    """The path from the name ``name`` (``this.x`` too): its written type, else (a plain name)
    the path of what it was last given before the cursor. The receiver itself, a name alone, is
    declared_type_name's: only what it was given is read here."""
    if steps[:1] == ["get()"] and (value := _written_argument(context, name, _MAP)) is not None:
        return value, tuple(steps[1:])
    if steps[:1] == [AWAIT] and (value := _written_argument(context, name, _PROMISE)) is not None:
        return value, tuple(steps[1:])
    written = declared_type_name(replace(context, receiver=name)) if steps or depth else None
    if written is not None:
        return written, tuple(steps)
    if "." in name or depth >= DEPTH:
        return None
    given = _given(context, name)
    inner = _path(context, given, depth + 1) if given is not None else None
    return (inner[0], inner[1] + tuple(steps)) if inner is not None else None


def _class_around(context: CompletionContext, node: tree_sitter.Node) -> str | None:
    """The name of the class around ``node``; in a tree broken there (the class being written),
    the last ``class X {`` before it whose brace the text has not closed."""
    around = node.parent
    while around is not None and around.type not in ("class_declaration", "abstract_class_declaration"):
        around = around.parent
    if around is not None:
        return node_text(around.child_by_field_name("name")) or None
    found = open_class(context.data, node.start_byte)
    return found.group(1).decode() if found is not None and found.group(1) else None


def _written_argument(context: CompletionContext, name: str, form: bytes) -> str | None:
    """The type argument that ``form`` (_MAP, _PROMISE) reads where the bytes before the cursor
    write the type of ``name`` (``this.x``: its field ``x``): a map's values, what a promise gives."""
    lo = max(0, context.prefix_start - ASSIGNMENT_READ)
    word = re.escape(name.removeprefix("this.").encode())
    field = name.startswith("this.")
    own = alone(word, rb"[\w$]") if field else alone(word)  # `this.users = new Map<…>()` too
    root = context.tree.root_node
    for found in reversed(list(re.compile(own + form).finditer(context.data, lo, context.prefix_start))):
        if field or seen_at(root, found.start(), context.prefix_start):  # not another function's parameter
            return found.group(1).decode()
    return None


def _given(context: CompletionContext, name: str) -> tree_sitter.Node | None:
    """The value the name was last given before the cursor (``const h = a.holder()``), where
    that may be what it holds there (assignments.seen_at)."""
    lo = max(0, context.prefix_start - ASSIGNMENT_READ)
    found = last_match(re.compile(alone(re.escape(name.encode())) + _GIVEN), context.data, lo, context.prefix_start)
    root = context.tree.root_node
    if found is None or not seen_at(root, found.start(), context.prefix_start):
        return None
    node = root.descendant_for_byte_range(found.start(), found.start() + 1)
    while node is not None and node.type not in ("variable_declarator", "assignment_expression"):
        node = node.parent
    if node is None or node_text(node.child_by_field_name("name") or node.child_by_field_name("left")) != name:
        return None
    value = node.child_by_field_name("value") or node.child_by_field_name("right")
    return value if value is not None and value.end_byte <= context.prefix_start else None


def resolve(root: tree_sitter.Node, kind: str, steps: tuple[str, ...]) -> Path | None:
    """``steps`` walked from the type ``kind`` through the types the file (its tree's ``root``)
    declares at its top level: the type reached and the steps left, which begin at a type the
    file does not declare (none left: all walked); None where a declared type has no such
    member or writes no single type for it."""
    index = 0
    while index < len(steps):
        declared = _declared(root, kind) if steps[index] != AWAIT else None
        if declared is None:
            return kind, steps[index:]
        found = _member_type(declared, steps[index], steps[index + 1:index + 2])
        if found is None:
            return None
        kind, taken = found
        index += taken
    return kind, ()


def _declared(root: tree_sitter.Node, name: str) -> tree_sitter.Node | None:
    for child in root.named_children:
        node = child.child_by_field_name("declaration") if child.type == "export_statement" else child
        if node is not None and node.type in _DECLARED and node_text(node.child_by_field_name("name")) == name:
            return node
    return None


def _member_type(declared: tree_sitter.Node, step: str, then: tuple[str, ...]) -> tuple[str, int] | None:
    """The single type a class, interface or object type writes for its member, and the steps
    that took (1, or 2 with ``then``, the step after, read with it): a property's (``owner:
    User``, ``tags: string[]``: Array, ``Map<K, V>``: Map, and V with ``get()`` after) or, for
    ``name()``, a method's result (``Promise<User>``: Promise, and User with ``await`` after; ``this``:
    the declared type itself)."""
    called = step.endswith("()")
    name = step.removesuffix("()")
    body = declared.child_by_field_name("body") or declared.child_by_field_name("value")
    for member in body.named_children if body is not None else ():
        if node_text(member.child_by_field_name("name")) != name:
            continue
        if called and member.type in _METHODS:
            written = member.child_by_field_name("return_type")
        elif not called and member.type in _FIELDS:
            written = member.child_by_field_name("type")
        else:
            continue
        text = (written.text or b"").lstrip(b":").strip() if written is not None else b""
        if text == b"this":  # a fluent method's own type: `where(): this`
            text = declared.child_by_field_name("name").text or b""
        taken = 1
        if (unwrapped := _UNWRAPPED.get(then)) is not None and (inner := unwrapped.fullmatch(text)) is not None:
            text, taken = inner.group(1), 2  # `(await a.find(x)).`, `a.users.get(k).`
        match = _SINGLE.fullmatch(text) or _GENERIC.fullmatch(text)
        return (None if match is None else ("Array" if match.group(2) else match.group(1).decode(), taken))
    return None
