"""How often the sequence at a cursor agrees with training's, outside the predicted node's
ancestors (docs/models.md, "The node sequence"): every leaf of every file is a cut.

    python -m benchmarks.cursor_consistency bench-out/heldout/python --max-files 12
"""

from __future__ import annotations

import argparse
from pathlib import Path

from treecomplete.context import PLACEHOLDER
from treecomplete.document import Document
from treecomplete.languages import LanguageSpec, language_for
from treecomplete.models.flatten import EMPTY, Flat, flatten


def _ancestors(flat: Flat, index: int) -> set[int]:
    out = set()
    while index < len(flat) and flat.parents[index]:
        index -= flat.parents[index]
        out.add(index)
    return out


def agreement(language: LanguageSpec, data: bytes) -> tuple[int, int]:
    """(cuts that agree outside the ancestors, cuts): one cut before each leaf of ``data``."""
    full = flatten(language.parser().parse(data))
    leaves = [i for i, value in enumerate(full.values) if value != EMPTY]
    agree = 0
    for k in leaves:
        doc = Document("file:///cut", data[: full.starts[k]].decode("utf-8", "replace"), 1, language)
        _, probe = doc.probe(len(doc.data), len(doc.data), PLACEHOLDER)
        with_target = flatten(probe)
        partial = flatten(probe, stop=len(doc.data))
        outside_full = [(full.types[i], full.values[i]) for i in range(k) if i not in _ancestors(full, k)]
        ancestors = _ancestors(with_target, len(partial))
        outside_cut = [(partial.types[i], partial.values[i]) for i in range(len(partial)) if i not in ancestors]
        agree += outside_full == outside_cut
    return agree, len(leaves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory")
    parser.add_argument("--max-files", type=int, default=12)
    parser.add_argument("--max-bytes", type=int, default=12_000, help="skip larger files (cost is quadratic)")
    args = parser.parse_args()
    files = [p for p in sorted(Path(args.directory).rglob("*"))  # benchmarks/fetch_heldout.sh keeps the packages' folders
             if p.is_file() and language_for(None, p.name) and p.stat().st_size <= args.max_bytes]
    agree = total = 0
    for path in files[: args.max_files]:
        a, n = agreement(language_for(None, path.name), path.read_bytes())
        agree, total = agree + a, total + n
    print(f"{min(len(files), args.max_files)} files, {total} cuts: {agree} agree outside the ancestors ({agree / total:.1%})")


if __name__ == "__main__":
    main()
