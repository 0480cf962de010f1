"""An options object's keys: inside an object literal passed to a call, where a key is written
(``fs.readFileSync(p, { enc|``, ``spawn(cmd, args, {\\n  |``), the keys that Node's declarations
give that parameter's type (the shipped table's "options", libraries/build_table.py), those
written already left out. JavaScript and TypeScript; they join the list as a receiver's members
do after a dot, ranked with every other candidate.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .. import receivers
from ..context import NAME, CompletionContext
from ..engines.base import Kind
from .arguments import READ_BACK, unclosed
from .libraries import javascript
from .libraries.members import Members

if TYPE_CHECKING:
    from .libraries.known import Libraries

_CALLEE = re.compile(rb"(?<![\w$.])([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)\s*\Z")
_KEY = re.compile(rb"(?:^|[{,])\s*(?:['\"]?)([A-Za-z_$][\w$]*)(?:['\"]?)\s*(?=[:,}]|\Z)")
_NESTED = re.compile(rb"\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}")


def option_keys(context: CompletionContext, libraries: Libraries) -> Members | None:
    """The keys the options object around the cursor may take and does not hold yet; None where
    the cursor is not at a key of an object literal passed to a call the table knows."""
    if context.category != NAME or context.language.name not in receivers.OWN or context.language.name == "python":
        return None
    data, start = context.data, context.prefix_start
    if data[max(0, start - 64):start].rstrip()[-1:] not in (b"{", b","):
        return None  # no key starts here: most keystrokes stop here
    before = data[max(0, start - READ_BACK):start]
    brace = unclosed(before, b"{")
    if brace is None or before[:brace].rstrip()[-1:] not in (b"(", b","):
        return None
    paren = unclosed(before[:brace], b"(")
    callee = _CALLEE.search(before, 0, paren) if paren is not None else None
    names = receivers.chain(callee.group(1).decode()) if callee is not None else None
    if not names:
        return None
    inside = before[paren + 1:brace]
    while _NESTED.search(inside):  # the arguments before: their brackets' contents hold no comma of the call's
        inside = _NESTED.sub(b"", inside)
    index = inside.count(b",")
    keys = javascript.options(_function(names, libraries.bindings(context)), index)
    if not keys:
        return None
    body = before[brace + 1:]
    while _NESTED.search(body):
        body = _NESTED.sub(b"", body)
    given = {m.group(1).decode() for m in _KEY.finditer(body)}
    written = ".".join(names)
    out = Members(f"options of {written}", complete=False)
    for key in keys:
        if key not in given:
            out.add(key, Kind.PROPERTY, f"option of {written}()", origin=names[-1])
    return out if out.names else None


def _function(names: list[str], bound: dict[str, receivers.Target]) -> str:
    """The table's key of the function a callee names: ``fs.readFileSync`` with ``fs`` Node's
    fs -> ``fs.readFileSync()``; ``spawn`` bound by ``const { spawn } = require('child_process')``
    -> ``child_process.spawn()``; a global's: ``fetch()``."""
    head = bound.get(names[0])
    if head is None:
        return ".".join(names) + "()"
    return ".".join((head.module.removeprefix("node:"),) + head.names + tuple(names[1:])) + "()"
