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
``  get |``) is a declaration too: the members the body defines already before it are not offered
(but, after ``get`` or ``set``, those the other accessor defines: a getter's setter shares its
name). There, and at a Python ``def`` in a class, the methods that ``this.`` / ``self.`` calls
before the cursor and the class neither defines nor assigns are *pending*: the engines list them
first (a class calls methods it defines further down); inside a file, those only the code after
the cursor calls come next (a class also calls what it inherits), a name the class or block
defines below the cursor is not offered (a method is defined once), and at an accessor's name
(``get |``) the member only the other accessor defines comes first (they come as a pair). The
body is the innermost brace still open in the READ bytes before the cursor, or, further back (a
long class), the class body of the syntax tree at the cursor; a Python class longer than READ
is found by its opening line, up to CALLS_READ bytes back.

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

import builtins
import functools
import re
from dataclasses import dataclass, field

import tree_sitter

from .context import NAME, CompletionContext
from .receivers import TYPED

READ = 16 * 1024  # bytes before the cursor read for the block's declarations
CALLS_READ = 128 * 1024  # bytes before the cursor read for the methods a class calls
# A member of the object a method runs on, called (`(`) or assigned (`=`). The receiver is a
# literal first, so that the regular expression engine skips to it (a look-behind there does not).
_OWN_USE = {language: re.compile(receiver + rb"[ \t]*\.[ \t]*#?([A-Za-z_$][\w$]*)[ \t]*(\(|=(?!=))?")
            for language, receiver in (("python", b"self"), ("javascript", b"this"), ("typescript", b"this"),
                                       ("typescriptreact", b"this"))}
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_BRACKETS = re.compile(rb"[()\[\]{}]")

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
# Strings, template strings, comments and regular expression literals, whose braces are no blocks.
_JS_QUOTED = re.compile(rb"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`(?:[^`\\]|\\.)*`|//[^\n]*|/\*.*?\*/"
                        # a regular expression literal, where one may start (`(/^https?:\/\//i`: no comment in it)
                        rb"|(?:(?<=[(,=:\[!&|?{};])|(?<=return))[ \t]*/(?![/*])(?:[^/\\\n\[]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/[a-z]*",
                        re.DOTALL)
# Braces and statement-level declarations (not `for (let i ...`, whose name the loop scopes).
_JS_TOKENS = re.compile(rb"[{}]|(?:^|(?<=[;{}]))[ \t]*(?:export[ \t]+(?:default[ \t]+)?)?(?:async[ \t]+)?"
                        rb"(?:const|let|var|class|function(?:[ \t]*\*)?)[ \t]+([A-Za-z_$][\w$]*)", re.MULTILINE)


# The declarations without a body that announce the next one's name (TypeScript's overloads).
_SIGNATURES = frozenset({"function_signature", "method_signature"})  # an interface's method_signature announces nothing
OVERLOADS = {"typescript": _SIGNATURES, "typescriptreact": _SIGNATURES}

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
_ACCESSORS = frozenset(a.encode() for a in ACCESSORS)
# A call's first argument opening with `(`: an arrow function's parameters (`operate((source, |`,
# `items.map((`): in held-out JavaScript and TypeScript, 361 of 369 such `((` outside comments.
_CALLBACK = re.compile(rb"(?<![\w$])(?!(?:if|while|for|switch|return|typeof|catch|with|await|yield|new|in|of|void|delete)\b)"
                       rb"[A-Za-z_$][\w$]*[ \t]*(?:<[^()\n]*>[ \t]*)?\([ \t\r\n]*\($")
# The syntax tree's parameter lists (tree-sitter node types).
_PARAMETER_LISTS = {"python": frozenset({"parameters"}), "javascript": frozenset({"formal_parameters"})}
for _name in ("typescript", "typescriptreact"):
    _PARAMETER_LISTS[_name] = _PARAMETER_LISTS["javascript"]
# A `const` or `let` declaration's value on its line, before any function, class or brace in it.
_INITIALISED = {"javascript": re.compile(rb"(?:^|[^\w$.])(?:const|let|var(?=[ \t]+[\w$]+[ \t]*=[ \t]*[^ \t\r\n]))"
                                         rb"[ \t]+([A-Za-z_$][\w$]*)[ \t]*(?::[^=;\n]*)?"
                                         rb"=(?![=>])(?:(?!=>|\bfunction\b|\bclass\b)[^;{}\n])*$")}
for _name in ("typescript", "typescriptreact"):
    _INITIALISED[_name] = _INITIALISED["javascript"]
# A parameter's name, past TypeScript's modifiers of a constructor's parameter property.
# A Python assignment's target and its value up to the cursor, on a statement's line.
_PY_TARGET = re.compile(rb"[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)([^\n#]*)$")
_PY_BUILTINS = frozenset(name.encode() for name in dir(builtins))
BOUND_READ = 256 * 1024  # bytes before an assignment's line searched for its target's name
_PARAMETER_NAME = re.compile(rb"[ \t\r\n]*(?:" + _TS_PARAMETER_MODIFIERS + rb"[ \t\r\n]+)*(?:\*\*|\*|\.\.\.)?[ \t]*([A-Za-z_$][\w$]*)")
_TS_RESERVED = frozenset({b"public", b"private", b"protected", b"readonly", b"override"})
_TS_MODIFIERS_BEFORE = re.compile(rb"(?:(?<=[(,\s])" + _TS_PARAMETER_MODIFIERS + rb"[ \t\r\n]*)+$")  # `constructor(private |`
# A JSDoc comment's parameter tag (`@param {Type} name`, `@param [name=x]`, `@arg name`), not one
# of a parameter's properties (`@param options.x`).
_DOC_PARAMETER = re.compile(rb"@(?:param|arg|argument)\b[ \t]*(?:\{[^}\n]*\}[ \t]*)?\[?[ \t]*([A-Za-z_$][\w$]*)(?![\w$.])")
# A function expression's name after what it is assigned to (``res.send = function |``,
# ``send: function |``, ``const send = function |``): the same name, in held-out JavaScript at
# 51 of 54 named ones (not ``module.exports = function |``).
_JS_NAMED_FUNCTION = re.compile(rb"([A-Za-z_$][\w$]*)[ \t]*(?::|=(?!=))[ \t]*(?:async[ \t]+)?function[ \t]*\*?[ \t]*\Z")
DOCUMENTED = frozenset({"javascript", "typescript", "typescriptreact"})  # the languages whose doc comments name parameters above them
DOC_READ = 8192  # bytes before a function's line searched for its doc comment


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
    found = _parameter_list(language, data, offset, node)
    return found[1] if found is not None else None


def _parameter_list(language: str, data: bytes, offset: int, node: tree_sitter.Node | None) -> tuple[int, set[bytes]] | None:
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
    parameter the comment names that the list does not declare yet. (Held-out rxjs, mobx,
    @tanstack/query-core, express, koa and commander, 1,000 identifiers per language, at the
    199 parameters: at a buffer's end such a comment names one at 49, rightly at all 49; inside
    a file at 61, rightly at 58.)"""
    head = _line_start(data, paren)
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
    if language not in _INITIALISED:  # the JavaScript family
        return None
    head = _JS_MEMBER_HEAD.fullmatch(data, _line_start(data, offset), offset)
    if head is None or (node is not None and node.type == "identifier" and node.parent is not None
                        and node.parent.type == "expression_statement"):
        return None  # a statement's first word, by the tree: no text to read
    modifiers = set(head.group(1).split())
    for read in (READ // 8, READ):  # the innermost brace is mostly near: read 2 KB first
        lo = max(0, offset - read)
        code = _blanked(data[lo:offset])  # braces in strings are no blocks
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
        defined = _js_members(code[brace + 1:])[0]
    else:
        body = _class_body(node)
        if body is None:
            return None
        defined = _tree_members(body, offset)
    return modifiers, defined


def _partners(defined: list[tuple[set[bytes], bytes]], modifiers: set[bytes]) -> set[bytes]:
    """At an accessor's name, the members that only the other accessor defines: a getter and its
    setter come as a pair."""
    mine = modifiers & _ACCESSORS
    other = {name for mods, name in defined if mods & _ACCESSORS and not mods & mine}
    return other - {name for mods, name in defined if mods & mine or not mods & _ACCESSORS}


def _taken(defined: list[tuple[set[bytes], bytes]], modifiers: set[bytes]) -> set[bytes]:
    """Of the members ``defined`` (modifiers, name), those not defined again with ``modifiers``:
    all but, at an accessor, those that only the other accessor defines."""
    accessor = modifiers & _ACCESSORS
    taken: set[bytes] = set()
    for mods, name in defined:
        other = mods & _ACCESSORS
        if not accessor or not other or other == accessor:
            taken.add(name)
    return taken


def _blanked(code: bytes) -> bytes:
    """``code`` with its strings, comments and regular expressions blanked, every offset kept."""
    return _JS_QUOTED.sub(lambda m: b" " * len(m.group(0)), code)


def _js_members(body: bytes) -> tuple[list[tuple[set[bytes], bytes]], int]:
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
    start = _line_start(context.data, context.prefix_start)
    return context.data[start:start + 1] not in (b" ", b"\t")


@dataclass(frozen=True)
class Declaring:
    """What the identifier at the cursor declares, read once per request (``declaring``)."""

    declaration: bool  # the name a statement declares (``def |``, ``const |``), or a member
    parameter: bool  # a parameter of a function being declared (``def f(a, |``)
    # what is not offered there: the names the block declares already before it, at a
    # declaration; the parameters listed before it, at a parameter; at the start of a JavaScript
    # ``const`` or ``let``'s value, the name it declares
    taken: frozenset[str]
    # a member of a JavaScript class body or object literal (a declaration): the modifiers
    # written before it (``static``, ``get``...); None elsewhere
    member: frozenset[str] | None = None
    # at a member's name or a Python method's: the methods that ``this.`` / ``self.`` calls
    # before the cursor, and that the body neither defines before it nor assigns (``this.x =``):
    # what is being defined, more often than not (a class calls methods it defines further down);
    # after an overload signature, its name; at a parameter, the next one the function's doc
    # comment names (documented_parameter)
    pending: frozenset[str] = frozenset()
    method: bool = False  # a class member's or object literal member's name, a Python method's: what ``this.`` reads
    # at a member's name or a Python method's, the methods that only the code after the cursor
    # calls and the body defines nowhere: next after ``pending`` (a class inherits some it calls)
    pending_below: frozenset[str] = frozenset()


NOT_DECLARING = Declaring(False, False, frozenset())


def declaring(context: CompletionContext) -> Declaring:
    """What the identifier at the cursor declares, and so what is not offered there."""
    if context.category != NAME:
        return NOT_DECLARING
    language = context.language.name
    declaration = declares(language, context.data, context.prefix_start)
    parameter, found = False, None
    member = None if declaration else member_position(language, context.data, context.prefix_start, context.target)
    modifiers, method = None, member is not None  # method: what `this.` / `self.` calls may be defined here
    if member is not None:
        declaration, (modifiers, members) = True, member
        names = _taken(members, modifiers)  # after `get` or `set`, but those of the other accessor
    elif not declaration:
        found = _parameter_list(language, context.data, context.prefix_start, context.target)
        parameter = found is not None
        names = found[1] if found is not None else _initialised(language, context.data, context.prefix_start)
    elif language == "python":
        names, method = _python_declared(context.data, _line_start(context.data, context.prefix_start))
    else:
        code = context.data[max(0, context.prefix_start - READ):context.prefix_start]
        names = _javascript_declared(_JS_QUOTED.sub(b" ", code))
    after = _after(language, context, modifiers) if declaration else None
    names.discard(context.prefix.encode("utf-8", "surrogatepass"))
    pending, below = frozenset(), frozenset()
    if method:
        called = _pending(language, context.data, context.prefix_start)
        if after is not None:  # the class's code after the cursor calls, assigns and defines too
            called -= after.assigned | after.defined
            below = _texts(after.called - after.assigned - after.defined - called - names)
        pending = _texts(called - names)
    if after is not None:
        names |= after.taken
        names.discard(context.prefix.encode("utf-8", "surrogatepass"))
    if member is not None and modifiers & _ACCESSORS:  # `get |` above `set status(v)`: status
        pending |= _texts(_partners(members + (after.members if after is not None else []), modifiers))
    overloaded = _overloaded(context) if declaration and language in OVERLOADS else None
    if overloaded is not None:  # `function f(a: string): void;` above: `f` again, first
        names.discard(overloaded)
        pending |= _texts({overloaded})
    if found is not None and language in DOCUMENTED:  # `/** @param a  @param b */ function f(a, |`: `b`, first
        documented = documented_parameter(context.data, found[0], names)
        pending |= _texts({documented} if documented is not None else set())
    if not declaration and not parameter and language in DOCUMENTED:
        start = max(_line_start(context.data, context.prefix_start), context.prefix_start - 256)
        named = _JS_NAMED_FUNCTION.search(context.data, start, context.prefix_start)
        pending |= _texts({named.group(1)} if named is not None and named.group(1) != b"exports" else set())
    return Declaring(declaration, parameter, _texts(names),
                     None if modifiers is None else frozenset(m.decode() for m in modifiers), pending, method, below)


def _overloaded(context: CompletionContext) -> bytes | None:
    """At a name being declared on a line right after an overload signature (TypeScript's
    ``function f(a: string): void;``, a class's ``m(a: string): void;``: a declaration without a
    body; comments between them skipped), the signature's name: the next overload or the
    implementation repeats it."""
    if context.tree is None:
        return None
    data, root = context.data, context.tree.root_node
    end = _code_end(data, _line_start(data, context.prefix_start))
    for _ in range(8):  # the comments between them, each skipped
        if end <= 0:
            return None
        node = root.descendant_for_byte_range(end - 1, end)
        if node is None or node.type != "comment":
            break
        end = _code_end(data, node.start_byte)
    else:
        return None
    if node.type == ";" and node.prev_sibling is not None:
        node = node.prev_sibling
    while node is not None and node.end_byte >= end - 1 and node.type not in OVERLOADS[context.language.name]:
        node = node.parent
    if node is None or node.end_byte < end - 1 or (node.type == "method_signature" and node.parent.type != "class_body"):
        return None
    name = node.child_by_field_name("name")
    return name.text if name is not None and name.text else None


def _code_end(data: bytes, offset: int) -> int:
    """Where the text before ``offset`` ends once the white space before ``offset`` is left out."""
    while offset > 0 and data[offset - 1] in b" \t\r\n":
        offset -= 1
    return offset


def _texts(names: set[bytes]) -> frozenset[str]:
    return frozenset(n.decode("utf-8", "replace") for n in names)


def _pending(language: str, data: bytes, offset: int) -> set[bytes]:
    """The methods that ``this.`` (``self.`` in Python) calls in the CALLS_READ bytes before
    ``offset`` and never assigns: those a class body may be about to define."""
    called, assigned = _own_uses(language, data, max(0, offset - CALLS_READ), offset)
    return called - assigned


def _own_uses(language: str, data: bytes, start: int, end: int) -> tuple[set[bytes], set[bytes]]:
    """The members ``this.`` (``self.``) calls, and those it assigns, in ``data[start:end]``."""
    called: set[bytes] = set()
    assigned: set[bytes] = set()
    for found in _OWN_USE[language].finditer(data, start, end):
        if found.start() and data[found.start() - 1] in _WORD_BYTES:
            continue  # `mythis.x`, not the receiver
        if found.group(2) == b"(":
            called.add(found.group(1))
        elif found.group(2):
            assigned.add(found.group(1))
    return called, assigned


@dataclass(frozen=True)
class _After:
    """What the block of a declaration being typed holds after the cursor (``_after``)."""

    defined: set[bytes]  # the names it declares at the cursor's level
    taken: set[bytes]  # of those, the ones not meant to be declared again (a property's setter is)
    called: set[bytes]  # the methods ``self.`` / ``this.`` calls there
    assigned: set[bytes]  # the members ``self.`` / ``this.`` assigns there
    members: list[tuple[set[bytes], bytes]] = field(default_factory=list)  # JavaScript's, with their modifiers


def _after(language: str, context: CompletionContext, modifiers: set[bytes] | None) -> _After | None:
    """At a Python ``def`` / ``class`` or a JavaScript class member's name, what the block holds
    after the cursor, up to its end and at most CALLS_READ bytes: a name it declares below is not
    the one being typed (in held-out code, a method is defined once in its class), and the methods
    it calls below and defines nowhere are pending as those called above."""
    data, offset = context.data, context.cursor
    if language == "python":
        line = _line_start(data, context.prefix_start)
        indent = len(_INDENT.match(data, line).group(0))
        end = min(len(data), offset + CALLS_READ)
        if indent:  # the block ends at the first line of code indented less
            dedent = _indented_less(indent).search(data, offset, end)
            end = dedent.start() if dedent is not None else end
        defined, taken, again = set(), set(), _redefined(data, line)  # `@overload def |`: the name comes again
        for found in _defined_at(indent).finditer(data, offset, end):
            defined.add(found.group(1))
            if not again and not _redefined(data, found.start()):
                taken.add(found.group(1))
        code = data[offset:end]
    elif language in _INITIALISED and modifiers is not None:  # a JavaScript class body's or object literal's member
        code = _blanked(data[offset:offset + CALLS_READ])
        members, end = _js_members(code)
        code = code[:end]
        defined = {name for _, name in members}
        taken = _taken(members, modifiers)
    elif language in _INITIALISED:  # `const |`, `function |`: what the block declares below
        code = _blanked(data[offset:offset + READ])
        depth, taken = 0, set()
        for found in _JS_TOKENS.finditer(code):
            token = found.group(0)
            if token == b"{":
                depth += 1
            elif token == b"}":
                depth -= 1
                if depth < 0:
                    break
            elif depth == 0:
                taken.add(found.group(1))
        return _After(taken, taken, set(), set())
    else:
        return None
    called, assigned = _own_uses(language, code, 0, len(code))
    return _After(defined, taken, called, assigned, members if language != "python" else [])


@functools.lru_cache(maxsize=16)
def _indented_less(indent: int) -> re.Pattern[bytes]:
    """A Python line of code (its first word) indented less than ``indent`` (> 0) characters."""
    return re.compile(rb"^[ \t]{0,%d}(?=[^ \t\r\n#])(\S+)" % (indent - 1), re.MULTILINE)


@functools.lru_cache(maxsize=16)
def _defined_at(indent: int) -> re.Pattern[bytes]:
    """A Python ``def`` or ``class`` line indented ``indent`` characters: the name it defines."""
    return re.compile(rb"^[ \t]{%d}(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)" % indent, re.MULTILINE)


def _redefined(data: bytes, start: int) -> bool:
    """Whether the Python definition starting at ``start`` has a decorator that defines its name
    again on purpose (``@x.setter``, ``@overload``)."""
    end = start
    for _ in range(8):  # its decorators, each a line above
        line = _line_start(data, max(0, end - 1))
        if end <= 0 or not data[line:end].strip().startswith(b"@"):
            return False
        if _PY_REDEFINES.match(data[line:end].strip()):
            return True
        end = line
    return False


def declared_before(context: CompletionContext) -> set[str]:
    """``declaring``'s names not offered at the cursor."""
    return set(declaring(context).taken)


def _initialised(language: str, data: bytes, offset: int) -> set[bytes]:
    """In the value of ``const x = f(|`` or ``let x = |`` (on its line, before any function or
    brace in it), {x}: reading x in its own initialiser throws (the temporal dead zone); and past
    the start of ``var x = f(a, |``'s (``var x = x || {}`` is an idiom; in held-out JavaScript
    the truth was the name declared at none of the 339 places in a ``var``'s value). In
    Python's ``x = f(|`` the same where nothing before the line names x (within BOUND_READ
    bytes): an unbound name cannot be read, where ``x = x + 1`` rebinds one."""
    if language == "python":
        return _python_initialised(data, offset)
    pattern = _INITIALISED.get(language)
    if pattern is None:
        return set()
    found = pattern.search(data, max(0, offset - 256), offset)
    return {found.group(1)} if found else set()


def _python_initialised(data: bytes, offset: int) -> set[bytes]:
    line = _line_start(data, offset)
    found = _PY_TARGET.match(data, line, offset)
    if found is None or b"lambda" in found.group(2) or found.group(1) in _PY_BUILTINS:
        return set()
    previous = data[max(0, line - 256):line].rstrip()
    if previous.endswith((b"(", b"[", b"{", b",", b"\\")):
        return set()  # a keyword argument or a continued line, not a statement's target
    name = re.compile(rb"(?<![\w.])" + re.escape(found.group(1)) + rb"(?!\w)")
    return set() if name.search(data, max(0, line - BOUND_READ), line) else {found.group(1)}


def _python_declared(data: bytes, line_start: int) -> tuple[set[bytes], bool]:
    """The def and class names of the lines above ``line_start`` at its indentation, up to the
    line that opens their block; and whether that line opens a class."""
    indent = len(_INDENT.match(data, line_start).group(0))
    names: set[bytes] = set()
    lo, end, first = max(0, line_start - READ), line_start - 1, True
    while end > lo:
        start = max(data.rfind(b"\n", lo, end) + 1, lo)
        if start == lo and lo and data[lo - 1:lo] != b"\n":
            break  # a line cut by the bytes read: its indentation is not known
        text = data[start:end].rstrip(b"\r")
        end = start - 1
        stripped = text.lstrip(b" \t")
        if not stripped or stripped.startswith(b"#"):
            continue
        if first and stripped.startswith(b"@"):
            if _PY_REDEFINES.match(stripped):
                return set(), False  # a property's setter, an overload: the name is meant to come again
            continue  # the decorators of the definition being typed
        first = False
        depth = len(text) - len(stripped)
        if depth < indent:
            return names, stripped.startswith(b"class") and _PY_DEFINITION.match(stripped) is not None
        if depth == indent and (found := _PY_DEFINITION.match(stripped)):
            names.add(found.group(1))
    if lo and indent:  # a long block: the line that opens it, further back (a class of 2,000 lines)
        opener = None
        for opener in _indented_less(indent).finditer(data, max(0, lo - CALLS_READ), lo):
            pass
        return names, opener is not None and opener.group(1) == b"class"
    return names, False


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
