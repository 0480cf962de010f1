"""How a file writes the import of a project file (an auto-import's module, sources/auto_import.py):
in Python relative where its files import so and a relative import reaches it, else absolute
through the packages above it; in JavaScript and TypeScript relative, by another workspace
package's name, or through a tsconfig path alias, with the extension its relative imports write.
Reads the disk for whether a folder is a package or a project's root, a workspace's package.json
files and a tsconfig (each cached)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from ..languages import LanguageSpec
from .libraries import path_aliases
from .libraries.node_resolution import JAVASCRIPT_NAMES, package_spec
from .project_imports import file_stem, is_file_key


def written(module: str, relative: bool, language: LanguageSpec, path: str | None, absolute: str | None = None) -> str | None:
    """How the file ``path`` writes the import of ``module`` (``@`` and a path: a project file):
    relative where ``relative``, else (JavaScript) by the package name of another workspace
    package, or through a tsconfig path alias that names it, as TypeScript does unless the
    relative path has fewer folders; None where it cannot.
    ``absolute`` (Python): the absolute module the project's files write for that file, written
    where it is not relative (the ``__init__.py`` files fall short in a namespace package, or for
    tests run from the project's root: ``poetry.plugins`` under src/poetry/, ``tests.helpers``)."""
    if not is_file_key(module):
        return module
    if absolute and not relative and language.name == "python":
        return absolute
    spec = _written(module, relative, language.name == "python", path)
    if spec is not None and not relative and language.name != "python":
        folder, stem = Path(path).parent, Path(file_stem(module)[1:])
        if (package := package_spec(folder, stem)) is not None:  # another workspace package
            return package
        alias = path_aliases.written(folder, stem)
        return alias if alias is not None and spec.removeprefix("./").count("/") >= alias.count("/") else spec
    return spec


@functools.lru_cache(maxsize=4096)
def _written(module: str, relative: bool, python: bool, path: str | None) -> str | None:
    target = Path(module[1:])
    if path is None:
        return None
    here = Path(path).parent
    if not python:
        spec = os.path.relpath(target, here).replace(os.sep, "/")
        return spec if spec.startswith("../") or spec == ".." else "./" + spec  # `require('..')`: the folder above's index
    if relative:  # from the folder of the module (a package: its own)
        base, tail = (target, ()) if os.path.isdir(target) else (target.parent, (target.name,))
        common = Path(os.path.commonpath([here, base]))
        up = len(here.relative_to(common).parts)
        if not any(map(_import_root, (here, *here.parents[:up]))):  # else no relative import climbs there
            return "." * (up + 1) + ".".join(base.relative_to(common).parts + tail)
    dotted = _dotted(target)
    if dotted is None and target.parent == here:
        return target.name
    return dotted


def _dotted(target: Path) -> str | None:
    """The absolute module of a Python file or package (without its suffix), through the
    folders above it that are packages."""
    parts = [target.name]
    folder = target.parent
    while _package(str(folder)):
        parts.append(folder.name)
        folder = folder.parent
    return ".".join(reversed(parts)) if len(parts) > 1 or _package(str(target)) else None


@functools.lru_cache(maxsize=4096)
def _package(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, "__init__.py"))


@functools.lru_cache(maxsize=1024)
def _import_root(folder: Path) -> bool:
    """Whether ``folder`` is where imports start, never a package: a src/ folder or a project's
    (its pyproject.toml, setup.py) without ``__init__.py`` (a monorepo's packages/app/src/app)."""
    return not _package(str(folder)) and (folder.name == "src" or any((folder / f).is_file() for f in ("pyproject.toml", "setup.py")))


def as_imported(defining: str, own) -> str:
    """The path of the project file ``defining`` with the extension this file's relative imports
    write: none where most of them write none; a TypeScript file's as JavaScript's (``./router.js``
    for router.ts) where most of those naming one end so, as TypeScript asks unless told to allow
    ``.ts``."""
    style = _extension_style(own)
    if style is None:
        return str(Path(defining).with_suffix(""))
    suffix = Path(defining).suffix
    return str(Path(defining).with_suffix(JAVASCRIPT_NAMES[suffix][0])) if style == "js" and suffix in JAVASCRIPT_NAMES else defining


_WRITTEN = (".js", ".mjs", ".cjs")  # JavaScript's extensions, as a relative import writes them


@functools.lru_cache(maxsize=64)
def _extension_style(own) -> str | None:
    """How this file's saved version writes its relative JavaScript imports: None without their
    extension (most of them), else "js" where most of those naming an extension name
    JavaScript's, "ts" where not."""
    suffixes = [Path(b[1]).suffix for b in own.bound if b[3]] if own is not None else []
    if not sum(s in _WRITTEN or s == ".ts" for s in suffixes) * 2 > len(suffixes) > 0:
        return None
    named = [s for s in suffixes if s in _WRITTEN or s in JAVASCRIPT_NAMES]
    return "js" if sum(s in _WRITTEN for s in named) * 2 > len(named) else "ts"


@functools.lru_cache(maxsize=64)
def relative_style(own) -> bool:
    """Whether this file's saved version writes most of its project imports relative."""
    written_relative = [b[3] for b in own.bound if is_file_key(b[1]) or b[3]] if own is not None else []
    return sum(written_relative) * 2 > len(written_relative) if written_relative else False
