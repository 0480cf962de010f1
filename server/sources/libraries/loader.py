"""Reads libraries on a daemon thread of its own: a request asks for a receiver's members and
gets them if they are read, or None while they are read. A request may wait for what it asked
for, bounded (``wait_for``): those reads go first, past the gate that otherwise keeps the thread
off the CPU while the server works; everything else is read while the user pauses.

Entries are kept by key, bounded in bytes (BUDGET: each entry's size is estimated as it is
stored, and the least recently used go first); each remembers the files it was read from with
their modification times, and is checked again (in the background) when used REFRESH seconds
after its reading (MISSING where nothing was found: its files are the folders it would be in):
a file changed on disk is read again. Reads queued while the server is busy are bounded too:
past PENDING, the oldest one nothing waits for goes (a document opened long ago; asked for
again, it is queued again).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any

log = logging.getLogger(__name__)

BUDGET = 16 << 20  # bytes of entries kept, as estimated (Members.footprint): ~1,200 standard modules
UNSIZED = 256  # bytes counted for an entry that gives no estimate (nothing found, a failed read)
PENDING = 256  # reads queued at most
REFRESH = 30.0  # seconds before an entry's files are checked again when it is used
MISSING = 5.0  # the same for an entry that found nothing (a package the user is installing)
Read = Callable[[], "tuple[Any, list[str]]"]  # what was read (Members, an environment) and the files it came from


class Loader:
    def __init__(self, quiet: Callable[[], bool] = lambda: True):
        """``quiet`` says whether the server is quiet (the project index's): other reads wait for it,
        a read a request waits for does not."""
        self._quiet = quiet
        # key -> (what was read, its files' modification times, when, its estimated bytes)
        self._entries: OrderedDict[Hashable, tuple[Any, dict[str, float], float, int]] = OrderedDict()
        self.bytes = 0  # the entries' estimated bytes
        self._pending: OrderedDict[Hashable, tuple[Read, bool]] = OrderedDict()  # queued, in order
        self._reading: Hashable | None = None
        self._urgent: set[Hashable] = set()  # what a request waits for: read first, past the gate
        self._asked = threading.local()  # the keys the current thread asked for and did not get
        self._changed = threading.Condition()
        self._idle = threading.Event()
        self._idle.set()
        self._thread: threading.Thread | None = None
        self.reads = 0  # reads done so far

    def get(self, key: Hashable, read: Read, ask: bool = True) -> Any:
        """What was read for ``key``; None while it is read (or where there is nothing). A key
        not read yet is recorded where the thread records (``asked``), unless ``ask`` is False
        (a read ahead, which nothing waits for)."""
        with self._changed:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                if time.monotonic() - entry[2] > (REFRESH if entry[0] is not None else MISSING):
                    self._queue(key, read, check=True)
                return entry[0]
            self._queue(key, read, check=False)
        missed = getattr(self._asked, "keys", None)
        if ask and missed is not None:
            missed.add(key)
        return None

    @contextlib.contextmanager
    def asked(self) -> Iterator[set[Hashable]]:
        """Records, on this thread, the keys asked for and not read yet: the set yielded fills
        as ``get`` misses (a request's, to wait for them)."""
        self._asked.keys = set()
        try:
            yield self._asked.keys
        finally:
            self._asked.keys = None

    def pending(self, keys: Iterable[Hashable]) -> set[Hashable]:
        """Those of ``keys`` still queued or being read."""
        with self._changed:
            return self._unread(keys)

    def _unread(self, keys: Iterable[Hashable]) -> set[Hashable]:
        return {key for key in keys if key in self._pending or key == self._reading}

    def wait_for(self, keys: Iterable[Hashable], timeout: float) -> bool:
        """Until the reads of ``keys`` are done, at most ``timeout`` seconds; they are read before
        anything else and without waiting for the server to be quiet. True: all done."""
        deadline = time.monotonic() + timeout
        with self._changed:
            waiting = self._unread(keys)
            self._urgent |= waiting
            self._changed.notify_all()
            try:
                while waiting:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return False
                    self._changed.wait(left)
                    waiting = self._unread(waiting)
                return True
            finally:
                self._urgent -= set(keys)

    def clear(self, also: Callable[[], None] = lambda: None) -> bool:
        """Forget what was read (memory) and what is queued that nothing waits for; it is read
        again when asked for. ``also`` runs too, where no read is under way (it may then touch
        what the loader's thread owns): True."""
        with self._changed:
            self._entries.clear()
            self.bytes = 0
            for key in [k for k in self._pending if k not in self._urgent]:
                del self._pending[key]
            if not self._pending and self._reading is None:
                self._idle.set()
            if self._reading is None:
                also()
                return True
        return False

    def wait(self, timeout: float | None = None) -> bool:
        """Until every queued read is done (tests, the benchmarks)."""
        return self._idle.wait(timeout)

    def gate(self) -> None:
        """Between the files of a long read: wait while the server works, unless a request waits
        for a read."""
        with self._changed:  # polled: the server's quiet is not signalled
            while not self._urgent and not self._quiet():
                self._changed.wait(0.01)

    def _queue(self, key: Hashable, read: Read, check: bool) -> None:
        if key in self._pending or key == self._reading:
            return
        self._pending[key] = (read, check)
        if len(self._pending) > PENDING:
            oldest = next((k for k in self._pending if k not in self._urgent), None)
            if oldest is not None:
                del self._pending[oldest]
        self._idle.clear()
        self._changed.notify_all()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="treecomplete-libraries", daemon=True)
            self._thread.start()

    def _next(self) -> tuple[Hashable, Read, bool]:
        """The next read: one a request waits for, else the oldest once the server is quiet."""
        while True:
            with self._changed:
                while not self._pending:
                    self._changed.wait()
                key = next((k for k in self._pending if k in self._urgent), None)
                if key is None and self._quiet():
                    key = next(iter(self._pending))
                if key is not None:
                    read, check = self._pending.pop(key)
                    self._reading = key
                    return key, read, check
                self._changed.wait(0.01)

    def _run(self) -> None:
        while True:
            key, read, check = self._next()
            try:
                entry = self._entries.get(key)
                if check and entry is not None and _unchanged(entry[1]):
                    result = (entry[0], entry[1], time.monotonic(), entry[3])
                else:
                    value, files = read()
                    result = (value, _stamps(files), time.monotonic(), footprint(value))
            except Exception:  # a library that breaks the reader: logged, answered without it
                log.exception("library %s not read", key)
                result = (None, {}, time.monotonic(), UNSIZED)
            with self._changed:
                self._store(key, result)
                self._reading = None
                self.reads += 1
                if not self._pending:
                    self._idle.set()
                self._changed.notify_all()

    def _store(self, key: Hashable, entry: tuple[Any, dict[str, float], float, int]) -> None:
        """Keep ``entry``, the most recently used; the least recently used others go past BUDGET."""
        old = self._entries.pop(key, None)
        if old is not None:
            self.bytes -= old[3]
        self._entries[key] = entry
        self.bytes += entry[3]
        while self.bytes > BUDGET and len(self._entries) > 1:
            _, dropped = self._entries.popitem(last=False)
            self.bytes -= dropped[3]


def footprint(value: Any) -> int:
    """The estimated bytes of what a read gave: its own estimate (``Members.footprint``), else UNSIZED."""
    estimate = getattr(value, "footprint", None)
    return estimate() if callable(estimate) else UNSIZED


def _stamp(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return -1.0


def _stamps(files: list[str]) -> dict[str, float]:
    return {path: _stamp(path) for path in files}


def _unchanged(stamps: dict[str, float]) -> bool:
    return all(_stamp(path) == mtime for path, mtime in stamps.items())
