"""What a name was last given before the cursor, read from the text (and the syntax tree where a
type test narrows it): a call (``x = a.B(``, ``const x = new B(``, ``x = f(a).g()``), a literal,
and in Python a ``with``, an annotation, a loop's element and an ``isinstance``. receivers.py
turns it into what the libraries read.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

import tree_sitter

from . import narrowing
from .context import CompletionContext
from .languages import FUNCTIONS
from .literals import literal_class, literal_end, whole
from .python_types import DOTTED as _DOTTED
from .python_types import FOR, annotated_class, annotation_class, item_class, last_match, loop_class, narrowed_class
from .words import alone, node_text

ASSIGNMENT_READ = 16 * 1024  # ``x = Class(...)`` is looked for this far back
# JavaScript calls whose result's class is known: by the callee, and by the method's name alone
JS_RETURNS = {"Object.keys": "Array", "Object.values": "Array", "Object.entries": "Array", "Array.from": "Array",
              "Array.of": "Array", "JSON.stringify": "String", "String": "String"}
JS_METHOD_RETURNS = {"split": "Array", "join": "String"}
# a Python name given an item of another: `= users[0]`, `= by_id.get(key)`, and nothing after on its line
_ITEM = rb"\s*=\s*" + _DOTTED + rb"\s*(\[|\.get\()[^\n]*?[\])][ \t]*(?=\n|#|;)"
_RETURNS = re.compile(rb"@returns?\s*\{([^{}\n]+)\}")
_CONSTANTS = frozenset({b"None", b"True", b"False"})
PROMISED = re.compile(rb"Promise\s*<\s*(.*?)\s*>", re.S)  # what a promise gives: group 1
_TS_CLASS = re.compile(rb"([A-Z][\w$]*|this)(?:\s*\|\s*(?:null|undefined))*")  # a class (`this`: a method's own), or null, or undefined
_FUNCTIONS = ("function_definition", "function_declaration", "method_definition")
_ASYNC = re.compile(rb"async\s+\Z")  # before `with`: `async with`, whose name holds what __aenter__ gives
_CHAINED = re.compile(rb"\s*\??\.\s*([A-Za-z_$][\w$]*)\s*\(")  # a method called on a call's result: `).join(`


def assigned_class(context: CompletionContext, name: str) -> list[str] | None:
    """What ``name`` was last given before the cursor: the class of an instance (``x = a.B(`` ->
    ["a", "B"], ``const x = new B(`` -> ["B"]), a call's result, its function marked ``()``
    (``log = logging.getLogger(`` -> ["logging", "getLogger()"], ``with open(p) as fh`` ->
    ["open()"]: the libraries read what it returns; the methods called on it after, each marked
    ``()``: ``m = re.compile(p).match(s)`` -> ["re", "compile()", "match()"]), or, in Python, the
    type written for it (``self.root: Path`` -> ["Path"]), an element of what a loop iterates,
    marked ``[]`` (``for line in fh:`` -> ["fh", "[]"]), or another name or attribute (``q =
    p.parent`` -> ["p", "parent"])."""
    python = context.language.name == "python"
    found = _assigned(context.data, context.prefix_start, name, python, context.tree)
    if found is not None and not python and "." not in name and context.tree is not None \
            and not seen_at(context.tree.root_node, max(0, context.prefix_start - ASSIGNMENT_READ) + found[0], context.prefix_start):
        return None  # another function's `c = new Cache()`
    call = assigned_call(context.data, context.prefix_start, name)
    if call is not None and len(call.names) == 1 and not call.then and call.whole and context.tree is not None \
            and (found is None or found[0] == call.start) and (python or seen_at(context.tree.root_node,
                                                                               max(0, context.prefix_start - ASSIGNMENT_READ) + call.start,
                                                                               context.prefix_start)):
        declared = returned_by(context.tree.root_node, call.names[0], python, call.awaited)
        if declared is not None:  # `u = load()` of `def load() -> User` in the file
            return list(declared)
    return list(found[1]) if found is not None else None


def attribute_class(context: CompletionContext, start: int, end: int, name: str) -> list[str] | None:
    """What the class in the bytes [start, end) says its attribute ``name`` (``self.x``,
    ``this.x``) holds, read as assigned_class reads a name, at the class's end and inside the
    class only: its body's annotation (``x: X``), an instance a method assigns it (``self.x =
    X()``)."""
    end = context.data.find(b"\n", end) + 1 or len(context.data)  # the class's last line whole
    found = _assigned(context.data, end, name, context.language.name == "python", context.tree)
    if found is None or max(0, end - ASSIGNMENT_READ) + found[0] < start:
        return None
    return list(found[1])


def returned_by(root: tree_sitter.Node, name: str, python: bool, awaited: bool) -> tuple[str, ...] | None:
    """The class that the file's top-level function ``name`` (or, ``root`` a class's body, its
    method) is declared to return (``def load() -> User``, ``-> Optional[User]``; TypeScript's
    ``function load(): User``, awaited ``Promise<User>``; JSDoc's ``@returns {User}``); where
    none is written, what each of its ``return`` statements gives alike (given_back)."""
    for child in root.named_children:
        if child.type in ("decorated_definition", "export_statement"):
            child = child.child_by_field_name("definition") or child.child_by_field_name("declaration") or child
        if child.type not in _FUNCTIONS or node_text(child.child_by_field_name("name")) != name:
            continue
        written = child.child_by_field_name("return_type")
        if python:
            return annotation_class(written.text or b"") if written is not None else given_back(child, python, awaited)
        comment = child.prev_named_sibling if written is None else None  # JSDoc's `@returns {User}`
        documented = _RETURNS.search(comment.text or b"") if comment is not None and comment.type == "comment" else None
        if written is None and documented is None:
            return given_back(child, python, awaited)
        text = (written.text or b"").lstrip(b":").strip() if written is not None else documented.group(1).strip()
        if awaited and (promised := PROMISED.fullmatch(text)) is not None:
            text = promised.group(1)
        match = _TS_CLASS.fullmatch(text)
        return (match.group(1).decode(),) if match is not None else None
    return None


_NESTED = frozenset({*FUNCTIONS["python"], *FUNCTIONS["javascript"], "class_definition", "class_declaration", "class"})
_GIVEN_READ = 2000  # nodes of a function's body looked through for its returns


def given_back(function: tree_sitter.Node, python: bool, awaited: bool) -> tuple[str, ...] | None:
    """The class every ``return`` of a function whose result no annotation declares gives, where
    they all give the same: a new instance of a class (``return User(...)``, ``return new
    User()``), of the method's own (``return cls(...)``, ``return self``, ``return this``: ``Self``
    / ``this``, file_classes.SELF). None where one returns anything else, where none returns a
    value, in a generator, in an async function not awaited, or past _GIVEN_READ nodes."""
    if function.children and function.children[0].type == "async" and not awaited:
        return None
    found: set[tuple[str, ...]] = set()
    body = function.child_by_field_name("body")
    if not python and body is not None and body.type != "statement_block":  # `() => new Batch()`
        return _instance_given(body, python)
    stack, seen = list(body.named_children) if body is not None else [], 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > _GIVEN_READ or node.type in ("yield", "yield_expression"):
            return None
        if node.type == "return_statement":
            value = node.named_children[0] if node.named_children else None
            given = _instance_given(value, python) if value is not None else None
            if given is None:
                return None
            found.add(given)
        elif node.type not in _NESTED:
            stack.extend(node.named_children)
    return found.pop() if len(found) == 1 else None


def _instance_given(value: tree_sitter.Node, python: bool) -> tuple[str, ...] | None:
    """The class whose instance a returned expression is: ``User(...)`` (a capitalised name),
    ``models.User(...)`` (its path), ``cls(...)``, ``type(self)(...)``, ``self.__class__(...)``
    and ``self`` (``Self``); JavaScript's ``new User()``, ``new models.User()``, ``this`` and
    ``new this.constructor()`` (``this``)."""
    if python:
        if value.type == "identifier" and value.text == b"self":
            return ("Self",)
        function = value.child_by_field_name("function") if value.type == "call" else None
    else:
        if value.type == "this":
            return ("this",)
        function = value.child_by_field_name("constructor") if value.type == "new_expression" else None
    written = node_text(function) if function is not None else ""
    if written in (("cls", "type(self)", "self.__class__") if python else ("this.constructor",)):
        return ("Self",) if python else ("this",)
    path = tuple(written.split(".")) if function is not None and function.type in _PATHS else ()
    if not path or not path[-1][:1].isupper() or path[0] in ("self", "cls", "this") \
            or not all(part.isidentifier() for part in path):
        return None
    return path


_PATHS = frozenset({"identifier", "attribute", "member_expression"})


class Call(NamedTuple):
    """A call assigned to a name (assigned_call)."""

    start: int  # where the assignment starts, in the bytes read before the cursor
    names: tuple[str, ...]  # the callee's
    awaited: bool
    then: tuple[str, ...]  # the methods called in turn on its result (`line.split(',').join('-')`: join)
    whole: bool  # whether the last call is all of the value (not `f(x) + 1`, `f(x).name`)


@functools.lru_cache(maxsize=4)  # a request after a dot asks it up to three times (receivers, calls.py): read once
def assigned_call(data: bytes, offset: int, name: str) -> Call | None:
    """The last call ``name`` was given before ``offset`` (``x = a.b(``, ``const x = new B(``,
    ``x = await f(``, ``x = a.b(c).d()``), in the ASSIGNMENT_READ bytes before."""
    before = data[max(0, offset - ASSIGNMENT_READ):offset]
    form = alone(re.escape(name.encode())) + rb"\s*(?::[^=\n]*)?=\s*(new\s+|await\s+)?" + _DOTTED + rb"\s*\("
    found = last_match(re.compile(form), before, 0, len(before))
    if found is None:
        return None
    then, opening = _then(before, found.end() - 1)
    return Call(found.start(), tuple(found.group(2).decode().split(".")), (found.group(1) or b"").startswith(b"await"),
                then, whole(before, opening))


def _then(before: bytes, opening: int) -> tuple[tuple[str, ...], int]:
    """The methods called in turn on the result of the call whose arguments open at ``opening``
    (``line.split(',').join('-')``: join), and where the last call's arguments open."""
    then = []
    while not whole(before, opening) and (end := literal_end(before, opening)) is not None \
            and (method := _CHAINED.match(before, end)) is not None:
        then.append(method.group(1).decode())
        opening = method.end() - 1
    return tuple(then), opening


def seen_call(root: tree_sitter.Node, data: bytes, offset: int, name: str) -> Call | None:
    """assigned_call's, where the assignment may be what the name holds at ``offset`` (seen_at)."""
    found = assigned_call(data, offset, name)
    if found is None or not seen_at(root, max(0, offset - ASSIGNMENT_READ) + found[0], offset):
        return None
    return found


def seen_at(root: tree_sitter.Node, start: int, cursor: int) -> bool:
    """Whether a JavaScript assignment at ``start`` may be what a name holds at ``cursor``: not
    inside a function that ends before the cursor (another function's ``value = Math.min(…)``);
    a block closed since is no bar (``try { x = new Foo() } …`` then ``x.``), nor a function the
    tree did not read whole (the cursor's own, in a buffer broken there)."""
    node = root.descendant_for_byte_range(start, start + 1)
    while node is not None and node.type not in FUNCTIONS["javascript"]:
        node = node.parent
    return node is None or node.end_byte >= cursor or node.has_error


@functools.lru_cache(maxsize=2)  # asked twice a request after a dot (target_of, builtin_instance): read once
def _assigned(data: bytes, offset: int, name: str, python: bool = False,
              tree: tree_sitter.Tree | None = None) -> tuple[int, tuple[str, ...]] | None:
    """Where ``name`` was last given what its class is read from, in the ASSIGNMENT_READ bytes
    before ``offset``, and assigned_class's names (``tree``: ``data``'s, where a type test
    narrows the name)."""
    base = max(0, offset - ASSIGNMENT_READ)
    before = data[base:offset]
    word = re.escape(name.encode())
    call = assigned_call(data, offset, name)
    best = (0, call.start, call.names) if call is not None else None  # (form, start, names)
    literal = literal_class(before, word, python)
    if literal is not None and (best is None or literal[0] > best[1]):  # `items = []`, `this.name = ''`
        best = (2, literal[0], (literal[1],))
    if python:  # `with open(p) as fh:`; `root: Path` (an attribute, a parameter); a loop's variable
        found = last_match(re.compile(alone(b"with", rb"\w") + rb"\s+" + _DOTTED + rb"\s*\([^\n]*?\)\s+as\s+" + word + rb"\b"), before, 0, len(before))
        if found is not None and (best is None or found.start() >= best[1]):  # what its __enter__ gives
            entered = "__aenter__" if _ASYNC.search(before, max(0, found.start() - 16), found.start()) else "__enter__"
            best = (4, found.start(), _made(tuple(found.group(1).decode().split(".")), (entered,)))
        item = last_match(re.compile(alone(word, rb"[\w.]") + _ITEM), before, 0, len(before))
        if item is not None and (best is None or item.start() >= best[1]) \
                and (cls := item_class(before[:item.start()], item.group(1), item.group(2) == b".get(")) is not None:
            best = (2, item.start(), cls)  # `u = users[0]` of `users: list[User]`, `u = by_id.get(k)` of `dict[int, User]`
        held = last_match(re.compile(alone(word, rb"[\w.]") + rb"\s*(?::[^=\n]*)?=\s*" + _DOTTED + rb"[ \t]*(?=\n|#|;)"),
                          before, 0, len(before))
        if held is not None and (best is None or held.start() >= best[1]) and held.group(1) not in _CONSTANTS:
            best = (4, held.start(), tuple(held.group(1).decode().split(".")))  # `q = p.parent`, `env = os.environ`
        iterated = _iterated(before, word)
        if iterated is not None and (best is None or iterated[0] >= best[1]):
            best = (3, *iterated)
        narrowed = narrowed_class(before, word, lambda start, end: narrowing.holds(tree, data, base + start, base + end, offset))
        for written in (annotated_class(before, word), loop_class(before, word), narrowed):  # `for u in users:` of `users: list[User]`
            if written is not None and (best is None or written[0] >= best[1]):  # the type written wins a tie
                best = (2, *written)
    if best is None:
        return None
    names = best[2]
    then = call.then if best[0] == 0 else ()  # `m = re.compile(p).match(s)`: Match; `line.split(',').join('-')`: String
    if best[0] >= 2 or names[-1][:1].isupper() and not then:
        return best[1], names  # a class, by convention, the type written, a loop's element, a with's
    if python:  # a function's result: what it is declared to return; a class's instance's method's
        return best[1], _made(names, then)
    if then:
        known = JS_METHOD_RETURNS.get(then[-1])
    else:  # `const keys = Object.keys(o)`, `parts = line.split(',')`
        known = JS_RETURNS.get(".".join(names)) or (JS_METHOD_RETURNS.get(names[-1]) if len(names) > 1 else None)
    return (best[1], (known,)) if known is not None and call.whole else None  # not `.split(',').map(f)`, `.length`


def _made(names: tuple[str, ...], then: tuple[str, ...]) -> tuple[str, ...]:
    """A Python call's result as assigned_class writes it: a class's instance (``Path(p)``:
    Path) or a function's result (``open(p)``: ``open()``), then the methods called on it."""
    made = names if names[-1][:1].isupper() else names[:-1] + (names[-1] + "()",)
    return made + tuple(f"{method}()" for method in then)


def _iterated(before: bytes, word: bytes) -> tuple[int, tuple[str, ...]] | None:
    """Where the last Python loop in ``before`` binds ``word`` (escaped) to an element of a name
    or of a call's result (``for line in fh:``, ``for p in Path(d).iterdir():``), and that as
    assigned_class writes it, ``[]`` last (``("fh", "[]")``, ``("Path", "iterdir()", "[]")``)."""
    loop = last_match(re.compile(FOR + rb"\s+" + word + rb"\s+in\s+" + _DOTTED + rb"\s*([(:])"), before, 0, len(before))
    if loop is None:
        return None
    names = tuple(loop.group(1).decode().split("."))
    if loop.group(2) == b"(":
        then, opening = _then(before, loop.end() - 1)
        end = literal_end(before, opening)
        if end is None or re.compile(rb"[ \t]*:").match(before, end) is None:
            return None  # not the whole iterable: `for x in f(a) + g(b):`
        names = _made(names, then)
    return loop.start(), names + ("[]",)
