"""What calling a name, iterating what a call gives and reading an attribute give in a Python
environment: the class of a call's result (a function's declared return, a class's instance, a
method's, its own or a base's, ``Self``), of a loop's element (a declared iterator's type
argument, a class's ``__iter__`` or ``__next__``), and of what an attribute holds (its
annotation, a property's result). A mixin of PythonLibraries, whose ``_resolve`` and ``_base``
find the names.
"""

from __future__ import annotations

import ast

from .python_definitions import ENUM_BASES, element_name, given_back, returned_name, returns_self

BASES = 4  # base classes followed this deep


class CallResults:
    """The classes of calls' results and of loops' elements, each a (module, NameInfo) pair of
    typeshed_client's resolver; the subclass's ``_resolve`` (a dotted name) and ``_base`` (a
    name as a module writes it) find them."""

    def _instance(self, dotted: str):
        """(module, NameInfo) of the class of the instance ``dotted`` denotes: what calling the
        name before ``()`` gives (_made), an element of what comes before ``.[]`` (_element);
        None for a module's or a class's own name."""
        if dotted.endswith("()"):
            return self._made(dotted[:-2])
        return self._element(dotted[:-3]) if dotted.endswith(".[]") else None

    def _callee(self, dotted: str):
        """(module, NameInfo) of the function or class ``dotted`` names, and (module, NameInfo) of
        the class it is a method of, if any: a class's own or a base's (``builtins.str.split``),
        or one of the instance before it (``re.compile().match``)."""
        owner_written, _, name = dotted.rpartition(".")
        if owner_written.endswith(("()", ".[]")):
            owner = self._instance(owner_written)
            return (self._method(owner[0], owner[1], name) if owner is not None else None), owner
        found = self._resolve(dotted)
        if found is None and owner_written and (owner := self._owner(owner_written)) is not None:
            return self._method(owner[0], owner[1], name), owner
        return found, None

    def _owner(self, dotted: str):
        """(module, NameInfo) of the class whose member the name after ``dotted`` is: ``dotted``
        itself where it names a class (``pathlib.Path``), else the class of what it holds (_attribute)."""
        found = self._resolve(dotted)
        if found is not None and isinstance(found[1].ast, ast.ClassDef):
            return found
        return self._attribute(dotted) if found is None or isinstance(found[1].ast, ast.AnnAssign) else None

    def _attribute(self, dotted: str, depth: int = 0):
        """(module, NameInfo) of the class of what the attribute ``dotted`` holds: a module's or a
        class's annotated variable (``os.environ: _Environ[str]``, ``sys.stdout: TextIO``), a
        property's declared result (``pathlib.Path.parent``: Self, so Path), an instance's
        (``re.compile().pattern``) and an attribute's (``Path.parent.parent``), BASES deep."""
        owner_written, _, name = dotted.rpartition(".")
        if not owner_written or depth > BASES:
            return None
        if owner_written.endswith(("()", ".[]")):
            owner = self._instance(owner_written)
        elif self._module(owner_written) is not None:
            owner = None
        elif (owner := self._resolve(owner_written)) is None or not isinstance(owner[1].ast, ast.ClassDef):
            owner = self._attribute(owner_written, depth + 1)
            if owner is None:
                return None
        member = self._method(owner[0], owner[1], name) if owner is not None else self._resolve(dotted)
        if member is None:
            return None
        node = member[1].ast
        if isinstance(node, ast.AnnAssign):
            written = returned_name(node.annotation)
            return self._base(member[0], written) if written is not None else None
        properties = [d for d in _definitions(node)
                      if any(ast.unparse(p).split(".")[-1] in ("property", "cached_property") for p in d.decorator_list)]
        return self._returned(member[0], properties, owner)  # not a method: reading one gives no instance of its result

    def _enum_member(self, dotted: str):
        """(module, NameInfo) of the enum whose member ``dotted`` is (``http.HTTPStatus.OK``: an
        instance of HTTPStatus), where the class derives from one of the enum module's classes
        and the name is assigned in its body; else None."""
        owner_written, _, name = dotted.rpartition(".")
        owner = self._resolve(owner_written) if owner_written and not name.startswith("_") else None
        if owner is None or not isinstance(owner[1].ast, ast.ClassDef):
            return None
        member = (owner[1].child_nodes or {}).get(name)
        if member is None or not isinstance(member.ast, (ast.Assign, ast.AnnAssign)):
            return None
        return owner if self._derives_from_enum(*owner, 0) else None

    def _derives_from_enum(self, module: str, info, depth: int) -> bool:
        """Whether the class derives from one of the enum module's, through BASES classes at most."""
        for base in info.ast.bases if depth <= BASES else ():
            found = self._base(module, ast.unparse(base).split("[")[0])
            if found is not None and (found[0] == "enum" and found[1].name in ENUM_BASES
                                      or self._derives_from_enum(*found, depth + 1)):
                return True
        return False

    def _made(self, dotted: str):
        """(module, NameInfo) of the class of what calling ``dotted`` gives: a class's instance, or
        the class a function is declared to return (its first overload's that names a class:
        ``str.strip``'s ``LiteralString`` one does not; ``Optional``, ``| None`` and type
        arguments dropped; ``Self``: the method's class)."""
        found, owner = self._callee(dotted)
        if found is None and dotted.endswith((".__enter__", ".__aenter__")):
            return owner  # a context manager whose __enter__ is not found: itself, as most give
        if found is None or isinstance(found[1].ast, ast.ClassDef):
            return found
        return self._returned(found[0], _definitions(found[1].ast), owner)

    def _returned(self, module: str, definitions: list[ast.FunctionDef | ast.AsyncFunctionDef], owner):
        """(module, NameInfo) of the class that the first of ``definitions`` (a function's, or
        its overloads', in ``module``) whose return annotation names one declares, or where none is
        written whose ``return`` statements give (python_definitions.given_back); ``Self``:
        ``owner``, the class of the method."""
        for definition in definitions:
            given = given_back(definition)  # a source's function without an annotation: what it returns
            if (returns_self(definition) or given == "Self") and owner is not None:
                return owner
            written = returned_name(definition.returns) if given is None else given
            found = self._base(module, written) if written is not None else None
            if found is not None:
                return found
        return None

    def _element(self, dotted: str):
        """(module, NameInfo) of the class that iterating the instance ``dotted`` gives: the type
        argument of what a call is declared to return (``Path.iterdir``: ``Generator[Self, None,
        None]``), else its class's iteration (_iterated: ``open()``'s TextIOWrapper gives str)."""
        if dotted.endswith("()") and (callee := self._callee(dotted[:-2]))[0] is not None \
                and not isinstance(callee[0][1].ast, ast.ClassDef):
            for definition in _definitions(callee[0][1].ast):
                element = element_name(definition.returns)
                if element is not None and element.split(".")[-1] == "Self" and callee[1] is not None:
                    return callee[1]
                found = self._base(callee[0][0], element) if element is not None else None
                if found is not None:
                    return found
        cls = self._instance(dotted)
        return self._iterated(cls) if cls is not None else None

    def _iterated(self, cls):
        """(module, NameInfo) of the class that iterating an instance of ``cls`` gives: its
        ``__iter__``'s declared iterator's type argument, or where ``__iter__`` returns the
        instance itself, what its ``__next__`` returns."""
        method = self._method(cls[0], cls[1], "__iter__")
        for definition in _definitions(method[1].ast) if method is not None else ():
            if returns_self(definition) and (step := self._method(cls[0], cls[1], "__next__")) is not None:
                written = next((returned_name(d.returns) for d in _definitions(step[1].ast)), None)
                return self._base(step[0], written) if written is not None else None
            element = element_name(definition.returns)
            found = self._base(method[0], element) if element is not None else None
            if found is not None:
                return found
        return None

    def _method(self, module: str, info, name: str, depth: int = 0):
        """(module, NameInfo) of the member ``name`` of class ``info`` (defined in ``module``):
        its own, else the first of its bases' (BASES deep)."""
        child = (info.child_nodes or {}).get(name)
        if child is not None:
            return module, child
        for base in info.ast.bases if depth < BASES else ():
            found = self._base(module, ast.unparse(base).split("[")[0])
            if found is not None and (method := self._method(found[0], found[1], name, depth + 1)) is not None:
                return method
        return None


def _definitions(node) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """A function's definition, or an overloaded one's, in their order."""
    found = getattr(node, "definitions", None) or [node]
    return [d for d in found if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))]
