"""What the object before a dot is, as far as the buffer says: a module or a module's name that
an import binds (``os.path``, ``t`` for ``import typing as t``), a name assigned an instance of
such a class (``p = Path(...)``), or the class around the cursor (``self.``, ``cls.``,
``this.``). Read from the syntax tree and the text before the cursor; nothing here reads the
disk (server/sources/libraries/ does, off the request path).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import tree_sitter

from .assignments import ASSIGNMENT_READ, JS_METHOD_RETURNS, JS_RETURNS, assigned_class
from .context import ATTRIBUTE_PARENTS, CompletionContext, member_access
from .languages import LanguageSpec
from .open_classes import closed_class
from .python_types import item_class
from .words import node_text

BINDINGS_READ = 32 * 1024  # imports are read in the file's first 32 KB and the 16 KB before the cursor
CLASS_READ = 256 * 1024  # a larger class body is not read for its members
_CHAIN = re.compile(r"[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*")
OWN = {"python": ("self", "cls"), "javascript": ("this",), "typescript": ("this",), "typescriptreact": ("this",)}
TYPED = frozenset({"typescript", "typescriptreact"})  # where a name's type may be written (``user: User``)

_PROPERTY = re.compile(r"^@\s*(?:[\w.]*\.)?(?:property|cached_property)\b|\.(?:setter|getter|deleter)\s*$")
_PY_IMPORTS = "[(import_statement) (import_from_statement)] @import"
_JS_IMPORTS = """
(import_statement source: (string (string_fragment) @source)) @import
(variable_declarator name: (_) @name value: (call_expression function: (identifier) @require
   arguments: (arguments . (string (string_fragment) @source))) (#eq? @require "require")) @import
"""


@dataclass(frozen=True)
class Target:
    """What a receiver refers to: ``module`` (a dotted Python name, or a JavaScript module
    specifier) and the names after it (``("path",)`` for ``os.path``)."""

    module: str
    names: tuple[str, ...] = ()


@dataclass
class OwnClass:
    """The class around the cursor: what its body defines, and its bases as written."""

    name: str
    members: dict[str, str] = field(default_factory=dict)  # name -> "method" | "attribute"
    bases: list[str] = field(default_factory=list)
    signatures: dict[str, str] = field(default_factory=dict)  # a method's parameters, ``(x, y=…)``
    dynamic: bool = False  # it defines __getattr__ / __getattribute__: any name may be a member
    statics: set[str] = field(default_factory=set)  # JavaScript's ``static`` members, among ``members``
    dual: set[str] = field(default_factory=set)  # of those, the names an instance member has too (``connect``)
    assigned: set[str] = field(default_factory=set)  # Python: the names the body assigns (an enum's members)


@functools.cache
def _query(language: tree_sitter.Language, source: str) -> tree_sitter.Query:
    return tree_sitter.Query(language, source)


def bindings(tree: tree_sitter.Tree, language: LanguageSpec, ranges: list[tuple[int, int]]) -> dict[str, Target]:
    """The names that the imports in ``ranges`` of the buffer bind, and what each refers to."""
    found: dict[str, Target] = {}
    python = language.name == "python"
    query = _query(language.language, _PY_IMPORTS if python else _JS_IMPORTS)
    for lo, hi in ranges:
        cursor = tree_sitter.QueryCursor(query)
        cursor.set_byte_range(lo, hi)
        for _, captures in cursor.matches(tree.root_node):
            (_python_binding if python else _js_binding)(captures, found)
    return found


def _python_binding(captures: dict, found: dict[str, Target]) -> None:
    statement = captures["import"][0]
    if statement.type == "import_statement":
        for name in statement.children_by_field_name("name"):
            if name.type == "aliased_import":
                found[node_text(name.child_by_field_name("alias"))] = Target(node_text(name.child_by_field_name("name")))
            else:
                dotted = node_text(name)
                found[dotted.split(".")[0]] = Target(dotted.split(".")[0])
        return
    module = node_text(statement.child_by_field_name("module_name"))
    if not module:
        return
    for name in statement.children_by_field_name("name"):
        if name.type == "aliased_import":
            found[node_text(name.child_by_field_name("alias"))] = Target(module, (node_text(name.child_by_field_name("name")),))
        else:
            found[node_text(name)] = Target(module, (node_text(name),))


def _js_binding(captures: dict, found: dict[str, Target]) -> None:
    source = node_text(captures["source"][0])
    if "name" in captures:  # const x = require('m'), const { a, b: c } = require('m')
        name = captures["name"][0]
        if name.type == "identifier":
            found[node_text(name)] = Target(source)
        elif name.type == "object_pattern":
            for part in name.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    found[node_text(part)] = Target(source, (node_text(part),))
                elif part.type == "pair_pattern" and part.child_by_field_name("value") is not None:
                    key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
                    if value.type == "identifier":
                        found[node_text(value)] = Target(source, (node_text(key),))
        return
    statement = captures["import"][0]
    clause = next((c for c in statement.named_children if c.type == "import_clause"), None)
    for part in clause.named_children if clause is not None else ():
        if part.type == "identifier":  # import x from 'm': its default export, a module's namespace for Node's
            found[node_text(part)] = Target(source)
        elif part.type == "namespace_import":
            found[node_text(part.named_children[0] if part.named_children else None)] = Target(source)
        elif part.type == "named_imports":
            for specifier in part.named_children:
                name, alias = specifier.child_by_field_name("name"), specifier.child_by_field_name("alias")
                found[node_text(alias or name)] = Target(source, (node_text(name),))


AWAIT = "await"  # a receiver's step (receiver_steps): what awaiting the value gives
_CALLS = ("call", "call_expression")
_WRAPPERS = ("non_null_expression", "parenthesized_expression", "await_expression")


def receiver_steps(node: tree_sitter.Node | None, limit: int, unwrap: bool = False) -> tuple[tree_sitter.Node | None, list[str]]:
    """A receiver node read from the outside in: the node it starts from (a name, ``self``,
    ``this``, a ``new``, whatever else) and the members and method calls taken from it, outermost
    first (``a.b().c`` -> (a, ["c", "b()"])); with ``unwrap``, through TypeScript's ``x!``,
    parentheses and ``await`` (a step AWAIT). (None, steps) past ``limit`` nodes read."""
    steps: list[str] = []
    for _ in range(limit):
        if node is None:
            break
        if unwrap and node.type in _WRAPPERS:
            if node.type == "await_expression":
                steps.append(AWAIT)
            node = node.named_children[0] if node.named_children else None
        elif node.type in ATTRIBUTE_PARENTS:
            steps.append(node_text(node.child_by_field_name(ATTRIBUTE_PARENTS[node.type])))
            node = node.child_by_field_name("object")
        elif node.type in _CALLS and (function := node.child_by_field_name("function")) is not None \
                and function.type in ATTRIBUTE_PARENTS:
            steps.append(node_text(function.child_by_field_name(ATTRIBUTE_PARENTS[function.type])) + "()")
            node = function.child_by_field_name("object")
        else:
            return node, steps
    return None, steps


def chain(receiver: str | None) -> list[str] | None:
    """``os . path`` -> ["os", "path"]; None where the receiver is not a chain of names (a call,
    an index)."""
    if not receiver or not _CHAIN.fullmatch(receiver.strip()):
        return None
    return [part.strip() for part in receiver.strip().split(".")]


def target_of(context: CompletionContext, bound: dict[str, Target]) -> Target | None:
    """What the receiver before the dot refers to, through the buffer's imports: a module, a
    module's name, or an instance of an imported class (``p = Path(...)`` … ``p.``); in Python
    also an attribute of what a name holds (``p.parent.``) and an item of an annotated
    collection (``users[0].``)."""
    names = chain(context.receiver)
    if not names and context.language.name == "python" and (item := _SUBSCRIPT.fullmatch(context.receiver or "")):
        before = context.data[max(0, context.prefix_start - ASSIGNMENT_READ):context.prefix_start]
        cls = item_class(before, item.group(1).encode())  # `users[0].` of `users: list[User]`
        return _class_target(cls, bound) if cls is not None else None
    if not names:
        return None
    head = bound.get(names[0])
    if head is None and context.language.name == "python":  # `p = Path(...)`, `self.root: Path`, `log = logging.getLogger()`
        first = 2 if len(names) > 1 and names[0] in OWN["python"] else 1
        held = _python_target(context, bound, ".".join(names[:first]))  # then its attributes: `p.parent.`
        return Target(held.module, held.names + tuple(names[first:])) if held is not None else None
    if head is None and (len(names) == 1 or (len(names) == 2 and names[0] in OWN.get(context.language.name, ()))):
        assigned = assigned_class(context, ".".join(names))  # `const p = new Foo()`, `const log = debug('x')`
        found = bound.get(assigned[0].removesuffix("()")) if assigned is not None else None
        if found is not None and len(assigned) == 1 and assigned[0].endswith("()"):  # `const { f } = require('m')` … `x = f()`
            return Target(found.module, found.names[:-1] + (found.names[-1] + "()",)) if found.names else None
        if found is not None and len(assigned) == 1 and not found.names:
            # `this.f = new Foo()` of `const Foo = require('./foo')`, a package's or Node's (`events`): the
            # instance of the class it exports, as `const f = new Foo()` … `f.` is read
            return Target(found.module, ("default",))
        if found is not None:
            head, names = found, assigned
    if head is None:
        return None
    return Target(head.module, head.names + tuple(names[1:]))


LOCAL_DEPTH = 3  # names read in turn for what a Python name holds (`m = pat.match(s)` of `pat = re.compile(p)`)


def _python_target(context: CompletionContext, bound: dict[str, Target], name: str, depth: int = 0) -> Target | None:
    """What the Python name ``name`` holds, as the code before the cursor gives it
    (assignments.assigned_class: a class, a call's result, an element of what a loop iterates), from
    the import that binds the first name, a builtin (``with open(p) as fh``, ``line: str``), or
    the name that another assignment gives it, LOCAL_DEPTH names deep (``parts =
    line.split(',')`` of ``line = ''``, ``for line in fh`` of ``fh = open(p)``)."""
    assigned = assigned_class(context, name)
    if not assigned:
        return None
    head, rest = assigned[0], tuple(assigned[1:])
    bare = head.removesuffix("()")
    found = bound.get(bare)
    if found is not None and head.endswith("()"):  # `from m import f` … `x = f()`; not a module called
        return Target(found.module, found.names[:-1] + (found.names[-1] + "()",) + rest) if found.names else None
    if head.endswith("()"):
        return Target("builtins", (head, *rest))
    if (target := _class_target(assigned, bound)) is not None:
        return target
    if depth < LOCAL_DEPTH and bare != name and (inner := _python_target(context, bound, bare, depth + 1)) is not None:
        return Target(inner.module, inner.names + rest)
    return None


def _class_target(names: list[str] | tuple[str, ...], bound: dict[str, Target]) -> Target | None:
    """Python names whose first an import binds, or a builtin class, as a target."""
    found = bound.get(names[0])
    if found is not None:
        return Target(found.module, found.names + tuple(names[1:]))
    return Target("builtins", tuple(names)) if names[0] in _PY_CLASSES else None


_SUBSCRIPT = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\[[^\[\]]*\]")  # `users[0]`, `self.by_id[key]`


# A Python receiver whose syntax says its type: a literal (``", ".``, ``[]``), or a call of a
# builtin class (``str(value).``): the class's members are typeshed's builtins.
_PY_LITERALS = {"string": "str", "concatenated_string": "str", "list": "list", "list_comprehension": "list",
                "dictionary": "dict", "dictionary_comprehension": "dict", "set": "set", "set_comprehension": "set"}
_PY_CLASSES = frozenset({"str", "bytes", "bytearray", "list", "dict", "set", "frozenset", "tuple", "int", "float"})


# JavaScript's: a literal, a constructor's call, or a call whose result's class is known.
_JS_LITERALS = {"string": "String", "template_string": "String", "array": "Array", "regex": "RegExp"}


def builtin_instance(context: CompletionContext) -> Target | None:
    """Where the receiver's syntax says it is an instance of a builtin class, that class (the
    libraries read its members): in Python a literal or a call of a builtin class (``str(value).``
    -> builtins.str); in JavaScript a literal (``'a'.``, ``[].``, ``/x/.``), ``new X(...)`` of a
    global class or a name last assigned one (``const u = new URL(s)`` ... ``u.``), and the calls
    whose result is an array or a string (``Object.keys(o).``, ``s.split(',').``)."""
    access = member_access(context.target) if context.target is not None else None
    obj = access.child_by_field_name("object") if access is not None else None
    if obj is None:
        return None
    if context.language.name == "python":
        name = _python_class(obj)
        return Target("builtins", (name,)) if name is not None else None
    if context.language.name not in OWN:
        return None
    name = _JS_LITERALS.get(obj.type)
    if obj.type == "new_expression" and (made := obj.child_by_field_name("constructor")) is not None \
            and made.type == "identifier":
        name = node_text(made)
    elif obj.type == "call_expression" and (function := obj.child_by_field_name("function")) is not None:
        written = node_text(function)
        name = JS_RETURNS.get(written)
        if name is None and function.type == "member_expression":
            name = JS_METHOD_RETURNS.get(node_text(function.child_by_field_name("property")))
    elif (obj.type == "identifier" or obj.type == "member_expression" and node_text(obj).startswith("this.")) \
            and (assigned := assigned_class(context, node_text(obj))) is not None and len(assigned) == 1:
        name = assigned[0]  # `const u = new URL(s)`, `this.items = []`
    return Target("", (name, "prototype")) if name else None


def _python_class(obj: tree_sitter.Node) -> str | None:
    """builtin_instance's class of a Python receiver node."""
    if obj.type == "string":
        return "bytes" if (obj.text or b"")[:2].lower().lstrip(b"rf").startswith(b"b") else "str"
    if obj.type == "call" and (function := obj.child_by_field_name("function")) is not None \
            and function.type == "identifier" and (name := node_text(function)) in _PY_CLASSES:
        return name
    return _PY_LITERALS.get(obj.type)


def own_class(context: CompletionContext) -> OwnClass | None:
    """The class around the cursor, where the receiver is ``self`` / ``cls`` / ``this``."""
    language = context.language.name
    if context.receiver is None or context.receiver.strip() not in OWN.get(language, ()):
        return None
    node = context.target
    kinds = ("class_definition",) if language == "python" else ("class_declaration", "class")
    while node is not None and node.type not in kinds:
        node = node.parent
    data = context.data
    if node is None and language == "javascript":  # an unclosed class (the buffer ends in it): read it alone, closed
        node, data = closed_class(context)
    if node is None or node.end_byte - node.start_byte > CLASS_READ:
        return None
    return read_class(node, data, language, context.prefix)


def read_class(node: tree_sitter.Node, data: bytes, language: str, prefix: str) -> OwnClass:
    body = node.child_by_field_name("body")
    found = OwnClass(node_text(node.child_by_field_name("name")) or "class")
    plain = set()  # the body's names defined without `static`
    for child in body.named_children if body is not None else ():
        read_as = "method"  # a property (`@property`, `get x()`) is read as an attribute is
        if child.type == "decorated_definition":
            if any(_PROPERTY.search(node_text(d)) for d in child.named_children if d.type == "decorator"):
                read_as = "attribute"
            child = child.child_by_field_name("definition") or child
        if child.type == "method_definition" and any(c.type in ("get", "set") for c in child.children):
            read_as = "attribute"
        if child.type in ("function_definition", "method_definition"):
            name = node_text(child.child_by_field_name("name"))
            found.members.setdefault(name, read_as)
            (found.statics if any(c.type == "static" for c in child.children) else plain).add(name)
            if read_as == "method":
                found.signatures.setdefault(name, parameters(child.child_by_field_name("parameters")))
        elif child.type == "expression_statement" and child.named_children and child.named_children[0].type == "assignment":
            left = child.named_children[0].child_by_field_name("left")
            if left is not None and left.type == "identifier":
                found.members.setdefault(node_text(left), "attribute")
                found.assigned.add(node_text(left))
        elif child.type in ("field_definition", "public_field_definition"):  # TypeScript's: `public_field_definition`
            name = node_text(child.child_by_field_name("property") or child.child_by_field_name("name"))
            found.members.setdefault(name, "attribute")
            (found.statics if any(c.type == "static" for c in child.children) else plain).add(name)
    found.dual = found.statics & plain
    own = rb"(?:self|cls)" if language == "python" else rb"this"
    text = data[node.start_byte:node.end_byte]
    member = own + rb"\s*\.\s*([A-Za-z_$][\w$]*)"
    # `self.x = `, `self.x: int = `, and each of `self.a, self.b = ...`
    targets = re.compile(rb"(?<![\w$.])(" + member + rb"(?:\s*,\s*" + member + rb")*)\s*(?::[^=\n]*)?=(?!=)")
    for match in targets.finditer(text):
        for name in re.findall(member, match.group(1)):
            found.members.setdefault(name.decode(), "attribute")
    found.dynamic = "__getattr__" in found.members or "__getattribute__" in found.members
    for name in [n for n in found.members if not n or n == prefix or n == "constructor" or n.startswith("__")]:
        del found.members[name]  # the name being typed (the probe put it there), what no dot reads
    if language == "python":
        superclasses = node.child_by_field_name("superclasses")
        found.bases = [node_text(b) for b in (superclasses.named_children if superclasses is not None else ())
                       if b.type in ("identifier", "attribute")]
    else:
        heritage = next((c for c in node.named_children if c.type == "class_heritage"), None)
        found.bases = [node_text(b) for b in (heritage.named_children if heritage is not None else ())
                       if b.type in ("identifier", "member_expression")]
    return found


_PARAMETER_NAMES = {"default_parameter": "name", "typed_default_parameter": "name", "assignment_pattern": "left",
                    "required_parameter": "pattern", "optional_parameter": "pattern"}


def parameters(node: tree_sitter.Node | None) -> str:
    """A Python or JavaScript parameter list as its names (``(x, *rest, key=…)`` reads
    ``(x, *rest, key)``), without ``self`` / ``cls``."""
    names = []
    for child in node.named_children if node is not None else ():
        if child.type == "comment":
            continue
        inner = child.child_by_field_name(_PARAMETER_NAMES.get(child.type, "")) if child.type in _PARAMETER_NAMES else None
        if child.type == "typed_parameter":
            inner = child.named_children[0] if child.named_children else None
        text = node_text(inner if inner is not None else child)
        if child.type == "keyword_separator":
            text = "*"
        elif child.type in ("object_pattern", "array_pattern") or (inner is not None and inner.type == "object_pattern"):
            text = "{…}"
        text = text.split(":")[0].split("=")[0].strip()
        if text and text not in ("self", "cls", "this", "/"):
            names.append(text)
    return f"({', '.join(names)})"


def held_target(context: CompletionContext, held: list[str], bound: dict[str, Target]) -> Target | None:
    """What an attribute holds (file_classes.attribute_holder: ``["Owner"]``) as the libraries
    read it: an instance of a class an import binds, or of a builtin or global class."""
    if context.language.name == "python":
        return _class_target(held, bound)
    found = bound.get(held[0])
    if found is not None:  # `this.f = new Foo()` of `require('./foo')`: its default export's instance
        return Target(found.module, found.names + tuple(held[1:]) if found.names else ("default",))
    return Target("", (held[0], "prototype")) if len(held) == 1 else None
