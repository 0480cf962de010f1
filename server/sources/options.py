"""An options object's keys: inside an object literal passed to a call, where a key is written
(``fs.readFileSync(p, { enc|``, ``spawn(cmd, args, {\\n  |``), the keys that Node's declarations
give that parameter's type (the shipped table's "options", libraries/build_table.py), or else
the callee's own code, where the file or a project file declares it (parameter_keys.py); those
written already left out. JavaScript and TypeScript; they join the list as a receiver's members
do after a dot, ranked with every other candidate.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .. import receivers
from ..calls import callee_target
from ..context import NAME, CompletionContext
from ..engines.base import Kind
from .arguments import CALLEE, READ_BACK, unclosed
from .libraries import node_table
from .libraries.members import Members
from .parameter_keys import function_named, parameter_keys

if TYPE_CHECKING:
    from .libraries.known import Libraries

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
    callee = CALLEE.search(before, 0, paren) if paren is not None else None
    names = receivers.chain(callee.group(1).decode()) if callee is not None else None
    if not names:
        return None
    index = _flat(before[paren + 1:brace]).count(b",")  # the arguments before: no comma inside their brackets
    bound = libraries.bindings(context)
    keys = node_table.options(callee_target(names, bound), index) or _own_keys(context, names, bound, index, libraries)
    if not keys:
        return None
    given = {m.group(1).decode() for m in _KEY.finditer(_flat(before[brace + 1:]))}
    written = ".".join(names)
    out = Members(f"options of {written}", complete=False)
    for key in keys:
        if key not in given:
            out.add(key, Kind.PROPERTY, f"option of {written}()", origin=names[-1])
    return out if out.names else None


def _own_keys(context: CompletionContext, names: list[str], bound: dict[str, receivers.Target], index: int,
              libraries: Libraries) -> list[str]:
    """The keys by the callee's own code (parameter_keys.py): a function the file declares at its
    top level, or one a project file exports (``import { listen } from './server'``, ``const m =
    require('./m')`` … ``m.listen({``), or a package, by its declarations where it has them,
    read by the libraries' loader."""
    head = bound.get(names[0])
    if head is None:
        function = function_named(context.tree.root_node, names[0]) if len(names) == 1 and context.tree is not None else None
        return parameter_keys(function, index) if function is not None else []
    called = (*head.names, *names[1:]) or ("default",)
    if node_table.builtin(head.module) or len(called) != 1:
        return []
    return libraries.keys_of(context, receivers.Target(head.module, called), index) or []


def _flat(text: bytes) -> bytes:
    """``text`` without what its brackets hold, innermost first (``f(a, b), [1, 2], c`` -> ``f, , c``)."""
    while True:
        flat = _NESTED.sub(b"", text)
        if flat == text:
            return text
        text = flat
