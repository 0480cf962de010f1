"""Where a type test narrows a name: whether ``isinstance(x, C)`` (Python) or ``x instanceof C``
(JavaScript, TypeScript) makes ``x`` a C at the cursor, as the syntax tree places the test.

It does where the test, through parentheses and ``and``/``&&``, is the condition of an
``if``/``elif``/``while`` whose body holds the cursor, or of a conditional expression whose
first branch does; where it is an ``assert``'s; and in what follows an ``and`` after it
(``isinstance(x, C) and x.|``). A negated test (``not``, ``!``, through ``or``/``||``)
narrows the other way: in the ``else`` and ``elif`` branches, and below an ``if`` whose body
leaves (``return``, ``raise``, ``throw``, ``continue``, ``break``). Anywhere else (a branch
the test rules out, another function, a test whose result is stored) it does not. Where the
tree is broken around the test (the block being written at the end of a buffer), a test not
negated narrows unless an ``else`` stands between it and the cursor.
"""

from __future__ import annotations

import re

import tree_sitter

_CONDITIONS = ("if_statement", "elif_clause", "while_statement")
_BRANCHES = ("conditional_expression", "ternary_expression")
_ELSE = re.compile(rb"\b(?:else|elif)\b")
_LEAVES = frozenset({"return_statement", "raise_statement", "throw_statement", "continue_statement", "break_statement"})


def holds(tree: tree_sitter.Tree | None, data: bytes, start: int, end: int, cursor: int) -> bool:
    """Whether the type test spanning bytes [start, end) of ``data`` narrows its name at
    ``cursor``, as ``tree`` (``data``'s) places it; True where there is no tree."""
    if tree is None:
        return True
    node = tree.root_node.descendant_for_byte_range(start, max(start, end - 1))
    while node is not None and not (node.start_byte <= start and end <= node.end_byte):
        node = node.parent
    negated = False
    while node is not None and (parent := node.parent) is not None:
        kind = parent.type
        operator = parent.child_by_field_name("operator")
        operator = operator.type if operator is not None else None
        if kind == "parenthesized_expression":
            pass
        elif kind == "not_operator" or kind == "unary_expression" and operator == "!":
            negated = not negated
        elif kind == "boolean_operator" or kind == "binary_expression" and operator in ("&&", "||"):
            both = operator in ("and", "&&")  # both sides true, or (`or`) either
            right = parent.child_by_field_name("right")
            if right is not None and right != node and _inside(right, cursor):
                return both != negated  # `isinstance(x, C) and x.|`, `not isinstance(x, C) or x.|`
            if both == negated:
                return False  # `isinstance(x, C) or y`: nothing follows of x
        elif kind in _CONDITIONS and parent.child_by_field_name("condition") == node:
            return _under_condition(parent, cursor, negated)
        elif kind in _BRANCHES:
            return _in_branch(parent, node, cursor, negated)
        elif kind == "assert_statement":
            return not negated
        elif kind == "ERROR":
            return not negated and _ELSE.search(data, end, cursor) is None
        else:
            return False
        node = parent
    return False


def _under_condition(statement: tree_sitter.Node, cursor: int, negated: bool) -> bool:
    body = statement.child_by_field_name("consequence") or statement.child_by_field_name("body")
    if body is None:
        return False
    if not negated:
        return _inside(body, cursor)
    branches = _alternatives(statement)
    if any(_inside(branch, cursor) for branch in branches):
        return True  # `if not isinstance(x, C): … else: x.|`
    whole = statement.parent if statement.type == "elif_clause" else statement
    return statement.type != "while_statement" and not branches and cursor >= whole.end_byte \
        and _leaves(body) and whole.parent is not None and _inside(whole.parent, cursor)


def _alternatives(statement: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The branches taken where ``statement``'s condition is false: an ``if``'s ``else`` (and
    ``elif``s), an ``elif``'s that follow it in its ``if``, a ``while``'s ``else``."""
    if statement.type == "elif_clause":
        owner = statement.parent
        if owner is None:
            return []
        branches = owner.children_by_field_name("alternative")
        return [b for b in branches if b.start_byte > statement.start_byte]
    return statement.children_by_field_name("alternative")


def _in_branch(expression: tree_sitter.Node, test: tree_sitter.Node, cursor: int, negated: bool) -> bool:
    """A conditional expression: ``a if test else b`` (Python), ``test ? a : b`` (JavaScript)."""
    if expression.type == "ternary_expression":
        if expression.child_by_field_name("condition") != test:
            return False
        taken = expression.child_by_field_name("alternative" if negated else "consequence")
    else:
        parts = expression.named_children
        if len(parts) != 3 or parts[1] != test:
            return False
        taken = parts[2] if negated else parts[0]
    return taken is not None and _inside(taken, cursor)


def _leaves(body: tree_sitter.Node) -> bool:
    """Whether a body ends by leaving: its last statement returns, raises, throws, continues or breaks."""
    last = body.named_children[-1] if body.type in ("block", "statement_block") and body.named_children else body
    return last.type in _LEAVES


def _inside(node: tree_sitter.Node, cursor: int) -> bool:
    return node.start_byte <= cursor <= node.end_byte
