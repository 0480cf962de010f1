"""The functions around the cursor, their parameters and the names their code binds before it
(a local that hides an import of the same name), in a whole tree or one cut at the cursor.

While code is being written, the buffer often ends (or stops parsing) inside a function: its
closing brace is not typed yet. tree-sitter's error recovery then leaves the function's parts as
loose siblings in an ERROR node (``name`` ``formal_parameters`` ``{`` statements...), so the
function is no ancestor of the cursor. There each ``{`` (or Python ``:``, the innermost only)
that is still open before the cursor and follows a parameter list opens a function's body.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import tree_sitter

from .languages import FUNCTIONS, LOCALS

PARAMETER_LISTS = {"formal_parameters", "parameters", "lambda_parameters"}
PATTERNS = {"object_pattern", "array_pattern", "tuple_pattern", "list_pattern"}
# what opens a function's body after its parameters, per language
BODY_OPENERS = {"python": {":"}, "javascript": {"{", "=>"}}
LOCALS_READ = 16 * 1024  # bytes of the function before the cursor read for the names it binds


@dataclass(frozen=True)
class Function:
    """The function around the cursor: where it starts and its parameter names."""

    start: int
    parameters: frozenset[str]


def function_around(language: str, target: tree_sitter.Node | None) -> Function | None:
    """The innermost function around ``target``: an ancestor, or a body left open in an ERROR."""
    return next(functions_around(language, target), None)


def functions_around(language: str, target: tree_sitter.Node | None) -> Iterator[Function]:
    """The functions around ``target``, innermost first: ancestors, and bodies left open in an ERROR."""
    kinds = FUNCTIONS.get(language, ())
    openers = BODY_OPENERS.get(language, set())
    node = target
    while node is not None:
        if node.type in kinds:
            yield Function(node.start_byte, frozenset(parameters_of(node)))
        parent = node.parent
        if parent is not None and parent.type == "ERROR":
            yield from _open_bodies_before(node, openers)
        node = parent


def names_bound(language: str, data: bytes, start: int, end: int) -> set[str]:
    """The names that code binds between ``start`` and ``end`` (assignment targets, loop
    variables, ``as`` names, declarations: languages.LOCALS)."""
    pattern = LOCALS.get(language)
    groups = pattern.findall(data, max(start, end - LOCALS_READ), end) if pattern else ()
    return {g.decode("utf-8", "replace") for found in groups for g in found if g}


def local_to(language: str, target: tree_sitter.Node | None, data: bytes, cursor: int, name: str) -> int | None:
    """Where ``name`` at the cursor is a local of the functions around it, not the file's
    top-level binding (a parameter of one of them, or bound by their code before the cursor:
    ``for (const e of effects) { e.`` where the file imports ``* as e``), the start of the
    outermost of them; else None."""
    around = list(functions_around(language, target))
    if not around:
        return None
    start = min(f.start for f in around)
    if any(name in f.parameters for f in around) or name in names_bound(language, data, start, cursor):
        return start
    return None


def _open_bodies_before(node: tree_sitter.Node, openers: set[str]) -> Iterator[Function]:
    """Among the siblings before ``node`` (children of an ERROR), the openers still open that
    follow a parameter list, innermost first (in Python the innermost alone)."""
    closed = 0
    sibling = node.prev_sibling
    while sibling is not None:
        kind = sibling.type
        if kind == "}":
            closed += 1
        elif kind in openers:
            if kind == "{" and closed:
                closed -= 1
            else:
                params = _parameter_list_before(sibling)
                if params is not None:
                    yield Function(params.start_byte, frozenset(_names(params)))
                    if kind == ":":
                        return  # a Python body ends where its indentation does, which no token marks
        sibling = sibling.prev_sibling


def _parameter_list_before(opener: tree_sitter.Node) -> tree_sitter.Node | None:
    """The parameter list (or an arrow's lone parameter) just before a body's opener."""
    before = opener.prev_sibling
    arrow = opener.type == "=>"
    if opener.type == "{" and before is not None and before.type == "=>":  # `(a) => {`
        before, arrow = before.prev_sibling, True
    elif opener.type == ":" and before is not None and before.type == "type":  # `def f(a) -> int:`
        before = before.prev_sibling
        before = before.prev_sibling if before is not None and before.type == "->" else None
    if before is None:
        return None
    if before.type in PARAMETER_LISTS or (arrow and before.type == "identifier"):  # `a => a.b`
        return before
    return None


def parameters_of(function: tree_sitter.Node) -> set[str]:
    """The parameter names of a function node."""
    params = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
    return _names(params) if params is not None else set()


def _names(params: tree_sitter.Node) -> set[str]:
    """The names a parameter list (or a lone parameter) declares."""
    names: set[str] = set()
    for child in [params] if params.type == "identifier" else params.named_children:
        _declared(child, names)
    return names


def pattern_names(node: tree_sitter.Node) -> set[str]:
    """The names a declaration's target binds: a name, or every name a destructuring pattern binds."""
    names: set[str] = set()
    _declared(node, names)
    return names


def _declared(node: tree_sitter.Node, names: set[str]) -> None:
    """Add the names one parameter declares: a name, a default's or a type's name, a rest
    parameter's, or every name a destructuring pattern binds."""
    kind = node.type
    if kind in ("identifier", "shorthand_property_identifier_pattern"):
        if node.text:
            names.add(node.text.decode("utf-8", "replace"))
    elif kind in PATTERNS:
        for child in node.named_children:
            _declared(child, names)
    elif kind == "pair_pattern":  # `{a: b}` binds b
        value = node.child_by_field_name("value")
        if value is not None:
            _declared(value, names)
    else:  # `a = 1`, `a: int`, `...a`, `*a`, `**a`
        name = (node.child_by_field_name("name") or node.child_by_field_name("left")
                or (node.named_children[0] if node.named_child_count else None))
        if name is not None:
            _declared(name, names)
