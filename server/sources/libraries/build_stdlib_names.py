"""Builds python_stdlib_names.json: the public names of each standard module that real code
imports from (python_imports.json's modules), as typeshed's stubs for this interpreter's
version declare them (``cast``, ``overload``, ``TYPE_CHECKING`` of typing; ``field`` of
dataclasses), for auto-import's names that CPython's own code never imports
(sources/library_names.py).

    python -m treecomplete.sources.libraries.build_stdlib_names
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from typeshed_client import get_search_context, get_stub_names

HERE = Path(__file__).parent


def main() -> None:
    modules = json.loads((HERE / "python_imports.json").read_text())["modules"]
    context = get_search_context()
    table: dict[str, list[str]] = {}
    for module in sorted(modules):
        try:
            names = get_stub_names(module, search_context=context)
        except (OSError, SyntaxError, ValueError) as error:
            sys.stderr.write(f"{module}: {error}\n")
            continue
        public = sorted(n for n, info in (names or {}).items() if info.is_exported and not n.startswith("_"))
        if public:
            table[module] = public
    version = ".".join(map(str, sys.version_info[:2]))
    out = HERE / "python_stdlib_names.json"
    out.write_text(json.dumps({"source": f"typeshed's stubs for Python {version}", "modules": table}, separators=(",", ":")) + "\n")
    sys.stderr.write(f"{out}: {len(table)} modules, {sum(map(len, table.values()))} names, {out.stat().st_size} bytes\n")


if __name__ == "__main__":
    main()
