"""Types a TypeScript file writes: the type written for a receiver (``user: User`` … ``user.``)
and the members of the interfaces, object type aliases and classes a file declares at its top
level."""

from __future__ import annotations

import re

import tree_sitter

from . import narrowing
from .context import CompletionContext
from .languages import FUNCTIONS
from .literals import whole
from .python_types import last_match
from .receivers import TYPED, OwnClass, Target, chain, read_class
from .words import alone, node_text

TYPE_READ = 16 * 1024  # a name's annotation is looked for this far back


def declared_type_name(context: CompletionContext) -> str | None:
    """The type written for the receiver, a single name, in the TYPE_READ bytes before the
    cursor: in TypeScript its annotation (``user: User`` … ``user.``: ``User``; ``names:
    string[]``: ``Array``; ``User | null``, ``Readonly<User>``: ``User``), a class's field for
    ``this.user`` (``private user?: User``, a constructor's ``private readonly user: User``), in
    JavaScript its JSDoc (``@param {Map<K, V>} m``, ``/** @type {string[]} */ const names``); an
    element of an array whose element type is written (``users[0].``, ``u = users.find(f)``). A
    member's type (``b.label.``) is type_paths.py's."""
    typed = context.language.name in TYPED
    indexed = _INDEXED.fullmatch(context.receiver or "")
    if indexed is not None and context.tree is not None and context.language.name in ("javascript", *TYPED):
        name = re.escape(indexed.group(1).encode())  # `users[0].` of `users: User[]`
        return _array_element(context, name, max(0, context.prefix_start - TYPE_READ), context.prefix_start)
    names = chain(context.receiver) if context.tree is not None and (typed or context.language.name == "javascript") else None
    field = typed and names is not None and len(names) == 2 and names[0] == "this"
    if not names or len(names) != 1 and not field:
        return None
    name = re.escape(names[-1].encode())
    lo = max(0, context.prefix_start - TYPE_READ)
    if typed:
        annotation = re.compile((_FIELD + name if field else alone(name)) + rb"\s*[?!]?\s*:\s*" + TS_TYPE + rb"\s*(?=[,)=;\n<{]|$)")
        found = last_match(annotation, context.data, lo, context.prefix_start)
        for other in (_element_type(context, name, lo), _narrowed(context, name, lo), _taken(context, name, lo)) if not field else ():
            if other is not None and (found is None or other[0] > found.start()):
                return other[1]  # `for (const s of shapes)`, `shapes.map((s) => s.`: the array's element type; `instanceof`
        if found is None or not (_in_class(context, found.end() - 1) if field else _in_scope(context, found.start())):
            return None
        return "Array" if found.group(2) else found.group(1).decode()
    documented = re.compile(rb"@param\s*\{([^{}\n]+)\}\s*\[?" + name + rb"(?![\w$])|@type\s*\{([^{}\n]+)\}\s*\*/\s*(?:const|let|var)\s+" + name + rb"(?![\w$])")
    found = last_match(documented, context.data, lo, context.prefix_start)
    for other in (_element_type(context, name, lo), _narrowed(context, name, lo), _taken(context, name, lo)):
        if other is not None and (found is None or other[0] > found.start()):
            return other[1]  # `for (const s of shapes)` of `/** @type {Shape[]} */ const shapes`; `if (e instanceof E) {`
    if found is None or not _in_scope(context, found.end() - 1 if found.group(2) else found.start(), documents=found.group(1) is not None):
        return None
    return jsdoc_type((found.group(1) or found.group(2)).decode("utf-8", "replace"))


# what takes an element of an array: its call's or its index's opening bracket last
_TAKEN = rb"\s*(?::[^=\n]*)?=\s*([A-Za-z_$][\w$]*)\s*(?:\??\.\s*(?:find|findLast|at|pop|shift)\s*\(|\[)"
_INDEXED = re.compile(r"([A-Za-z_$][\w$]*)\s*\[[^\[\]]*\]")  # an array's element: `users[0]`
_ITERATED = (rb"for\s*\(\s*(?:const|let|var)\s+{name}\s+of\s+([A-Za-z_$][\w$.]*)\s*\)",  # the iterable: group 1
             rb"\.\s*(?:forEach|map|filter|find|findLast|findIndex|some|every|flatMap)\s*\(\s*"  # the iterable: before it
             rb"(?:async\s*)?(?:\(\s*{name}\s*[,):]|{name}\s*=>)")
_RECEIVER_BEFORE = re.compile(rb"([A-Za-z_$][\w$]*)\s*\Z")  # the last name of what a method is called on


def _element_type(context: CompletionContext, name: bytes, lo: int) -> tuple[int, str] | None:
    """Where a loop or an array method's callback binds ``name`` (a pattern escaped) to an
    element of an array whose type is written (``shapes: Shape[]``, ``items: Array<Item>``,
    ``this.items`` of a field ``items: readonly Item[]``, JSDoc's ``@type {Shape[]}``) or that a
    literal of constructions makes (``[new Shape()]``): the binding's offset and the element
    type; None where none does."""
    found = None  # (start, end, the iterable's last name)
    for number, form in enumerate(_ITERATED):  # each starts with a literal: scanned fast
        match = last_match(re.compile(form.replace(b"{name}", name)), context.data, lo, context.prefix_start)
        if match is None or found is not None and match.start() <= found[0]:
            continue
        if number == 0:
            found = (match.start(), match.end(), match.group(1).rsplit(b".", 1)[-1])
        elif (called := _RECEIVER_BEFORE.search(context.data, max(lo, match.start() - 256), match.start())) is not None:
            found = (called.start(), match.end(), called.group(1))
    if found is None or not _binding_open(context, found[1] - 1):
        return None
    element = _array_element(context, re.escape(found[2]), lo, found[0])
    return (found[0], element) if element is not None else None


def _taken(context: CompletionContext, name: bytes, lo: int) -> tuple[int, str] | None:
    """Where ``name`` (escaped) was last given an element of an array whose element type is
    written (``const u = users.find((x) => …)``, ``users[0]``, ``users.at(-1)``, ``.pop()``,
    ``.shift()``, ``.findLast(…)`` of ``users: User[]``), and that type."""
    taken = last_match(re.compile(alone(name) + _TAKEN), context.data, lo, context.prefix_start)
    if taken is None or not whole(context.data, taken.end() - 1):
        return None  # not `users.find(f).name`
    element = _array_element(context, re.escape(taken.group(1)), lo, taken.start())
    return (taken.start(), element) if element is not None else None


def _array_element(context: CompletionContext, iterable: bytes, lo: int, hi: int) -> str | None:
    """The element type of the array (or set) ``iterable`` (a name, escaped) as the bytes
    [lo, hi) last write it: its annotation (``shapes: Shape[]``, ``Array<Shape>``), JSDoc's
    ``@type {Shape[]}`` or ``@param``, or a literal of constructions (``[new Shape()]``)."""
    element = rb"(?:([A-Za-z_$][\w$]*)\s*\[\s*\]|(?:Array|ReadonlyArray|Set|ReadonlySet)\s*<\s*([A-Za-z_$][\w$]*)\s*>)"
    typed = re.compile(alone(iterable, rb"[\w$]") + rb"\s*\??\s*:\s*(?:readonly\s+)?" + element  # `shapes: Shape[]`
                       + rb"|@type\s*\{\s*" + element + rb"\s*\}\s*\*/\s*(?:const|let|var)\s+" + iterable + rb"(?![\w$])"  # JSDoc's
                       + rb"|@param\s*\{\s*" + element + rb"\s*\}\s*\[?" + iterable + rb"(?![\w$])"
                       + rb"|(?<![\w$.])" + iterable + rb"\s*=\s*\[\s*new\s+([A-Za-z_$][\w$]*)\s*\(")  # `[new Shape(...)]`
    written = last_match(typed, context.data, lo, hi)
    return next(g for g in written.groups() if g is not None).decode() if written is not None else None


def _narrowed(context: CompletionContext, name: bytes, lo: int) -> tuple[int, str] | None:
    """Where the last ``name instanceof C`` before the cursor that narrows the name there is
    (narrowing.holds: the block the test guards, below ``if (!(x instanceof C)) return``), and
    C; None where none is."""
    pattern = re.compile(alone(name) + rb"\s+instanceof\s+([A-Za-z_$][\w$]*)")
    for match in reversed(list(pattern.finditer(context.data, lo, context.prefix_start))):
        if narrowing.holds(context.tree, context.data, match.start(), match.end(), context.prefix_start):
            return match.start(), match.group(1).decode()
    return None


def _binding_open(context: CompletionContext, offset: int) -> bool:
    """Whether the loop or callback that binds a name at ``offset`` holds the cursor: it ends at
    it or after it, or the tree is broken there (the callback being written)."""
    node = context.tree.root_node.descendant_for_byte_range(offset, offset + 1) if context.tree is not None else None
    while node is not None and node.type not in ("for_in_statement", "arrow_function", "function_expression", "function"):
        node = node.parent
    if node is None:
        return _open(context.data, offset, context.prefix_start)
    return node.end_byte >= context.prefix_start or node.has_error


# A TypeScript annotation's type: its name (group 1) and array brackets (group 2), through a
# union with null or undefined and a wrapper that keeps the members (``Readonly<User>``)
TS_TYPE = (rb"(?:readonly\s+)?(?:(?:null|undefined)\s*\|\s*)*(?:(?:Readonly|Partial|Required|NonNullable)\s*<\s*)?"
            rb"([A-Za-z_$][\w$]*)((?:\s*\[\s*\])*)(?:\s*>)?(?:\s*\|\s*(?:null|undefined))*")
# where a class declares a field: a line of its body, or a constructor's parameter property
_FIELD = (rb"(?:(?:^|\n)[ \t]*(?:(?:private|public|protected|readonly|declare|static|override)\s+)*"
          rb"|(?:private|public|protected|readonly)\s+(?:readonly\s+)?)")


def _in_class(context: CompletionContext, offset: int) -> bool:
    """Whether the class body around ``offset`` (a field's declaration) holds the cursor, or the
    tree is broken around both (the class being written)."""
    node = context.tree.root_node.descendant_for_byte_range(offset, offset + 1)
    while node is not None and node.type not in ("class_body", "ERROR"):
        node = node.parent
    return node is not None and node.start_byte <= context.prefix_start <= node.end_byte


_SCOPES = (*FUNCTIONS["javascript"], "class_body", "program")


def _in_scope(context: CompletionContext, offset: int, documents: bool = False) -> bool:
    """Whether what is declared at ``offset`` is seen at the cursor: the function (or class body,
    or file) around it holds the cursor; ``documents``: ``offset`` is in a JSDoc comment, whose
    function, the declaration after it, holds the cursor."""
    node = context.tree.root_node.descendant_for_byte_range(offset, offset + 1)
    if documents:
        while node is not None and node.type != "comment":
            node = node.parent
        node = node.next_named_sibling if node is not None else None
        if node is not None and node.type in ("export_statement", "lexical_declaration", "variable_declaration", "expression_statement"):
            node = next((d for d in _descendants(node, 3) if d.type in _SCOPES), None)
        if node is None or node.type not in _SCOPES:  # the tree broken at the cursor: the braces say
            return _open(context.data, context.data.find(b"*/", offset, context.prefix_start) + 2, context.prefix_start)
    else:
        while node is not None and node.type not in _SCOPES:
            node = node.parent
    return node is not None and node.start_byte <= context.prefix_start <= node.end_byte


def _open(data: bytes, start: int, cursor: int) -> bool:
    """Whether the function written after ``start`` is still open at ``cursor``: its body's
    brace not closed (strings and comments not told apart), or a body with no brace and no
    ``;`` before the cursor (``(s) => s.``)."""
    brace = data.find(b"{", start, cursor)
    if brace < 0:
        return b";" not in data[start:cursor]
    depth = 0
    for byte in data[brace:cursor]:
        depth += 1 if byte == 0x7B else -1 if byte == 0x7D else 0
        if depth == 0:
            return False
    return True


def _descendants(node: tree_sitter.Node, depth: int):
    """``node``'s named descendants, ``depth`` levels down, breadth first."""
    level = [node]
    for _ in range(depth):
        level = [c for n in level for c in n.named_children]
        yield from level


_JSDOC_IMPORT = re.compile(rb"@import\s*\{([^{}]*)\}\s*from\s*['\"]([^'\"]+)['\"]")
_IMPORT_TYPE = re.compile(rb"\bimport\(\s*['\"]([^'\"]+)['\"]\s*\)\.([A-Za-z_$][\w$]*)")


def jsdoc_imports(data: bytes) -> dict[str, Target]:
    """The types JSDoc comments import (``/** @import { Effect, Batch as B } from './types' */``,
    ``import('./batch.js').Batch``), by the name ``@param``/``@type`` use."""
    out: dict[str, Target] = {}
    for match in _JSDOC_IMPORT.finditer(data):
        for part in match.group(1).decode("utf-8", "replace").split(","):
            name, _, alias = part.strip().partition(" as ")
            if name.strip().replace("$", "_").isidentifier():
                out[(alias or name).strip()] = Target(match.group(2).decode("utf-8", "replace"), (name.strip(),))
    for match in _IMPORT_TYPE.finditer(data):
        out.setdefault(match.group(2).decode(), Target(match.group(1).decode("utf-8", "replace"), (match.group(2).decode(),)))
    return out


def jsdoc_type(written: str) -> str | None:
    """The class a JSDoc type names, a single one (``?string`` -> string, ``Map<K, V>`` -> Map,
    ``string[]`` and ``Array<T>`` -> Array, ``Foo | null`` -> Foo); None for others (``string |
    number``, ``{ a: 1 }``, ``function(…)``, ``*``)."""
    kinds = set()
    for part in written.split("|"):
        part = re.sub(r"^import\(\s*['\"][^'\"]+['\"]\s*\)\.", "", part.strip().strip("?!=()").strip())  # `import('./b.js').Batch`
        if part in ("null", "undefined", "void"):
            continue
        if part.endswith("[]"):
            part = "Array"
        match = re.fullmatch(r"([A-Za-z_$][\w$]*)(?:\.?<.*>)?", part)
        if match is None:
            return None
        kinds.add(match.group(1))
    return kinds.pop() if len(kinds) == 1 else None


def type_members(root: tree_sitter.Node, data: bytes, wanted: str) -> OwnClass | None:
    """The members of the interface, object type alias or class that a file (its tree's
    ``root``) declares at its top level by the name ``wanted``. Not complete where it extends
    another or has an index signature."""
    for child in root.named_children:
        node = child.child_by_field_name("declaration") if child.type == "export_statement" else child
        if node is not None and node_text(node.child_by_field_name("name")) == wanted and (found := _type_of(node, data)):
            return found
    return None


def all_types(root: tree_sitter.Node, data: bytes) -> dict[str, OwnClass]:
    """type_members of every type a file declares at its top level, by name (the first of a name)."""
    found: dict[str, OwnClass] = {}
    for child in root.named_children:
        node = child.child_by_field_name("declaration") if child.type == "export_statement" else child
        name = node_text(node.child_by_field_name("name")) if node is not None else ""
        if name and name not in found and (own := _type_of(node, data)) is not None:
            found[name] = own
    return found


def _type_of(node: tree_sitter.Node, data: bytes) -> OwnClass | None:
    if node.type in ("class_declaration", "abstract_class_declaration"):
        own = read_class(node, data, "javascript", "")
        own.dynamic = own.dynamic or any(c.type == "class_heritage" for c in node.named_children)
        return own
    body = node.child_by_field_name("body") if node.type == "interface_declaration" else \
        node.child_by_field_name("value") if node.type == "type_alias_declaration" else None
    if body is None or body.type not in ("interface_body", "object_type"):
        return None
    own = OwnClass(node_text(node.child_by_field_name("name")))
    for member in body.named_children:
        if member.type in ("property_signature", "method_signature"):
            written = member.child_by_field_name("type")  # `allocate: (size: number) => Uint8Array` is called as a method
            called = written is not None and any(c.type == "function_type" for c in written.named_children)
            own.members.setdefault(node_text(member.child_by_field_name("name")),
                                   "method" if member.type == "method_signature" or called else "attribute")
        elif member.type == "index_signature":
            own.dynamic = True  # any key is a member
    own.dynamic = own.dynamic or any(c.type == "extends_type_clause" for c in node.named_children)
    return own
