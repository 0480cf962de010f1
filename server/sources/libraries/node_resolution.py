"""Where ``require(spec)`` or ``import … from spec`` leads, as Node resolves it: relative paths,
``node_modules`` up the folders (``@types`` too), ``package.json``'s ``types``, ``exports``,
``main`` and its ``imports`` (``#subpath``); a file's ``.d.ts`` declarations before its JavaScript.
And as TypeScript resolves it first: a tsconfig's path aliases (path_aliases.py)."""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path

from . import path_aliases

log = logging.getLogger(__name__)

UP = 32  # folders climbed looking for node_modules
SUFFIXES = ("", ".d.ts", ".js", ".cjs", ".mjs", ".jsx", ".ts", ".tsx", "/index.d.ts", "/index.js", "/index.ts", "/index.tsx")


def resolve(folder: Path, spec: str) -> Path | None:
    """The file that ``require(spec)`` from ``folder`` reads (its declarations where a package
    has them), or None."""
    if spec.startswith((".", "/")):
        return file_of(folder / spec)
    if spec.startswith("#"):  # a subpath import: package.json's `imports` maps it to a file of the package
        return _subpath(folder, spec)
    if (aliased := path_aliases.mapped(folder, spec, file_of)) is not None:  # tsconfig's `paths`: `@/lib/api`
        return file_of(aliased)
    parts = spec.split("/")
    package = "/".join(parts[:2] if spec.startswith("@") else parts[:1])
    rest = "/".join(parts[2:] if spec.startswith("@") else parts[1:])
    for here in _up(folder):
        for root in (here / "node_modules" / package, here / "node_modules" / "@types" / package.replace("@", "").replace("/", "__")):
            if root.is_dir():
                found = file_of(root / rest) if rest else _entry(root)
                if found is not None:
                    return found
    return None


def would_hold(folder: Path, spec: str) -> list[Path]:
    """Where a module ``spec`` not found from ``folder`` would appear (what its install or its
    file's creation changes): the folder of a relative one; for a package, the ``node_modules``
    folders that ``resolve`` looks in, a scoped one's scope folder too (where there are none
    yet, the folders that one would be made in)."""
    if spec.startswith((".", "/")):
        return [(folder / spec).parent]
    scope = spec.split("/")[0] if spec.startswith("@") else None
    found = [here / "node_modules" for here in _up(folder) if (here / "node_modules").is_dir()]
    found += [modules / scope for modules in found if scope and (modules / scope).is_dir()]
    return found or list(_up(folder))


def _up(folder: Path) -> Iterator[Path]:
    """``folder``, then the folders above it (UP at most)."""
    here = folder
    for _ in range(UP):
        yield here
        if here.parent == here:
            return
        here = here.parent


def package_manifest(path: Path) -> dict:
    """A package.json's fields; empty where it is missing or not an object (logged where it
    does not read)."""
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        log.info("%s not read: %s", path, error)
        return {}
    return manifest if isinstance(manifest, dict) else {}


def _subpath(folder: Path, spec: str) -> Path | None:
    """The file that ``#spec`` names in the ``imports`` of the nearest package.json above
    ``folder`` (an exact key, or one pattern with ``*``)."""
    for here in _up(folder):
        if (here / "package.json").is_file():
            imports = package_manifest(here / "package.json").get("imports")
            if not isinstance(imports, dict):
                return None
            target, middle = imports.get(spec), None
            if target is None:
                for key, value in imports.items():
                    head, star, tail = key.partition("*")
                    if star and spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(key) - 1:
                        target, middle = value, spec[len(head):len(spec) - len(tail)]
                        break
            entry = _export_entry(target) if target is not None else None
            if isinstance(entry, str) and middle is not None:
                entry = entry.replace("*", middle)
            return file_of(here / entry) if isinstance(entry, str) and entry.startswith("./") else None
    return None


def file_of(base: Path) -> Path | None:
    """The file ``base`` names with one of SUFFIXES, a ``.js`` file's ``.d.ts`` beside it first."""
    for suffix in SUFFIXES:
        candidate = Path(str(base) + suffix)
        if candidate.is_file():
            declarations = candidate.with_name(candidate.name.rsplit(".", 1)[0] + ".d.ts")
            return declarations if candidate.suffix == ".js" and declarations.is_file() else candidate
    for suffix, names in JAVASCRIPT_NAMES.items():  # TypeScript's `./enums.js`: the `./enums.ts` it compiles from
        if base.suffix in names and (candidate := base.with_suffix(suffix)).is_file():
            return candidate
    return None


# a TypeScript file's extension -> the extensions an import names it by (Node's module resolution), the usual first
JAVASCRIPT_NAMES = {".ts": (".js",), ".tsx": (".js", ".jsx"), ".mts": (".mjs",), ".cts": (".cjs",)}


def _entry(root: Path) -> Path | None:
    """A package's entry: package.json's ``types``/``typings``, ``exports``' ``.``, ``main``."""
    manifest = package_manifest(root / "package.json")
    candidates = [manifest.get("types"), manifest.get("typings"), _export_entry(manifest.get("exports")), manifest.get("main"), "index"]
    for candidate in candidates:
        if isinstance(candidate, str) and (found := file_of(root / candidate)) is not None:
            return found
    return None


def _export_entry(exports) -> str | None:
    if isinstance(exports, str):
        return exports
    if isinstance(exports, dict):
        entry = exports.get(".", exports)
        for key in ("types", "require", "node", "default", "import"):
            if isinstance(entry, dict) and key in entry:
                return _export_entry(entry[key])
        return entry if isinstance(entry, str) else None
    return None


def linked(path: Path) -> bool:
    """Whether ``path`` under node_modules is a file of the project's own: a workspace package
    linked there (npm, yarn and pnpm workspaces link ``node_modules/@org/core`` to
    ``packages/core``), not a package installed (pnpm's links stay under node_modules)."""
    try:
        return "node_modules" not in path.resolve().parts
    except (OSError, RuntimeError):  # a loop of links
        return False


def package_spec(folder: Path, stem: Path) -> str | None:
    """How a file in ``folder`` imports the project file ``stem`` (its path without extension)
    of another workspace package linked into node_modules (``packages/core/src/index.ts``:
    ``@org/core``), as a monorepo's packages import each other: the package's name where the
    file is its entry (or its sources' ``index``, where the entry is built from them), else the
    name and the file's path in it (where package.json has no ``exports`` to forbid it); None
    for a file of the same package or of none, or a package that is not linked here."""
    return _package_spec(folder, stem, int(time.monotonic() // LOOK_AGAIN))


LOOK_AGAIN = 5.0  # seconds before package_spec looks at the disk again for the same question


def package_of(folder: Path) -> tuple[Path, str, bool] | None:
    """The nearest package.json above ``folder`` that names a package (not under node_modules):
    its folder, the name, whether it has ``exports``."""
    return _package_of(folder, int(time.monotonic() // LOOK_AGAIN))


@functools.lru_cache(maxsize=1024)
def _package_spec(folder: Path, stem: Path, _epoch: int) -> str | None:
    found = _package_of(stem if stem.is_dir() else stem.parent, _epoch)  # a folder's index: the folder's
    if found is None or (here := _package_of(folder, _epoch)) is not None and here[0] == found[0]:
        return None
    root, name, exported = found
    entry = resolve(folder, name)
    try:
        real_root, real_entry = root.resolve(), entry.resolve() if entry is not None else None
        if real_entry is None or real_root not in real_entry.parents:
            return None  # not linked here, or another copy of a package of that name
        inside = _bare(stem.resolve().relative_to(real_root).as_posix())
        if inside == _bare(real_entry.relative_to(real_root).as_posix()) or inside in ("", "src"):
            return name
        sub = f"{name}/{inside}"
        at = resolve(folder, sub) if not exported else None
        return sub if at is not None and _bare(at.resolve().relative_to(real_root).as_posix()) == inside else None
    except (OSError, RuntimeError, ValueError):
        return None


def _bare(relative: str) -> str:
    """A file's path without its extension or ``/index`` (``src/index.d.ts``: ``src``)."""
    for suffix in (".d.ts", ".d.mts", ".d.cts", ".js", ".cjs", ".mjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"):
        if relative.endswith(suffix):
            relative = relative[: -len(suffix)]
            break
    return "" if relative in ("index", ".") else relative.removesuffix("/index")


@functools.lru_cache(maxsize=256)
def _package_of(folder: Path, _epoch: int) -> tuple[Path, str, bool] | None:
    """The nearest package.json above ``folder`` that names a package (not under node_modules):
    its folder, the name, whether it has ``exports``."""
    for here in _up(folder):
        if here.name == "node_modules":
            return None
        try:
            manifest = json.loads((here / "package.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(manifest, dict) and isinstance(manifest.get("name"), str):
            return here, manifest["name"], "exports" in manifest
    return None
