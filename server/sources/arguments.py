"""Keyword arguments: inside a Python call's parentheses, where an argument may be named, the
names of the callee's parameters that a keyword can pass (``json.dumps(obj, |`` -> ``indent=``,
``sort_keys=``...), where its signature is known: a library's or a project module's function
or class, a method of the class around the cursor, a function or class the file defines. They
join the list as the receiver's members do after a dot (fallback.py ``known``), ranked with
every other candidate; the item inserts ``name=``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from .. import receivers
from ..context import ATTRIBUTE, NAME, CompletionContext
from ..engines.base import Kind
from ..words import node_text
from .libraries.members import Members

if TYPE_CHECKING:
    from .libraries.known import Libraries

DEFINITIONS = ("function_definition", "class_definition")


def keyword_arguments(context: CompletionContext, libraries: Libraries) -> Members | None:
    """The callee's keyword-passable parameters not yet passed, as members; None where the
    cursor is not an argument's place in a call, or the callee's signature is unknown."""
    if context.language.name != "python" or context.category != NAME or context.target is None:
        return None
    found = _in_call(context)
    names = receivers.chain(found[0]) if found is not None else None
    if not names:
        return None
    signature = _signature(context, libraries, names)
    if not signature:
        return None
    given = found[1]
    out = Members(f"arguments of {'.'.join(names)}", complete=False)
    for name in keywords(signature):
        if name not in given:
            out.add(name, Kind.ARGUMENT, f"parameter of {'.'.join(names)}{signature}", origin=names[-1])
    return out if out.names else None


def _in_call(context: CompletionContext) -> tuple[str, set[str]] | None:
    """The callee as written and the keywords passed already, where the cursor starts an
    argument of a call: from the tree where the call is closed (inside a file), else read back
    from the text (at a buffer's end the call is an unclosed ERROR)."""
    arguments = context.target.parent
    named = None
    if arguments is not None and arguments.type == "keyword_argument" and arguments.child_by_field_name("name") == context.target:
        named, arguments = arguments, arguments.parent  # `f(x, ind|=2)`: the name of a keyword argument
    if arguments is not None and arguments.type == "argument_list":
        call = arguments.parent
        callee = call.child_by_field_name("function") if call is not None and call.type == "call" else None
        given = {node_text(a.child_by_field_name("name")) for a in arguments.named_children
                 if a.type == "keyword_argument" and a != named}
        return (node_text(callee), given) if callee is not None else None
    if arguments is None or arguments.type not in ("ERROR", "module"):
        return None
    data, start = context.data, context.prefix_start
    if data[max(0, start - 64):start].rstrip()[-1:] not in (b"(", b","):
        return None  # no argument starts here: most keystrokes stop here
    before = data[max(0, start - READ_BACK):start]
    opened = unclosed(before)
    if opened is None:
        return None
    callee = CALLEE.search(before, 0, opened)
    given = {m.group(1).decode() for m in _GIVEN.finditer(before, opened)}
    return (callee.group(1).decode(), given) if callee is not None else None


READ_BACK = 2048  # bytes read back for an unclosed call's parenthesis
# the callee before a call's parenthesis (``$`` for JavaScript's names: sources/options.py)
CALLEE = re.compile(rb"(?<![\w$.])([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)\s*\Z")
_GIVEN = re.compile(rb"[(,]\s*([A-Za-z_]\w*)\s*=(?!=)")
_CLOSE = {b")"[0]: b"("[0], b"]"[0]: b"["[0], b"}"[0]: b"{"[0]}


_BRACKET = re.compile(rb"[()\[\]{}]")


def unclosed(before: bytes, opener: bytes = b"(") -> int | None:
    """The offset of the last ``opener`` (a ``(`` or a ``{``) in ``before`` that is not closed
    (brackets counted; a string or comment holding one can mislead it), None where another
    bracket is open first."""
    depth: list[int] = []
    for match in reversed(list(_BRACKET.finditer(before))):
        char = before[match.start()]
        if char in _CLOSE:
            depth.append(_CLOSE[char])
        elif depth:
            if depth.pop() != char:
                return None
        else:
            return match.start() if char == opener[0] else None
    return None


def keywords(signature: str) -> list[str]:
    """The names a keyword can pass, of a signature as the members carry it (``(a, /, b, *, c,
    **kw)`` -> b, c)."""
    parts = [p.strip() for p in signature.strip("()").split(",") if p.strip()]
    if "/" in parts:
        parts = parts[parts.index("/") + 1:]
    return [p.rstrip("?") for p in parts if p != "*" and not p.startswith("*") and p.rstrip("?").isidentifier()]


def _signature(context: CompletionContext, libraries: Libraries, names: list[str]) -> str:
    """The callee's signature: a member of what its receiver is (``json.dumps``, ``self.save``),
    else a name the file imports (``dumps``, ``Path``) or defines, else a builtin's (``open``)."""
    if len(names) > 1:
        receiver = replace(context, category=ATTRIBUTE, receiver=".".join(names[:-1]))
        found = libraries.members(receiver)
        member = found.names.get(names[-1]) if found is not None else None
        return member.signature if member is not None else ""
    name = names[0]
    defined = _defined(context, name)
    if defined is not None:
        return defined
    bound = libraries.bindings(context).get(name)
    target = receivers.Target(bound.module, bound.names[:-1]) if bound is not None and bound.names else \
        receivers.Target("builtins") if bound is None else None
    found = libraries.read_target(context, target) if target is not None else None
    member = found.names.get(name) if found is not None else None
    return member.signature if member is not None else ""


def _defined(context: CompletionContext, name: str) -> str | None:
    """The signature of a function or class the file defines at its top level by that name (a
    class's: its ``__init__``'s)."""
    for child in context.tree.root_node.named_children:
        decorators = ""
        if child.type == "decorated_definition":
            decorators = " ".join(node_text(d) for d in child.named_children if d.type == "decorator")
            child = child.child_by_field_name("definition") or child
        if child.type not in DEFINITIONS or node_text(child.child_by_field_name("name")) != name:
            continue
        if child.type == "function_definition":
            return receivers.parameters(child.child_by_field_name("parameters"))
        body = child.child_by_field_name("body")
        fields = []
        for item in body.named_children if body is not None else ():
            item = item.child_by_field_name("definition") or item if item.type == "decorated_definition" else item
            if item.type == "function_definition" and node_text(item.child_by_field_name("name")) == "__init__":
                return receivers.parameters(item.child_by_field_name("parameters"))
            assignment = item.named_children[0] if item.type == "expression_statement" and item.named_children else None
            if assignment is not None and assignment.type == "assignment" and assignment.child_by_field_name("type") is not None:
                fields.append(node_text(assignment.child_by_field_name("left")))  # a dataclass's `name: str`
        return f"({', '.join(fields)})" if "dataclass" in decorators else None
    return None
