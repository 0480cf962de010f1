"""Syntax trees to node sequences (Li et al., thesis ch. 3, "Representation").

A tree-sitter tree becomes the depth-first pre-order sequence of its *elements*, each a
(type, value) pair with its parent's offset and two bits: has a child, has a right sibling.
One implementation, used by corpus building, training and the server.

Which nodes are elements (docs/models.md says why):
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

from .lru import SizedLRU

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
    # flatten_before only: the syntax nodes (None where a memo's copy stands: ``node`` finds
    # them), where each element ends, and the tree's root
    nodes: list[tree_sitter.Node | None] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    root: tree_sitter.Node | None = None

    def __len__(self) -> int:
        return len(self.types)

    def node(self, i: int) -> tree_sitter.Node:
        """The syntax node of element ``i`` (flatten_before's output)."""
        node = self.nodes[i]
        if node is None:
            node = self.nodes[i] = _find(self.root, self.starts[i], self.ends[i], self.types[i])
        return node

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


def _element(node: tree_sitter.Node, in_string: bool, operator_field: bool) -> tuple[str, str, bool] | None:
    """The rules: (type, value, descend) if ``node`` is an element, else None. ``in_string``:
    its parent is a string (only interpolations count there); ``operator_field``: it fills
    its parent's ``operator``/``operators`` field."""
    if node.is_named:
        if (node.is_extra and not node.is_error) or node.is_missing or (in_string and node.type not in INTERPOLATIONS):
            return None
        if node.type in STRING_TYPES and not _has_interpolation(node):
            return node.type, _string_value(node), False
        if node.child_count > 0:
            return node.type, EMPTY, True
        text = (node.text or b"").decode("utf-8", "replace")
        return node.type, (LONG_NUMBER if node.type in NUMBER_TYPES and len(text) > MAX_NUMBER else text), False
    if operator_field and not in_string:
        return OPERATOR, (node.text or b"").decode("utf-8", "replace"), False
    return None


def flatten(tree: tree_sitter.Tree | tree_sitter.Node, stop: int | None = None, limit: int | None = None) -> Flat:
    """The element sequence of a tree (or subtree). With ``stop``, it ends before the first
    leaf element that starts at or after byte ``stop``: the predicted node, at a cursor. With
    ``limit``, after that many elements."""
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
        element = _element(node, in_string[-1], cursor.field_name in OPERATOR_FIELDS)
        descend = False
        if element is not None:
            index = len(types)
            kind, value, descend = element
            # At a cursor, the predicted node is the first leaf at or after ``stop``; the nodes
            # that start there and contain it come before it in pre-order and stay.
            if (stop is not None and node.start_byte >= stop and not descend) or (limit is not None and index >= limit):
                break
            types.append(kind)
            values.append(value)
            parent = owner[-1]
            parents.append(index - parent if parent >= 0 else 0)
            starts.append(node.start_byte)
        if descend and cursor.goto_first_child():
            owner.append(index)
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


MEMO_BYTES = 16  # a shorter subtree is walked: looking it up would cost what it saves
MEMO_MIN = 4  # elements of the smallest subtree a memo keeps
MEMO_ELEMENTS = 16384  # elements a memo keeps in all (subtrees nest: a statement and its body)


@dataclass
class Segment:
    """A subtree's elements as ``flatten_before`` reads them, its root first; parent offsets
    inside the subtree (the root's is 0), and both bits but for the root's right sibling's,
    which depends on what follows the subtree."""

    types: tuple[str, ...]
    values: tuple[str, ...]
    parents: tuple[int, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    has_child: tuple[bool, ...]
    has_sibling: tuple[bool, ...]

    @classmethod
    def of(cls, flat: Flat, start: int, end: int) -> Segment:
        """Tuples of plain values, which the collector stops tracking once it has seen them:
        a memo's thousands of segments are not walked at every young collection."""
        return cls(tuple(flat.types[start:end]), tuple(flat.values[start:end]), (0, *flat.parents[start + 1:end]),
                   tuple(flat.starts[start:end]), tuple(flat.ends[start:end]), tuple(flat.has_child[start:end]),
                   tuple(flat.has_sibling[start:end]))


class Memo(SizedLRU):
    """Subtrees ``flatten_before`` has read, by their text and place, least recently used first
    out, under a cap on their elements in all (``size``). Typing changes the text at the cursor:
    the statements before it, which a request reads again, are copied rather than walked (a
    subtree's elements depend on its own nodes alone, but for a docstring, whose place the key
    holds). Not thread-safe: one per caller."""

    def __init__(self, cap: int = MEMO_ELEMENTS):
        super().__init__(cap)

    @staticmethod
    def key(node: tree_sitter.Node, in_string: bool) -> tuple:
        return node.start_byte, node.type, node.descendant_count, in_string, _docstring_place(node), node.text


def _docstring_place(node: tree_sitter.Node) -> bool:
    """Whether a string statement here would be a docstring (the subtree's values depend on it)."""
    parent = node.parent
    return (node.type == "expression_statement" and parent is not None and parent.type in DOCSTRING_BLOCKS
            and node.prev_named_sibling is None)


def _find(root: tree_sitter.Node, start: int, end: int, kind: str) -> tree_sitter.Node:
    """The node of an element of type ``kind`` spanning ``start``..``end`` in ``root``'s tree."""

    def matches(node: tree_sitter.Node) -> bool:
        return (node.start_byte == start and node.end_byte == end
                and (node.is_named and node.type == kind or kind == OPERATOR and not node.is_named))

    found = node = root.descendant_for_byte_range(start, end)
    while node is not None and node.start_byte == start and node.end_byte == end:
        if matches(node):
            return node
        node = node.parent
    # a zero-width node (error recovery's empty block) lies below the smallest node spanning it
    stack = [found]
    while stack:
        node = stack.pop()
        if matches(node):
            return node
        stack.extend(c for c in node.children if c.start_byte <= start and end <= c.end_byte)
    return found


def flatten_before(target: tree_sitter.Node, limit: int, memo: Memo | None = None) -> tuple[Flat, int]:
    """The last ``limit`` elements before ``target`` (the predicted node) in pre-order, by the
    rules of ``flatten``: the tail of ``flatten(tree, stop=target.start_byte)``, at a cost of
    O(limit + depth) whatever the file size. Walks backwards (reverse pre-order: a node's
    earlier siblings, deepest last descendant first, then the node's parent), iteratively.

    The has-child / has-right-sibling bits come from the tree, as in the full file's sequence
    (code after the cursor counts, as it does in training). Also returns how far back the
    predicted node's parent element is. A parent that fell before the tail gets an offset
    pointing before the sequence's start.

    With a ``memo``, a subtree read by an earlier call (same text at the same place) is copied
    from it rather than walked again: the result is the same, but its ``nodes`` are None there
    (``Flat.node`` finds them in the tree when asked)."""
    ancestors = []
    node = target
    while node.parent is not None:
        ancestors.append(node.parent)
        node = node.parent
    root = node
    # Which ancestors are elements (their context is their own parent), and so which element
    # owns the children of each ancestor.
    elements = [
        _element(a, i + 1 < len(ancestors) and ancestors[i + 1].type in STRING_TYPES, False)
        for i, a in enumerate(ancestors)
    ]
    owners: list[int | None] = [None] * len(ancestors)
    nearest = None
    for i in range(len(ancestors) - 1, -1, -1):
        if elements[i] is not None:
            nearest = ancestors[i].id
        owners[i] = nearest
    # Stack entries: ("from", node, owner_id) = that node's subtree and all its earlier
    # siblings', backwards; ("emit", node, element, owner_id, memo key, elements read before
    # its subtree's).
    stack: list[tuple] = []
    for i in range(len(ancestors) - 1, -1, -1):
        if elements[i] is not None:
            stack.append(("emit", ancestors[i], elements[i], owners[i + 1] if i + 1 < len(ancestors) else None, None, 0))
        child = target if i == 0 else ancestors[i - 1]
        if child.prev_sibling is not None:
            stack.append(("from", child.prev_sibling, owners[i]))
    operator_ids: dict[int, frozenset[int]] = {}
    # type, value, node, owner id, and the memo's Segment for a whole subtree copied (its root's
    # type, value and node)
    backwards: list[tuple[str, str, tree_sitter.Node, int | None, Segment | None]] = []
    read = 0  # elements in ``backwards``
    finished: list[tuple[int, tuple, int]] = []  # subtrees read whole: position in backwards, memo key, elements
    while stack and read < limit:
        entry = stack.pop()
        if entry[0] == "emit":
            _, node, element, owner_id, key, before = entry
            backwards.append((element[0], element[1], node, owner_id, None))
            read += 1
            if key is not None and read - before >= MEMO_MIN:
                finished.append((len(backwards) - 1, key, read - before))
            continue
        _, node, owner_id = entry
        if node.prev_sibling is not None:
            stack.append(("from", node.prev_sibling, owner_id))
        parent = node.parent
        operator = False
        if not node.is_named and parent is not None:
            if parent.id not in operator_ids:
                operator_ids[parent.id] = frozenset(c.id for f in OPERATOR_FIELDS for c in parent.children_by_field_name(f))
            operator = node.id in operator_ids[parent.id]
        in_string = parent is not None and parent.type in STRING_TYPES
        element = _element(node, in_string, operator)
        if element is None:
            continue
        if element[2]:
            key = memo.key(node, in_string) if memo is not None and node.end_byte - node.start_byte >= MEMO_BYTES else None
            segment = memo.get(key) if key is not None else None
            if segment is not None and read + len(segment.types) <= limit:
                backwards.append((element[0], element[1], node, owner_id, segment))
                read += len(segment.types)
                continue
            stack.append(("emit", node, element, owner_id, key, read))
            stack.append(("from", node.child(node.child_count - 1), node.id))
        else:
            backwards.append((element[0], element[1], node, owner_id, None))
            read += 1
    flat = Flat(root=root)
    positions = [0] * len(backwards)  # each entry's first element in ``flat``
    index: dict[int, int] = {}
    i = 0
    for position in range(len(backwards) - 1, -1, -1):
        kind, value, node, owner_id, segment = backwards[position]
        positions[position] = i
        index[node.id] = i
        offset = 0 if owner_id is None else i - index.get(owner_id, -1)
        if segment is None:
            flat.types.append(kind)
            flat.values.append(value)
            flat.starts.append(node.start_byte)
            flat.ends.append(node.end_byte)
            flat.nodes.append(node)
            flat.parents.append(offset)
            i += 1
        else:
            flat.types.extend(segment.types)
            flat.values.extend(segment.values)
            flat.starts.extend(segment.starts)
            flat.ends.extend(segment.ends)
            flat.nodes.append(node)
            flat.nodes.extend([None] * (len(segment.types) - 1))
            flat.parents.append(offset)
            flat.parents.extend(segment.parents[1:])
            i += len(segment.types)
    owner_id = owners[0] if ancestors else None
    target_parent = 0 if owner_id is None else i - index.get(owner_id, -1)
    # the predicted node follows the sequence if flatten would reach it: all its ancestors are
    # elements it descends into (an operator token counts as not reached: the tree is asked)
    target_is_element = all(e is not None and e[2] for e in elements) and _element(
        target, bool(ancestors) and ancestors[0].type in STRING_TYPES, False) is not None
    _set_bits_before(flat, backwards, positions, owner_id if target_is_element else None,
                     {a.id for a, e in zip(ancestors, elements) if e is not None})
    if memo is not None:
        for position, key, size in finished:  # a subtree's root comes first, its elements after it
            memo.put(key, Segment.of(flat, positions[position], positions[position] + size), size)
    return flat, target_parent


def _set_bits_before(flat: Flat, backwards: list[tuple], positions: list[int], target_owner: int | None,
                     ancestor_ids: set[int]) -> None:
    """The two bits of ``flatten_before``'s elements. An element's children and right siblings
    follow it in pre-order, so the sequence (and the predicted node after it) shows them, except
    where they lie after the cursor: for the cursor's ancestors and their children the tree is
    asked. A subtree copied from the memo brings its elements' bits, but for its root's right
    sibling, which depends on what follows the subtree."""
    n = len(flat.types)
    has_child = [False] * n
    has_sibling = [False] * n
    later_owners = {target_owner} if target_owner is not None else set()
    following = target_owner  # the owner of the element after the current entry's elements
    for position, (_, value, node, owner_id, segment) in enumerate(backwards):  # last element first
        i = positions[position]
        if segment is None:
            has_child[i] = following is not None and following == node.id
        else:
            size = len(segment.types)
            has_child[i:i + size] = segment.has_child
            has_sibling[i:i + size] = segment.has_sibling
        has_sibling[i] = owner_id is not None and owner_id in later_owners
        later_owners.add(owner_id)
        if node.id in ancestor_ids:
            has_child[i] = has_child[i] or (value == EMPTY and _element_children(node))
            has_sibling[i] = has_sibling[i] or _has_element_sibling(node)
        elif not has_sibling[i] and owner_id in ancestor_ids:
            has_sibling[i] = _has_element_sibling(node)
        following = owner_id
    flat.has_child, flat.has_sibling = has_child, has_sibling


def flatten_after(target: tree_sitter.Node, limit: int, memo: SizedLRU | None = None) -> Flat:
    """Up to ``limit`` elements that follow ``target``'s subtree in the whole tree's sequence:
    the code after the predicted node, as training saw it after that node. Bits as in the whole
    tree's sequence, but near the cut at ``limit``, where a subtree walked only so far has them
    as if nothing followed; parent offsets are not kept (0). With a ``memo``, a subtree read by
    an earlier call (the same text, wherever it now starts) is copied rather than walked."""
    flat = Flat()
    node = target
    while node.parent is not None and len(flat) < limit:
        parent = node.parent
        in_string = parent.type in STRING_TYPES
        operators = frozenset(c.id for f in OPERATOR_FIELDS for c in parent.children_by_field_name(f))
        sibling = node.next_sibling
        while sibling is not None and len(flat) < limit:
            element = _element(sibling, in_string, sibling.id in operators)
            if element is not None:
                kind, value, descend = element
                if descend:
                    part = _subtree(sibling, limit - len(flat), memo)
                else:
                    part = Flat([kind], [value], [0], [0], [False], [False])
                flat.types.extend(part.types)
                flat.values.extend(part.values)
                flat.starts.extend(sibling.start_byte + offset for offset in part.starts)
                flat.has_child.extend(part.has_child)
                flat.has_sibling.append(_has_element_sibling(sibling))
                flat.has_sibling.extend(part.has_sibling[1:])
            sibling = sibling.next_sibling
        node = parent
    flat.parents = [0] * len(flat)
    return flat


def _subtree(node: tree_sitter.Node, limit: int, memo: SizedLRU | None) -> Flat:
    """``flatten(node, limit=limit)`` with starts from the node's start, through ``memo``."""
    key = None
    if memo is not None and node.end_byte - node.start_byte >= MEMO_BYTES:
        key = (node.type, node.descendant_count, _docstring_place(node), node.text)
    if key is not None:
        found = memo.get(key)
        if found is not None and (found[1] or len(found[0]) >= limit):
            part = found[0]
            return Flat(part.types[:limit], part.values[:limit], [], part.starts[:limit], part.has_child[:limit],
                        part.has_sibling[:limit])
    part = flatten(node, limit=limit)
    part.starts = [start - node.start_byte for start in part.starts]
    if key is not None:  # kept as tuples of plain values, as a Segment's: the collector stops tracking them once seen
        part = Flat(tuple(part.types), tuple(part.values), (), tuple(part.starts), tuple(part.has_child), tuple(part.has_sibling))
        memo.put(key, (part, len(part) < limit), len(part))
    return part


def parent_element(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The syntax node of ``node``'s parent element: its nearest ancestor that is an element
    (the syntax parent, except above the cursor, where error recovery may put non-elements)."""
    parent = node.parent
    while parent is not None and _element(parent, parent.parent is not None and parent.parent.type in STRING_TYPES, False) is None:
        parent = parent.parent
    return parent


def parent_annotated_type(parent: tree_sitter.Node) -> str:
    """The annotated type (``type|bits``) of ``parent`` as a parent element, read from the tree:
    for an element whose parent lies before a flattened tail. It has a child by definition."""
    return f"{parent.type}|1{int(_has_element_sibling(parent))}"


def previous_elements(node: tree_sitter.Node, limit: int) -> list[tree_sitter.Node]:
    """Up to ``limit`` element siblings before ``node``, nearest first (an element's parent
    element is its syntax parent: ``flatten`` descends through elements only)."""
    parent = node.parent
    if parent is None:
        return []
    in_string = parent.type in STRING_TYPES
    operators = frozenset(c.id for f in OPERATOR_FIELDS for c in parent.children_by_field_name(f))
    found: list[tree_sitter.Node] = []
    sibling = node.prev_sibling
    while sibling is not None and len(found) < limit:
        if _element(sibling, in_string, sibling.id in operators) is not None:
            found.append(sibling)
        sibling = sibling.prev_sibling
    return found


def _element_children(node: tree_sitter.Node, after: tree_sitter.Node | None = None) -> bool:
    """Whether ``node`` has a child element (after the child ``after``, if given)."""
    cursor = node.walk()
    found = cursor.goto_first_child() if after is None else cursor.goto_first_child_for_byte(after.start_byte) is not None
    if not found:
        return False
    in_string = node.type in STRING_TYPES
    if after is not None:
        while cursor.node != after:
            if not cursor.goto_next_sibling():
                return False
        if not cursor.goto_next_sibling():
            return False
    while True:
        if _element(cursor.node, in_string, cursor.field_name in OPERATOR_FIELDS) is not None:
            return True
        if not cursor.goto_next_sibling():
            return False


def _has_element_sibling(node: tree_sitter.Node) -> bool:
    parent = node.parent
    return parent is not None and _element_children(parent, after=node)


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
