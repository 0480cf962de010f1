"""Time to answer ``initialize``, over many starts.

``python -m benchmarks.startup [--runs N] [--server CMD ...]``: starts each server command N
times, in turn (alternated, so that a machine's drift falls on all of them alike), and prints the
percentiles of the time from sending ``initialize`` right after the process starts to its answer:
what an editor waits before it can send anything else. Each start is shut down before the next;
one start of each, first, is not counted (a first start after an install writes the bytecode and
caches that the later ones read).
``benchmarks.latency`` reports one such time per run beside the typing trace; this repeats it.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import statistics
import sys

from .latency import percentile
from .lsp import Session
from .machine import describe


async def initialize_seconds(command: list[str]) -> float:
    session = Session("startup", command)
    await session.start()
    try:
        return session.initialize_seconds
    finally:
        await session.stop()  # the process has ended before the next starts


async def measure(commands: list[list[str]], runs: int) -> list[list[float]]:
    for command in commands:  # not counted: the first start writes the bytecode and caches later ones read
        await initialize_seconds(command)
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for command, seen in zip(commands, times):
            seen.append(await initialize_seconds(command) * 1000)
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="starts per server (default %(default)s)")
    parser.add_argument("--server", action="append", help=f"a server command, repeatable (default: {sys.executable} "
                                                         "-m treecomplete --stdio)")
    args = parser.parse_args(argv)
    commands = [shlex.split(c) for c in args.server or [f"{sys.executable} -m treecomplete --stdio"]]
    times = asyncio.run(measure(commands, args.runs))
    print(describe())
    print(f"{'initialize (ms)':<16}{'p50':>8}{'p95':>8}{'min':>8}{'max':>8}  server")
    for command, seen in zip(commands, times):
        print(f"{'':<16}{statistics.median(seen):>8.0f}{percentile(seen, 95):>8.0f}{min(seen):>8.0f}{max(seen):>8.0f}"
              f"  {shlex.join(command)}")


if __name__ == "__main__":
    main()
