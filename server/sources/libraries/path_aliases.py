"""TypeScript's path aliases: the ``compilerOptions.paths`` of the tsconfig.json or jsconfig.json
nearest above a file (``"@/*": ["./src/*"]``, as Next.js and Vite projects write them), with
the ``baseUrl`` they are relative to (the config's folder where it names none) and what an
``extends`` of a file of the project adds. ``mapped`` reads an import through them, as
TypeScript does before node_modules; ``written`` is the alias that names a file, for a new
import. The configs are JSON with comments and trailing commas; the nearest is read again when
it changes on disk."""

from __future__ import annotations

import functools
import json
import logging
import re
import time
from pathlib import Path

log = logging.getLogger(__name__)

CONFIGS = ("tsconfig.json", "jsconfig.json")
UP = 32  # folders climbed looking for a config
EXTENDS = 4  # configs followed through ``extends``
LOOK_AGAIN = 5.0  # seconds before a folder's config is looked for again
_JSONC = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/|,(\s*[}\]])', re.S)

Alias = tuple[str, tuple[str, ...], Path]  # a pattern, its targets, the folder they are relative to


def aliases(folder: Path) -> tuple[Alias, ...]:
    """The path aliases of the config nearest above ``folder``; () where none has any. Looked
    for again after LOOK_AGAIN seconds (a request may ask for each name it offers)."""
    return _nearest(folder, int(time.monotonic() // LOOK_AGAIN))


@functools.lru_cache(maxsize=1024)
def _nearest(folder: Path, _epoch: int) -> tuple[Alias, ...]:
    here = folder
    for _ in range(UP):
        for name in CONFIGS:
            config = here / name
            try:
                stamp = config.stat().st_mtime_ns
            except OSError:
                continue
            return _read(config, stamp)
        if here.parent == here:
            break
        here = here.parent
    return ()


def mapped(folder: Path, spec: str, file_of) -> Path | None:
    """The path an alias import ``spec`` from ``folder`` stands for (``@/lib/api``: the project's
    src/lib/api, as a relative import writes a path), where ``file_of`` (a path's file, as
    node_resolution completes it) finds its file; None where no alias matches or none leads to
    a file."""
    for pattern, targets, base in aliases(folder):
        head, star, tail = pattern.partition("*")
        if not (spec == pattern if not star else spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(head) + len(tail)):
            continue
        middle = spec[len(head):len(spec) - len(tail)] if star else ""
        for target in targets:
            if file_of(path := base / target.replace("*", middle, 1)) is not None:
                return path
    return None


def written(folder: Path, stem: Path) -> str | None:
    """The alias import that names the project file ``stem`` (its path without its extension or
    ``/index``, as a relative import writes it) from a file in ``folder``: the shortest of
    those that do; None where none does."""
    stem = stem.resolve()
    best = None
    for pattern, targets, base in aliases(folder):
        head, star, tail = pattern.partition("*")
        for mapping in targets:
            before, mapped_star, after = mapping.partition("*")
            if not star or not mapped_star or after:
                continue
            try:
                rest = stem.relative_to((base / before).resolve()).as_posix()
            except ValueError:
                continue
            spec = head + rest + tail
            if best is None or len(spec) < len(best):
                best = spec
    return best


@functools.lru_cache(maxsize=64)
def _read(config: Path, stamp: int) -> tuple[Alias, ...]:
    """The aliases that ``config`` (modified at ``stamp``) and what it extends give: the nearest
    ``paths`` and ``baseUrl`` (each relative to the config that names it)."""
    paths = paths_folder = base = None
    for _ in range(EXTENDS):
        options = _jsonc(config)
        compiler = options.get("compilerOptions") if isinstance(options.get("compilerOptions"), dict) else {}
        if paths is None and isinstance(compiler.get("paths"), dict):
            paths, paths_folder = compiler["paths"], config.parent
        if base is None and isinstance(compiler.get("baseUrl"), str):
            base = config.parent / compiler["baseUrl"]
        parent = options.get("extends")
        if not (isinstance(parent, str) and parent.startswith(".")):
            break  # a package's config (`@tsconfig/node18`) sets no project's paths
        config = config.parent / parent
        config = config if config.suffix == ".json" else config.with_name(config.name + ".json")
    if not paths:
        return ()
    return tuple((pattern, tuple(t for t in targets if isinstance(t, str)), base or paths_folder)
                 for pattern, targets in paths.items() if isinstance(targets, list))


def _jsonc(path: Path) -> dict:
    """A JSON file that may hold comments and trailing commas, as TypeScript reads its configs."""
    try:
        text = path.read_text(encoding="utf-8")
        for _ in range(2):  # a comment between a trailing comma and its bracket: the comma goes the second time
            text = _JSONC.sub(lambda m: m.group(1) or m.group(2) or "", text)
        found = json.loads(text)
    except (OSError, ValueError) as error:
        log.info("%s not read: %s", path, error)
        return {}
    return found if isinstance(found, dict) else {}
