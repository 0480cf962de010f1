"""TypeScript read as JavaScript: the types blanked out, every other byte in place.

TypeScript is JavaScript with types. Replacing the type-only syntax with spaces (type
annotations, type arguments and parameters, interfaces and type aliases, ``as`` / ``satisfies``
and their types, ``!``, modifiers such as ``private`` and ``readonly``, overload signatures...)
leaves JavaScript whose every byte, and so every offset and line, is where it was: the
JavaScript grammar parses it, the model reads it as it read its training code (TypeScript
blanked the same way, typescript-pointer-lstm; or JavaScript), and what it offers lands at the
same place in the TypeScript buffer. Which nodes are blanked is data
(the queries below, over the TypeScript grammar's node types); tests/test_erasure.py checks that
every TypeScript-only named node type is either blanked, inside something blanked, or read as
JavaScript.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import replace

import tree_sitter

from .context import PLACEHOLDER, CompletionContext
from .document import edit_tree, ts_point
from .languages import JAVASCRIPT, LanguageSpec, by_name

# TypeScript documents, by language name: the grammar whose node types their models read
MODELED_AS = {"typescript": "javascript", "typescriptreact": "javascript"}

# Whole nodes blanked (when one is an export's declaration, the export too).
ERASED = ("type_annotation", "type_arguments", "type_parameters", "interface_declaration", "type_alias_declaration",
          "implements_clause", "accessibility_modifier", "override_modifier", "function_signature",
          "abstract_method_signature", "index_signature", "ambient_declaration", "asserts_annotation",
          "type_predicate_annotation", "opting_type_annotation", "omitting_type_annotation", "adding_type_annotation",
          "enum_declaration", "import_alias", "method_signature")
# Keywords and marks blanked inside these nodes: (node type, token).
TOKENS = (("optional_parameter", "?"), ("public_field_definition", "?"), ("public_field_definition", "!"),
          ("method_definition", "?"), ("public_field_definition", "readonly"), ("public_field_definition", "declare"),
          ("public_field_definition", "abstract"), ("method_definition", "abstract"),
          ("abstract_class_declaration", "abstract"), ("required_parameter", "readonly"),
          ("optional_parameter", "readonly"), ("import_specifier", "type"), ("export_specifier", "type"),
          ("variable_declarator", "!"))
# From the keyword to the node's end: ``x as T``, ``x satisfies T``.
TAILS = ("as_expression", "satisfies_expression")
# The node's last byte: ``x!``.
MARKS = ("non_null_expression",)
# Statements that are types only when they hold this keyword: ``import type {...}``.
TYPE_ONLY = ("import_statement", "export_statement")
# A function's declared ``this`` (``function f(this: Foo, a)``), blanked with the comma after it.
THIS_PARAMETER = "(required_parameter (this)) @this_parameter"
# TypeScript-only node types read as JavaScript once the above is blanked: their children are
# JavaScript (an optional parameter is its pattern, an abstract class a class, a field a field).
READ_AS = {"required_parameter": "identifier or pattern", "optional_parameter": "identifier or pattern",
           "abstract_class_declaration": "class_declaration", "public_field_definition": "field_definition",
           "as_expression": "its expression", "satisfies_expression": "its expression",
           "non_null_expression": "its expression", "instantiation_expression": "its expression",
           "type_assertion": "its expression", "extends_clause": "class_heritage's value",
           "internal_module": "statement block (error recovery)", "module": "statement block (error recovery)",
           "nested_identifier": "member expression (error recovery)"}

# TypeScript-only node types found only inside what is blanked (types, signatures, declarations
# of types): never read.
INSIDE_ERASED = frozenset({
    "array_type", "asserts", "call_signature", "conditional_type", "constraint", "construct_signature",
    "constructor_type", "default_type", "enum_assignment", "enum_body", "existential_type", "extends_type_clause",
    "flow_maybe_type", "function_type", "generic_type", "implements_clause", "import_require_clause",
    "index_type_query", "infer_type", "interface_body", "intersection_type", "literal_type", "lookup_type",
    "mapped_type_clause", "nested_type_identifier", "object_type", "optional_type",
    "parenthesized_type", "predefined_type", "property_signature", "readonly_type", "rest_type",
    "template_literal_type", "template_type", "this_type", "tuple_type", "type_identifier", "type_parameter",
    "type_predicate", "type_query", "union_type",
})

BLANK = bytes(b if b in (10, 13) else 32 for b in range(256))  # every byte but line breaks to a space

_local = threading.local()


def served_as(language: str) -> str:
    """The name under which ``language``'s documents find their model and ranking weights:
    TypeScript's and TSX's are TypeScript's. A TypeScript model reads them as JavaScript (its
    node types are JavaScript's); where none is named, JavaScript's model serves them
    (engines/registry.py) and ranking/ranker.py borrows JavaScript's weights where none are
    fitted."""
    return "typescript" if language in MODELED_AS else language


_QUERIES: dict[str, tree_sitter.Query] = {}  # by language: read by any thread (each query runs in its own cursor)
_COMPILING = threading.Lock()


def _queries(language: LanguageSpec) -> tree_sitter.Query:
    query = _QUERIES.get(language.name)
    if query is None:
        with _COMPILING:
            query = _QUERIES.get(language.name)
            if query is None:
                query = _QUERIES[language.name] = tree_sitter.Query(language.language, "\n".join(patterns(language)))
    return query


def prepare(language: str) -> None:
    """Compile the erasure query of ``language`` (a TypeScript one) now, while its model loads:
    TypeScript's takes ~100 ms, once, which the first completion in a TypeScript file paid."""
    spec = by_name(language) if language in MODELED_AS else None
    if spec is not None:
        _queries(spec)


def patterns(language: LanguageSpec) -> list[str]:
    """The query patterns of the tables above that ``language``'s grammar has (a grammar without
    a node type or token of a table leaves that entry out; tests/test_erasure.py checks the
    TypeScript grammars have them all)."""
    found = []
    candidates = [f"({kind}) @erase" for kind in ERASED]
    candidates += [f'({kind} "{token}" @erase)' for kind, token in TOKENS]
    candidates += [f"({kind}) @{kind}" for kind in (*TAILS, *MARKS, *TYPE_ONLY)] + [THIS_PARAMETER]
    for pattern in candidates:
        try:
            tree_sitter.Query(language.language, pattern)
        except (tree_sitter.QueryError, NameError, SyntaxError):
            continue
        found.append(pattern)
    return found


def erase(root: tree_sitter.Node, data: bytes, language: LanguageSpec) -> bytes:
    """``data`` (parsed as ``root`` by a TypeScript grammar) with its type-only syntax replaced
    by spaces; line breaks stay."""
    spans: list[tuple[int, int]] = []
    for name, nodes in tree_sitter.QueryCursor(_queries(language)).captures(root).items():
        for node in nodes:
            if name == "erase":
                parent = node.parent
                whole = parent is not None and parent.type == "export_statement" and node.type in ERASED \
                    and parent.child_by_field_name("declaration") == node
                spans.append((parent.start_byte, parent.end_byte) if whole else (node.start_byte, node.end_byte))
            elif name in TAILS and node.child_count > 2:
                spans.append((node.children[1].start_byte, node.end_byte))
            elif name in MARKS:
                spans.append((node.end_byte - 1, node.end_byte))
            elif name in TYPE_ONLY and any(child.type == "type" for child in node.children):
                spans.append((node.start_byte, node.end_byte))
            elif name == "this_parameter":
                comma = node.next_sibling
                spans.append((node.start_byte, comma.end_byte if comma is not None and comma.type == "," else node.end_byte))
    if not spans:
        return data
    out = bytearray(data)
    for start, end in spans:
        out[start:end] = data[start:end].translate(BLANK)
    return bytes(out)


def _parse(uri: str, data: bytes) -> tree_sitter.Tree:
    """``data`` parsed by the JavaScript grammar, incrementally from the last text parsed for
    the same document: between keystrokes the blanked text differs in a few bytes."""
    parser = _local.__dict__.get("parser")
    if parser is None:
        parser = _local.parser = JAVASCRIPT.parser()
    last = _local.__dict__.get("last")
    if last is None or last[0] != uri:
        tree = parser.parse(data)
    else:
        old, old_tree = last[1], last[2].copy()
        start = _common_prefix(old, data)
        same = _common_suffix(old, data, start)
        edit_tree(old_tree, start, ts_point(old, start), old[start:len(old) - same], data[start:len(data) - same])
        tree = parser.parse(data, old_tree)
    _local.last = (uri, data, tree)
    return tree


def _common_prefix(a: bytes, b: bytes) -> int:
    """The length of the longest common prefix, by halving (each test a memcmp)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """The length of the longest common suffix that leaves ``limit`` bytes of each before it."""
    lo, hi = 0, min(len(a), len(b)) - limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid:len(a) - lo] == b[len(b) - mid:len(b) - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def as_javascript(context: CompletionContext) -> CompletionContext | None:
    """The context a JavaScript model reads in a TypeScript buffer: the buffer with its types
    blanked, parsed by the JavaScript grammar with the placeholder at the cursor (offsets
    unchanged); None where the cursor is inside a type. Other contexts are returned as they are."""
    if context.language.name not in MODELED_AS or context.target is None:
        return context
    root = context.target
    while root.parent is not None:
        root = root.parent
    probe = context.data[:context.prefix_start] + PLACEHOLDER + context.data[context.cursor:]
    # typing an identifier leaves the probe as it was (the prefix is the placeholder's)
    key = (context.uri, context.prefix_start, hashlib.blake2b(probe, digest_size=16).digest())
    read = _local.__dict__.get("read")
    if read is None or read[0] != key:
        erased = erase(root, probe, context.language)
        read = _local.read = (key, erased, _parse(context.uri, erased))
    _, erased, tree = read
    end = context.prefix_start + len(PLACEHOLDER)
    if erased[context.prefix_start:end] != PLACEHOLDER:
        return None  # the cursor is in a type (``user: Us|``): nothing JavaScript to read
    target = tree.root_node.named_descendant_for_byte_range(context.prefix_start, end)
    data = erased[:context.prefix_start] + context.data[context.prefix_start:context.cursor] + erased[end:]
    return replace(context, language=JAVASCRIPT, data=data, target=target, tree=tree)
