"""What a declaring position (sources/declarations.py says where one is) has declared
already, and what it still needs: the ``Declaring`` record the engines read once per request.

At a declaration, the names its block declares before the cursor (and, inside a file, below
it) are *taken*: not offered again. At a parameter, the parameters listed before it are.

At a member's name in a JavaScript class body or object literal (``  |``, ``  static |``,
``  get |``), the members the body defines already before it are not offered
(but, after ``get`` or ``set``, those the other accessor defines: a getter's setter shares its
name). There, and at a Python ``def`` in a class, the methods that ``this.`` / ``self.`` calls
before the cursor and the class neither defines nor assigns are *pending*: a feature the ranker
reads (ranking/features.py; a class calls methods it defines further down); inside a file, those only the code after
the cursor calls come next (a class also calls what it inherits), a name the class or block
defines below the cursor is not offered (a method is defined once), and at an accessor's name
(``get |``) the member only the other accessor defines is pending too (they come as a pair). The
body is the innermost brace still open in the READ bytes before the cursor, or, further back (a
long class), the class body of the syntax tree at the cursor; a Python class longer than READ
is found by its opening line, up to CALLS_READ bytes back.
"""

from __future__ import annotations

import builtins
import functools
import re
from dataclasses import dataclass, field

from ..context import NAME, CompletionContext
from ..words import alone
from .declarations import (ACCESSOR_BYTES, INITIALISED, JS_QUOTED, READ, blanked, declares, documented_parameter, js_members,
                           line_start, member_position, parameter_list)

CALLS_READ = 128 * 1024  # bytes before the cursor read for the methods a class calls
# A member of the object a method runs on, called (`(`) or assigned (`=`). The receiver is a
# literal first, so that the regular expression engine skips to it (a look-behind there does not).
_OWN_USE = {language: re.compile(receiver + rb"[ \t]*\.[ \t]*#?([A-Za-z_$][\w$]*)[ \t]*(\(|=(?!=))?")
            for language, receiver in (("python", b"self"), ("javascript", b"this"), ("typescript", b"this"),
                                       ("typescriptreact", b"this"))}
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_INDENT = re.compile(rb"[ \t]*")
_PY_DEFINITION = re.compile(rb"(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)")
# A decorator after which a name is defined again on purpose (@x.setter, @overload, @f.register).
_PY_REDEFINES = re.compile(rb"@[ \t]*(?:[\w.]*\.(?:setter|getter|deleter|register)|(?:typing\.)?overload)\b")
# Braces and statement-level declarations (not `for (let i ...`, whose name the loop scopes).
_JS_TOKENS = re.compile(rb"[{}]|(?:^|(?<=[;{}]))[ \t]*(?:export[ \t]+(?:default[ \t]+)?)?(?:async[ \t]+)?"
                        rb"(?:const|let|var|class|function(?:[ \t]*\*)?)[ \t]+([A-Za-z_$][\w$]*)", re.MULTILINE)
# The declarations without a body that announce the next one's name (TypeScript's overloads).
_SIGNATURES = frozenset({"function_signature", "method_signature"})  # an interface's method_signature announces nothing
OVERLOADS = {"typescript": _SIGNATURES, "typescriptreact": _SIGNATURES}
# A parameter's name, past TypeScript's modifiers of a constructor's parameter property.
# A Python assignment's target and its value up to the cursor, on a statement's line.
_PY_TARGET = re.compile(rb"[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)([^\n#]*)$")
_PY_BUILTINS = frozenset(name.encode() for name in dir(builtins))
BOUND_READ = 256 * 1024  # bytes before an assignment's line searched for its target's name
# A function expression's name after what it is assigned to (``res.send = function |``,
# ``send: function |``, ``const send = function |``): the same name, as a rule (not
# ``module.exports = function |``).
_JS_NAMED_FUNCTION = re.compile(rb"([A-Za-z_$][\w$]*)[ \t]*(?::|=(?!=))[ \t]*(?:async[ \t]+)?function[ \t]*\*?[ \t]*\Z")
DOCUMENTED = frozenset({"javascript", "typescript", "typescriptreact"})  # the languages whose doc comments name parameters above them


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
        found = parameter_list(language, context.data, context.prefix_start, context.target)
        parameter = found is not None
        names = found[1] if found is not None else _initialised(language, context.data, context.prefix_start)
    elif language == "python":
        names, method = _python_declared(context.data, line_start(context.data, context.prefix_start))
    else:
        code = context.data[max(0, context.prefix_start - READ):context.prefix_start]
        names = _javascript_declared(JS_QUOTED.sub(b" ", code))
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
    if member is not None and modifiers & ACCESSOR_BYTES:  # `get |` above `set status(v)`: status
        pending |= _texts(_partners(members + (after.members if after is not None else []), modifiers))
    overloaded = _overloaded(context) if declaration and language in OVERLOADS else None
    if overloaded is not None:  # `function f(a: string): void;` above: `f` again, first
        names.discard(overloaded)
        pending |= _texts({overloaded})
    if found is not None and language in DOCUMENTED:  # `/** @param a  @param b */ function f(a, |`: `b`, first
        documented = documented_parameter(context.data, found[0], names)
        pending |= _texts({documented} if documented is not None else set())
    if not declaration and not parameter and language in DOCUMENTED:
        start = max(line_start(context.data, context.prefix_start), context.prefix_start - 256)
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
    end = _code_end(data, line_start(data, context.prefix_start))
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
    the one being typed (a method is defined once in its class), and the methods
    it calls below and defines nowhere are pending as those called above."""
    data, offset = context.data, context.cursor
    if language == "python":
        line = line_start(data, context.prefix_start)
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
    elif language in INITIALISED and modifiers is not None:  # a JavaScript class body's or object literal's member
        code = blanked(data[offset:offset + CALLS_READ])
        members, end = js_members(code)
        code = code[:end]
        defined = {name for _, name in members}
        taken = _taken(members, modifiers)
    elif language in INITIALISED:  # `const |`, `function |`: what the block declares below
        code = blanked(data[offset:offset + READ])
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
        line = line_start(data, max(0, end - 1))
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
    the start of ``var x = f(a, |``'s (``var x = x || {}`` is an idiom). In
    Python's ``x = f(|`` the same where nothing before the line names x (within BOUND_READ
    bytes): an unbound name cannot be read, where ``x = x + 1`` rebinds one."""
    if language == "python":
        return _python_initialised(data, offset)
    pattern = INITIALISED.get(language)
    if pattern is None:
        return set()
    found = pattern.search(data, max(0, offset - 256), offset)
    return {found.group(1)} if found else set()


def _python_initialised(data: bytes, offset: int) -> set[bytes]:
    line = line_start(data, offset)
    found = _PY_TARGET.match(data, line, offset)
    if found is None or b"lambda" in found.group(2) or found.group(1) in _PY_BUILTINS:
        return set()
    previous = data[max(0, line - 256):line].rstrip()
    if previous.endswith((b"(", b"[", b"{", b",", b"\\")):
        return set()  # a keyword argument or a continued line, not a statement's target
    name = re.compile(alone(re.escape(found.group(1)), rb"[\w.]") + rb"(?!\w)")
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


def _partners(defined: list[tuple[set[bytes], bytes]], modifiers: set[bytes]) -> set[bytes]:
    """At an accessor's name, the members that only the other accessor defines: a getter and its
    setter come as a pair."""
    mine = modifiers & ACCESSOR_BYTES
    other = {name for mods, name in defined if mods & ACCESSOR_BYTES and not mods & mine}
    return other - {name for mods, name in defined if mods & mine or not mods & ACCESSOR_BYTES}


def _taken(defined: list[tuple[set[bytes], bytes]], modifiers: set[bytes]) -> set[bytes]:
    """Of the members ``defined`` (modifiers, name), those not defined again with ``modifiers``:
    all but, at an accessor, those that only the other accessor defines."""
    accessor = modifiers & ACCESSOR_BYTES
    taken: set[bytes] = set()
    for mods, name in defined:
        other = mods & ACCESSOR_BYTES
        if not accessor or not other or other == accessor:
            taken.add(name)
    return taken
