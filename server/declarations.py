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

At a parameter's name, the parameters listed before it are not offered again (a parameter named
twice is a syntax error in both languages), nor keywords, snippets or chains; the rest is ranked
as any name. A parameter list is the innermost bracket still open before the cursor, a ``(``
after ``def name``, ``function name`` or a method's name in a JavaScript class body or object
literal, with the cursor where a parameter starts: after the ``(`` or a comma, not in a
default value or an annotation. Where the text does not say (an arrow function's parameters,
a method of a class whose ``{`` is further back than the text read), the syntax tree at the
cursor does when the code after it is written: the ``(`` opens a formal parameter list there
(the engines read it from the tree with a placeholder identifier at the cursor).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tree_sitter

from .context import NAME, CompletionContext

READ = 16 * 1024  # bytes before the cursor read for the block's declarations

# The line before the cursor's identifier, at a declaration's name.
_POSITION = {
    "python": re.compile(rb"[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+$"),
    "javascript": re.compile(rb"[ \t]*(?:export[ \t]+(?:default[ \t]+)?)?(?:async[ \t]+)?"
                             rb"(?:(?:const|let|var|class|function)[ \t]+|function[ \t]*\*[ \t]*)$"),
}
for _name in ("typescript", "typescriptreact"):
    _POSITION[_name] = _POSITION["javascript"]

_INDENT = re.compile(rb"[ \t]*")
_PY_DEFINITION = re.compile(rb"(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)")
# A decorator after which a name is defined again on purpose (@x.setter, @overload, @f.register).
_PY_REDEFINES = re.compile(rb"@[ \t]*(?:[\w.]*\.(?:setter|getter|deleter|register)|(?:typing\.)?overload)\b")
# Strings, template strings and comments, whose braces are no blocks (a regular expression's are
# rarely unbalanced).
_JS_QUOTED = re.compile(rb"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`(?:[^`\\]|\\.)*`|//[^\n]*|/\*.*?\*/", re.DOTALL)
# Braces and statement-level declarations (not `for (let i ...`, whose name the loop scopes).
_JS_TOKENS = re.compile(rb"[{}]|(?:^|(?<=[;{}]))[ \t]*(?:export[ \t]+(?:default[ \t]+)?)?(?:async[ \t]+)?"
                        rb"(?:const|let|var|class|function(?:[ \t]*\*)?)[ \t]+([A-Za-z_$][\w$]*)", re.MULTILINE)


PARAMETERS_READ = 2048  # bytes before the cursor searched for the open parameter list
_PARAMETER_LIST = {
    "python": re.compile(rb"(?:^|[^\w])def[ \t]+[A-Za-z_]\w*[ \t]*$"),
    "javascript": re.compile(rb"(?:^|[^\w$.])function(?:[ \t]*\*)?(?:[ \t]+[A-Za-z_$][\w$]*)?[ \t]*$"),
}
for _name in ("typescript", "typescriptreact"):
    _PARAMETER_LIST[_name] = _PARAMETER_LIST["javascript"]
# A class body's method, before its `(`: modifiers and a name right after `{`, `}`, `;` or a new line.
_JS_METHOD_HEAD = re.compile(rb"(?:^|[{};\n])[ \t]*(?:(?:static|async|get|set)[ \t]+)*\*?[ \t]*#?[A-Za-z_$][\w$]*[ \t]*$")
_JS_CLASS_HEAD = re.compile(rb"(?:^|[^\w$.])class(?:[ \t]+[A-Za-z_$][\w$]*)?(?:[ \t]+extends[ \t]+[^{};]+?)?[ \t\r\n]*$")
# What stands before an object literal's `{` (a block's follows `)`, `=>`, `else`, `try`...).
_JS_OBJECT_BEFORE = re.compile(rb"(?:[=(,:\[?]|&&|\|\||(?:^|[^\w$.])return)[ \t\r\n]*$")
_CLOSERS, _OPENERS = b")]}", b"([{"
# The syntax tree's parameter lists (tree-sitter node types).
_PARAMETER_LISTS = {"python": frozenset({"parameters"}), "javascript": frozenset({"formal_parameters"})}
for _name in ("typescript", "typescriptreact"):
    _PARAMETER_LISTS[_name] = _PARAMETER_LISTS["javascript"]
# The start of a `const` or `let` declaration's value (its first word: `= x`, `= await x`, `= new X`).
_INITIALISED = {"javascript": re.compile(rb"(?:^|[^\w$.])(?:const|let)[ \t]+([A-Za-z_$][\w$]*)[ \t]*(?::[^=;\n]*)?"
                                         rb"=[ \t]*(?:(?:await|new|typeof)[ \t]+)?$")}
for _name in ("typescript", "typescriptreact"):
    _INITIALISED[_name] = _INITIALISED["javascript"]
_PARAMETER_NAME = re.compile(rb"[ \t\r\n]*(?:\*\*|\*|\.\.\.)?[ \t]*([A-Za-z_$][\w$]*)")


def _line_start(data: bytes, offset: int) -> int:
    return max(data.rfind(b"\n", 0, offset), data.rfind(b"\r", 0, offset)) + 1


def declares(language: str, data: bytes, offset: int) -> bool:
    """Whether an identifier starting at byte ``offset`` of ``data`` is the name its statement
    declares, by the line before it."""
    pattern = _POSITION.get(language)
    return pattern is not None and pattern.match(data, _line_start(data, offset), offset) is not None


def at_declaration(context: CompletionContext) -> bool:
    """Whether the identifier at the cursor names what its statement declares."""
    return context.category == NAME and declares(context.language.name, context.data, context.prefix_start)


def parameters_before(language: str, data: bytes, offset: int, node: tree_sitter.Node | None = None) -> set[bytes] | None:
    """Where an identifier starting at byte ``offset`` names a parameter of the function whose
    parameter list is open there: the names of the parameters before it; elsewhere None.
    ``node``, the syntax node at ``offset`` if there is a tree, decides where the text does not."""
    pattern = _PARAMETER_LIST.get(language)
    if pattern is None:
        return None
    before = data[max(0, offset - 256):offset].rstrip(b" \t\r\n")
    before = before.removesuffix(b"...").rstrip(b"*").rstrip(b" \t\r\n")  # *args, **kwargs, ...rest
    if not before.endswith((b"(", b",")):
        return None  # not where a parameter starts (a default value, an annotation, a body)
    lo = max(0, offset - PARAMETERS_READ)
    i = _open_bracket(data, offset - 1, lo)
    if i is None or data[i] != 40:  # "("
        return None
    if (not pattern.search(data, max(lo, i - 256), i) and (language == "python" or not _js_method(data, lo, i))
            and not _parameter_list_in_tree(node, i, _PARAMETER_LISTS[language])):
        return None
    names = set()
    for piece in _split_top_level(data[i + 1:offset]):
        if found := _PARAMETER_NAME.match(piece):
            names.add(found.group(1))
    return names


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
    for i in range(start, lo - 1, -1):
        byte = data[i]
        if byte in _CLOSERS:
            depth += 1
        elif byte in _OPENERS:
            if not depth:
                return i
            depth -= 1
    return None


def _js_method(data: bytes, lo: int, paren: int) -> bool:
    """Whether the ``(`` at ``paren`` opens the parameters of a method of a class body or of an
    object literal."""
    head = _JS_METHOD_HEAD.search(data, max(lo, paren - 256), paren)
    if head is None:
        return False
    j = _open_bracket(data, head.start(), lo)  # the brace the method's name follows is the body's
    if j is None or data[j] != 123:  # "{"
        return False
    before = max(lo, j - 256)
    if _JS_CLASS_HEAD.search(data, before, j) is not None:
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


def at_parameter(context: CompletionContext) -> bool:
    """Whether the identifier at the cursor names a parameter of a function being declared."""
    return context.category == NAME and parameters_before(
        context.language.name, context.data, context.prefix_start, context.target) is not None


def top_level(context: CompletionContext) -> bool:
    """Whether the cursor's line is not indented: a declaration of the file's top level."""
    start = _line_start(context.data, context.prefix_start)
    return context.data[start:start + 1] not in (b" ", b"\t")


@dataclass(frozen=True)
class Declaring:
    """What the identifier at the cursor declares, read once per request (``declaring``)."""

    declaration: bool  # the name a statement declares (``def |``, ``const |``)
    parameter: bool  # a parameter of a function being declared (``def f(a, |``)
    # what is not offered there: the names the block declares already before it, at a
    # declaration; the parameters listed before it, at a parameter; at the start of a JavaScript
    # ``const`` or ``let``'s value, the name it declares
    taken: frozenset[str]


NOT_DECLARING = Declaring(False, False, frozenset())


def declaring(context: CompletionContext) -> Declaring:
    """What the identifier at the cursor declares, and so what is not offered there."""
    if context.category != NAME:
        return NOT_DECLARING
    declaration = declares(context.language.name, context.data, context.prefix_start)
    parameter = False
    if not declaration:
        names = parameters_before(context.language.name, context.data, context.prefix_start, context.target)
        parameter = names is not None
        if names is None:
            names = _initialised(context.language.name, context.data, context.prefix_start)
    elif context.language.name == "python":
        names = _python_declared(context.data, _line_start(context.data, context.prefix_start))
    else:
        code = context.data[max(0, context.prefix_start - READ):context.prefix_start]
        names = _javascript_declared(_JS_QUOTED.sub(b" ", code))
    names.discard(context.prefix.encode("utf-8", "surrogatepass"))
    return Declaring(declaration, parameter, frozenset(n.decode("utf-8", "replace") for n in names))


def declared_before(context: CompletionContext) -> set[str]:
    """``declaring``'s names not offered at the cursor."""
    return set(declaring(context).taken)


def _initialised(language: str, data: bytes, offset: int) -> set[bytes]:
    """At ``const x = |`` or ``let x = |``, {x}: reading x in its own initialiser throws (the
    temporal dead zone), where Python's ``x = x + 1`` and JavaScript's ``var x = x || {}`` are
    idioms. A function written there may name x, but not as its first word."""
    pattern = _INITIALISED.get(language)
    if pattern is None:
        return set()
    found = pattern.search(data, max(0, offset - 256), offset)
    return {found.group(1)} if found else set()


def _python_declared(data: bytes, line_start: int) -> set[bytes]:
    """The def and class names of the lines above ``line_start`` at its indentation, up to the
    line that opens their block."""
    indent = len(_INDENT.match(data, line_start).group(0))
    names: set[bytes] = set()
    lo, end, first = max(0, line_start - READ), line_start - 1, True
    while end > lo:
        start = max(data.rfind(b"\n", lo, end) + 1, lo)
        text = data[start:end].rstrip(b"\r")
        end = start - 1
        stripped = text.lstrip(b" \t")
        if not stripped or stripped.startswith(b"#"):
            continue
        if first and stripped.startswith(b"@"):
            if _PY_REDEFINES.match(stripped):
                return set()  # a property's setter, an overload: the name is meant to come again
            continue  # the decorators of the definition being typed
        first = False
        depth = len(text) - len(stripped)
        if depth < indent:
            break  # the line that opens the block
        if depth == indent and (found := _PY_DEFINITION.match(stripped)):
            names.add(found.group(1))
    return names


def _javascript_declared(code: bytes) -> set[bytes]:
    """The names declared by the statements of the innermost block still open at the end of
    ``code`` (by braces; a block that closes whose start lies before ``code`` empties the set)."""
    stack: list[set[bytes]] = [set()]
    for found in _JS_TOKENS.finditer(code):
        token = found.group(0)
        if token == b"{":
            stack.append(set())
        elif token == b"}":
            if len(stack) > 1:
                stack.pop()
            else:
                stack[0].clear()
        else:
            stack[-1].add(found.group(1))
    return stack[-1]
