"""The project index: a background thread that reads the workspace's files into
sources/project.py's snapshots.

A background thread reads the workspace folders the client names at ``initialize`` (and the
folder of a document opened outside them, not its subfolders), bounded: at most MAX_FILES files
of MAX_FILE_BYTES each, no hidden, vendored, installed or built folders. A file saved is read
again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path

from ..languages import BY_EXTENSION, LanguageSpec
from ..recent import Recent
from .project import EMPTY, FileWords, Snapshot, file_words
from .reader_process import ReaderProcess

MAX_FILES = 5000  # per project, first found first (breadth-first: the top folders' files first)
MAX_FILE_BYTES = 512 * 1024
SKIPPED = frozenset({
    "node_modules", "__pycache__", "site-packages", "dist-packages", "venv", "env", "build", "dist", "out",
    "target", "vendor", "third_party", "bower_components", "coverage", "htmlcov",
})
QUIET = 0.05  # seconds without server work before the index reads on
ROOT_MEMO = 4096  # files whose root is remembered

log = logging.getLogger(__name__)


def _skipped_folder(name: str) -> bool:
    """A folder the index never reads: hidden, vendored, installed or built."""
    return name.startswith(".") or name in SKIPPED


class ProjectIndex:
    """Words of the project's files, per language, kept by a daemon thread."""

    def __init__(self, max_files: int = MAX_FILES, on_ready: Callable[[int], None] = lambda files: None,
                 separate: bool = False):
        """``separate``: the files are parsed in a child process (reader_process.py), as the
        server does; else on the index's thread."""
        self.max_files = max_files
        self.reader = ReaderProcess() if separate else None
        self.on_ready = on_ready  # called on the index's thread with the file count when its queue empties
        self._snapshots: dict[str, Snapshot] = {}  # language name -> the latest, all roots' files
        # (language name, root) -> the latest of that root's files, where there is more than one root
        self._scoped: dict[tuple[str, Path], Snapshot] = {}
        self._holding: dict[str, frozenset[Path | None]] = {}  # language name -> the roots its files were read in
        self._files: dict[str, dict[str, FileWords]] = {}  # the thread's own, per language
        self._roots: dict[Path, bool] = {}  # walked or queued -> recursive
        self._root_memo: Recent[Path, Path | None] = Recent(ROOT_MEMO)  # a file -> _root_of's answer, while the roots stay
        self._root_changes = 0  # roots added or removed so far
        self._tasks: queue.Queue[tuple[str, Path]] = queue.Queue()
        self._idle = threading.Event()
        self._idle.set()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # roots and thread start
        self._may_run = threading.Event()  # cleared while the server works: the thread waits
        self._may_run.set()
        self._quiet_since = 0.0  # time.monotonic() when the server's last work ended

    # -- queries (any thread) ---------------------------------------------------------------

    def snapshot(self, language: LanguageSpec, path: str | None = None) -> Snapshot:
        """The language's words: those of the root holding the file ``path`` where it is given
        and in one (none where no file of that root was read: another root's names, imported
        from there, would cross projects), else those of every root."""
        if path is not None and self._holding:
            root = self._root_of(Path(path))
            if root is not None:
                scoped = self._scoped.get((language.name, root))
                if scoped is not None:
                    return scoped
                if root not in self._holding.get(language.name, (root,)):
                    return EMPTY
        return self._snapshots.get(language.name, EMPTY)

    def _root_of(self, path: Path) -> Path | None:
        """The outermost root that holds the file ``path`` (a workspace folder, or the folder of
        a document opened outside them)."""
        with self._lock:
            if path in self._root_memo:  # a walk up ``path.parents`` per root: 0.2 ms a request
                return self._root_memo.get(path)
            roots, changes = list(self._roots.items()), self._root_changes
        holding = [root for root, recursive in roots if path.parent == root or (recursive and root in path.parents)]
        found = min(holding, key=lambda root: len(root.parts)) if holding else None
        with self._lock:
            if self._root_changes == changes:  # no root came or went meanwhile
                self._root_memo[path] = found
        return found

    @property
    def file_count(self) -> int:
        return sum(len(s.files) for s in self._snapshots.values())

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """While the server works on an edit or a request, and QUIET seconds after, the index's
        thread waits (between files): the GIL is the server's, so reading a large project never
        slows a keystroke down; it reads while the user pauses (and with ``separate``, parses in
        another process)."""
        self._may_run.clear()
        try:
            yield
        finally:
            self._quiet_since = time.monotonic()
            self._may_run.set()

    def quiet(self, seconds: float = QUIET) -> bool:
        """The server has not worked for ``seconds`` (without waiting)."""
        return self._may_run.is_set() and time.monotonic() - self._quiet_since >= seconds

    def wait_for_quiet(self) -> None:
        """Until the server has not worked for QUIET seconds (other background readers wait on it too)."""
        while True:
            self._may_run.wait()
            left = self._quiet_since + QUIET - time.monotonic()
            if left <= 0:
                return
            time.sleep(left)

    # -- updates (any thread; the work runs on the index's own) --------------------------------

    def add_root(self, folder: Path, recursive: bool = True) -> None:
        """Index a folder (and, if ``recursive``, its subfolders); a folder already inside an
        indexed root adds nothing."""
        folder = folder.resolve()
        with self._lock:
            if any(folder == root or (recursive and root in folder.parents) for root in self._roots):
                return
            self._roots[folder] = recursive
            self._root_memo.clear()
            self._root_changes += 1
        self._submit("walk" if recursive else "list", folder)

    def remove_root(self, folder: Path) -> None:
        """A workspace folder closed: its files leave the index, but those another root holds."""
        folder = folder.resolve()
        with self._lock:
            if self._roots.pop(folder, None) is None:
                return
            self._root_memo.clear()
            self._root_changes += 1
        self._submit("drop", folder)

    def add_document(self, path: Path) -> None:
        """A document opened: its folder is indexed unless a root already holds it."""
        folder = path.resolve().parent
        with self._lock:
            if any(folder == root or root in folder.parents for root in self._roots):
                return
        self.add_root(folder, recursive=False)

    def refresh(self, path: Path) -> None:
        """A file saved, created, changed or deleted on disk: read it again (or forget it) if it
        lies in an indexed folder, in no hidden or skipped one. A folder created is read, and one
        deleted takes its files with it (clients that report folders, not each file)."""
        self._submit("file", path.resolve())

    def _holds(self, path: Path, folder: bool = False) -> bool:
        """Whether a root's walk reads the file ``path`` (with ``folder``: the files directly in
        the folder ``path``), the limit on files aside."""
        if not folder and path.name.startswith("."):
            return False
        parent = path if folder else path.parent
        with self._lock:
            roots = list(self._roots.items())
        for root, recursive in roots:
            if parent == root:
                return True
            if recursive and root in parent.parents:
                return not any(map(_skipped_folder, parent.relative_to(root).parts))
        return False

    def wait(self, timeout: float | None = None) -> bool:
        """Until every queued task is done (tests, the CLI, the benchmarks)."""
        return self._idle.wait(timeout)

    def _submit(self, kind: str, path: Path) -> None:
        with self._lock:
            self._idle.clear()
            self._tasks.put((kind, path))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="treecomplete-project", daemon=True)
                self._thread.start()

    # -- the index's thread --------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            batch = [self._tasks.get()]
            self.wait_for_quiet()
            while True:  # what queued meanwhile (a checkout's many files): one rebuild for all
                try:
                    batch.append(self._tasks.get_nowait())
                except queue.Empty:
                    break
            changed: set[str] = set()
            for kind, path in batch:
                try:
                    if kind == "file":
                        changed |= self._read_again(path)
                    elif kind == "drop":
                        changed |= self._drop(path)
                    else:
                        changed |= self._walk(path, recursive=kind == "walk")
                except Exception:  # a folder that vanished, a permission error: log, keep going
                    log.exception("project index: %s", path)
            for name in changed:
                self._rebuild(name)
            with self._lock:
                ready = self._tasks.empty()
                if ready:
                    self._idle.set()
            if ready:
                self.on_ready(self.file_count)

    def _rebuild(self, name: str) -> None:
        """The language's snapshots from its files: all of them, and, where they lie in more than
        one root, each root's."""
        files = dict(self._files[name])
        groups: dict[Path | None, dict[str, FileWords]] = {}
        for path, words in files.items():
            groups.setdefault(self._root_of(Path(path)), {})[path] = words
        scoped = {root: Snapshot.of(group) for root, group in groups.items() if root is not None} if len(groups) > 1 else {}
        self._snapshots[name] = Snapshot.of(files)
        self._scoped = {key: s for key, s in self._scoped.items() if key[0] != name} | {
            (name, root): snapshot for root, snapshot in scoped.items()}
        self._holding = self._holding | {name: frozenset(groups)}

    def _indexed(self) -> int:
        """Files read so far, all languages (the thread's own count; file_count is the snapshots')."""
        return sum(len(files) for files in self._files.values())

    def _walk(self, folder: Path, recursive: bool) -> set[str]:
        changed: set[str] = set()
        pending = deque([folder])
        count = self._indexed()
        while pending and count < self.max_files:
            current = pending.popleft()
            try:
                entries = sorted(os.scandir(current), key=lambda e: e.name)
            except OSError as error:
                log.warning("project index: %s: %s", current, error)
                continue
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    if recursive and not _skipped_folder(entry.name):
                        pending.append(Path(entry.path))
                elif count < self.max_files and (name := self._read(Path(entry.path))):
                    changed.add(name)
                    count += 1
        if pending:
            log.info("project index: stopped at %d files (the limit); %s is not fully indexed", self.max_files, folder)
        log.info("project index: %s read, %d files in all", folder, count)
        return changed

    def _read_again(self, path: Path) -> set[str]:
        if path.is_dir():  # a folder created or moved in (a checkout): read as a walk would
            return self._walk(path, recursive=True) if self._holds(path, folder=True) else set()
        known = [(name, files) for name, files in self._files.items() if str(path) in files]
        if not known and not path.exists():  # a folder deleted or moved away: its files go
            return self._drop(path, keep=lambda p: False)
        if not self._holds(path):
            return set()
        for name, files in known:
            del files[str(path)]
        if not known and self._indexed() >= self.max_files:
            return set()
        name = self._read(path)  # None: deleted, or no longer one of our languages
        return {n for n, _ in known} | ({name} if name else set())

    def _drop(self, folder: Path, keep: Callable[[Path], bool] | None = None) -> set[str]:
        """Forget the files under ``folder`` but those ``keep`` keeps (default: those that a
        remaining root holds)."""
        keep = keep or self._holds
        changed = set()
        for name, files in self._files.items():
            gone = [p for p in files if folder in Path(p).parents and not keep(Path(p))]
            for p in gone:
                del files[p]
            if gone:
                changed.add(name)
        return changed

    def _read(self, path: Path) -> str | None:
        """Index one file; the language's name if it was one of ours."""
        language = BY_EXTENSION.get(path.suffix.lower())
        if language is None:
            return None
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                return None
            data = path.read_bytes()
        except OSError:
            return None
        words = None
        if self.reader is not None and not self.reader.unavailable:
            self.wait_for_quiet()
            try:
                words = self.reader.file_words(data, str(path))
            except RuntimeError as error:  # the file broke the reader (it starts again for the next)
                if not self.reader.unavailable:
                    log.warning("project index: %s not read: %s", path, error)
                    return None
        if words is None:  # in the server: asked to, or no child can start here
            words = file_words(data, language, self.wait_for_quiet, path)
        self._files.setdefault(language.name, {})[str(path)] = words
        return language.name
