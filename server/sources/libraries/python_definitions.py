"""What a Python definition's syntax says of it (typeshed_client's parse of a stub or a source):
its kind, detail and signature, the class its return annotation names (or, in a source without
one, its ``return`` statements give), its parameters as a signature writes them, and the
attributes a class's methods set on ``self``."""

from __future__ import annotations

import ast

from ...engines.base import Kind


ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"})  # the enum module's classes


def kind_of(name: str, node, method: bool = False) -> tuple[Kind, str, str]:
    """A definition's kind, the start of its detail (``def join(a, /, *paths) ``) and its signature
    (``(a, /, *paths)``). ``method``: defined in a class body."""
    definitions = getattr(node, "definitions", None)  # typeshed_client's OverloadedName
    if definitions:
        node = definitions[0]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        decorators = {ast.unparse(d) for d in node.decorator_list}
        if "property" in decorators or any(d.endswith(".setter") or "cached_property" in d for d in decorators):
            return Kind.PROPERTY, "property ", ""
        signature = f"({parameters(node.args, method)})"
        return Kind.METHOD if method else Kind.FUNCTION, f"def {name}{signature} ", signature
    if isinstance(node, ast.ClassDef):
        init = next((item for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and item.name == "__init__"), None)
        signature = f"({parameters(init.args, True)})" if init is not None else ""
        if init is None and any("dataclass" in ast.unparse(d) for d in node.decorator_list):  # its fields
            signature = "(" + ", ".join(item.target.id for item in node.body if isinstance(item, ast.AnnAssign)
                                        and isinstance(item.target, ast.Name) and "ClassVar" not in ast.unparse(item.annotation)) + ")"
        return Kind.CLASS, f"class {name}{signature} ", signature
    if name.isupper() and len(name) > 1:
        return Kind.CONSTANT, "", ""  # `METRE = 1`, an enum's `RED = 1`
    return (Kind.FIELD if method else Kind.VARIABLE), "", ""


def returned_name(annotation: ast.expr | None) -> str | None:
    """The class a return annotation names: ``Logger``, ``re.Match`` of ``Match[str] | None``,
    ``Path`` of ``Optional[Path]`` or ``"Path"``; None for ``None`` and what is not one name."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        left, right = annotation.left, annotation.right
        annotation = right if isinstance(left, ast.Constant) and left.value is None else left
    if isinstance(annotation, ast.Subscript):
        written = ast.unparse(annotation.value)
        annotation = annotation.slice if written.split(".")[-1] == "Optional" else annotation.value
    if isinstance(annotation, (ast.Name, ast.Attribute)):
        written = ast.unparse(annotation)
        return None if written.split(".")[-1] in ("None", "Any", "Self", "NoReturn", "Never") else written
    return None


# Generic types whose first type argument is what iterating one of their values gives
_ITERABLES = frozenset({"Iterator", "Iterable", "Generator", "AsyncIterator", "AsyncIterable", "AsyncGenerator", "list",
                        "List", "set", "Set", "frozenset", "FrozenSet", "Sequence", "MutableSequence", "Collection",
                        "AbstractSet", "MutableSet", "KeysView", "ValuesView", "deque", "Deque", "tuple", "Tuple"})


def element_name(annotation: ast.expr | None) -> str | None:
    """The class that iterating a value of the annotated type gives, where the annotation's first
    type argument names it: ``Iterator[str]``: str, ``Generator[Self, None, None]``: Self,
    ``list[Path]``: Path, ``Iterator[list[str]]``: list; None elsewhere."""
    if not isinstance(annotation, ast.Subscript) or ast.unparse(annotation.value).split(".")[-1] not in _ITERABLES:
        return None
    first = annotation.slice.elts[0] if isinstance(annotation.slice, ast.Tuple) and annotation.slice.elts else annotation.slice
    first = first.value if isinstance(first, ast.Subscript) else first
    return ast.unparse(first) if isinstance(first, (ast.Name, ast.Attribute)) else None


def given_back(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """Where no annotation says what a function returns, the class every ``return`` of its body
    gives alike: a new instance (``return User(...)``: User, ``return models.User(...)``:
    models.User, ``return cls(...)`` and ``return self``: Self; _instance_given). None where one
    returns anything else, where none returns a value, in a generator or a coroutine (as
    assignments.given_back reads a function of the buffer)."""
    if definition.returns is not None or isinstance(definition, ast.AsyncFunctionDef):
        return None
    found: set[str] = set()
    stack: list[ast.AST] = list(definition.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return None
        if isinstance(node, ast.Return):
            given = _instance_given(node.value)
            if given is None:
                return None
            found.add(given)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    return found.pop() if len(found) == 1 else None


def _instance_given(value: ast.expr | None) -> str | None:
    """The class whose new instance a returned expression is: ``User(...)``, ``models.User(...)``
    (the dotted name), ``Self`` for ``self``, ``cls(...)``, ``type(self)(...)`` and
    ``self.__class__(...)``; None for anything else."""
    if isinstance(value, ast.Name) and value.id == "self":
        return "Self"
    called = value.func if isinstance(value, ast.Call) else None
    written = ast.unparse(called) if isinstance(called, (ast.Name, ast.Attribute, ast.Call)) else ""
    if written in ("cls", "type(self)", "self.__class__"):
        return "Self"
    parts = written.split(".")
    return written if parts[-1][:1].isupper() and parts[0] not in ("self", "cls") and all(p.isidentifier() for p in parts) else None


def returns_self(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a method is declared to return ``Self``."""
    return definition.returns is not None and ast.unparse(definition.returns).split(".")[-1] == "Self"


def parameters(args: ast.arguments, method: bool) -> str:
    """``a, /, b, *rest, key, **options``: the names, a ``/`` after the positional-only ones."""
    names = [a.arg for a in args.posonlyargs] + (["/"] if args.posonlyargs else []) + [a.arg for a in args.args]
    if method and names and names[0] in ("self", "cls"):
        names = names[1:]
    if names and names[0] == "/":
        names = names[1:]
    if args.vararg:
        names.append(f"*{args.vararg.arg}")
    elif args.kwonlyargs:
        names.append("*")
    names += [a.arg for a in args.kwonlyargs]
    if args.kwarg:
        names.append(f"**{args.kwarg.arg}")
    return ", ".join(names)


def self_attributes(node: ast.ClassDef) -> list[str]:
    """``self.x = ...`` in the class's methods: instance attributes a ``.py`` class sets."""
    found = []
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in ast.walk(item):
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target] if isinstance(sub, ast.AnnAssign) else []
                for target in [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]:
                    if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                            and target.value.id == "self" and not target.attr.startswith("_")):
                        found.append(target.attr)
    return found
