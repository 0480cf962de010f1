"""Syntax trees to node sequences (Li et al., thesis ch. 3, "Representation").

A tree-sitter tree becomes the depth-first pre-order sequence of its *elements*, each a
(type, value) pair with its parent's offset and two bits: has a child, has a right sibling.
One implementation, used by corpus building, training and the server.

Which nodes are elements (models/README.md says why):
- named nodes, except comments (extras), zero-width MISSING nodes from error recovery, and the
  pieces of a string literal (its quotes, content and escapes);
- anonymous nodes that fill an ``operator`` / ``operators`` field (``+``, ``not in``, ``+=``):
  type ``operator``, value the operator. Other anonymous tokens (``def``, ``(``, ``:``) are
  implied by their parent's type and are dropped.
Values: a token's text (identifiers, numbers, true/none/this...); a string literal's source
text, or ``<DOC>`` for a docstring and ``<STR>`` for one over 100 characters or several lines;
a number over 32 characters is ``<NUM>``; everything else ``EMPTY``. A string with
interpolations (f-strings, template literals) is an internal node whose children are its
interpolations.

Iterative (TreeCursor, no recursion limit). Knows nothing of vocabularies or tensors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import tree_sitter

EMPTY = "EMPTY"
OPERATOR = "operator"
DOC, LONG_STRING, LONG_NUMBER = "<DOC>", "<STR>", "<NUM>"
MAX_STRING, MAX_NUMBER = 100, 32

STRING_TYPES = frozenset({"string", "template_string", "concatenated_string"})
INTERPOLATIONS = frozenset({"interpolation", "template_substitution", "string"})  # kept inside strings
OPERATOR_FIELDS = frozenset({"operator", "operators"})
NUMBER_TYPES = frozenset({"integer", "float", "number"})
DOCSTRING_BLOCKS = frozenset({"module", "block"})


@dataclass
class Flat:
    """A node sequence, as parallel lists (one entry per element, in pre-order)."""

    types: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    parents: list[int] = field(default_factory=list)  # offset back to the parent; 0 for a root
    starts: list[int] = field(default_factory=list)  # byte offset where the element starts
    has_child: list[bool] = field(default_factory=list)
    has_sibling: list[bool] = field(default_factory=list)  # a right sibling among elements

    def __len__(self) -> int:
        return len(self.types)

    def annotated_types(self) -> list[str]:
        """Types with Li et al.'s two bits, e.g. ``call|10``: has a child, no right sibling."""
        return [f"{t}|{int(c)}{int(s)}" for t, c, s in zip(self.types, self.has_child, self.has_sibling)]


def _string_value(node: tree_sitter.Node) -> str:
    parent = node.parent
    if (
        parent is not None
        and parent.type == "expression_statement"
        and parent.named_child_count == 1
        and parent.prev_named_sibling is None
        and parent.parent is not None
        and parent.parent.type in DOCSTRING_BLOCKS
    ):
        return DOC
    text = (node.text or b"").decode("utf-8", "replace")
    return LONG_STRING if len(text) > MAX_STRING or "\n" in text else text


def _has_interpolation(node: tree_sitter.Node) -> bool:
    return any(child.type in INTERPOLATIONS for child in node.named_children)


def flatten(tree: tree_sitter.Tree | tree_sitter.Node, stop: int | None = None) -> Flat:
    """The element sequence of a tree (or subtree). With ``stop``, it ends before the first
    leaf element that starts at or after byte ``stop``: the predicted node, at a cursor."""
    root = tree.root_node if isinstance(tree, tree_sitter.Tree) else tree
    flat = Flat()
    types, values, parents, starts = flat.types, flat.values, flat.parents, flat.starts
    cursor = root.walk()
    # Per cursor depth: the index of the nearest element at or above it, and whether the
    # children at that depth are inside a string (where only interpolations count).
    owner: list[int] = [-1]
    in_string: list[bool] = [False]
    while True:
        node = cursor.node
        index = -1
        descend = False
        if node.is_named:
            if (node.is_extra and not node.is_error) or node.is_missing or (in_string[-1] and node.type not in INTERPOLATIONS):
                pass
            elif node.type in STRING_TYPES and not _has_interpolation(node):
                index = len(types)
                types.append(node.type)
                values.append(_string_value(node))
            else:
                index = len(types)
                types.append(node.type)
                descend = node.child_count > 0
                if descend:
                    values.append(EMPTY)
                else:
                    text = (node.text or b"").decode("utf-8", "replace")
                    values.append(LONG_NUMBER if node.type in NUMBER_TYPES and len(text) > MAX_NUMBER else text)
        elif cursor.field_name in OPERATOR_FIELDS and not in_string[-1]:
            index = len(types)
            types.append(OPERATOR)
            values.append((node.text or b"").decode("utf-8", "replace"))
        if index >= 0:
            # At a cursor, the predicted node is the first leaf at or after ``stop``; the nodes
            # that start there and contain it come before it in pre-order and stay.
            if stop is not None and node.start_byte >= stop and not descend:
                del types[index], values[index]
                break
            parent = owner[-1]
            parents.append(index - parent if parent >= 0 else 0)
            starts.append(node.start_byte)
        if descend and cursor.goto_first_child():
            owner.append(index if index >= 0 else owner[-1])
            in_string.append(node.type in STRING_TYPES)
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent() or len(owner) == 1:
                _set_bits(flat)
                return flat
            owner.pop()
            in_string.pop()
    _set_bits(flat)
    return flat


def _set_bits(flat: Flat) -> None:
    n = len(flat.types)
    has_child = [False] * n
    has_sibling = [False] * n
    last_child: dict[int, int] = {}  # parent index -> its latest child seen, walking forward
    for i, offset in enumerate(flat.parents):
        if offset:
            parent = i - offset
            has_child[parent] = True
            if parent in last_child:
                has_sibling[last_child[parent]] = True
            last_child[parent] = i
    flat.has_child, flat.has_sibling = has_child, has_sibling
