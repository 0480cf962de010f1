"""Node's built-in modules and the language's globals, from the shipped table (javascript.json,
build_table.py): their members, the classes of their functions' results and properties, the
options objects their functions take, and how often real code uses each member
(javascript_usage.json, build_usage.py)."""

from __future__ import annotations

import functools
import json
import logging
from pathlib import Path

from ...engines.base import Kind
from ...receivers import Target
from . import declarations
from .declarations import CLASS, FUNCTION, NAMESPACE
from .declared_types import PRIMITIVES
from .members import Members

log = logging.getLogger(__name__)

TABLE = Path(__file__).with_name("javascript.json")
USAGE = Path(__file__).with_name("javascript_usage.json")
KINDS = {FUNCTION: Kind.FUNCTION, CLASS: Kind.CLASS, NAMESPACE: Kind.MODULE}


@functools.cache
def table() -> dict:
    try:
        return json.loads(TABLE.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:  # a broken install: no built-ins, nothing else lost
        log.warning("%s not read: %s", TABLE, error)
        return {"modules": {}, "globals": {}}


@functools.cache
def usage() -> dict[str, dict[str, int]]:
    """How many files of real code use each member of a module or global (javascript_usage.json,
    build_usage.py)."""
    try:
        return json.loads(USAGE.read_text(encoding="utf-8"))["modules"]
    except (OSError, ValueError, KeyError) as error:
        log.warning("%s not read: %s", USAGE, error)
        return {}


def builtin(spec: str) -> bool:
    """Whether ``spec`` names one of Node's modules (``fs``, ``node:fs``, ``fs/promises``)."""
    spec = spec.removeprefix("node:")
    return spec in table()["modules"] or spec.split("/")[0] in table()["modules"]


def table_key(target: Target) -> str:
    """How the table names what ``target`` names: ``fs.createReadStream()``, ``process.stdout``,
    ``events()`` (a module's default export called)."""
    spec = target.module.removeprefix("node:")
    return ".".join(((spec,) if spec else ()) + target.names).replace(".()", "()")


_PRIMITIVES = {**PRIMITIVES, "bigint": "BigInt", "symbol": "Symbol"}


def global_class(written: str) -> str | None:
    """The global class whose instances a written type names (``string`` -> String, ``Map``,
    ``URL``, ``Buffer``), where the table has its members; else None."""
    name = _PRIMITIVES.get(written, written)
    return name if name in table().get("instances", {}) else None


def typed(target: Target) -> bool:
    """Whether the table says of what class ``target`` is (a Node module's function's result, a
    global's property: ``fs.createReadStream()``, ``process.stdout``)."""
    return table_key(target) in table().get("types", {})


def options(call: Target, index: int) -> list[str]:
    """The keys an options object passed as argument ``index`` of the call ``call`` (its callee's
    target marked ``()``: calls.callee_target) may hold, by Node's declarations; [] where they say
    nothing."""
    return table().get("options", {}).get(table_key(call), {}).get(str(index), [])


def instance(name: str | None, used_as: str = "") -> Members | None:
    """The members of an instance of the class or interface ``name`` of the table (a global
    class's, a Node module's: ``fs.ReadStream``), or None; how often real code uses each, counted
    under ``used_as`` (``process.stdout``) where it is not a call's result and counted, else under the class."""
    found = table().get("instances", {}).get(name) if name else None
    uses = used_as if used_as and not used_as.endswith(")") and used_as in usage() else f"{name}.prototype"
    return declared_members(name, found, name, uses, True) if found else None


def declared_members(where: str, names: dict[str, str], source: str, key: str, of_object: bool = False) -> Members:
    """Members from declarations' entries (declarations.py); ``of_object``: an object's (a global's,
    an instance's), whose functions are methods and whose values properties."""
    out = Members(where)
    uses = usage().get(key, {})
    for name, entry in names.items():
        kind, parameters = KINDS.get(declarations.kind(entry), Kind.VARIABLE), declarations.signature(entry)
        if kind == Kind.VARIABLE and len(name) > 1 and name.isupper():
            kind = Kind.CONSTANT
        elif of_object and kind in (Kind.FUNCTION, Kind.VARIABLE):
            kind = Kind.METHOD if kind == Kind.FUNCTION else Kind.PROPERTY
        shown = f"function {name}{parameters} " if parameters else ""
        out.add(name, kind, f"{shown}from {source}", uses.get(name, 0), parameters, where)
    return out
