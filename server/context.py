"""The completion context at a cursor: what the user typed and where in the tree they are.

Code being typed is incomplete: ``os.`` at the end of a buffer parses as an ERROR node. So the
context is read from a copy of the tree in which the typed prefix is replaced by a placeholder
identifier, re-parsed incrementally from the document's tree: around the cursor the tree then
has the shape the finished code will have (``os.<placeholder>`` is an attribute), and the
placeholder node is the node being predicted.

Knows nothing of LSP or of engines.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import tree_sitter

from .document import Document
from .languages import BLOCKS, LanguageSpec, operator_regex
from .models.flatten import flatten_before
from .positions import decode

PLACEHOLDER = b"__tc_cursor__"

# Where the cursor is, as far as completion cares.
ATTRIBUTE = "attribute"  # after `obj.`: a member name
NAME = "name"  # any other identifier position
COMMENT = "comment"
STRING = "string"
NUMBER = "number"  # after `3.`: no identifier can follow

COMMENT_TYPES = frozenset({"comment", "line_comment", "block_comment", "html_comment"})
STRING_TYPES = frozenset(
    {"string", "string_content", "string_fragment", "template_string", "escape_sequence", "regex",
     "regex_pattern", "jsx_text"}
)
ATTRIBUTE_PARENTS = {"attribute": "attribute", "member_expression": "property"}


@dataclass(frozen=True)
class CompletionContext:
    language: LanguageSpec
    uri: str
    data: bytes  # the document's text (UTF-8)
    cursor: int  # byte offset of the cursor
    prefix: str  # identifier characters typed before the cursor
    prefix_start: int  # byte offset where the prefix starts
    category: str  # ATTRIBUTE, NAME, COMMENT or STRING
    path: tuple[str, ...]  # node types from the root down to the predicted node
    receiver: str | None = None  # for ATTRIBUTE: the text of the object before the dot
    target: tree_sitter.Node | None = field(default=None, repr=False, compare=False)
    tree: tree_sitter.Tree | None = field(default=None, repr=False, compare=False)  # the document's

    def preceding_nodes(self, limit: int = 1000) -> list[tuple[str, str]]:
        """The last ``limit`` elements before the predicted node as (type, value), by the
        flattening rules training uses (``models.flatten``). Costs O(limit), whatever the
        file size."""
        if self.target is None:
            return []
        flat, _ = flatten_before(self.target, limit)
        return list(zip(flat.types, flat.values))


def context_at(doc: Document, offset: int) -> CompletionContext | None:
    """The context at a byte offset of a document, or None when the document has no tree."""
    tree = doc.tree
    language = doc.language
    if tree is None or language is None:
        return None
    data = doc.data
    line_start = data.rfind(b"\n", 0, offset) + 1
    line_start = max(line_start, data.rfind(b"\r", 0, offset) + 1)
    prefix = language.typed_prefix(decode(data[line_start:offset]))
    prefix_start = offset - len(prefix.encode("utf-8", "surrogatepass"))

    probe, probe_tree = doc.probe(prefix_start, offset, PLACEHOLDER)
    target = probe_tree.root_node.named_descendant_for_byte_range(
        prefix_start, prefix_start + len(PLACEHOLDER)
    )

    path: list[str] = []
    node = target
    while node is not None:
        path.append(node.type)
        node = node.parent
    path.reverse()

    category, receiver = _category(target, probe, prefix_start, language)
    if category in (NAME, ATTRIBUTE):
        # An unterminated string or a comment on the cursor's line can fool error recovery.
        opened = _template_at(tree, line_start) if "`" in language.quotes and language.regex_literals else None
        # A grammar served alone: the tree is trusted where it recovered from no error around the
        # cursor (`#` in a Ruby regex or a Bash expansion opens no comment), and where the line
        # starts inside a string opened on a line before.
        if not language.grammar_only or ("ERROR" in path and not _quoted_at(tree, line_start, language)):
            category = _lexical_category(decode(data[line_start:prefix_start]), language, opened) or category
    return CompletionContext(
        language=language,
        uri=doc.uri,
        data=data,
        cursor=offset,
        prefix=prefix,
        prefix_start=prefix_start,
        category=category,
        path=tuple(path),
        receiver=receiver,
        target=target,
        tree=tree,
    )


def statement_at(context: CompletionContext) -> tree_sitter.Node | None:
    """The statement that starts where the cursor's identifier starts, if one does."""
    blocks = BLOCKS.get(context.language.name, ())
    node = context.target
    found = None
    while node is not None and node.start_byte == context.target.start_byte:
        if node.parent is not None and node.parent.type in blocks:
            found = node
        node = node.parent
    return found


ASSIGNMENTS = {"assignment": "left", "augmented_assignment": "left", "assignment_expression": "left"}


def assigned_at(context: CompletionContext) -> bool:
    """Whether the cursor's identifier is the whole target of an assignment (``| = sum(items)``)."""
    target, parent = context.target, context.target.parent if context.target is not None else None
    if parent is None or parent.type not in ASSIGNMENTS:
        return False
    left = parent.child_by_field_name(ASSIGNMENTS[parent.type])
    return left is not None and left.start_byte == target.start_byte and left.end_byte == target.end_byte


ALIASES = frozenset({"aliased_import", "import_specifier", "namespace_import"})  # `import a as |`, `{ a as | }`, `* as |`


def aliased_at(context: CompletionContext) -> bool:
    """Whether the cursor's identifier is the name an import binds with ``as`` (``import numpy as
    |``, ``from m import a as |``, ``import { a as | }``, ``import * as |``)."""
    target, parent = context.target, context.target.parent if context.target is not None else None
    if parent is None or parent.type not in ALIASES:
        return False
    alias = parent.child_by_field_name("alias") if parent.type != "namespace_import" else parent.named_children[-1]
    return alias is not None and alias.start_byte == target.start_byte


def member_access(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The `obj.name` node of which ``node`` is the name, if it is one."""
    parent = node.parent
    field_name = ATTRIBUTE_PARENTS.get(parent.type) if parent is not None else None
    member = parent.child_by_field_name(field_name) if field_name else None
    return parent if member is not None and member.start_byte == node.start_byte else None


def _category(target: tree_sitter.Node | None, probe: bytes, start: int, language: LanguageSpec) -> tuple[str, str | None]:
    if target is None:
        return NAME, None
    if target.type in COMMENT_TYPES or target.type in language.comment_types:
        return COMMENT, None
    if target.type in STRING_TYPES or target.type in language.string_types:
        return STRING, None
    member_of = member_access(target)
    if member_of is not None:
        obj = member_of.child_by_field_name("object")
        return ATTRIBUTE, decode(obj.text) if obj is not None and obj.text else None
    # Error recovery does not always build the attribute node, and a grammar served from its
    # wheel alone names it as it likes (`selector_expression`, `field_access`): read the text.
    before = probe[max(0, start - 256) : start].rstrip(b" \t")
    if before.endswith(b".") and not before.endswith(b".."):
        if re.search(rb"(?<![\w$])\d[\w.]*\Z", before):
            return NUMBER, None
        return ATTRIBUTE, _receiver_text(before[:-1], language) if language.grammar_only else None
    for operator in language.member_operators:
        if operator != "." and before.endswith(operator.encode()):
            return ATTRIBUTE, _receiver_text(before[:-len(operator)], language)
    return NAME, None


def _receiver_text(before: bytes, language: LanguageSpec) -> str | None:
    """The receiver that ends where ``before`` does, as far as it is a chain of names joined by
    the language's member operators (``a.b``, ``self->next``, ``std::fs``); None where it ends in
    a call or an index."""
    match = _receiver_pattern(language.member_operators).search(before)
    return decode(match.group(0).strip()) if match else None


@functools.cache
def _receiver_pattern(operators: tuple[str, ...]) -> re.Pattern[bytes]:
    return re.compile(rb"[\w$]+(?:\s*" + operator_regex(operators) + rb"\s*[\w$]+)*\s*\Z")


# What may stand before a JavaScript regular expression literal (elsewhere a `/` divides).
_BEFORE_REGEX = frozenset("(,=:[!&|?{};+-*%<>~^")


def _regex_starts(line: str, i: int) -> bool:
    """Whether the `/` at ``i`` starts a regular expression literal (not a comment, not a division)."""
    if line.startswith(("//", "/*"), i):
        return False
    j = i - 1
    while j >= 0 and line[j] in " \t":
        j -= 1
    return j < 0 or line[j] in _BEFORE_REGEX or _KEYWORD_BEFORE.search(line, max(0, j - 6), j + 1) is not None


# `return` or `typeof` ending where it is searched to, a word of its own; searched from 7
# characters back, not from the line's start (a minified line is one line of the whole file).
_KEYWORD_BEFORE = re.compile(r"(?<![\w$])(?:return|typeof)\Z")


def _regex_end(line: str, i: int) -> int:
    """Where the regular expression literal starting at ``i`` ends (past its flags), or the
    line's end."""
    i += 1
    in_class = False
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 1
        elif ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        elif ch == "/" and not in_class:
            i += 1
            while i < len(line) and line[i].isalpha():
                i += 1
            return i
        i += 1
    return i


def _template_at(tree: tree_sitter.Tree, offset: int) -> int | None:
    """Where a JavaScript line starting at ``offset`` starts inside a template string that an
    earlier line opened: 0 in its text, 1 in a ``${...}`` of it; None outside any."""
    node = tree.root_node.descendant_for_byte_range(offset, offset)
    while node is not None:
        if node.start_byte < offset:
            if node.type == "template_substitution":
                return 1
            if node.type in ("template_string", "string_fragment"):  # a fragment across lines: a template's,
                return 0  # though an unclosed one parses as an error
        node = node.parent
    return None


def _quoted_at(tree: tree_sitter.Tree, offset: int, language: LanguageSpec) -> bool:
    """Whether ``offset`` lies inside a string or comment that starts before it (on an earlier line)."""
    node = tree.root_node.descendant_for_byte_range(offset, offset)
    quoted = language.string_types | language.comment_types
    while node is not None:
        if node.type in quoted and node.start_byte < offset < node.end_byte:
            return True
        node = node.parent
    return False


@functools.cache
def _stops(comments: tuple[str, ...], quotes: str, regex_literals: bool) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Where _lexical_category acts: in code, a character that may start a comment, a string or
    a regular expression; in a string, a backslash, a quote or a brace."""
    code = {c[0] for c in comments if c} | set(quotes) | ({"/"} if regex_literals else set())
    return (re.compile("[" + "".join(map(re.escape, sorted(code))) + "]" if code else "(?!)"),
            re.compile("[" + "".join(map(re.escape, sorted(set(quotes) | set("`\\{}")))) + "]"))  # ` opens a template


_FSTRING_PREFIX = re.compile(r"(?<!\w)[rRbB]?[fF][rR]?\Z")  # before a quote: an f-string's (at most 3 characters)


def _lexical_category(line: str, language: LanguageSpec, template: int | None = None) -> str | None:
    """COMMENT or STRING when the cursor's line, read left to right, leaves one open; ``template``:
    whether the line starts inside a template string (_template_at)."""
    python = language.name == "python"
    comments, quotes = language.line_comments, language.quotes
    # a grammar served alone: `"$a"`, `"${a}"`, `"#{a}"` (Bash, PHP, Kotlin, Ruby, C#) are code in a string
    interpolates = language.grammar_only
    quote: str | None = None if template is None else "`"
    fstring = template is not None
    fstring_depth = template or 0  # open `{` inside a Python f-string or `${` inside a template string: code again
    code_stops, quoted_stops = _stops(comments, quotes, language.regex_literals)
    i = 0
    while i < len(line):
        # to the next character that can change what is open (a minified line is the whole file)
        found = (code_stops if quote is None else quoted_stops).search(line, i)
        if found is None:
            break
        i = found.start()
        ch = line[i]
        if quote is None:
            if line.startswith(comments, i) and not (interpolates and ch == "#" and line[i - 1:i] in ("$", "{")):  # `$#`
                return COMMENT
            if ch == "/" and language.regex_literals and _regex_starts(line, i):
                i = _regex_end(line, i)  # a regular expression's quotes and slashes open nothing
                continue
            if ch in quotes:
                quote = ch
                fstring_depth = 0
                fstring = (ch == "`" and language.regex_literals) or (ch == '"' and interpolates) \
                    or bool(python and _FSTRING_PREFIX.search(line, max(0, i - 4), i))
        elif ch == "\\":
            i += 1
        elif fstring and ch == "{" and (python or fstring_depth or line[i - 1] == "$"
                                        or (interpolates and (line[i - 1] == "#" or line.rfind("$", 0, i) >= 0))):
            fstring_depth += 1
        elif fstring and ch == "}" and fstring_depth:
            fstring_depth -= 1
        elif ch == quote and not fstring_depth:
            quote = None
        i += 1
    if quote == '"' and interpolates and line.endswith("$"):
        return None
    return STRING if quote is not None and not fstring_depth else None
