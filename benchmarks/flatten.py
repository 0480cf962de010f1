"""Flattening speed: elements per second on one core for already-parsed trees.

    python -m benchmarks.flatten [FILE ...]     # default: the standard library's inspect.py
"""

from __future__ import annotations

import argparse
import inspect
import time
from pathlib import Path

from treecomplete.languages import language_for
from treecomplete.models.flatten import flatten


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", default=[inspect.__file__])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    trees = []
    for name in args.files:
        language = language_for(None, name)
        if language is None:
            raise SystemExit(f"{name}: not a supported language")
        data = Path(name).read_bytes()
        trees.append(language.parser().parse(data))
    nodes = sum(tree.root_node.descendant_count for tree in trees)
    started = time.perf_counter()
    elements = 0
    for _ in range(args.repeat):
        for tree in trees:
            elements += len(flatten(tree))
    seconds = time.perf_counter() - started
    print(f"{len(trees)} files, {nodes} tree-sitter nodes, {elements // args.repeat} elements")
    print(f"{elements / seconds:,.0f} elements/s, {nodes * args.repeat / seconds:,.0f} tree-sitter nodes/s (one core)")


if __name__ == "__main__":
    main()
