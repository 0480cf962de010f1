"""Reads libraries on a daemon thread of its own: a request asks for a receiver's members and
gets them if they are read, or None at once while they are read for the next request. A
request never waits for the disk.

Entries are kept by key (bounded, least recently used dropped); each remembers the files it
was read from with their modification times, and is checked again (in the background) when
used REFRESH seconds after its reading: a file changed on disk is read again.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

log = logging.getLogger(__name__)

ENTRIES = 1024  # receivers kept
REFRESH = 30.0  # seconds before an entry's files are checked again when it is used
Read = Callable[[], "tuple[Any, list[str]]"]  # what was read (Members, an environment) and the files it came from


class Loader:
    def __init__(self, gate: Callable[[], None] = lambda: None):
        self.gate = gate  # waits while the server works (the project index's quiet gate)
        self._entries: OrderedDict[Hashable, tuple[Any, dict[str, float], float]] = OrderedDict()
        self._queued: set[Hashable] = set()
        self._tasks: queue.Queue[tuple[Hashable, Read, bool]] = queue.Queue()
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._thread: threading.Thread | None = None
        self.reads = 0  # reads done so far

    def get(self, key: Hashable, read: Read) -> Any:
        """What was read for ``key``; None while it is read (or where there is nothing)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                if time.monotonic() - entry[2] > REFRESH:
                    self._queue(key, read, check=True)
                return entry[0]
            self._queue(key, read, check=False)
        return None

    def wait(self, timeout: float | None = None) -> bool:
        """Until every queued read is done (tests, the benchmarks)."""
        return self._idle.wait(timeout)

    def _queue(self, key: Hashable, read: Read, check: bool) -> None:
        if key in self._queued:
            return
        self._queued.add(key)
        self._idle.clear()
        self._tasks.put((key, read, check))
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="treecomplete-libraries", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            key, read, check = self._tasks.get()
            self.gate()
            try:
                entry = self._entries.get(key)
                if check and entry is not None and _unchanged(entry[1]):
                    result = (entry[0], entry[1], time.monotonic())
                else:
                    value, files = read()
                    result = (value, _stamps(files), time.monotonic())
            except Exception:  # a library that breaks the reader: logged, answered without it
                log.exception("library %s not read", key)
                result = (None, {}, time.monotonic())
            with self._lock:
                self._entries[key] = result
                self._entries.move_to_end(key)
                while len(self._entries) > ENTRIES:
                    self._entries.popitem(last=False)
                self._queued.discard(key)
                self.reads += 1
                if self._tasks.empty():
                    self._idle.set()


def _stamp(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return -1.0


def _stamps(files: list[str]) -> dict[str, float]:
    return {path: _stamp(path) for path in files}


def _unchanged(stamps: dict[str, float]) -> bool:
    return all(_stamp(path) == mtime for path, mtime in stamps.items())
