"""Syntax-tree helpers shared by tests."""

from __future__ import annotations


def identifier_leaves(root):
    """The identifier and property-identifier nodes under ``root``, in pre-order."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("identifier", "property_identifier"):
            yield node
        stack.extend(reversed(node.children))
