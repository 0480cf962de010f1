"""What auto-import costs a keystroke, in process: benchmarks.latency's typing trace (a large
file half open, 1,500 characters typed one at a time, a completion and its LSP items after each
identifier character), each request answered twice in a row, with the setting autoImport on and
off, in alternating order, so that the machine's noise falls on both alike.

    python -m benchmarks.auto_import_cost [--file F] [--lang L] [--chars N] [--fallback]
"""

from __future__ import annotations

import argparse
import inspect
import time
from pathlib import Path

from treecomplete.engines.registry import Registry
from treecomplete.items import completion_list
from treecomplete.service import CompletionService
from treecomplete.sources.project_index import ProjectIndex


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default=inspect.__file__)
    parser.add_argument("--lang", default="python")
    parser.add_argument("--chars", type=int, default=1500)
    parser.add_argument("--fallback", action="store_true", help="the fallback engine alone (no model)")
    args = parser.parse_args()
    text = Path(args.file).read_text(encoding="utf-8")
    models = None if args.fallback else Registry()
    service = CompletionService(project=ProjectIndex(), models=models, wait_for_models=True)
    uri = Path(args.file).resolve().as_uri()
    half = len(text) // 2
    doc = service.open(uri, args.lang, 1, text[:half])
    times: dict[bool, list[float]] = {True: [], False: []}
    for i, char in enumerate(text[half:half + args.chars]):
        line, column = doc.position_at(len(doc.data))
        doc.apply_change((line, column), (line, column), char)
        doc.version += 1
        if not (char.isalnum() or char == "_"):
            continue
        line, column = doc.position_at(len(doc.data))
        for enabled in (True, False) if i % 2 else (False, True):
            service.auto_import.enabled = enabled
            started = time.perf_counter()
            completion_list(doc, service.complete(uri, line, column, 50), 50)
            times[enabled].append((time.perf_counter() - started) * 1000)
    for enabled, found in times.items():
        found.sort()
        print(f"autoImport {'on ' if enabled else 'off'}  {len(found)} requests  p50 {found[len(found) // 2]:.2f} ms  "
              f"p95 {found[int(len(found) * 0.95)]:.2f} ms  p99 {found[int(len(found) * 0.99)]:.2f} ms")


if __name__ == "__main__":
    main()
