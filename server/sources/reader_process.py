"""Files on disk parsed in a child process: the Python libraries' stubs and sources (Python's
``ast``, through typeshed_client; sources/libraries/python.py) and the project index's files
(tree-sitter; sources/project.py). What the parses find comes back (a module's members, a
file's words); the parses themselves stay there.

A parse allocates hundreds of thousands of small objects; in the server they filled the
interpreter's memory arenas, and once they were dropped the few survivors beside them (the
members kept, syntax trees) held those arenas, so the server never got that memory back. In a
child, what the parses take goes back to the system whole when the child exits: after IDLE
seconds without a call, after an answer once it holds more than FULL MB, and when the server
drops what it read (its last document closed, the memoryLimit). A parse there never holds the
server's interpreter lock either.

The child is started at the first call (from a background thread: the libraries' loader, the
project index; never a request) and again after it exits or dies; a call it fails, dies in or
does not answer within LIMIT seconds raises RuntimeError, which the caller logs. Where no child
can start (STARTS times in a row), the callers parse in the server. Its log records come back
with each answer and are logged here.
"""

from __future__ import annotations

import logging
import os
import pickle
import select
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from .. import memory
from ..recent import Recent
from .libraries.members import Members

if TYPE_CHECKING:
    from .project import FileWords

log = logging.getLogger(__name__)

IDLE = 30.0  # seconds without a call before the child exits, handing its memory back
LIMIT = 60.0  # seconds a call may take: past it the child is taken for hung, killed, and the call fails
STARTS = 3  # failed starts in a row after which the callers parse in the server instead
FULL = 80  # MB resident past which the child exits after its answer (~3 times its size once builtins are read)
BOOT = ("import pickle, sys\n"
        "paths, module, kept, full = pickle.load(sys.stdin.buffer)\n"
        "sys.path[:] = paths\n"
        "import importlib\n"
        "importlib.import_module(module).serve(sys.stdin.buffer, sys.stdout.buffer, kept, full)\n")


class ReaderProcess:
    """A child process and the calls to it, one at a time (the libraries' loader and the project
    index each have their own)."""

    def __init__(self, environments: int = 1, idle: float = IDLE, full: float = FULL, limit: float = LIMIT):
        """``environments``: how many Python environments' parsed modules the child keeps, the
        most recently used; ``full``: MB resident past which it exits after its answer;
        ``limit``: seconds a call may take (where the system can wait on a pipe: POSIX)."""
        self.environments, self.idle, self.full, self.limit = environments, idle, full, limit
        self._child: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._last = 0.0
        self._release = False  # stop the child once the call under way ends
        self._watch: threading.Thread | None = None
        self.started = 0  # children started so far
        self.failed_starts = 0  # in a row

    def read(self, env: tuple[Path, ...], dotted: str) -> tuple[Members | None, list[str]]:
        """PythonLibraries(env).read(dotted), in the child."""
        return self._call("read", env, dotted)

    def find(self, env: tuple[Path, ...], module: str) -> Path | None:
        """PythonLibraries(env).find(module), in the child."""
        return self._call("find", env, module)

    def file_words(self, data: bytes, path: str) -> FileWords:
        """project.file_words of a file's bytes, in the child, its strings interned here."""
        from .project import interned_words

        return interned_words(self._call("file_words", data, path))

    def warm(self) -> None:
        """Start the child now, unless it runs or a call is under way: a document that will
        need it opened (the child's start, ~0.1 s, is then not paid by the first read)."""
        if self._lock.acquire(blocking=False):
            try:
                self._start()
                self._last = time.monotonic()
            except OSError as error:  # the first call tries again, and says so
                log.warning("the reader process did not start: %s", error)
            finally:
                self._lock.release()

    def stop(self) -> None:
        """The child exits now (a later call starts another)."""
        with self._lock:
            self._stop()

    def release(self) -> None:
        """The child exits now, or as soon as the call under way ends (the caller does not wait)."""
        if self._lock.acquire(blocking=False):
            try:
                self._stop()
            finally:
                self._lock.release()
        else:
            self._release = True

    @property
    def unavailable(self) -> bool:
        """No child could be started STARTS times in a row (no subprocesses here): the callers
        parse in the server's own process instead."""
        return self.failed_starts >= STARTS

    def running(self) -> bool:
        return self._child is not None and self._child.poll() is None

    def pid(self) -> int | None:
        return self._child.pid if self.running() else None

    def _call(self, op: str, *args: Any) -> Any:
        with self._lock:
            child = None
            try:
                child = self._start()
                pickle.dump((op, args), child.stdin)
                child.stdin.flush()
                if os.name == "posix" and not select.select([child.stdout], [], [], self.limit)[0]:
                    child.kill()
                    raise TimeoutError(f"no answer in {self.limit:.0f} s")
                status, value, records, full = pickle.load(child.stdout)
            except (OSError, EOFError, pickle.UnpicklingError) as error:  # TimeoutError is an OSError
                code = child.poll() if child is not None else None
                self._stop()
                raise RuntimeError(f"the reader process exited (code {code}) in {op} {_shown(args)}: {error}") from error
            finally:
                self._last = time.monotonic()
            if full or self._release:  # it exits now, and the next call starts another
                self._release = False
                self._stop()
        for level, name, message in records:
            logging.getLogger(name).log(level, "%s", message)
        if status == "error":
            raise RuntimeError(f"the reader process failed in {op} {_shown(args)}:\n{value}")
        return value

    def _start(self) -> subprocess.Popen:
        if self._child is not None and self._child.poll() is None:
            return self._child
        self._stop()
        try:
            child = subprocess.Popen([sys.executable, "-c", BOOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=None)
        except OSError:
            self.failed_starts += 1
            if self.unavailable:
                log.warning("the reader process could not start %d times: files are parsed in the server", STARTS)
            raise
        self.failed_starts = 0
        pickle.dump((list(sys.path), __name__, self.environments, self.full), child.stdin)
        child.stdin.flush()
        self._child = child
        self.started += 1
        if self._watch is None:
            self._watch = threading.Thread(target=self._watch_idle, name="treecomplete-reader-idle", daemon=True)
            self._watch.start()
        return child

    def _stop(self) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        try:
            child.stdin.close()  # its loop ends at the end of its input
            child.wait(2)
        except (OSError, subprocess.TimeoutExpired):
            child.kill()
            child.wait()

    def _watch_idle(self) -> None:
        while True:
            time.sleep(min(1.0, self.idle / 4))
            if self._child is not None and time.monotonic() - self._last > self.idle and self._lock.acquire(blocking=False):
                try:
                    if time.monotonic() - self._last > self.idle:
                        self._stop()
                finally:
                    self._lock.release()


class _Records(logging.Handler):
    """The child's log records, sent back with the next answer."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.records: list[tuple[int, str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.records.append((record.levelno, record.name, self.format(record)))
        except Exception:  # noqa: BLE001 - a record that cannot be formatted is left out
            pass


def _shown(args: tuple) -> str:
    return ", ".join(f"{len(a)} bytes" if isinstance(a, bytes) else repr(a) for a in args)


class _Calls:
    """What the child does: the Python environments' readers, the ``kept`` most recently used
    keeping their parsed modules; the project index's files."""

    def __init__(self, kept: int):
        self.environments: Recent[tuple[Path, ...], Any] = Recent(kept)

    def libraries(self, env: tuple[Path, ...]):
        from .libraries.python import PythonLibraries

        found = self.environments.get(env)
        if found is None:
            found = self.environments[env] = PythonLibraries(env)
        return found

    def read(self, env: tuple[Path, ...], dotted: str) -> tuple[Members | None, list[str]]:
        return self.libraries(env).read(dotted)

    def find(self, env: tuple[Path, ...], module: str) -> Path | None:
        return self.libraries(env).find(module)

    def file_words(self, data: bytes, path: str) -> FileWords:
        from ..languages import BY_EXTENSION
        from .project import file_words

        return file_words(data, BY_EXTENSION[Path(path).suffix.lower()], path=Path(path))


def serve(requests: BinaryIO, answers: BinaryIO, kept: int, limit: float) -> None:
    """The child's loop: (op, arguments) in, (status, value, log records, whether it exits now)
    out, until its input ends or it holds more than ``limit`` MB; the ``kept`` most recently
    used Python environments keep their parsed modules."""
    records = _Records()
    logging.getLogger().addHandler(records)
    logging.getLogger().setLevel(logging.INFO)
    calls = _Calls(kept)
    while True:
        try:
            op, args = pickle.load(requests)
        except EOFError:
            return
        try:
            answer: tuple = ("ok", getattr(calls, op)(*args))
        except Exception:  # noqa: BLE001 - a file that breaks the reader: said, and the loop goes on
            answer = ("error", traceback.format_exc(limit=-8))
        full = (memory.resident_mb() or 0.0) > limit  # unknown (not Linux): bounded by its idle time alone
        pickle.dump((*answer, records.records, full), answers)
        answers.flush()
        records.records = []
        if full:
            return

