"""What the first request in a document pays for another document edited just before: the other
open documents' words (sources/open_documents.py), counted by that request, or counted while the
server was quiet (``CompletionService.count_changed``, which the server runs QUIET seconds after
the last edit). In process, the fallback engine alone (no model: only this cost moves).

    python -m benchmarks.other_documents [--files N] [--rounds R] [--edits E]

Each of the standard library's N largest files over 64 KB is opened and edited E times (each
edit answered in its own document, as typing is), then a completion is asked in a small
document: once with the count left to that request, once with it done before.
"""

from __future__ import annotations

import argparse
import statistics
import sysconfig
import time
from pathlib import Path

from treecomplete.service import CompletionService

from .latency import percentile

HERE = "file:///treecomplete-other-documents-here.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--edits", type=int, default=3)
    args = parser.parse_args()
    library = Path(sysconfig.get_paths()["stdlib"])
    files = sorted((p for p in library.glob("*.py") if p.stat().st_size > 64 * 1024), key=lambda p: p.name)[: args.files]
    service = CompletionService()
    service.open(HERE, "python", 1, "import os\nvalue = 1\nva")
    times: dict[bool, list[float]] = {False: [], True: []}
    version = 1
    for _ in range(args.rounds):
        for path in files:
            uri = path.as_uri()
            service.open(uri, "python", 1, path.read_text(encoding="utf-8", errors="replace"))
            for quiet in (False, True):
                for _ in range(args.edits):
                    version += 1
                    service.change(uri, version, [(((0, 0), (0, 0)), "#")])
                    service.complete(uri, 0, 1, 50)  # the edit's own request
                    if quiet:
                        service.count_changed(lambda: False)
                    started = time.perf_counter()
                    service.complete(HERE, 2, 2, 50)
                    times[quiet].append((time.perf_counter() - started) * 1000)
            service.close(uri)
    print(f"{len(files)} files over 64 KB, {args.rounds} rounds of {args.edits} edits each; the request in another document:")
    for quiet, label in ((False, "counted by the request"), (True, "counted while quiet")):
        ms = times[quiet]
        print(f"  {label:24} p50 {statistics.median(ms):.2f} ms  p95 {percentile(ms, 95):.2f} ms  mean {statistics.mean(ms):.2f} ms")


if __name__ == "__main__":
    main()
