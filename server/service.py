"""Open documents and completion requests, without any JSON-RPC.

The server calls these methods from a single worker thread, in the order the notifications and
requests arrived, so a completion always sees every edit sent before it. The CLI and the tests
call them directly.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import memory
from .context import ATTRIBUTE, NAME, CompletionContext, context_at
from .document import Document
from .engines.base import Candidate, Engine
from .engines.fallback import FallbackEngine
from .engines.neural import NeuralEngine
from .engines.registry import Registry
from .erasure import served_as
from .languages import language_for
from .positions import UTF16
from .sources.auto_import import NAMES as AUTO_IMPORTED
from .sources.auto_import import UNLISTED, AutoImport
from .sources.installed import EXPORTS
from .sources.libraries.known import Libraries
from .sources.project import path_of
from .sources.project_index import ProjectIndex

log = logging.getLogger(__name__)


class UnknownDocument(LookupError):
    pass


MEMBER_WAIT = 0.05  # seconds a request waits for the receiver's library to be read
TREES_KEPT = 16  # open documents that keep their syntax tree: the most recently used
SWEEP_EVERY = 32  # edits and requests between two sweeps of the trees
DROP_EVERY = 64  # opens, edits and requests at least between two drops for the memory limit
MEMORY_LIMIT = 1024  # MB, until the memoryLimit setting says otherwise


@dataclass
class Completion:
    context: CompletionContext
    candidates: list[Candidate]
    engine: str
    incomplete: bool = False  # a library it needs is still read, or the rest of the line is decoded: the next keystroke asks again


class CompletionService:
    def __init__(self, encoding: str = UTF16, max_file_size: int | None = None, models: Registry | None = None,
                 wait_for_models: bool = False, project: ProjectIndex | None = None, libraries: Libraries | None = None):
        self.encoding = encoding
        self.max_file_size = max_file_size
        self.documents: dict[str, Document] = {}  # in the order of their last use
        self._touches = 0
        self._last_drop = -DROP_EVERY
        self.memory_limit = MEMORY_LIMIT  # MB (the memoryLimit setting)
        self.fallback = FallbackEngine(lambda: self.documents.values(), project, libraries)
        self.models = models
        self.wait_for_models = wait_for_models  # the CLI waits; the server answers while loading
        self.auto_import = AutoImport(self.fallback)
        self.neural = NeuralEngine(self.fallback, self._predictor, self.auto_import) if models is not None else None
        # the last document closed: (the number of such closes) -> arrange drop_if_still_empty(it) a
        # moment later (the server); None: drop at once
        self.on_empty: Callable[[int], None] | None = None
        self._emptied = 0

    @property
    def libraries(self) -> Libraries | None:
        """What the code's libraries and classes define (the fallback engine's); None: not read."""
        return self.fallback.libraries

    @libraries.setter
    def libraries(self, libraries: Libraries | None) -> None:
        self.fallback.libraries = libraries

    @property
    def project(self) -> ProjectIndex | None:
        """The words of the project's files on disk (the fallback engine's); None: not read."""
        return self.fallback.project

    @project.setter
    def project(self, index: ProjectIndex | None) -> None:
        self.fallback.project = index

    def _predictor(self, language: str) -> object | None:
        """The model serving ``language``'s documents (TypeScript's: JavaScript's, server/erasure.py)."""
        if self.models is None:
            return None
        return self.models.get(served_as(language), wait=self.wait_for_models)

    def engine(self, language: str | None = None) -> Engine:
        """The neural engine once the language's model is loaded, the fallback engine until then."""
        if self.neural is not None and language is not None and self._predictor(language) is not None:
            return self.neural
        return self.fallback

    def open(self, uri: str, language_id: str | None, version: int, text: str) -> Document:
        language = language_for(language_id, uri)
        doc = Document(uri, text, version, language, self.encoding, self.max_file_size)
        self.documents.pop(uri, None)  # reopened: the most recently used
        self.documents[uri] = doc
        self._touches += 1
        self.drop_old_trees()
        doc.tree  # noqa: B018 - parse now, while the user reads, not at the first keystroke
        if language is not None and self.models is not None:
            self.models.get(served_as(language.name))  # start loading its model
        path = path_of(uri) if language is not None else None
        if path and self.project is not None:
            self.project.add_document(Path(path))  # its folder, unless a workspace folder holds it
        if path and language.name in AUTO_IMPORTED and self.auto_import.enabled:
            EXPORTS.of(str(Path(path).parent), language.name == "python")  # its packages' exports, read ahead of a name
        if language is not None and self.libraries is not None and not doc.too_large:
            self.libraries.opened(doc)  # the modules it imports, read ahead of the first dot
        if language is None:
            log.info("%s: language %r is not supported; no completions", uri, language_id)
        elif doc.too_large:
            log.warning(
                "%s: %d bytes is over maxFileSize (%d); no completions for it",
                uri, len(doc.data), self.max_file_size,
            )
        return doc

    def get(self, uri: str) -> Document:
        try:
            return self.documents[uri]
        except KeyError:
            raise UnknownDocument(f"{uri} is not open (no didOpen was received for it)") from None

    def _touch(self, uri: str) -> None:
        """``uri`` was just used: the documents stay in the order of their last use (the fallback
        engine reads the most recently used others)."""
        self.documents[uri] = self.documents.pop(uri)
        self._touches += 1
        if self._touches % SWEEP_EVERY == 0:
            self.drop_old_trees()

    def drop_old_trees(self) -> None:
        """Documents not used for a while keep their text only: past the TREES_KEPT most
        recently used, their trees are dropped, parsed again when next used (at each open, and
        every SWEEP_EVERY edits and requests). Then the memory limit is held."""
        self._drop_trees(TREES_KEPT)
        self.hold_memory()

    def _drop_trees(self, keep: int) -> int:
        """Drop the trees of all but the ``keep`` most recently used documents; how many."""
        dropped = 0
        for doc in itertools.islice(self.documents.values(), max(0, len(self.documents) - keep)):
            if doc.parsed:
                doc.drop_tree()
                dropped += 1
        return dropped

    def _drop_read(self, keep: str | None = None) -> None:
        """Forget what was read for the documents: the engines' caches, the models' document
        states (but ``keep``'s) and answers, the libraries, what the installed packages export."""
        self.fallback.drop_caches()
        if self.neural is not None:
            self.neural.drop_caches()
        if self.models is not None:
            self.models.forget_all(keep=keep)
        if self.libraries is not None:
            self.libraries.clear()
        EXPORTS.clear()

    def hold_memory(self) -> bool:
        """Over ``memory_limit`` MB of resident memory (the server's with its child process's):
        drop what can be rebuilt (every tree but the last used document's, the engines' caches,
        the models' document states, the libraries read, the child), and say so in the log. True
        where it dropped."""
        if self._touches - self._last_drop < DROP_EVERY:  # checked before reading /proc: at every open
            return False
        used = memory.resident_mb(children=True)
        if used is None or used <= self.memory_limit:
            return False
        self._last_drop = self._touches
        trees = self._drop_trees(1)
        self._drop_read(keep=next(reversed(self.documents), None))
        after = memory.release()
        log.warning("memoryLimit: %.0f MB resident, over %d MB: dropped %d syntax trees, the caches, the models' "
                    "document states and the libraries read (rebuilt as they are used); %s", used,
                    self.memory_limit, trees, f"now {after:.0f} MB" if after is not None else "")
        return True

    def change(self, uri: str, version: int, changes: list[tuple[tuple[tuple[int, int], tuple[int, int]] | None, str]]) -> None:
        """Apply content changes in order; a change without a range replaces the whole text."""
        doc = self.get(uri)
        self._touch(uri)
        if version <= doc.version:
            log.warning("%s: version %d after %d; applying the change anyway", uri, version, doc.version)
        for span, text in changes:
            if span is None:
                doc.replace_all(text)
            else:
                (sl, sc), (el, ec) = span
                if max(sl, el) >= doc.lines.line_count:
                    log.warning("%s: change range %s ends past the last line; clamped", uri, span)
                doc.apply_change((sl, sc), (el, ec), text)
        doc.version = version

    def count_changed(self, busy: Callable[[], bool]) -> int:
        """While the server is quiet: the other open documents' words that the next request in
        another document would count (sources/open_documents.py), until ``busy()``."""
        return self.fallback.open_documents.count_changed(busy)

    def close(self, uri: str) -> None:
        if self.documents.pop(uri, None) is None:
            log.warning("%s: didClose for a document that is not open", uri)
        self.fallback.forget(uri)
        if self.models is not None:
            self.models.forget(uri)
        if not self.documents:  # the last one: what was read for the documents goes, and back to the system
            self._emptied += 1
            if self.on_empty is not None:
                self.on_empty(self._emptied)
            else:
                self.drop_if_still_empty(self._emptied)

    def drop_if_still_empty(self, closes: int) -> bool:
        """What was read for the documents goes, where none has been opened since the last one
        closed (the ``closes``-th time): a file switched for another (a preview tab: didClose,
        then didOpen) keeps the libraries and caches read. True where it dropped."""
        if self.documents or closes != self._emptied:
            return False
        self._drop_read()
        memory.release()
        return True

    def saved(self, uri: str) -> None:
        """The document's file may have changed on disk: the project index reads it again."""
        self.files_changed([uri])

    def files_changed(self, uris: list[str]) -> None:
        """Files created, changed or deleted on disk: the project index reads them again."""
        if self.project is not None:
            for uri in uris:
                if path := path_of(uri):
                    self.project.refresh(Path(path))

    def folders_changed(self, added: list[Path], removed: list[Path]) -> None:
        """Workspace folders opened and closed: the project index reads or forgets them."""
        if self.project is not None:
            for folder in removed:
                self.project.remove_root(folder)
            for folder in added:
                self.project.add_root(folder)

    def complete(self, uri: str, line: int, character: int, limit: int) -> Completion | None:
        """Ranked candidates at a position, or None where nothing can be offered (unsupported
        language, oversized document, a position past the end of the document)."""
        doc = self.get(uri)
        self._touch(uri)
        if line >= doc.lines.line_count:
            log.warning("%s: completion at line %d, past the last line (%d)", uri, line, doc.lines.line_count - 1)
            return None
        context = context_at(doc, doc.offset_at(line, character))
        if context is None:
            return None
        loader = self.libraries.loader if self.libraries is not None else None
        if loader is None:
            return self._complete(context, limit)
        waited: set = set()
        left = MEMBER_WAIT  # one wait in all per request
        if context.category in (ATTRIBUTE, NAME):
            # what the position needs of the libraries (a receiver's members, a callee's
            # parameters), asked before the list is computed: one not read yet is waited for a
            # moment first, and the list computed once
            with loader.asked() as missed:
                self.fallback.known(context)
            if missed:
                waited, started = missed, time.monotonic()
                if loader.wait_for(missed, MEMBER_WAIT):
                    context = context_at(doc, context.cursor) or context  # read again, with them
                left -= time.monotonic() - started
        with loader.asked() as missed:
            completion = self._complete(context, limit)
        if missed and left > 0:  # another library, asked by what the list computed: the wait left, then the list again
            if loader.wait_for(missed, left):
                with loader.asked() as missed:
                    completion = self._complete(context_at(doc, context.cursor) or context, limit)
        completion.incomplete = completion.incomplete or bool(loader.pending(waited | missed))
        return completion

    def _complete(self, context: CompletionContext, limit: int) -> Completion:
        engine = self.engine(context.language.name)
        candidates = engine.complete(context, limit)
        if engine is self.fallback and len(candidates) < limit:  # the neural engine ranks these among the rest
            extra = self.auto_import.extra(context, {c.text for c in candidates})
            candidates = candidates + [Candidate(word, score=-1.0, features=UNLISTED) for word in extra[:limit - len(candidates)]]
        candidates = self.auto_import.attach(context, candidates)
        # the rest of the line is decoded once the server is quiet (server.QUIET): the next keystroke asks again
        wanted = getattr(engine, "wanted", None) is not None
        return Completion(context, candidates + self.fallback.members_left(context, candidates), engine.name, wanted)

    def complete_read(self, uri: str, line: int, character: int, limit: int, timeout: float = 30) -> Completion | None:
        """complete() once the libraries asked for are read: those the document's imports name,
        then the receiver's, if the first answer asked for it (the CLI, the ranking's fit: as an
        editor asks a moment after the file is opened, and again as the user types on)."""
        loader = self.libraries.loader if self.libraries is not None else None
        if loader is not None:
            loader.wait(timeout)
        read = loader.reads if loader is not None else 0
        completion = self.complete(uri, line, character, limit)
        if loader is not None and loader.wait(timeout) and loader.reads > read:
            completion = self.complete(uri, line, character, limit)
        return completion

