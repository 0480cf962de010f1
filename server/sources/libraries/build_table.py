"""Builds javascript.json, the table of Node's built-in modules and the language's globals that
the server ships (so that nothing is fetched or read at run time), from the declarations of the
``typescript`` package (``lib/lib.*.d.ts``: ``Math``, ``JSON``, ``Array``, ``Promise``…) and of
``@types/node`` (``fs``, ``path``, ``http``…, ``console``, ``process``, ``Buffer``):

    npm pack typescript@5.9.3 @types/node@22.20.5   # then extract both
    python -m treecomplete.sources.libraries.build_table --typescript DIR --node DIR

The table: {"modules": {"fs": {"readFileSync": "f", ...}}, "globals": {"Math": {"abs": "f"}},
"instances": {"String": {"split": "f", ...}}, "types": {"fs.createReadStream()": "fs.ReadStream",
"process.stdout": "WriteStream", "events()": "events.EventEmitter"}, "options": {"fs.mkdirSync()":
{"1": ["mode", "recursive"]}}}: an instance's members (a global class's, INSTANCES, and each class
or interface that "types" names, by its place, with what it extends); "types", the class of what a
module's function returns, of a global's property or its method's result, of a module's default
export constructed; "options", the keys an options parameter's object may hold. Kinds f(unction),
c(lass), v(ariable), m(odule or namespace).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .declarations import CLASS, FUNCTION, Reader, Scope

TABLE = Path(__file__).with_name("javascript.json")
LIBS = ("lib.es5.d.ts", "lib.es2015.*.d.ts", "lib.es2016.*.d.ts", "lib.es2017.*.d.ts", "lib.es2018.*.d.ts",
        "lib.es2019.*.d.ts", "lib.es2020.*.d.ts", "lib.es2021.*.d.ts", "lib.es2022.*.d.ts", "lib.es2023.*.d.ts")


# The global classes whose instances a receiver's syntax may show (`'a'.`, `[].`, `new URL(u).`),
# each with what it extends.
INSTANCES = {"String": (), "Array": (), "Number": (), "Boolean": (), "Date": (), "RegExp": (), "Map": (), "Set": (),
             "WeakMap": (), "WeakSet": (), "Promise": (), "Error": (), "TypeError": ("Error",), "RangeError": ("Error",),
             "SyntaxError": ("Error",), "URL": (), "URLSearchParams": (), "Buffer": ("Uint8Array",), "Uint8Array": (),
             "ArrayBuffer": (), "TextEncoder": (), "TextDecoder": (), "AbortController": ()}


def module_members(reader: Reader, name: str, seen: frozenset[str] = frozenset()) -> dict[str, str]:
    scope = reader.modules.get(name)
    if scope is None or name in seen:
        return {}
    out = scope.members(reader.interfaces)
    if not out and scope.export_equals:  # `export = process`, the global `var process: NodeJS.Process`
        out = dict(global_members(reader, [reader.globals]).get(scope.export_equals, {}))
    for source in scope.export_from:
        for member, kind in module_members(reader, source, seen | {name}).items():
            out.setdefault(member, kind)
    return out


def global_members(reader: Reader, scopes: list[Scope]) -> dict[str, dict[str, str]]:
    """Each global variable's members (its interface's), each namespace's and each class's static ones."""
    out: dict[str, dict[str, str]] = {}
    for scope in scopes:
        for name, written in scope.types.items():
            members = reader.interfaces.get(written.split("<")[0].split(".")[-1].strip())
            if members:
                out.setdefault(name, {}).update(members)
        for name, inner in scope.namespaces.items():
            if inner.values:
                out.setdefault(name, {}).update(inner.values)
        for name, statics in scope.statics.items():
            if statics and scope.values.get(name) == CLASS:
                out.setdefault(name, {}).update(statics)
    return out


def build(typescript: Path, node: Path) -> dict:
    reader = Reader()
    lib = typescript / "lib"
    files = sorted({f for pattern in LIBS for f in lib.glob(pattern)})
    scopes = [reader.read(f.read_bytes()) for f in files]  # a lib file's top level is the global scope
    for f in sorted(node.rglob("*.d.ts")):
        if not {"ts5.6", "ts5.1", "compatibility"} & set(f.parts):
            scopes.append(reader.read(f.read_bytes()))
    scopes.append(reader.globals)
    modules = {name: module_members(reader, name) for name in sorted(reader.modules) if not name.startswith("node:")}
    for name in list(modules):  # `util.inspect.`, `http.IncomingMessage.`: a module's namespaces and classes
        for inner, members in global_members(reader, [reader.modules[name]]).items():
            modules.setdefault(f"{name}.{inner}", members)
    instances = {name: dict(sorted(instance_members(reader, name).items())) for name in INSTANCES}
    found = value_types(reader, scopes)
    for module, members in modules.items():  # `new URL(s)` of `require('url')`, `extends Transform` of stream
        for name, kind in members.items():
            if (kind == CLASS or name in reader.classes) and "." not in module and f"{module}.{name}" in reader.declared:
                found.setdefault(f"{module}.{name}()", f"{module}.{name}")
    types = {key: name for key, name in sorted(found.items()) if name in instances or declared_members(reader, name)}
    for name in sorted(set(types.values()) - set(instances)):
        instances[name] = dict(sorted(declared_members(reader, name).items()))
    return {"source": f"typescript {_version(typescript)} lib.es5-es2023, @types/node {_version(node)}",
            "modules": {name: dict(sorted(m.items())) for name, m in modules.items() if m},
            "globals": {name: dict(sorted(m.items())) for name, m in sorted(global_members(reader, scopes).items())},
            "instances": {name: m for name, m in instances.items() if m}, "types": types,
            "options": option_keys(reader, scopes)}


def option_keys(reader: Reader, scopes: list[Scope]) -> dict[str, dict[str, list[str]]]:
    """The keys an options object passed to a module's or a global function may hold, by the
    parameter's index (``fs.readFileSync()`` -> {"1": ["encoding", "flag"]}): those its type
    writes and the members of the interfaces and type aliases it names, not a class's (the
    table's "options"; the parameters declarations.py takes for options, by their name)."""
    out: dict[str, dict[str, list[str]]] = {}
    places = [(f"{name.removeprefix('node:')}.", name.removeprefix("node:"), scope) for name, scope in reader.modules.items()
              if not name.startswith("node:")] + [("", "", scope) for scope in scopes]
    for prefix, module, scope in places:
        for function, parameters in scope.options.items():
            for index, (keys, named) in parameters.items():
                found = set(keys)
                for written in named:  # an interface or a type, not a class (`url: string | URL`)
                    if (key := resolve(reader, module, written)) is not None and key.split(".")[-1] not in reader.classes:
                        found.update(declared_members(reader, key))
                found = {k for k in found if k.replace("$", "_").isidentifier()}
                if found:
                    out.setdefault(f"{prefix}{function}()", {})[str(index)] = sorted(found)
    return dict(sorted(out.items()))


def instance_members(reader: Reader, name: str) -> dict[str, str]:
    """The members of an instance of the global class ``name``: its interface's and its class
    body's, and those of what it extends (INSTANCES)."""
    out: dict[str, str] = {}
    for each in (name,) + INSTANCES.get(name, ()):
        for members in (reader.interfaces.get(each, {}), reader.classes.get(each, {})):
            for member, kind in members.items():
                out.setdefault(member, kind)
    return out


def resolve(reader: Reader, module: str, written: str) -> str | None:
    """The key in ``reader.declared`` of a type written in ``module`` (``stream.Readable`` where
    ``import * as stream``; ``NetServer`` where ``import { Server as NetServer } from "net"``; a
    name of the module itself; ``NodeJS.Process``: a global), or None."""
    head, _, rest = written.partition(".")
    bound = reader.imported.get((module, head))
    if rest and bound is not None and bound.endswith(".*"):
        candidates = [f"{bound[:-2]}.{rest.split('.')[-1]}"]
    elif not rest and bound is not None:
        candidates = [bound]
    else:  # `NodeJS.EventEmitter`: a global namespace's; `Socket`: the module's own, else a global
        name = written.split(".")[-1]
        candidates = [name] if rest or not module else [f"{module}.{name}", name]
    return next((key for key in candidates if key in reader.declared), None)


def lineage(reader: Reader, key: str) -> list[str]:
    """``key`` and what it extends, nearest first (each once: a cycle ends)."""
    out, todo = [], [key]
    while todo:
        each = todo.pop(0)
        if each not in out:
            out.append(each)
            todo += [found for module, base in reader.declared[each].bases if (found := resolve(reader, module, base))]
    return out


def declared_members(reader: Reader, key: str) -> dict[str, str]:
    """The members of an instance of a declared class or interface, with those of what it extends."""
    out: dict[str, str] = {}
    for each in lineage(reader, key) if key in reader.declared else ():
        for member, kind in reader.declared[each].members.items():
            out.setdefault(member, kind)
    return out


def value_types(reader: Reader, scopes: list[Scope]) -> dict[str, str]:
    """The class or interface (its key in ``reader.declared``) of a value one step from a module
    or a global: a module's function's result (``fs.createReadStream()``), a module's default
    export constructed (``events()``), a global's property or its method's result
    (``process.stdout``, ``Buffer.from()``), what awaiting a module's function's result gives
    (``fs/promises.readFile().await``), the globals those of ``scopes``. The table's "types"."""
    out: dict[str, str] = {}
    owners: dict[str, str] = {}  # a global or a module -> the key of its type
    for scope in scopes:
        for name, written in scope.types.items():
            if (found := resolve(reader, "", written)) is not None:
                owners.setdefault(name, found)
    for name, scope in reader.modules.items():
        module = name.removeprefix("node:")
        if name.startswith("node:"):
            continue
        for function, written in scope.returns.items():
            if (found := resolve(reader, module, written)) is not None:
                out[f"{module}.{function}()"] = found
        for function, written in scope.awaits.items():  # `await readFile(p)` of fs/promises
            if (found := resolve(reader, module, written)) is not None:
                out[f"{module}.{function}().await"] = found
        if scope.export_equals in scope.statics and (found := resolve(reader, module, scope.export_equals)) is not None:
            out[f"{module}()"] = found  # `export = EventEmitter`: `new EventEmitter()` of `require('events')`
        elif scope.export_equals in owners:  # `export = process`: the module is that global
            owners[module] = owners[scope.export_equals]
        elif scope.export_equals in scope.types:  # `const path: path.PlatformPath; export = path`
            written = scope.types[scope.export_equals]
            own = f"{module}.{written.split('.')[-1]}"  # a namespace's of the module, named as the module
            if (found := resolve(reader, module, written) or (own if own in reader.declared else None)) is not None:
                owners.setdefault(module, found)
    for name, owner in owners.items():
        members = declared_members(reader, owner)
        for each in lineage(reader, owner):
            for member, (module, written) in reader.declared[each].types.items():
                call = members.get(member, "").startswith(FUNCTION)
                if (found := resolve(reader, module, written)) is not None:
                    out.setdefault(f"{name}.{member}()" if call else f"{name}.{member}", found)
    return out


def _version(package: Path) -> str:
    try:
        return json.loads((package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--typescript", type=Path, required=True, help="the typescript package's folder")
    parser.add_argument("--node", type=Path, required=True, help="the @types/node package's folder")
    parser.add_argument("--out", type=Path, default=TABLE)
    args = parser.parse_args()
    table = build(args.typescript, args.node)
    args.out.write_text(json.dumps(table, separators=(",", ":"), sort_keys=False) + "\n")
    sys.stderr.write(f"{args.out}: {len(table['modules'])} modules, {len(table['globals'])} globals, {args.out.stat().st_size} bytes\n")


if __name__ == "__main__":
    main()
