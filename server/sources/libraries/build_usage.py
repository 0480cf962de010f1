"""Builds python_usage.json and javascript_usage.json, the tables of how often real code uses
each member of the modules it imports and of the language's globals (``os.path.join`` in 253
files, ``os.path.altsep`` in 2; ``process.argv``), which rank a receiver's members where the
model and the buffer say nothing of them. Counted in the files of a source tree, through each
file's imports (``import os.path as p`` … ``p.join``; ``const fs = require('node:fs')`` …
``fs.readFileSync``) and, in JavaScript, the globals of javascript.json: a member counts once
per file. Beside each, python_imports.json and javascript_imports.json: how many files import
each name from each module (``from collections import deque``, ``const { join } =
require('path')``; ``import os``: the name ""), for auto-import. The sources: CPython's ``Lib``
(every Python installs it) and npm's package (``npm pack npm``, which bundles its
dependencies: 1,135 files of Node code).

    python -m treecomplete.sources.libraries.build_usage --lang python   # this interpreter's standard library
    python -m treecomplete.sources.libraries.build_usage --lang javascript --from DIR   # npm-11.19.1.tgz extracted
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import sysconfig
from collections import Counter, defaultdict
from pathlib import Path

from ... import receivers
from ...languages import JAVASCRIPT, PYTHON, LanguageSpec

TOP = 60  # members kept per module
MIN_FILES = 2  # a member used in fewer files is not kept


def _parsed(files: list[Path], language: LanguageSpec):
    """Each readable file of at most 1 MB, and its tree."""
    parser = language.parser()
    for path in files:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if len(data) <= 1_000_000:
            yield data, parser.parse(data)


def count(files: list[Path], language: LanguageSpec) -> dict[str, Counter[str]]:
    globals_ = {}
    if language is JAVASCRIPT:
        from .node_table import table

        globals_ = {name: receivers.Target("", (name,)) for name in table()["globals"]}
    usage: dict[str, Counter[str]] = defaultdict(Counter)
    for data, tree in _parsed(files, language):
        bound = {**globals_, **receivers.bindings(tree, language, [(0, len(data))])}
        seen: set[tuple[str, str]] = set()
        for name, target in bound.items():
            if not name:
                continue
            for match in re.finditer(rb"(?<![\w.$])" + re.escape(name.encode()) + rb"((?:\.[A-Za-z_$][\w$]*)*)\.([A-Za-z_$][\w$]*)", data):
                middle = [p for p in match.group(1).decode().split(".") if p]
                module = ".".join(filter(None, (target.module.removeprefix("node:"),) + target.names + tuple(middle)))
                member = match.group(2).decode()
                if not member.startswith("_"):
                    seen.add((module, member))
        for module, member in seen:
            usage[module][member] += 1
    return usage


def count_imports(files: list[Path], language: LanguageSpec) -> dict[str, Counter[str]]:
    """How many files import each name from each module (``from m import x``: m -> x; ``import
    m``: m -> ""), for auto-import (sources/auto_import.py)."""
    found: dict[str, Counter[str]] = defaultdict(Counter)
    for data, tree in _parsed(files, language):
        for name, target in receivers.bindings(tree, language, [(0, len(data))]).items():
            module = target.module.removeprefix("node:")
            if name and module and not module.startswith((".", "_")) and len(target.names) <= 1:
                found[module][target.names[0] if target.names else ""] += 1
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", choices=["python", "javascript"], required=True)
    parser.add_argument("--from", dest="source", type=Path, help="a source tree (default for Python: this interpreter's "
                                                                   "standard library; for JavaScript: npm's package, extracted)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    language = PYTHON if args.lang == "python" else JAVASCRIPT
    if args.source is None:
        if language is not PYTHON:
            parser.error("--from is needed for JavaScript")
        args.source = Path(sysconfig.get_paths()["stdlib"])
    out = args.out or Path(__file__).with_name(f"{args.lang}_usage.json")
    suffixes = (".py",) if language is PYTHON else (".js", ".cjs", ".mjs")
    files = sorted(p for p in args.source.rglob("*") if p.suffix in suffixes and "site-packages" not in p.parts and p.is_file())
    imports = count_imports(files, language)
    kept = {module: {n: c for n, c in sorted(names.items(), key=lambda nc: (-nc[1], nc[0])) if c >= MIN_FILES}
            for module, names in sorted(imports.items())}
    out.with_name(f"{args.lang}_imports.json").write_text(json.dumps(
        {"source": f"{len(files)} files of {args.source.name}", "modules": {m: n for m, n in kept.items() if n}},
        separators=(",", ":")) + "\n")
    usage = count(files, language)
    table = {module: dict(sorted(((m, c) for m, c in members.most_common(TOP) if c >= MIN_FILES), key=lambda mc: (-mc[1], mc[0])))
             for module, members in sorted(usage.items())}
    table = {module: members for module, members in table.items() if members and not module.startswith(("_", ".", "/"))}
    out.write_text(json.dumps({"source": f"{len(files)} files of {args.source.name}", "modules": table}, separators=(",", ":")) + "\n")
    sys.stderr.write(f"{out}: {len(table)} modules from {len(files)} files, {out.stat().st_size} bytes\n")


if __name__ == "__main__":
    main()
