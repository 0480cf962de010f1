"""The server's own resident memory, for the memoryLimit setting: read from /proc where there
is one (Linux); elsewhere unknown, and the limit is not held. And when the garbage collector's
full collections run: while the server is idle."""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Callable

IDLE = 0.5  # seconds without server work before a full collection may run
FULL_EVERY = 10  # younger collections between two full ones, when the server is idle (CPython's threshold)
FULL_ANYWAY = 200  # younger collections between two full ones, however busy the server is
POLL = 0.25  # seconds between two looks


def resident_mb(children: bool = False) -> float | None:
    """Resident memory of this process in MB (``children``: with its child processes', the
    reader process of sources/reader_process.py); None where it cannot be read."""
    pids = ["self", *descendants("self")] if children else ["self"]
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm", "rb") as statm:
                total += int(statm.read().split()[1])
        except (OSError, ValueError, IndexError):
            if pid == "self":
                return None  # a child that just exited counts nothing
    return total * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def descendants(pid: int | str = "self") -> list[int]:
    """A process's children, theirs and so on (Linux's /proc/PID/task/*/children); [] elsewhere."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as listed:
                for child in map(int, listed.read().split()):
                    found += [child, *descendants(child)]
        except (OSError, ValueError):
            continue
    return found


def release() -> float | None:
    """Collect what was dropped and hand free heap back to the system where the C library can
    (glibc's malloc_trim); the resident memory after."""
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    return resident_mb()


class IdleCollections:
    """Full garbage collections while the server is idle, not on a keystroke.

    CPython runs a full collection on whichever allocation crosses its threshold: with the
    libraries read (their parsed stubs and sources: ~300,000 objects the collector walks), each
    took 150-200 ms of some request. Here automatic full collections are off; a daemon thread
    runs one once FULL_EVERY younger collections have happened and the server has not worked
    for IDLE seconds, or once FULL_ANYWAY have happened whatever it does (so that a server that
    never pauses still frees its cycles)."""

    def __init__(self, idle: Callable[[], bool], count: Callable[[], int] = lambda: gc.get_count()[2],
                 collect: Callable[[], object] = gc.collect):
        self._idle, self._count, self._collect = idle, count, collect

    def start(self) -> None:
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, 1 << 30)  # never reached: tick() runs them
        threading.Thread(target=self._run, name="treecomplete-gc", daemon=True).start()

    def tick(self) -> bool:
        """Run a full collection if one is due now; whether it ran."""
        due = self._count()
        if due >= FULL_ANYWAY or (due >= FULL_EVERY and self._idle()):
            self._collect()
            return True
        return False

    def _run(self) -> None:
        while True:
            time.sleep(POLL)
            self.tick()
