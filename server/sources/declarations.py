"""Declaration positions: where the identifier at the cursor is the name a statement declares
(``def |``, ``class |``, ``const |``, ``function |``), or a parameter a function declares
(``def f(self, |``, ``function (a, |``).

There the name is usually new to the buffer, so the engines treat the position apart: a name
the same block declares already before the cursor is not offered again (``const`` twice is an
error in JavaScript, a second ``def`` of a method replaces the first in Python); names that other
files of the project define at their top level are candidates (bootstrap's plugins each declare
``const NAME``, ``DefaultType``...); neither keywords nor snippets nor multi-token chains are
offered there. (Weights of the ranker's own for the position, fitted on 1,960 such lists of
valid-split packages, did no better in cross-validation than those of other names.)

Read from the text with regular expressions, as unfinished code parses as an error: the line
before the cursor says whether it is a declaration, and the block's earlier statements what it
declares already (Python by indentation, JavaScript by braces, over at most READ bytes).

A member's name in a JavaScript class body or object literal (``  |``, ``  static |``,
``  get |``) is a declaration too. What each position has declared already, and what it
still needs, is sources/declaring.py's.

At a parameter's name, the parameters listed before it are not offered again (a parameter named
twice is a syntax error in both languages), nor keywords, snippets or chains; the rest is ranked
as any name, but for the next parameter that the function's doc comment names (JSDoc's
``@param``), first in both engines. A parameter list is the innermost bracket still open before
the cursor, a ``(`` after ``def name``, ``function name`` (TypeScript's ``function f<T>``) or a
method's name in a JavaScript class body or object literal (TypeScript's with its modifiers and
type parameters: ``protected run<T>(``), or a call's first argument that opens with ``(`` (an
arrow function's: ``items.map((``), with the cursor where a parameter starts: after the ``(``
or a comma (or TypeScript's ``private``, ``readonly``...), not in a default value or an
annotation. Where the text does not say (an arrow function's parameters,
a method of a class whose ``{`` is further back than the text read), the syntax tree at the
cursor does when the code after it is written: the ``(`` opens a formal parameter list there
(the engines read it from the tree with a placeholder identifier at the cursor).
"""

from __future__ import annotations

import re

import tree_sitter

from ..context import NAME, CompletionContext
from ..receivers import TYPED

# A `const` or `let` declaration's value on its line, before any function, class or brace in it,
# or begun on the next line after a bare `=`; ending at the cursor (``\Z``: ``$`` would match
# before a newline there too, taking `const x = 1` above as the line at the cursor).
INITIALISED = {"javascript": re.compile(rb"(?:^|[^\w$.])(?:const|let|var(?=[ \t]+[\w$]+[ \t]*=[ \t]*[^ \t\r\n]))"
                                         rb"[ \t]+([A-Za-z_$][\w$]*)[ \t]*(?::[^=;\n]*)?"
                                         rb"=(?![=>])(?:(?:(?!=>|\bfunction\b|\bclass\b)[^;{}\n])*|[ \t]*\r?\n[ \t]*)\Z")}
DOC_READ = 8192  # bytes before a function's line searched for its doc comment

READ = 16 * 1024  # bytes before the cursor read for the block's declarations
_BRACKETS = re.compile(rb"[()\[\]{}]")

# The line before the cursor's identifier, at a declaration's name.
_POSITION = {
    "python": re.compile(rb"[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+$"),
    "javascript": re.compile(rb"[ \t]*(?:export[ \t]+(?:default[ \t]+)?)?(?:async[ \t]+)?"
                             rb"(?:(?:const|let|var|class|function)[ \t]+|function[ \t]*\*[ \t]*)$"),
}
for _name in ("typescript", "typescriptreact"):
    _POSITION[_name] = _POSITION["javascript"]

# Strings, template strings, comments and regular expression literals, whose braces are no blocks.
JS_QUOTED = re.compile(rb"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`(?:[^`\\]|\\.)*`|//[^\n]*|/\*.*?\*/"
                        # a regular expression literal, where one may start (`(/^https?:\/\//i`: no comment in it)
                        rb"|(?:(?<=[(,=:\[!&|?{};])|(?<=return))[ \t]*/(?![/*])(?:[^/\\\n\[]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/[a-z]*",
                        re.DOTALL)


PARAMETERS_READ = 2048  # bytes before the cursor searched for the open parameter list
BODY_READ = 32 * 1024  # bytes before a method's `(` searched for the class body's `{`
_PARAMETER_LIST = {
    "python": re.compile(rb"(?:^|[^\w])def[ \t]+[A-Za-z_]\w*[ \t]*$"),
    "javascript": re.compile(rb"(?:^|[^\w$.])function(?:[ \t]*\*)?(?:[ \t]+[A-Za-z_$][\w$]*)?[ \t]*$"),
}
for _name in ("typescript", "typescriptreact"):  # and type parameters before the `(`: `function f<T>(`
    _PARAMETER_LIST[_name] = re.compile(rb"(?:^|[^\w$.])function(?:[ \t]*\*)?(?:[ \t]+[A-Za-z_$][\w$]*)?[ \t]*(?:<[^()\n]*>[ \t]*)?$")
# A class body's method, before its `(`: modifiers and a name right after `{`, `}`, `;` or a new line.
# The modifiers that may stand before a class member's name (`static async *#name`).
_JS_MODIFIERS = rb"((?:(?:static|async|get|set)[ \t]+)*)\*?[ \t]*#?"
_JS_METHOD_HEAD = re.compile(rb"(?:^|[{};\n])[ \t]*" + _JS_MODIFIERS + rb"[A-Za-z_$][\w$]*[ \t]*$")
# TypeScript's adds accessibility and other modifiers, and type parameters (`protected run<T>(`);
# the accessibility ones stand before a constructor's parameter properties too.
_TS_PARAMETER_MODIFIERS = rb"(?:public|private|protected|readonly|override)"
_TS_METHOD_HEAD = re.compile(rb"(?:^|[{};\n])[ \t]*(?:(?:" + _TS_PARAMETER_MODIFIERS + rb"|abstract|static|async|get|set)"
                             rb"[ \t]+)*\*?[ \t]*#?[A-Za-z_$][\w$]*[ \t]*(?:<[^()\n]*>[ \t]*)?$")
_METHOD_HEADS = {"javascript": _JS_METHOD_HEAD} | dict.fromkeys(TYPED, _TS_METHOD_HEAD)
_JS_CLASS_HEAD = re.compile(rb"(?:^|[^\w$.])class(?:[ \t]+[A-Za-z_$][\w$]*)?(?:[ \t]+extends[ \t]+[^{};]+?)?[ \t\r\n]*$")
# TypeScript's: type parameters, `implements` (`class A<T> extends B<T> implements C {`)
_TS_CLASS_HEAD = re.compile(rb"(?:^|[^\w$.])class(?:[ \t]+[A-Za-z_$][\w$]*)?(?:[ \t\r\n]*<[^{};]*?>)?"
                            rb"(?:[ \t\r\n]+(?:extends|implements)[ \t\r\n]+[^{};]+?)*[ \t\r\n]*$")
# What stands before an object literal's `{` (a block's follows `)`, `=>`, `else`, `try`...).
_JS_OBJECT_BEFORE = re.compile(rb"(?:[=(,:\[?]|&&|\|\||(?:^|[^\w$.])return)[ \t\r\n]*$")
_CLOSERS, _OPENERS = b")]}", b"([{"
# The line before a member's name in a class body or object literal: modifiers only.
_JS_MEMBER_HEAD = re.compile(rb"[ \t]*" + _JS_MODIFIERS)
# A member defined in a body's text, at its own brace depth: its modifiers and its name, before
# `(` (a method), `=` or `;` (a field) or `:` (an object's property); and the brackets.
_JS_MEMBER_TOKENS = re.compile(rb"[{}()]|(?:^|(?<=[{};,\n]))[ \t\r\n]*" + _JS_MODIFIERS
                               + rb"([A-Za-z_$][\w$]*)[ \t]*(?=[(=;:])", re.MULTILINE)
_MEMBER_NODES = frozenset({"field_definition", "method_definition", "ERROR"})
MODIFIERS = frozenset({"static", "async", "get", "set"})  # what may stand before a member's name
ACCESSORS = frozenset({"get", "set"})
ACCESSOR_BYTES = frozenset(a.encode() for a in ACCESSORS)
# A call's first argument opening with `(`: an arrow function's parameters (`operate((source, |`,
# `items.map((`).
_CALLBACK = re.compile(rb"(?<![\w$])(?!(?:if|while|for|switch|return|typeof|catch|with|await|yield|new|in|of|void|delete)\b)"
                       rb"[A-Za-z_$][\w$]*[ \t]*(?:<[^()\n]*>[ \t]*)?\([ \t\r\n]*\($")
# The syntax tree's parameter lists (tree-sitter node types).
_PARAMETER_LISTS = {"python": frozenset({"parameters"}), "javascript": frozenset({"formal_parameters"})}
for _name in ("typescript", "typescriptreact"):
    _PARAMETER_LISTS[_name] = _PARAMETER_LISTS["javascript"]
for _name in ("typescript", "typescriptreact"):
    INITIALISED[_name] = INITIALISED["javascript"]
_PARAMETER_NAME = re.compile(rb"[ \t\r\n]*(?:" + _TS_PARAMETER_MODIFIERS + rb"[ \t\r\n]+)*(?:\*\*|\*|\.\.\.)?[ \t]*([A-Za-z_$][\w$]*)")
_TS_RESERVED = frozenset({b"public", b"private", b"protected", b"readonly", b"override"})
_TS_MODIFIERS_BEFORE = re.compile(rb"(?:(?<=[(,\s])" + _TS_PARAMETER_MODIFIERS + rb"[ \t\r\n]*)+$")  # `constructor(private |`
# A JSDoc comment's parameter tag (`@param {Type} name`, `@param [name=x]`, `@arg name`), not one
# of a parameter's properties (`@param options.x`).
_DOC_PARAMETER = re.compile(rb"@(?:param|arg|argument)\b[ \t]*(?:\{[^}\n]*\}[ \t]*)?\[?[ \t]*([A-Za-z_$][\w$]*)(?![\w$.])")


def line_start(data: bytes, offset: int) -> int:
    return max(data.rfind(b"\n", 0, offset), data.rfind(b"\r", 0, offset)) + 1


def declares(language: str, data: bytes, offset: int) -> bool:
    """Whether an identifier starting at byte ``offset`` of ``data`` is the name its statement
    declares, by the line before it."""
    pattern = _POSITION.get(language)
    return pattern is not None and pattern.match(data, line_start(data, offset), offset) is not None


def at_declaration(context: CompletionContext) -> bool:
    """Whether the identifier at the cursor names what its statement declares."""
    return context.category == NAME and declares(context.language.name, context.data, context.prefix_start)


def parameters_before(language: str, data: bytes, offset: int, node: tree_sitter.Node | None = None) -> set[bytes] | None:
    """Where an identifier starting at byte ``offset`` names a parameter of the function whose
    parameter list is open there: the names of the parameters before it; elsewhere None.
    ``node``, the syntax node at ``offset`` if there is a tree, decides where the text does not."""
    found = parameter_list(language, data, offset, node)
    return found[1] if found is not None else None


def parameter_list(language: str, data: bytes, offset: int, node: tree_sitter.Node | None) -> tuple[int, set[bytes]] | None:
    """parameters_before's answer, with the offset of the list's ``(``."""
    pattern = _PARAMETER_LIST.get(language)
    if pattern is None:
        return None
    before = data[max(0, offset - 256):offset].rstrip(b" \t\r\n")
    before = before.removesuffix(b"...").rstrip(b"*").rstrip(b" \t\r\n")  # *args, **kwargs, ...rest
    if language in TYPED:
        before = _TS_MODIFIERS_BEFORE.sub(b"", before).rstrip(b" \t\r\n")
    if not before.endswith((b"(", b",")):
        return None  # not where a parameter starts (a default value, an annotation, a body)
    lo = max(0, offset - PARAMETERS_READ)
    i = _open_bracket(data, offset - 1, lo)
    if i is None or data[i] != 40:  # "("
        return None
    if (not pattern.search(data, max(lo, i - 256), i)
            and (language == "python" or not (_js_method(data, lo, i, language) or _CALLBACK.search(data, max(lo, i - 256), i + 1)))
            and not _parameter_list_in_tree(node, i, _PARAMETER_LISTS[language])):
        return None
    names = set()
    for piece in _split_top_level(data[i + 1:offset]):
        if found := _PARAMETER_NAME.match(piece):
            names.add(found.group(1))
    if language in TYPED:
        names -= _TS_RESERVED  # `constructor(a, private |`: the modifiers typed, no name yet
    return i, names


def documented_parameter(data: bytes, paren: int, declared: set[bytes]) -> bytes | None:
    """In JavaScript and TypeScript, at a parameter of a function whose doc comment (``/** …
    @param name … */``) ends right before the line its parameter list opens on: the first
    parameter the comment names that the list does not declare yet."""
    head = line_start(data, paren)
    before = data[max(0, head - DOC_READ):head].rstrip()
    start = before.rfind(b"/**")
    if not before.endswith(b"*/") or start < 0 or before.find(b"*/", start + 3) != len(before) - 2:
        return None  # no comment right before, or a comment that is no doc comment
    for tag in _DOC_PARAMETER.finditer(before, start):
        if tag.group(1) not in declared:
            return tag.group(1)
    return None


def _parameter_list_in_tree(node: tree_sitter.Node | None, paren: int, kinds: frozenset[str]) -> bool:
    """Whether an ancestor of ``node`` is a parameter list opening at byte ``paren``."""
    while node is not None and node.start_byte >= paren:
        if node.start_byte == paren and node.type in kinds:
            return True
        node = node.parent
    return False


def _open_bracket(data: bytes, start: int, lo: int) -> int | None:
    """The innermost bracket still open at byte ``start`` (scanning back to ``lo``)."""
    depth = 0
    for found in reversed(list(_BRACKETS.finditer(data, lo, start + 1))):  # not a loop over every byte
        if data[found.start()] in _CLOSERS:
            depth += 1
        elif not depth:
            return found.start()
        else:
            depth -= 1
    return None


def _js_method(data: bytes, lo: int, paren: int, language: str = "javascript") -> bool:
    """Whether the ``(`` at ``paren`` opens the parameters of a method of a class body or of an
    object literal."""
    head = _METHOD_HEADS.get(language, _JS_METHOD_HEAD).search(data, max(lo, paren - 256), paren)
    if head is None:
        return False
    # the brace the method's name follows is the body's (a class's may open far above: BODY_READ)
    j = _open_bracket(data, head.start(), max(0, paren - BODY_READ))
    if j is None or data[j] != 123:  # "{"
        return False
    before = max(0, j - 256)
    if (_TS_CLASS_HEAD if language in TYPED else _JS_CLASS_HEAD).search(data, before, j) is not None:
        return True
    # an object literal's method: its name right after the `{` or a comma
    return _JS_OBJECT_BEFORE.search(data, before, j) is not None and _after_property_boundary(data, head.start(), lo)


def _after_property_boundary(data: bytes, start: int, lo: int) -> bool:
    """Whether what precedes a method's name (from ``start``, its head's boundary) is the object's
    `{` or a comma, past blank space."""
    i = start
    while i >= lo and data[i] in b" \t\r\n":
        i -= 1
    return i >= lo and data[i] in b"{,"


def _split_top_level(text: bytes) -> list[bytes]:
    """``text`` cut at the commas outside brackets."""
    pieces, depth, start = [], 0, 0
    for i, byte in enumerate(text):
        if byte in _OPENERS:
            depth += 1
        elif byte in _CLOSERS:
            depth -= 1
        elif byte == 44 and depth == 0:  # ","
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    return pieces


def member_position(language: str, data: bytes, offset: int,
                    node: tree_sitter.Node | None = None) -> tuple[set[bytes], list[tuple[set[bytes], bytes]]] | None:
    """Where an identifier starting at byte ``offset`` names a member of a JavaScript class body
    or object literal: the modifiers before it and the members the body defines before it (each
    with its modifiers); elsewhere None. ``node``, the syntax node at ``offset``, finds the class body where the text read
    does not reach its brace."""
    if language not in INITIALISED:  # the JavaScript family
        return None
    head = _JS_MEMBER_HEAD.fullmatch(data, line_start(data, offset), offset)
    if head is None or (node is not None and node.type == "identifier" and node.parent is not None
                        and node.parent.type == "expression_statement"):
        return None  # a statement's first word, by the tree: no text to read
    modifiers = set(head.group(1).split())
    for read in (READ // 8, READ):  # the innermost brace is mostly near: read 2 KB first
        lo = max(0, offset - read)
        code = blanked(data[lo:offset])  # braces in strings are no blocks
        brace = _open_bracket(code, len(code) - 1, 0)
        if brace is not None or not lo:
            break
    if brace is not None:
        if code[brace] != 123:  # "(" or "[": an argument, an element
            return None
        before = max(0, brace - 256)
        if _JS_CLASS_HEAD.search(code, before, brace) is None and not (
                _JS_OBJECT_BEFORE.search(code, before, brace) and _after_property_boundary(code, head.start() - lo - 1, 0)):
            return None  # a block: the name starts a statement
        defined = js_members(code[brace + 1:])[0]
    else:
        body = _class_body(node)
        if body is None:
            return None
        defined = _tree_members(body, offset)
    return modifiers, defined


def blanked(code: bytes) -> bytes:
    """``code`` with its strings, comments and regular expressions blanked, every offset kept."""
    return JS_QUOTED.sub(lambda m: b" " * len(m.group(0)), code)


def js_members(body: bytes) -> tuple[list[tuple[set[bytes], bytes]], int]:
    """The members defined at the top level of a class body's or object literal's text (its
    strings blanked), with their modifiers; and where the body closes in it (its length if it
    does not)."""
    depth, members = 0, []
    for found in _JS_MEMBER_TOKENS.finditer(body):
        token = found.group(0)
        if token in (b"{", b"("):
            depth += 1
        elif token in (b"}", b")"):
            depth -= 1
            if depth < 0:  # the body's end
                return members, found.start()
        elif depth == 0:
            members.append((set(found.group(1).split()), found.group(2)))
    return members, len(body)


def _class_body(node: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The class body whose member ``node`` names, if it is one."""
    for _ in range(3):
        if node is None or node.parent is None:
            return None
        node = node.parent
        if node.type == "class_body":
            return node
        if node.type not in _MEMBER_NODES:
            return None
    return None


def _tree_members(body: tree_sitter.Node, offset: int) -> list[tuple[set[bytes], bytes]]:
    """The members a class body's tree defines before byte ``offset``, with their modifiers."""
    members = []
    for child in body.named_children:
        if child.start_byte >= offset:
            break
        name = child.child_by_field_name("name") or child.child_by_field_name("property")
        if name is not None and name.end_byte <= offset and name.text:
            mods = {c.type.encode() for c in child.children if not c.is_named and c.type in MODIFIERS}
            members.append((mods, name.text.lstrip(b"#")))
    return members


def at_parameter(context: CompletionContext) -> bool:
    """Whether the identifier at the cursor names a parameter of a function being declared."""
    return context.category == NAME and parameters_before(
        context.language.name, context.data, context.prefix_start, context.target) is not None


def top_level(context: CompletionContext) -> bool:
    """Whether the cursor's line is not indented: a declaration of the file's top level."""
    start = line_start(context.data, context.prefix_start)
    return context.data[start:start + 1] not in (b" ", b"\t")
