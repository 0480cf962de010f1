"""The LSP handlers: small, typed, and delegating to CompletionService.

Threads: pygls runs the asyncio event loop; a thread of ours reads stdin (server/stdio.py).
All document and completion work runs on one worker thread of our own, in arrival order, so the
loop never waits on a parse and a completion always sees every edit sent before it. A
completion that a newer edit has made stale when its turn comes is answered with
ContentModified and costs nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterable

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from . import __version__
from .engines.registry import Registry
from .items import ClientSupport, Documentation, completion_list, resolve
from .languages import BY_EXTENSION
from .options import SECTION, Options, parse_options
from .protocol import InvalidMessage, TreecompleteProtocol
from .service import CompletionService, UnknownDocument
from .sources import installed
from .sources.libraries.known import Libraries
from .sources.project import path_of
from .sources.project_index import ProjectIndex
from .stdio import MessageReader

log = logging.getLogger(__name__)

# seconds after the last document closes before what was read for the documents goes: a file
# switched for another (a preview tab: didClose, then didOpen) keeps it
EMPTY_DROP = 2.0
# seconds without a message (an edit, an open, a request) after which the worker does its idle
# work: the rest of the line the last list wanted is decoded (sources/infill.py), then the
# documents changed are counted as other documents' words (the first request elsewhere then
# finds them counted). Keystrokes closer together than this never wait for either.
QUIET = 0.5
LIBRARIES = "treecomplete/librariesRead"  # client -> server: wait until the libraries asked for are read
# (benchmarks, tests); answers the count of reads so far
STATUS = "treecomplete/status"  # server -> client: a model's state per language (loading, ready, failed, off),
# and the project index's ("indexed", with its file count)


class Stale(Exception):
    """A newer version of the document arrived while the request waited."""


class TreecompleteServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "treecomplete",
            __version__,
            protocol_cls=TreecompleteProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        )
        self.options = Options()
        self.models = Registry(on_error=self._model_failed, on_status=self._send_status)
        self.project = ProjectIndex(on_ready=self._project_indexed, separate=True)  # files parsed in a child process
        self.roots: list[Path] = []  # the workspace folders, indexed once settings allow
        self.libraries = Libraries(quiet=self.project.quiet, separate=True)  # ditto, Python modules
        self.service = CompletionService(max_file_size=self.options.max_file_size, models=self.models, libraries=self.libraries)
        self.service.on_empty = self._emptied
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="treecomplete-worker")
        self.versions: dict[str, int] = {}  # latest version received, per open URI (loop thread)
        self.event_loop: asyncio.AbstractEventLoop | None = None  # for messages from other threads
        self.client_support = ClientSupport()
        self.documentation = Documentation()  # the last list's, for completionItem/resolve
        self.after_initialize: Callable[[], None] = lambda: None  # run at the initialized notification
        self._quiet: asyncio.TimerHandle | None = None  # the idle work after QUIET seconds (when_quiet)

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """pygls' stdio server, reading each message in one thread hop (server/stdio.py)."""
        self._stop_event = threading.Event()  # pygls' shutdown() sets it
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(run_async(stop_event=self._stop_event, reader=MessageReader(stdin or sys.stdin.buffer),
                                  protocol=self.protocol, logger=LoopLog(log), error_handler=self.report_server_error))
        except BrokenPipeError:
            log.error("The connection to the client is lost: stopping")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        future = self.worker.submit(self._work, fn, *args)
        future.add_done_callback(_log_failure)
        return future

    def _work(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Every job of the worker: the project index waits meanwhile (server/sources/project.py)."""
        with self.project.paused():
            return fn(*args)

    def apply_settings(self, raw: Any, origin: str) -> None:
        options, problems = parse_options(raw, self.options)
        for problem in problems:
            log.warning("%s: %s", origin, problem)
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=f"treecomplete: {problem}")
            )
        self.options = options
        self.submit(self._configure_service, options)

    def _from_any_thread(self, send: Callable[..., Any], *args: Any) -> None:
        """Run ``send`` on the event loop (the loading thread reports through this), unless the
        client has asked the server to shut down by then (its output may be closed)."""
        if self.event_loop is None:
            return  # not initialized yet: the log has it
        try:
            self.event_loop.call_soon_threadsafe(self._send_unless_shut_down, send, *args)
        except RuntimeError:  # the loop is closed: the server is stopping
            pass

    def _send_unless_shut_down(self, send: Callable[..., Any], *args: Any) -> None:
        if not self.protocol._shutdown:
            send(*args)

    def _model_failed(self, message: str) -> None:
        self._from_any_thread(self.window_show_message, types.ShowMessageParams(type=types.MessageType.Warning, message=message))

    def _send_status(self, status: dict) -> None:
        """The ``treecomplete/status`` notification, for a client's status bar."""
        self._from_any_thread(self.protocol.notify, STATUS, status)

    def _project_indexed(self, files: int) -> None:
        self._send_status({"language": "*", "state": "indexed", "files": files})

    def _emptied(self, closes: int) -> None:
        """The last document closed: what was read for the documents goes EMPTY_DROP seconds
        later if none is open then (on the worker, in turn with the messages)."""
        def drop() -> None:
            with contextlib.suppress(RuntimeError):  # the worker shut down: the process is ending
                self.submit(self.service.drop_if_still_empty, closes)

        timer = threading.Timer(EMPTY_DROP, drop)
        timer.daemon = True
        timer.start()

    def _configure_service(self, options: Options) -> None:
        project = self.project if options.project_index else None
        self.service.project = project
        if project is not None and self.event_loop is not None:  # initialized: its status can be sent
            for root in self.roots:
                project.add_root(root)  # once: a root already read is skipped
        self.models.configure(options.model, None if options.device == "auto" else options.device)
        self.service.max_file_size = options.max_file_size
        self.service.memory_limit = options.memory_limit
        self.service.libraries = self.libraries if options.libraries else None
        self.libraries.python_path = options.python_path
        installed.set_python_path(options.python_path)
        self.service.auto_import.enabled = options.auto_import
        if self.service.neural is not None:
            self.service.neural.multi_token = options.multi_token
        for doc in self.service.documents.values():
            doc.max_bytes = options.max_file_size

    def complete_current(self, uri: str, version: int, line: int, character: int, limit: int) -> types.CompletionList:
        """Runs on the worker thread."""
        if self.versions.get(uri) != version:
            raise Stale(uri)
        completion = self.service.complete(uri, line, character, limit)
        return completion_list(self.service.get(uri), completion, limit, self.client_support, self.documentation)

    def when_quiet(self) -> None:
        """(event loop) At a message: the idle work waits until QUIET seconds pass without
        another. It gives way to any message that comes while it runs."""
        if self._quiet is not None:
            self._quiet.cancel()
        if self.event_loop is not None:
            self._quiet = self.event_loop.call_later(QUIET, self._idle_work)

    def _idle_work(self) -> None:
        self._quiet = None
        with contextlib.suppress(RuntimeError):  # the worker shut down: the process is ending
            self.submit(self._quiet_work)

    def _quiet_work(self) -> None:
        """(worker) The rest of the line the last list wanted (sources/infill.py), then the
        changed documents' count: one task, as any task queued counts as a message waiting."""
        neural = self.service.neural
        if neural is not None and neural.wanted is not None:
            neural.fill_wanted(self._busy)
        self.service.count_changed(self._busy)

    def _busy(self) -> bool:
        """Whether a message waits for the worker (the idle work gives way to it)."""
        return self.worker._work_queue.qsize() > 0

    def report_server_error(self, error: Exception, source: Any) -> None:
        # Errors are logged, not shown in a message box: the user cannot act on them, and a
        # typo in a client must not flood the editor.
        if isinstance(error, InvalidMessage):
            return  # logged in a line, and a request answered, as it was read (protocol.py)
        if isinstance(error, json.JSONDecodeError):
            log.error("Malformed JSON received: %s", error)
            self.protocol._send_response(
                None,  # type: ignore[arg-type]
                error=types.ResponseError(code=types.ErrorCodes.ParseError, message=f"Malformed JSON: {error}"),
            )
        else:
            log.error("%s: %s", getattr(source, "__name__", source), error)


class LoopLog(logging.LoggerAdapter):
    """The log pygls' message loop writes to. It logs each message it could not handle with
    its traceback; a malformed or invalid one is reported in a line instead (report_server_error,
    protocol.py), so its traceback is left out."""

    def exception(self, msg: object, *args: Any, **kwargs: Any) -> None:
        if isinstance(sys.exc_info()[1], (InvalidMessage, json.JSONDecodeError)):
            return
        super().exception(msg, *args, **kwargs)


def _log_failure(future: Future[Any]) -> None:
    if not future.cancelled() and (error := future.exception()) is not None:
        if isinstance(error, UnknownDocument):
            log.warning("%s", error)
        elif not isinstance(error, Stale):
            log.error("Document worker failed", exc_info=error)


def create_server() -> TreecompleteServer:
    server = TreecompleteServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: TreecompleteServer, params: types.InitializeParams) -> None:
        ls.service.encoding = str(getattr(ls.workspace.position_encoding, "value", ls.workspace.position_encoding))
        ls.client_support = ClientSupport.of(params.capabilities)
        ls.roots = workspace_roots(params)
        ls.libraries.roots = [root.resolve() for root in ls.roots]
        log.info("treecomplete %s; position encoding %s", __version__, ls.service.encoding)
        ls.apply_settings(params.initialization_options, "initializationOptions")

    @server.feature(types.INITIALIZED)
    async def initialized(ls: TreecompleteServer, params: types.InitializedParams) -> None:
        ls.after_initialize()
        ls.event_loop = asyncio.get_running_loop()
        ls.submit(ls._configure_service, ls.options)  # starts the project index
        await pull_configuration(ls)
        await watch_files(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: TreecompleteServer, params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if isinstance(settings, dict) and SECTION in settings:
            ls.apply_settings(settings[SECTION], "didChangeConfiguration")
        else:
            await pull_configuration(ls)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: TreecompleteServer, params: types.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        ls.versions[doc.uri] = doc.version
        ls.submit(ls.service.open, doc.uri, doc.language_id, doc.version, doc.text)
        ls.when_quiet()

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TreecompleteServer, params: types.DidChangeTextDocumentParams) -> None:
        uri, version = params.text_document.uri, params.text_document.version
        if uri not in ls.versions:
            log.warning("%s: didChange for a document that is not open; ignored", uri)
            return
        ls.versions[uri] = version
        changes = [
            (
                ((c.range.start.line, c.range.start.character), (c.range.end.line, c.range.end.character))
                if isinstance(c, types.TextDocumentContentChangePartial)
                else None,
                c.text,
            )
            for c in params.content_changes
        ]
        ls.submit(ls.service.change, uri, version, changes)
        ls.when_quiet()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TreecompleteServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.versions.pop(uri, None)
        ls.submit(ls.service.close, uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: TreecompleteServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.submit(ls.service.saved, params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: TreecompleteServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.submit(ls.service.files_changed, [change.uri for change in params.changes])

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_workspace_folders(ls: TreecompleteServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        added = local_folders(folder.uri for folder in params.event.added or ())
        removed = [Path(p) for folder in params.event.removed or () if (p := path_of(folder.uri))]
        ls.roots = [root for root in ls.roots if root.resolve() not in removed] + added
        ls.libraries.roots = [root.resolve() for root in ls.roots]
        ls.submit(ls.service.folders_changed, added, removed)

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=["."], resolve_provider=True),
    )
    async def completion(ls: TreecompleteServer, params: types.CompletionParams) -> types.CompletionList:
        uri, pos = params.text_document.uri, params.position
        version = ls.versions.get(uri)
        if version is None:
            log.warning("%s: completion for a document that is not open", uri)
            return types.CompletionList(is_incomplete=False, items=[])
        ls.when_quiet()
        job = ls.worker.submit(ls._work, ls.complete_current, uri, version, pos.line, pos.character, ls.options.max_items)
        try:
            return await asyncio.wrap_future(job)
        except Stale:
            raise JsonRpcContentModified(f"{uri} changed while the completion waited") from None

    @server.feature(types.COMPLETION_ITEM_RESOLVE)
    def completion_item_resolve(ls: TreecompleteServer, item: types.CompletionItem) -> types.CompletionItem:
        return resolve(item, ls.documentation)

    @server.feature(LIBRARIES)
    async def libraries_read(ls: TreecompleteServer, params: Any) -> int:
        await asyncio.wrap_future(ls.submit(lambda: None))  # after the notifications sent before it
        await asyncio.to_thread(ls.libraries.loader.wait, 30)
        return ls.libraries.loader.reads

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: TreecompleteServer, params: None) -> None:
        ls.worker.shutdown(wait=False, cancel_futures=True)

    return server


def workspace_roots(params: types.InitializeParams) -> list[Path]:
    """The local folders of the workspace: its folders, else its root."""
    uris = [folder.uri for folder in params.workspace_folders or ()] or [params.root_uri or ""]
    roots = local_folders(uris)
    if not roots and params.root_path and Path(params.root_path).is_dir():
        roots = [Path(params.root_path)]
    return roots


def local_folders(uris: Iterable[str]) -> list[Path]:
    """The folders on this machine that ``uris`` name."""
    paths = [to_fs_path(uri) for uri in uris if uri.startswith("file:")]
    return [Path(path) for path in paths if path and Path(path).is_dir()]


async def watch_files(ls: TreecompleteServer) -> None:
    """Ask the client to report our languages' files created, changed or deleted on disk (a
    checkout, a generator, another editor), where it can (dynamic registration)."""
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    if watched is None or not watched.dynamic_registration:
        return
    pattern = "**/*.{" + ",".join(sorted(suffix.lstrip(".") for suffix in BY_EXTENSION)) + "}"
    registration = types.Registration(
        id="treecomplete-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[types.FileSystemWatcher(glob_pattern=pattern)]),
    )
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
    except Exception as error:  # a client that refuses keeps didSave as the only signal
        log.warning("client/registerCapability (watched files) failed: %s", error)


async def pull_configuration(ls: TreecompleteServer) -> None:
    workspace = ls.client_capabilities.workspace
    if workspace is None or not workspace.configuration:
        return
    try:
        result = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        )
    except Exception as error:  # a client that fails the request keeps the current settings
        log.warning("workspace/configuration failed: %s", error)
        return
    if result and result[0] is not None:
        ls.apply_settings(result[0], "workspace/configuration")
