"""What the project index (server/sources/project.py) costs on a folder: reading it, rebuilding a
snapshot, a burst of files changed on disk at once (a checkout) against the same files one at a
time, and a query.

    python -m benchmarks.project_index [FOLDER] [--in-process]   # default: the standard library's folder

Files are parsed in a child process, as the server does (sources/reader_process.py);
``--in-process``: on the index's thread.
"""

from __future__ import annotations

import argparse
import resource
import sysconfig
import time
from pathlib import Path

from treecomplete.languages import PYTHON
from treecomplete.sources.project import Snapshot
from treecomplete.sources.project_index import ProjectIndex


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, nargs="?", default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--burst", type=int, default=200, help="files reported changed at once")
    parser.add_argument("--in-process", action="store_true", help="parse on the index's thread, not in a child process")
    args = parser.parse_args(argv)

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    began = time.perf_counter()
    index = ProjectIndex(separate=not args.in_process)
    index.add_root(args.folder)
    index.wait()
    print(f"{args.folder}: {index.file_count} files read in {time.perf_counter() - began:.2f} s, "
          f"+{(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss) / 1024:.0f} MB peak RSS")
    snapshot = index.snapshot(PYTHON)
    began = time.perf_counter()
    Snapshot.of(dict(snapshot.files))
    print(f"snapshot rebuild: {time.perf_counter() - began:.2f} s ({len(snapshot.df)} words, {len(snapshot.pair_df)} receiver-member pairs)")

    rebuilds = []
    of = Snapshot.of.__func__
    Snapshot.of = classmethod(lambda cls, files: rebuilds.append(1) or of(cls, files))  # type: ignore[method-assign]
    files = sorted(Path(p) for p in snapshot.files)[:args.burst]
    began = time.perf_counter()
    with index.paused():  # as while the server handles the notification
        for path in files:
            index.refresh(path)
    index.wait()
    print(f"{len(files)} files changed at once: {time.perf_counter() - began:.2f} s, {len(rebuilds)} rebuild(s)")
    rebuilds.clear()
    began = time.perf_counter()
    for path in files[:20]:
        index.refresh(path)
        index.wait()
    print(f"20 files changed one at a time: {time.perf_counter() - began:.2f} s, {len(rebuilds)} rebuilds")

    receiver = max(snapshot.after, key=lambda key: len(snapshot.after[key]))[0] if snapshot.after else "self"
    for prefix in ("", "g", "zq"):
        began = time.perf_counter()
        for _ in range(1000):
            snapshot.members_of(receiver, prefix, None, 30)
        print(f"members after {receiver}. with prefix {prefix!r}: {(time.perf_counter() - began):.3f} ms a query")


if __name__ == "__main__":
    main()
