"""A minimal LSP session over stdio for the benchmarks (pygls' client), and the peers' command
lines. Any server that speaks LSP over stdio can be measured the same way."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from treecomplete.engines.registry import DEFAULTS
from treecomplete.grammars import WHEELS

ROOT = Path(__file__).resolve().parent.parent
NODE_DIR = ROOT / "bench-out" / "node"  # npm install typescript-language-server typescript@5 pyright


def has_model(language: str, model: str) -> bool:
    """Whether treecomplete answers ``language`` with a model: a model is named, or the language
    is not served from its grammar alone, or a shipped model serves it (Go)."""
    return bool(model) or language not in WHEELS or language in DEFAULTS


def peers(language: str) -> list[tuple[str, list[str], dict | None]]:
    """The peers a user would otherwise run, installed here: name, command, initializationOptions.
    Python: jedi-language-server and pyright (what VS Code's Python users run); JavaScript and
    TypeScript: typescript-language-server."""
    found = []
    bin_dir = NODE_DIR / "node_modules" / ".bin"
    if language == "python":
        exe = shutil.which("jedi-language-server") or str(Path(sys.executable).parent / "jedi-language-server")
        if Path(exe).exists():
            found.append(("jedi-language-server", [exe], None))
        if (bin_dir / "pyright-langserver").exists():
            found.append(("pyright", [str(bin_dir / "pyright-langserver"), "--stdio"], None))
    elif language in ("javascript", "typescript") and (bin_dir / "typescript-language-server").exists():
        tsserver = NODE_DIR / "node_modules" / "typescript" / "lib" / "tsserver.js"
        found.append(("typescript-language-server", [str(bin_dir / "typescript-language-server"), "--stdio"],
                      {"tsserver": {"path": str(tsserver)}}))
    return found  # none for the languages served from their grammar alone


def peer_command(language: str) -> tuple[list[str], dict | None] | None:
    """The command and initializationOptions of the first peer (jedi-language-server for Python)."""
    found = peers(language)
    return (found[0][1], found[0][2]) if found else None


# a neural item's detail (and an older server's, to compare against it)
NEURAL_MARK = re.compile(r"· model \d+(\.\d+)?%|\((model vocabulary|copied from line \d+|multi-token, model)\)")


class Session:
    """One running server: open a buffer, ask for completion, close it."""

    def __init__(self, name: str, command: list[str], init_options=None, root: Path = ROOT, folders: list[Path] | None = None):
        self.name, self.command, self.init_options, self.root = name, command, init_options, root
        self.folders = folders  # the workspace folders (default: none but the root)
        self.client = LanguageClient("treecomplete-bench", "1")
        self.client.feature(types.WORKSPACE_CONFIGURATION)(lambda params: [None for _ in params.items])
        self.client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)(lambda params: None)
        for method in (types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, types.WINDOW_LOG_MESSAGE):  # peers' diagnostics and logs
            self.client.feature(method)(lambda params: None)
        self.indexed = asyncio.Event()  # treecomplete's project index has read the workspace
        self.client.feature("treecomplete/status")(lambda params: self._status(params))
        self.initialize_seconds = 0.0
        self.first_neural_ms: float | None = None  # wait_for_model's: how long the model's first answer took

    def _status(self, params) -> None:
        if getattr(params, "state", None) == "indexed":
            self.indexed.set()

    async def start(self) -> None:
        # A user's Python writes each module's bytecode at its first import and reads it at every
        # start after: so does the server here, where this machine's environment would forbid it.
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        await self.client.start_io(*self.command, start_new_session=True, env=env)
        # Nobody reads the server's stderr otherwise: a chatty server would fill the pipe and
        # block on its next log line.
        self._drain = asyncio.create_task(self._discard(self.client._server.stderr))
        started = time.perf_counter()
        await self.client.initialize_async(
            types.InitializeParams(
                process_id=None,
                root_uri=self.root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(f.as_uri(), f.name) for f in self.folders] if self.folders else None,
                capabilities=types.ClientCapabilities(
                    text_document=types.TextDocumentClientCapabilities(
                        completion=types.CompletionClientCapabilities(
                            completion_item=types.ClientCompletionItemOptions(snippet_support=True)
                        )
                    ),
                    workspace=types.WorkspaceClientCapabilities(configuration=True, workspace_folders=True),
                ),
                initialization_options=self.init_options,
            )
        )
        self.initialize_seconds = time.perf_counter() - started
        self.client.initialized(types.InitializedParams())

    @property
    def pid(self) -> int:
        return self.client._server.pid  # the server process the client started

    def open(self, uri: str, language_id: str, text: str, version: int = 1) -> None:
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, language_id, version, text))
        )

    def change(self, uri: str, version: int, line: int, character: int, text: str) -> None:
        pos = types.Position(line, character)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [types.TextDocumentContentChangePartial(range=types.Range(pos, pos), text=text)],
            )
        )

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))

    async def complete(self, uri: str, line: int, character: int, timeout: float = 30) -> list[types.CompletionItem]:
        try:
            result = await asyncio.wait_for(
                self.client.text_document_completion_async(
                    types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(line, character))
                ),
                timeout,
            )
        except (asyncio.TimeoutError, Exception) as error:  # a peer's failure scores as no items
            print(f"  {self.name}: completion failed: {type(error).__name__} {error}", file=sys.stderr)
            return []
        if result is None:
            return []
        return list(result.items if isinstance(result, types.CompletionList) else result)

    async def resolve(self, item: types.CompletionItem, timeout: float = 10) -> types.CompletionItem:
        """completionItem/resolve, or the item as it was where the server fails it."""
        try:
            return await asyncio.wait_for(self.client.completion_item_resolve_async(item), timeout)
        except (asyncio.TimeoutError, Exception) as error:
            print(f"  {self.name}: resolve failed: {type(error).__name__} {error}", file=sys.stderr)
            return item

    async def wait_for_model(self, language: str, timeout: float = 60) -> float:
        """Poll until treecomplete answers from its model (which loads in the background); the
        seconds it took."""
        started = time.perf_counter()
        uri = (self.root / f"warmup.{'py' if language == 'python' else 'js'}").as_uri()
        self.open(uri, language, "value = 1\nresult = ")
        try:
            while time.perf_counter() - started < timeout:
                asked = time.perf_counter()
                items = await self.complete(uri, 1, 9)
                if any(NEURAL_MARK.search(str((item.data or {}).get("detail", ""))) for item in items if isinstance(item.data, dict)):
                    self.first_neural_ms = (time.perf_counter() - asked) * 1000  # the model's first answer in this process
                    return time.perf_counter() - started
                await asyncio.sleep(0.05)
        finally:
            self.close(uri)
        raise RuntimeError(f"{self.name}: no neural completion within {timeout:.0f} s")

    @staticmethod
    async def _discard(stream: asyncio.StreamReader) -> None:
        while await stream.read(65536):
            pass

    async def stop(self) -> None:
        """shutdown and exit; a server that has not exited 10 s later is killed, with its
        children (which may hold its stdout open)."""
        server = self.client._server
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 10)
            self.client.exit(None)
            await asyncio.wait_for(server.wait(), 10)
        except Exception:
            pass
        if server.returncode is None:
            os.killpg(server.pid, signal.SIGKILL)
        else:  # its children too, if any outlived it
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGKILL)
        await self.client.stop()
        self._drain.cancel()


def run_benchmark(main_async: Callable[[argparse.Namespace], Awaitable[dict[str, Any]]], args: argparse.Namespace) -> None:
    """Run a benchmark and, with ``--out``, keep its report as JSON."""
    report = asyncio.run(main_async(args))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2))
