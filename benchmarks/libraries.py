"""What reading libraries costs (server/sources/libraries/): the first read of common modules (off the
request path, on the loader's thread), and the memory it keeps.

    python -m benchmarks.libraries [--site DIR]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from pathlib import Path

from treecomplete.sources.libraries import javascript, node_table
from treecomplete.sources.libraries.python import PythonLibraries
from treecomplete.sources.libraries.python_environment import environment
from treecomplete.receivers import Target

PYTHON = ("os", "os.path", "json", "re", "sys", "typing", "collections", "subprocess", "pathlib.Path", "logging",
          "argparse.ArgumentParser", "datetime", "asyncio", "itertools", "functools")
NODE = ("fs", "path", "http", "util", "child_process", "events", "os", "crypto", "url", "stream")
GLOBALS = ("Math", "JSON", "Object", "Array", "Promise", "console", "process", "Buffer")


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(label: str, names, read) -> None:
    costs = []
    for name in names:
        started = time.perf_counter()
        members = read(name)
        costs.append((time.perf_counter() - started) * 1000)
        assert members is not None, name
    print(f"{label:<44} {len(names):>3} reads: median {statistics.median(costs):6.2f} ms, max {max(costs):7.2f} ms, "
          f"total {sum(costs):7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, action="append", help="site-packages folders (default: this interpreter's)")
    args = parser.parse_args()
    before = rss_mb()
    started = time.perf_counter()
    libraries = PythonLibraries(tuple(args.site) if args.site else environment(None, None))
    print(f"{'typeshed_client search context':<44}      {(time.perf_counter() - started) * 1000:6.2f} ms")
    timed("Python standard library, first read", PYTHON, lambda name: libraries.read(name)[0])
    timed("the same again (kept by the reader)", PYTHON, lambda name: libraries.read(name)[0])
    started = time.perf_counter()
    node_table.table()
    node_table.usage()
    print(f"{'JavaScript table (javascript.json) load':<44}      {(time.perf_counter() - started) * 1000:6.2f} ms")
    timed("Node modules from the table", NODE, lambda name: javascript.read(None, Target(name))[0])
    timed("globals from the table", GLOBALS, lambda name: javascript.read(None, Target("", (name,)))[0])
    print(f"{'peak RSS growth':<44}      {rss_mb() - before:6.1f} MB")


if __name__ == "__main__":
    main()
