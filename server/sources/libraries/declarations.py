"""What a TypeScript declaration file (``.d.ts``) or a JavaScript module offers, read with
tree-sitter: a module's exported values (``export function``, ``export =``, ``export * from``,
CommonJS's ``module.exports`` and ``exports.x``), the interfaces it declares, and the global
variables whose type is one (``declare var Math: Math``).

The shipped table of Node's modules and the language's globals (javascript.json) is built with
this from the ``typescript`` and ``@types/node`` packages (build_table.py); a package in
``node_modules`` is read with it when the buffer imports it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import tree_sitter

from ...scope import PATTERNS, pattern_names
from ...words import node_text
from .declared_types import PRIMITIVES, Declared, awaited_type, heritage, option_sources, written_type

# A value's kind, as one letter; a function's or method's is followed by its parameters' names
# (``f(path, options?)``): kind(entry) and signature(entry) read them apart.
FUNCTION, CLASS, VARIABLE, NAMESPACE = "f", "c", "v", "m"
_DECLARES = {"function_signature": FUNCTION, "function_declaration": FUNCTION, "generator_function_declaration": FUNCTION,
             "class_declaration": CLASS, "abstract_class_declaration": CLASS, "class": CLASS,
             "internal_module": NAMESPACE, "module": NAMESPACE, "enum_declaration": VARIABLE}
_MEMBERS = {"method_signature": FUNCTION, "method_definition": FUNCTION, "abstract_method_signature": FUNCTION,
            "property_signature": VARIABLE, "public_field_definition": VARIABLE, "field_definition": VARIABLE}


def kind(entry: str) -> str:
    return entry[:1]


def signature(entry: str) -> str:
    return entry[1:]


def _signed(node: tree_sitter.Node, entry: str) -> str:
    """A function's entry with its parameters' names (``f(path, options?)``); others as they are."""
    if entry != FUNCTION:
        return entry
    parameters = node.child_by_field_name("parameters")
    if parameters is None:
        value = node.child_by_field_name("value")  # `const f = (a, b) => ...`
        parameters = value.child_by_field_name("parameters") if value is not None else None
        if parameters is None and value is not None and value.child_by_field_name("parameter") is not None:
            return f"{entry}({node_text(value.child_by_field_name('parameter'))})"  # `x => ...`
    if parameters is None:
        return entry
    names = []
    for parameter in parameters.named_children:
        pattern = parameter.child_by_field_name("pattern") if parameter.type in ("required_parameter", "optional_parameter") else parameter
        if pattern is None or pattern.type == "comment":
            continue
        if pattern.type == "assignment_pattern":
            pattern = pattern.child_by_field_name("left") or pattern
        text = node_text(pattern)
        if pattern.type in ("object_pattern", "array_pattern"):
            text = "{…}" if pattern.type == "object_pattern" else "[…]"
        elif pattern.type == "this":
            continue
        optional = parameter.type == "optional_parameter" or parameter.child_by_field_name("value") is not None
        names.append(text + ("?" if optional else ""))
    return f"{entry}({', '.join(names)})"


@dataclass
class Scope:
    """The declarations of a module, a namespace or a file."""

    values: dict[str, str] = field(default_factory=dict)  # name -> kind, every value declared
    exported: set[str] = field(default_factory=set)  # names written with ``export``
    types: dict[str, str] = field(default_factory=dict)  # a variable's type as written (``path.PlatformPath``)
    statics: dict[str, dict[str, str]] = field(default_factory=dict)  # class -> its static members
    namespaces: dict[str, Scope] = field(default_factory=dict)
    export_equals: str | None = None  # ``export = path``
    export_from: list[str] = field(default_factory=list)  # ``export * from "fs"``
    # a function's declared result (written_type's), and what awaiting it gives; "" where overloads differ;
    # a class's static method's under "Class.method"
    returns: dict[str, str] = field(default_factory=dict)
    awaits: dict[str, str] = field(default_factory=dict)
    # a function's parameters' options objects: name -> parameter's index -> (keys, types named: option_sources)
    options: dict[str, dict[int, tuple[list[str], list[str]]]] = field(default_factory=dict)

    def members(self, interfaces: dict[str, dict[str, str]]) -> dict[str, str]:
        """What ``require`` of this module gives: its exports, or what ``export =`` names."""
        if self.export_equals is None:
            names = self.exported or set(self.values)
            return {n: k for n, k in self.values.items() if n in names}
        name = self.export_equals
        out: dict[str, str] = {}
        if name in self.namespaces:
            out.update(self.namespaces[name].values)
        out.update(self.statics.get(name, {}))
        written = self.types.get(name)
        if written:
            out.update(interfaces.get(written.split(".")[-1].split("<")[0], {}))
        return out


@functools.cache
def parser(typescript: bool) -> tree_sitter.Parser:
    if typescript:
        import tree_sitter_typescript

        return tree_sitter.Parser(tree_sitter.Language(tree_sitter_typescript.language_typescript()))
    import tree_sitter_javascript

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_javascript.language()))


def _identifier(name: str) -> bool:
    return name.replace("$", "_").isidentifier() and name not in ("prototype", "constructor")


class Reader:
    """Reads declaration files, collecting the interfaces of all of them (merged by name, as
    TypeScript merges them) and the global variables' types; and each class and interface by
    its place (``declared``), with what the ambient modules import (``imported``)."""

    def __init__(self) -> None:
        self.interfaces: dict[str, dict[str, str]] = {}
        self.classes: dict[str, dict[str, str]] = {}  # a class's instance members, by its name
        self.declared: dict[str, Declared] = {}  # "fs.ReadStream", "Process"
        # (module, a name its imports bind) -> "net.Server" (``import { Server as NetServer } from "node:net"``)
        # or "stream.*" (``import * as stream from "node:stream"``)
        self.imported: dict[tuple[str, str], str] = {}
        self._module = ""  # the ambient module being read, for its imports
        self._prefix = ""  # where its declarations go: the module, or "" in a ``global`` block
        self.modules: dict[str, Scope] = {}  # ``declare module "fs" {...}``
        self.globals = Scope()

    def read(self, data: bytes, typescript: bool = True) -> Scope:
        """One file: its own scope (a module file's exports); ambient modules and globals it
        declares go to ``modules`` and ``globals``."""
        return self.read_tree(parser(typescript).parse(data).root_node)

    def read_tree(self, root: tree_sitter.Node) -> Scope:
        """read() of a file already parsed."""
        scope = Scope()
        self._statements(root, scope, ambient=False)
        return scope

    def _statements(self, block: tree_sitter.Node, scope: Scope, ambient: bool) -> None:
        into_globals = False
        for node in block.named_children:
            if node.type in ("ERROR", "expression_statement") and node_text(node).strip() == "global":  # `global {` in a module:
                into_globals = True  # the grammar reads an error, then the block
                continue
            if into_globals and node.type == "statement_block":
                self._global(node)
            else:
                self._statement(node, scope, ambient, exported=False)
            into_globals = False

    def _statement(self, node: tree_sitter.Node, scope: Scope, ambient: bool, exported: bool) -> None:
        kind = node.type
        if kind == "expression_statement" and node.named_children:
            self._statement(node.named_children[0], scope, ambient, exported)
        elif kind == "export_statement":
            self._export(node, scope, ambient)
        elif kind == "import_statement" and self._module:
            self._import(node)
        elif kind == "ambient_declaration":
            for child in node.named_children:
                if child.type == "statement_block":  # declare global { ... }
                    self._global(child)
                else:
                    self._statement(child, scope, True, exported)
        elif kind == "module" and node.child_by_field_name("name") is not None and node.child_by_field_name("name").type == "string":
            name = node_text(node.child_by_field_name("name")).strip("'\"")
            inner = self.modules.setdefault(name, Scope())
            body = node.child_by_field_name("body")
            if body is not None:
                outer = self._module, self._prefix
                self._module = self._prefix = name.removeprefix("node:")
                self._statements(body, inner, ambient=True)
                self._module, self._prefix = outer
        elif kind in ("internal_module", "module") and node_text(node.child_by_field_name("name")) == "global":
            body = node.child_by_field_name("body")  # `global { var console: Console }` in a module
            if body is not None:
                self._global(body)
        elif kind in ("internal_module", "module"):
            name = node_text(node.child_by_field_name("name"))
            inner = scope.namespaces.setdefault(name, Scope())
            body = node.child_by_field_name("body")
            if body is not None:
                self._statements(body, inner, ambient)
            self._value(scope, name, NAMESPACE, exported)
        elif kind == "interface_declaration":
            owner = node_text(node.child_by_field_name("name"))
            members = self.interfaces.setdefault(owner, {})
            declared = self._declared(owner, node)
            body = node.child_by_field_name("body")
            for member in body.named_children if body is not None else ():
                if member.type in _MEMBERS and _identifier(name := node_text(member.child_by_field_name("name"))):
                    members.setdefault(name, _signed(member, _MEMBERS[member.type]))
                    self._typed(declared, name, member)
        elif kind in ("class_declaration", "abstract_class_declaration"):
            name = node_text(node.child_by_field_name("name"))
            self._value(scope, name, CLASS, exported)
            statics = scope.statics.setdefault(name, {})
            instances = self.classes.setdefault(name, {})
            declared = self._declared(name, node)
            body = node.child_by_field_name("body")
            for member in body.named_children if body is not None else ():
                if member.type in _MEMBERS and _identifier(member_name := node_text(member.child_by_field_name("name"))):
                    static = any(c.type == "static" for c in member.children)
                    (statics if static else instances).setdefault(member_name, _signed(member, _MEMBERS[member.type]))
                    if not static:
                        self._typed(declared, member_name, member)
                    elif _MEMBERS[member.type] == FUNCTION:  # `static connect(url): Promise<Client>`
                        returned = member.child_by_field_name("return_type")
                        _agreed(scope.returns, f"{name}.{member_name}", written_type(returned))
                        _agreed(scope.awaits, f"{name}.{member_name}", awaited_type(returned))
        elif kind in _DECLARES:
            name = node_text(node.child_by_field_name("name"))
            self._value(scope, name, _signed(node, _DECLARES[kind]), exported)
            if _DECLARES[kind] == FUNCTION:
                returned = node.child_by_field_name("return_type")
                _agreed(scope.returns, name, written_type(returned))
                _agreed(scope.awaits, name, awaited_type(returned))
            parameters = node.child_by_field_name("parameters") if _DECLARES[kind] == FUNCTION else None
            for index, parameter in enumerate(p for p in parameters.named_children if p.type != "comment") if parameters else ():
                if not _OPTIONS.fullmatch(node_text(parameter.child_by_field_name("pattern"))):
                    continue  # `path`, `data`: no options object
                keys, named = option_sources(parameter.child_by_field_name("type"))
                if keys or named:  # every overload's
                    known = scope.options.setdefault(name, {}).setdefault(index, ([], []))
                    known[0].extend(k for k in keys if k not in known[0])
                    known[1].extend(n for n in named if n not in known[1])
        elif kind == "type_alias_declaration":  # `type WriteFileOptions = ObjectEncodingOptions & { mode?: Mode }`
            keys, named = option_sources(node.child_by_field_name("value"))
            if keys or named:
                declared = self._declared(node_text(node.child_by_field_name("name")), node)
                declared.members.update((key, VARIABLE) for key in keys if key not in declared.members)
                declared.bases += [(self._module, each) for each in named if (self._module, each) not in declared.bases]
        elif kind in ("lexical_declaration", "variable_declaration"):
            for declarator in node.named_children:
                if declarator.type == "variable_declarator":
                    target = declarator.child_by_field_name("name")
                    if target is not None and target.type in PATTERNS:  # `export const { a, b: c } = o`
                        for name in pattern_names(target):
                            self._value(scope, name, VARIABLE, exported)
                        continue
                    name = node_text(target)
                    annotation = declarator.child_by_field_name("type")
                    if annotation is not None and annotation.named_children:
                        scope.types[name] = node_text(annotation.named_children[0])
                    value = declarator.child_by_field_name("value")
                    function = value is not None and ("function" in value.type or value.type == "arrow_function")
                    self._value(scope, name, _signed(declarator, FUNCTION) if function else VARIABLE, exported)

    def _global(self, block: tree_sitter.Node) -> None:
        """A ``global { … }`` block: global declarations, read with the module's imports."""
        prefix, self._prefix = self._prefix, ""
        self._statements(block, self.globals, ambient=True)
        self._prefix = prefix

    def _import(self, node: tree_sitter.Node) -> None:
        """What an ambient module's import binds (``import { A as B } from "m"``, ``import * as m``)."""
        source = node.child_by_field_name("source")
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        module = node_text(source).strip("'\"").removeprefix("node:") if source is not None else ""
        for part in clause.named_children if clause is not None and module else ():
            if part.type == "namespace_import" and part.named_children:
                self.imported[(self._module, node_text(part.named_children[0]))] = f"{module}.*"
            for specifier in part.named_children if part.type == "named_imports" else ():
                name, alias = specifier.child_by_field_name("name"), specifier.child_by_field_name("alias")
                self.imported[(self._module, node_text(alias or name))] = f"{module}.{node_text(name)}"

    def _declared(self, name: str, node: tree_sitter.Node) -> Declared:
        key = f"{self._prefix}.{name}" if self._prefix else name
        declared = self.declared.setdefault(key, Declared())
        declared.bases += [(self._module, base) for base in heritage(node) if (self._module, base) not in declared.bases]
        return declared

    def _typed(self, declared: Declared, name: str, member: tree_sitter.Node) -> None:
        """A member: its kind, and its type (a property's as written, a method's declared result:
        the first overload's)."""
        declared.members.setdefault(name, _signed(member, _MEMBERS[member.type]))
        written = written_type(member.child_by_field_name("return_type" if _MEMBERS[member.type] == FUNCTION else "type"))
        module, before = declared.types.setdefault(name, (self._module, written or ""))
        declared.types[name] = (module, _overload(before, written or ""))

    def _value(self, scope: Scope, name: str, kind: str, exported: bool) -> None:
        if _identifier(name):
            scope.values.setdefault(name, kind)
            if exported:
                scope.exported.add(name)

    def _export(self, node: tree_sitter.Node, scope: Scope, ambient: bool) -> None:
        declaration = node.child_by_field_name("declaration")
        source = node.child_by_field_name("source")
        if declaration is not None:
            self._statement(declaration, scope, ambient, exported=True)
            return
        clause = next((c for c in node.named_children if c.type == "export_clause"), None)
        if clause is not None:
            local = shown = ""  # the last specifier's name in the module and as exported
            for specifier in clause.named_children:
                if specifier.type == "ERROR":  # `b as return`: the grammar takes no keyword as an alias
                    renamed = _KEYWORD_ALIAS.fullmatch(specifier.text or b"")
                    if not renamed or not shown:
                        continue
                    scope.exported.discard(shown)
                    shown = renamed.group(1).decode()
                else:
                    name, alias = specifier.child_by_field_name("name"), specifier.child_by_field_name("alias")
                    local, shown = node_text(name), node_text(alias or name)
                if shown:
                    scope.values.setdefault(shown, scope.values.get(local, VARIABLE))
                    scope.exported.add(shown)
        elif source is not None and (named := next((c for c in node.named_children if c.type == "namespace_export"), None)):
            if named.named_children:  # `export * as ns from './x'`: one name, the module's namespace
                shown = node_text(named.named_children[0]).strip("'\"")
                scope.values.setdefault(shown, NAMESPACE)
                scope.exported.add(shown)
        elif source is not None:
            scope.export_from.append(node_text(source).strip("'\""))
        elif any(c.type == "=" for c in node.children) and node.named_children:  # export = name
            scope.export_equals = node_text(node.named_children[-1])


_OPTIONS = re.compile(r"(?i)options?|opts|init|config|settings|\w*options")  # an options object's parameter
_KEYWORD_ALIAS = re.compile(rb"as\s+([A-Za-z_$][\w$]*)")
def _agreed(into: dict[str, str], name: str, written: str | None) -> None:
    """An overload's type into ``into[name]`` (``_overload``)."""
    into[name] = _overload(into.setdefault(name, written or ""), written or "")


def _overload(before: str, written: str) -> str:
    """The type of a function's or a property's result, ``before`` the earlier overloads', with
    one more overload's: the first overload's, as the classes of overloads are kin (``spawn``'s
    ``ChildProcess``es); "" (not known) where one of them is a primitive's or an array's and
    they differ (``readFileSync``: Buffer, or string with an encoding)."""
    return before if before == written or (before not in _PRIMITIVE_CLASSES and written not in _PRIMITIVE_CLASSES) else ""


_PRIMITIVE_CLASSES = frozenset({*PRIMITIVES.values(), "Array"})
