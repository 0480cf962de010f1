"""What a Python library's names say of themselves: the first paragraph of a docstring, from the
module's source where it is read (a package's ``.py``) or, for a typeshed stub, from the source
of the same standard-library module beside this interpreter (stubs carry no docstrings). Read
with ``ast``, never imported: a module's own on the loader's thread, the standard library's on
completionItem/resolve (cached per module)."""

from __future__ import annotations

import ast
import functools
import logging
import sysconfig
from pathlib import Path

log = logging.getLogger(__name__)

MAX_DOC = 600  # characters of a first paragraph kept
MAX_SOURCE = 2 * 1024 * 1024  # a larger source file is not read


def first_paragraph(text: str | None) -> str:
    """The docstring's first paragraph, its lines joined (what pyright shows first)."""
    if not text:
        return ""
    paragraph = text.strip().split("\n\n", 1)[0]
    joined = " ".join(line.strip() for line in paragraph.splitlines())
    return joined if len(joined) <= MAX_DOC else joined[: MAX_DOC - 1] + "…"


def docstring(node: ast.AST | None) -> str:
    """The first paragraph of a function's, class's or module's own docstring."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
        return first_paragraph(ast.get_docstring(node))
    return ""


@functools.lru_cache(maxsize=256)
def stdlib_docs(module: str) -> dict[str, str]:
    """Docstrings of a standard-library module's source, by qualified name (``join``,
    ``Path.with_suffix``; ``""`` for the module's own); empty where there is no source."""
    path = _stdlib_source(module)
    if path is None:
        return {}
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError) as error:
        log.info("%s: docstrings not read: %s", path, error)
        return {}
    out = {"": docstring(tree)}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.setdefault(node.name, docstring(node))
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out.setdefault(f"{node.name}.{item.name}", docstring(item))
    return {name: doc for name, doc in out.items() if doc}


def lookup(where: tuple[str, str] | None) -> str:
    """A stub member's documentation, where Member.doc_of says it is."""
    return stdlib_docs(where[0]).get(where[1], "") if where else ""


def _stdlib_source(module: str) -> Path | None:
    if not module or not all(part.isidentifier() for part in module.split(".")):
        return None
    root = Path(sysconfig.get_paths()["stdlib"])
    base = root.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        try:
            if path.is_file() and path.stat().st_size <= MAX_SOURCE:
                return path
        except OSError:
            return None
    return None
