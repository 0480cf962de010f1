"""What a package's declaration files say of the names it exports: the members of an instance of
a class or an interface (``new Client()`` … ``c.``, ``client: Client`` … ``client.``), of a
function's declared result (``const i = create()`` … ``i.``), and of a name itself (a class's
statics, a namespace's values, a variable's type's members: ``Client.``). Read from the ``.d.ts``
a package's entry names and the relative modules it imports and re-exports, never by running
code. Called on the loader's thread only."""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .declarations import CLASS, Reader, Scope, kind

log = logging.getLogger(__name__)

FILES = 16  # declaration files read for one package entry, the entry's first
MAX_FILE = 2 * 1024 * 1024  # a larger one is not read
BASES = 3  # what a class or an interface extends, followed this deep
_RELATIVE = re.compile(rb"""\bfrom\s+['"](\.{1,2}/[^'"]+)['"]""")  # `export * from './client'`, `import { Base } from './base'`


@dataclass
class Declarations:
    """The declaration files of one package entry: what the files declare (``reader``: classes,
    interfaces, their bases) and each file's top-level scope (the entry's first)."""

    reader: Reader = field(default_factory=Reader)
    scopes: list[Scope] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # the files read
    changed: list[int] = field(default_factory=list)  # their times of change


_READ: OrderedDict[Path, Declarations] = OrderedDict()  # by entry
KEPT = 8  # packages' declarations kept: a package's several names read once


def read(entry: Path, files: list[str], pause: Callable[[], object] = lambda: None) -> Declarations:
    """``entry`` (a ``.d.ts``) and the relative declaration files it names, FILES at most, read
    once while none of them changes; the files read go to ``files``. ``pause`` runs before each
    file (the loader's gate: the server's requests go first)."""
    found = _READ.get(entry)
    if found is None or [_changed(Path(f)) for f in found.files] != found.changed:
        found = _READ[entry] = _read(entry, pause)
        while len(_READ) > KEPT:
            _READ.popitem(last=False)
    _READ.move_to_end(entry)
    files.extend(found.files)
    return found


def forget() -> None:
    """Memory: drop the declarations kept (the loader's thread)."""
    _READ.clear()


def _changed(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def _read(entry: Path, pause: Callable[[], object]) -> Declarations:
    out = Declarations()
    files = out.files
    queue, seen = [entry], {entry}
    while queue and len(out.scopes) < FILES:
        path = queue.pop(0)
        pause()
        try:
            data = path.read_bytes() if path.stat().st_size <= MAX_FILE else b""
        except OSError as error:
            log.info("%s not read: %s", path, error)
            continue
        files.append(str(path))
        out.changed.append(_changed(path))
        out.scopes.append(out.reader.read(data))
        for match in _RELATIVE.finditer(data):
            found = _declaration_file(path.parent / match.group(1).decode("utf-8", "replace"))
            if found is not None and found not in seen:
                seen.add(found)
                queue.append(found)
    return out


def _declaration_file(base: Path) -> Path | None:
    """The ``.d.ts`` that ``from './client'`` (or ``./client.js``) names."""
    stem = str(base)
    for suffix in (".js", ".mjs", ".cjs"):
        stem = stem.removesuffix(suffix)
    for candidate in (Path(stem + ".d.ts"), Path(stem + ".d.mts"), Path(stem + ".d.cts"), Path(stem) / "index.d.ts"):
        if candidate.is_file():
            return candidate
    return None


def members(found: Declarations, names: tuple[str, ...], itself: bool) -> tuple[str, dict[str, str], bool] | None:
    """What the package's declarations give for ``names`` (one name, or one marked ``()``: a
    function's result, ``await`` after it: what awaiting it gives; ``default``: what ``export =``
    names): the members of an instance of it, or with ``itself`` of the name itself;
    as (where, name -> declarations' entry, complete); None where they say nothing."""
    awaited = names[-1:] == ("await",)
    called = names[:-1] if awaited else names
    if len(called) == 2 and called[1].endswith("()") and not itself:  # `Client.connect()`: a static method's result
        called = (f"{called[0]}.{called[1]}",)
    if awaited:  # `await createClient()`
        key = called[0][:-2] if len(called) == 1 and called[0].endswith("()") and not itself else None
        written = next((s.awaits[key] for s in found.scopes if key in s.awaits), None)
        return instance(found.reader, written) if written else None
    names = called
    if len(names) != 1:
        return None
    name = names[0]
    if name in ("default", "()") and found.scopes and found.scopes[0].export_equals:  # `export = Koa`: `new Koa()`
        name = found.scopes[0].export_equals
    if name.endswith("()"):
        written = next((s.returns[name[:-2]] for s in found.scopes if name[:-2] in s.returns), None)
        return instance(found.reader, written) if written and not itself else None
    if not itself:
        return instance(found.reader, name)
    for scope in found.scopes:
        if kind(scope.values.get(name, "")) == CLASS:
            return f"class {name}", dict(scope.statics.get(name, {})), True
        if name in scope.namespaces:
            return name, dict(scope.namespaces[name].values), True
        if name in scope.types:  # `export declare const client: Client`
            return instance(found.reader, scope.types[name])
    return None


def instance(reader: Reader, written: str | None) -> tuple[str, dict[str, str], bool] | None:
    """The members of an instance of the class or interface ``written`` names (``Client``,
    ``http.Agent<T>``: by its last name), its bases' too, BASES deep; complete where every base was found."""
    name = _last(written)
    if name not in reader.classes and name not in reader.interfaces:
        return None
    out: dict[str, str] = {}
    complete = True
    todo, seen = [(name, 0)], set()
    while todo:
        each, depth = todo.pop(0)
        if each in seen:
            continue
        seen.add(each)
        if each not in reader.classes and each not in reader.interfaces:
            complete = False  # a base from another package, or a type this reader did not see
            continue
        for member, entry in {**reader.interfaces.get(each, {}), **reader.classes.get(each, {})}.items():
            out.setdefault(member, entry)
        declared = reader.declared.get(each)
        complete = complete and declared is not None  # else declared in an ambient module: its bases unread
        for _, base in declared.bases if declared is not None else ():
            if depth + 1 < BASES:
                todo.append((_last(base), depth + 1))
            else:
                complete = False
    return f"class {name}", out, complete


def _last(written: str | None) -> str:
    """``http.Agent<T>`` -> ``Agent``."""
    return (written or "").split("<")[0].split(".")[-1].strip()


def option_keys(found: Declarations, name: str, index: int) -> list[str]:
    """The keys an options object passed as argument ``index`` of the function ``name`` may
    hold: those its parameter's type writes and the members of the interfaces it names
    (declarations.py takes a parameter for options by its name)."""
    keys: set[str] = set()
    for scope in found.scopes:
        written, named = scope.options.get(name, {}).get(index, ([], []))
        keys.update(written)
        for each in named:
            if _last(each) not in found.reader.classes and (members := instance(found.reader, each)) is not None:
                keys.update(members[1])
    return sorted(k for k in keys if k.replace("$", "_").isidentifier())
