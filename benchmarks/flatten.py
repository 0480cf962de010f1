"""Flattening speed: elements per second on one core for already-parsed trees; with
``--cursor``, what reading the elements before the cursor costs the server at each new
identifier of the latency trace (benchmarks/latency.py: the file's second half typed on from
its middle), walked afresh or with the memo of subtrees earlier requests read.

    python -m benchmarks.flatten [FILE ...]     # default: the standard library's inspect.py
    python -m benchmarks.flatten --cursor       # flatten_before at each new identifier
"""

from __future__ import annotations

import argparse
import inspect
import time
from pathlib import Path

from treecomplete.languages import language_for
from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.engines.incremental import LSTM_BOUNDS
from treecomplete.models.flatten import Memo, flatten, flatten_before


def at_cursor(name: str, chars: int, limit: int) -> None:
    """flatten_before at each identifier's first character while typing ``chars`` characters
    from the middle of the file, with and without a memo."""
    text = Path(name).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    split = len("".join(lines[: len(lines) // 2]))
    doc = Document(Path(name).absolute().as_uri(), text[:split], 1, language_for(None, name))
    memo = Memo()
    times: dict[str, list[float]] = {"walked": [], "memo": []}
    previous = ""
    for ch in text[split:split + chars]:
        doc.apply_change(doc.position_at(len(doc.data)), doc.position_at(len(doc.data)), ch)
        if (ch.isalnum() or ch == "_") and not (previous.isalnum() or previous == "_"):
            target = context_at(doc, len(doc.data)).target
            for label, used in (("walked", None), ("memo", memo)):
                started = time.perf_counter()
                flatten_before(target, limit, used)
                times[label].append((time.perf_counter() - started) * 1000)
        previous = ch
    for label, values in times.items():
        values.sort()
        print(f"{label:>7}: {len(values)} new identifiers, mean {sum(values) / len(values):.2f} ms, "
              f"p50 {values[len(values) // 2]:.2f} ms, p95 {values[int(0.95 * (len(values) - 1))]:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", default=[inspect.__file__])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cursor", action="store_true", help="flatten_before along the latency trace instead")
    parser.add_argument("--chars", type=int, default=1500, help="characters typed with --cursor")
    parser.add_argument("--limit", type=int, default=LSTM_BOUNDS.limit,
                        help="elements read before the cursor with --cursor (default: the LSTM's bound, %(default)s)")
    args = parser.parse_args()
    if args.cursor:
        for name in args.files:
            at_cursor(name, args.chars, args.limit)
        return
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
