"""What a JavaScript receiver is the result of: a call or a ``new`` of what the buffer's imports
bind or of a global (``fs.createReadStream(p).``, ``const s = fs.createReadStream(p)`` … ``s.``),
read from the syntax tree and the text before the cursor; the libraries say what some such calls
return (server/sources/libraries/javascript.py)."""

from __future__ import annotations

import tree_sitter

from .context import CompletionContext, member_access
from .assignments import seen_call
from .receivers import OWN, Target, chain
from .words import node_text


def call_result(context: CompletionContext, bound: dict[str, Target]) -> Target | None:
    """JavaScript: the result of a call or a ``new``, where the receiver is one
    (``fs.createReadStream(p).``) or a name last assigned one (``const s = fs.createReadStream(p)``
    … ``s.``, ``const e = new EventEmitter()`` … ``e.``): the callee's target with its last name
    marked ``()`` (``Target("fs", ("createReadStream()",))``; a module's default export called:
    ``("()",)``; a global's: ``Target("", ("Buffer", "from()"))``; awaited, ``await`` after it:
    ``const d = await readdir(p)`` … ``d.``). The libraries know what some such calls return
    (server/sources/libraries/javascript.py); None elsewhere."""
    access = member_access(context.target) if context.target is not None else None
    obj = access.child_by_field_name("object") if access is not None else None
    if obj is None or context.language.name == "python" or context.language.name not in OWN:
        return None
    return called(obj, context.data, context.prefix_start, bound)


def called(obj: tree_sitter.Node, data: bytes, offset: int, bound: dict[str, Target]) -> Target | None:
    """call_result's target of the JavaScript receiver node ``obj``, the cursor at ``offset``."""
    names = None
    if obj.type in ("call_expression", "new_expression"):
        names = chain(node_text(obj.child_by_field_name("function" if obj.type == "call_expression" else "constructor")))
    awaited = False
    if obj.type in ("parenthesized_expression", "await_expression"):  # `(await readdir(p)).`
        inner = obj.named_children[0] if obj.type == "parenthesized_expression" and obj.named_children else obj
        call = inner.named_children[0] if inner.type == "await_expression" and inner.named_children else None
        names = chain(node_text(call.child_by_field_name("function"))) if call is not None and call.type == "call_expression" else None
        awaited = True
    elif obj.type == "identifier":
        root = obj
        while root.parent is not None:
            root = root.parent
        found = seen_call(root, data, offset, node_text(obj))  # not another function's `value = Math.min(…)`
        if found is not None and not found.then:  # not `s = fs.createReadStream(p).pipe(t)`: the pipe's
            names, awaited = list(found.names), found.awaited
    if not names or (len(names) == 1 and names[0] not in bound):
        return None  # a function of the file's own, or a global: nothing says what it returns
    target = callee_target(names, bound)
    return Target(target.module, (*target.names, "await")) if awaited else target


def callee_target(names: list[str], bound: dict[str, Target]) -> Target:
    """What a call of the callee ``names`` gives, as a target whose last name is marked ``()``:
    ``fs.createReadStream`` with ``fs`` Node's fs -> ``Target("fs", ("createReadStream()",))``;
    ``spawn`` bound by ``const { spawn } = require('child_process')`` -> ``Target("child_process",
    ("spawn()",))``; a default export: ``("()",)``; a global's: ``Target("", ("Buffer", "from()"))``."""
    head = bound.get(names[0])
    if head is None:
        return Target("", (*names[:-1], names[-1] + "()"))
    if len(names) > 1:
        return Target(head.module, (*head.names, *names[1:-1], names[-1] + "()"))
    return Target(head.module, (*head.names[:-1], head.names[-1] + "()") if head.names else ("()",))
