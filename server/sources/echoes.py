"""What a position repeats: the name on the other side of the ``=`` (or ``:``) around the cursor.

- A Python keyword argument's value: ``f(cookies=c|`` -> ``cookies``.
- A Python parameter's default, the constant named as it in capitals: ``def f(limit: int =
  L|`` -> ``LIMIT``.
- The value assigned to a member: ``self.timeout = t|`` -> ``timeout``; ``this._exit =
  other._|`` -> ``_exit``.
- Inside a file, the other way: the plain name assigned right after the cursor, where a member
  is typed (``self.|`` before `` = timeout``, ``exports.R|`` before `` = Router``) or a Python
  keyword argument's name (``f(|`` before ``=cookies)``); in JavaScript, a named function
  expression's name (``res.|`` before `` = function sendStatus(``); in JavaScript only once a
  character typed matches (``a.| = name`` is often another member there).
- A Python annotation: the type named after what it annotates, its letters in order (``env:
  E|`` -> ``Environment``, ``ctx: C|`` -> ``Context``): ``annotated`` and ``named_after``.
- JavaScript, inside a file: the name a required or imported module binds, named after the
  module (``var | = require('./route')`` -> ``Route``): ``required_after``.

Each is one feature of the ranker (ranking/features.py), which weighs it against the model and
the buffer: where a character is typed it holds only where the name starts with it, and in
JavaScript and TypeScript it reads a member's value only (``a.x = b.x``). How often it is right,
counted on lists of valid-split packages (``python -m benchmarks.rule_precision``), is in
docs/decisions.md.
"""

from __future__ import annotations

import re

from ..context import ATTRIBUTE, NAME, CompletionContext

READ = 256  # bytes of the cursor's line read before it
_KEYWORD = re.compile(rb"[(,][ \t]*([A-Za-z_]\w*)[ \t]*=[ \t]*\Z")  # `f(a, cookies=`
_KEYWORD_LINE = re.compile(rb"[ \t]*([A-Za-z_]\w*)=\Z")  # `    cookies=` on a line of its own, after `(` or `,`
# `self.timeout = `, `this._exit = other.` (`(member) = (receiver.)*`; JavaScript: a member's value only)
_MEMBER = rb"(?:^|[;{])[ \t]*([A-Za-z_$][\w$]*(?:\.[\w$]+)*)\.([A-Za-z_$][\w$]*)[ \t]*=[ \t]*((?:[A-Za-z_$][\w$]*\.)"
_MEMBERS = {"python": re.compile(_MEMBER + rb"*)\Z"), "javascript": re.compile(_MEMBER + rb"+)\Z")}


# What follows the cursor: the rest of its word, `=` and a plain name ending the statement or the argument.
_AFTER = re.compile(rb"[\w$]*[ \t]*=(?![=>])[ \t]*([A-Za-z_$][\w$]*)[ \t]*(?:[;,)]|\r?\n|\Z)")
_LITERALS = frozenset({b"True", b"False", b"None", b"true", b"false", b"null", b"undefined", b"this", b"self", b"NaN"})
_FUNCTION_AFTER = re.compile(rb"[\w$]*[ \t]*(?:=(?![=>])|:)[ \t]*(?:async[ \t]+)?function[ \t]*\*?[ \t]*([A-Za-z_$][\w$]*)[ \t]*\(")
_OPENS = re.compile(rb"[(,][ \t]*\Z")  # an argument starts at the cursor


def echoed(context: CompletionContext) -> str | None:
    """The name the identifier at the cursor repeats, where one is being typed and that name
    starts with what is typed (in the case typed); else None."""
    if context.language.name not in ("python", "javascript", "typescript", "typescriptreact"):
        return None
    data, start = context.data, context.prefix_start
    line = data.rfind(b"\n", 0, start) + 1
    text = data[max(line, start - READ):start]
    if not context.prefix:
        found = _value_after(context, data, line, text) if context.language.name == "python" else _function_after(context)
        return found.decode("utf-8", "replace") if found is not None else None
    member = _MEMBERS["python" if context.language.name == "python" else "javascript"].search(text)
    if member is not None:  # not `self.x = self.x`
        found = member.group(2) if member.group(3).rstrip(b".") != member.group(1) else None
    elif context.language.name == "python":
        if (default := _default(context)) is not None:  # `def f(limit: int = L|`: LIMIT
            name = default.decode("utf-8", "replace").upper()
            return name if name.startswith(context.prefix) else None
        keyword = _KEYWORD.search(text) or _keyword_line(data, line, text)
        found = keyword.group(1) if keyword is not None else _keyword_argument(context)
    else:
        found = None
    if found is None:
        found = _value_after(context, data, line, text) or _function_after(context)
    if found is None:
        return None
    name = found.decode("utf-8", "replace")
    return name if name.startswith(context.prefix) else None


def _function_after(context: CompletionContext) -> bytes | None:
    """Inside a JavaScript file, the name of the function expression assigned right after the
    cursor (``res.|`` before `` = function sendStatus(``, ``{ |`` before ``match: function
    match(``): what it is assigned to is named as it."""
    if context.language.name == "python":
        return None
    found = _FUNCTION_AFTER.match(context.data, context.cursor)
    return found.group(1) if found is not None else None


def _value_after(context: CompletionContext, data: bytes, line: int, text: bytes) -> bytes | None:
    """Inside a file, the plain name assigned right after the cursor where a member is being
    typed (``self.|`` before `` = timeout``, ``exports.|`` before `` = Router``) or a Python
    keyword argument's name (``f(|`` before ``=cookies)``)."""
    after = _AFTER.match(data, context.cursor)
    if after is None or after.group(1) in _LITERALS:
        return None
    if context.category == ATTRIBUTE:
        return after.group(1)
    if context.language.name == "python" and (_OPENS.search(text) or (
            not text.strip() and data[max(0, line - READ):line].rstrip()[-1:] in (b"(", b","))):
        return after.group(1)
    return None


def _keyword_line(data: bytes, line: int, text: bytes) -> re.Match[bytes] | None:
    """A keyword argument's name on a line of its own, the line before ending in ``(`` or ``,``
    (``=`` with no spaces around it: an assignment statement has them)."""
    found = _KEYWORD_LINE.fullmatch(text)
    return found if found is not None and data[max(0, line - READ):line].rstrip()[-1:] in (b"(", b",") else None


def _keyword_argument(context: CompletionContext) -> bytes | None:
    """A keyword argument's name on a line of its own (``    cookies=c|``), by the tree."""
    target = context.target
    parent = target.parent if target is not None else None
    if parent is None or parent.type != "keyword_argument":
        return None
    value, name = parent.child_by_field_name("value"), parent.child_by_field_name("name")
    return name.text if value is not None and name is not None and value.start_byte == target.start_byte else None


def _default(context: CompletionContext) -> bytes | None:
    """At a parameter's default value (``def f(limit: int = |``), by the tree, the parameter's
    name, where the first character typed, a capital, starts it: its default is often the constant
    named as it in capitals (a parameter is no name its own default can read)."""
    target = context.target
    parent = target.parent if target is not None else None
    if parent is None or parent.type not in ("default_parameter", "typed_default_parameter"):
        return None
    value, name = parent.child_by_field_name("value"), parent.child_by_field_name("name")
    return name.text if value is not None and name is not None and value.start_byte == target.start_byte else None


# A Python annotation being typed: `(self, env: E|`, `timeout: t.O|`, `self.commands: t.M|`.
_ANNOTATED = re.compile(rb"(?:^|[(,]|\bself\.)[ \t]*([A-Za-z_]\w*)[ \t]*:[ \t]*(?:[A-Za-z_][\w.]*\.)?\Z")


def annotated(context: CompletionContext) -> str | None:
    """At a Python annotation with a character typed that starts the name annotated, that name
    (lower-cased, without its underscores): the type is named after it, its letters in order
    (``env: Environment``, ``ctx: Context``, ``headers: HeaderTypes``)."""
    if not context.prefix or context.language.name != "python":
        return None
    data, start = context.data, context.prefix_start
    line = data.rfind(b"\n", 0, start) + 1
    found = _ANNOTATED.search(data, max(line, start - READ), start)
    if found is None:
        return None
    name = found.group(1).decode("utf-8", "replace").strip("_").lower()
    return name if len(name) > 1 and name.startswith(context.prefix.lower()) else None


def named_after(word: str, name: str) -> bool:
    """Whether ``word`` holds the letters of ``name`` (lower-case) in order."""
    letters = iter(word.lower())
    return all(c in letters for c in name)


# After the cursor, the module a declaration takes: ` = require('./route')`, ` from 'on-finished'`.
_REQUIRED_AFTER = re.compile(rb"[\w$]*[ \t]*(?:=[ \t]*require[ \t]*\([ \t]*|[ \t]from[ \t]*)(['\"])([^'\"\r\n]+)\1[ \t]*\)?[ \t]*(?:;|\r?\n|\Z)")


def required_after(context: CompletionContext) -> frozenset[str]:
    """Inside a JavaScript file, at the name that ``const | = require('m')`` or ``import | from
    'm'`` binds, the names a module so named is bound to (lower-cased): its file's name in camel
    case (``./route`` -> route, ``on-finished`` -> onfinished, ``node:child_process`` ->
    childprocess) and the last part of a dashed one (``array-flatten`` -> flatten)."""
    if context.language.name == "python" or context.category != NAME:
        return frozenset()
    found = _REQUIRED_AFTER.match(context.data, context.cursor)
    if found is None:
        return frozenset()
    base = found.group(2).decode("utf-8", "replace").rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    base = re.sub(r"\.(?:js|cjs|mjs|json|ts)$", "", base)
    return frozenset({re.sub(r"[-_.]", "", base).lower(), base.rsplit("-", 1)[-1].lower()})
