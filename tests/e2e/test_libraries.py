"""Library and class members through the real server over stdio: the smoke cases a user tries
first (``os.path.``, ``json.``, ``self.``, ``fs.``, ``this.``), a package of the workspace's
.venv and of its node_modules, and environments that are broken."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from treecomplete.memory import descendants

from ..libraries_fixtures import make_node_modules, make_venv
from .conftest import CONFIG, complete, labels, open_doc


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    make_venv(tmp_path)
    make_node_modules(tmp_path)
    return tmp_path


def vscode_capabilities() -> types.ClientCapabilities:
    """VS Code's, with labelDetailsSupport, as VS Code has sent since 1.61 (pytest-lsp's record
    predates it)."""
    capabilities = client_capabilities("visual-studio-code")
    capabilities.text_document.completion.completion_item.label_details_support = True
    return capabilities


@pytest_lsp.fixture(config=CONFIG)
async def lsp(lsp_client: LanguageClient, workspace: Path):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=vscode_capabilities(), root_uri=workspace.as_uri(),
                               workspace_folders=[types.WorkspaceFolder(workspace.as_uri(), "w")],
                               initialization_options={"treecomplete": {"model": "fallback", "projectIndex": False}})
    )
    yield lsp_client
    await lsp_client.shutdown_session()


async def members_at_end(client: LanguageClient, path: Path, text: str, language: str) -> list[str]:
    """Open ``text`` and complete at its end once the libraries it asks for are read, as after
    the pause between opening a file and typing a dot."""
    open_doc(client, path.as_uri(), text, language)
    await client.protocol.send_request_async("treecomplete/librariesRead", None)
    line, character = text.count("\n"), len(text.rsplit("\n", 1)[-1])
    await complete(client, path.as_uri(), line, character)
    await client.protocol.send_request_async("treecomplete/librariesRead", None)
    return labels(await complete(client, path.as_uri(), line, character))


def _reader_processes() -> list[int]:
    """The reader processes (server/sources/reader_process.py) below this test process: the
    server's children that run its loop (its boot code on their command line)."""
    found = []
    for pid in descendants(os.getpid()):
        try:
            if b"serve(sys.stdin.buffer" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="processes are found through /proc")
async def test_a_reader_process_killed_mid_session_is_replaced_and_the_server_serves_on(lsp: LanguageClient, workspace: Path):
    assert "join" in await members_at_end(lsp, workspace / "k.py", "import os\nos.path.", "python")
    readers = _reader_processes()
    assert readers  # the server parses libraries in a child process
    for pid in readers:
        os.kill(pid, signal.SIGKILL)
    found = await members_at_end(lsp, workspace / "l.py", "import json\njson.", "python")
    assert {"dumps", "loads"} <= set(found[:10])  # read by a new child
    assert _reader_processes() and not set(_reader_processes()) & set(readers)


async def test_os_path_join_in_the_top_3(lsp: LanguageClient, workspace: Path):
    found = await members_at_end(lsp, workspace / "a.py", "import os\n\nbase = 'x'\np = os.path.", "python")
    assert "join" in found[:3]


async def test_json_dumps_and_loads_in_the_top_5(lsp: LanguageClient, workspace: Path):
    found = await members_at_end(lsp, workspace / "b.py", "import json\n\ndata = {}\ntext = json.", "python")
    assert {"dumps", "loads"} <= set(found[:5])


async def test_self_lists_every_method_of_the_class(lsp: LanguageClient, workspace: Path):
    text = ("class Store:\n    def load(self, path):\n        self.path = path\n\n    def save(self):\n"
            "        return self.")
    found = await members_at_end(lsp, workspace / "c.py", text, "python")
    assert {"load", "save", "path"} <= set(found[:3])


async def test_fs_read_file_sync_in_the_top_5(lsp: LanguageClient, workspace: Path):
    found = await members_at_end(lsp, workspace / "d.js", "const fs = require('fs');\n\nconst text = fs.", "javascript")
    assert "readFileSync" in found[:5]


async def test_this_lists_the_methods_of_the_class(lsp: LanguageClient, workspace: Path):
    text = "class Cart {\n  add(item) {}\n  remove(item) {}\n  total() {\n    return this."
    found = await members_at_end(lsp, workspace / "e.js", text, "javascript")
    assert {"add", "remove"} <= set(found[:3])


async def test_a_package_of_the_workspace_venv(lsp: LanguageClient, workspace: Path):
    found = await members_at_end(lsp, workspace / "f.py", "import fakepkg\n\nshape = fakepkg.", "python")
    assert {"make_polygon", "Polygon", "area_of"} <= set(found[:6])
    items = (await complete(lsp, (workspace / "f.py").as_uri(), 2, 16)).items
    polygon = next(item for item in items if item.label == "Polygon")
    assert polygon.kind == types.CompletionItemKind.Class


@pytest_lsp.fixture(config=CONFIG)
async def elsewhere(lsp_client: LanguageClient, tmp_path: Path):
    """A server whose pythonPath names an environment outside the workspace (poetry's, conda's),
    the workspace having no .venv of its own."""
    site = make_venv(tmp_path / "cache", "project-py3.11")
    (tmp_path / "w").mkdir()
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=vscode_capabilities(), root_uri=(tmp_path / "w").as_uri(),
                               initialization_options={"treecomplete": {
                                   "model": "fallback", "projectIndex": False,
                                   "pythonPath": str(site.parent.parent.parent / "bin" / "python")}})
    )
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_the_python_path_settings_packages_are_read_and_offered_with_their_import(elsewhere: LanguageClient, tmp_path: Path):
    found = await members_at_end(elsewhere, tmp_path / "w" / "m.py", "import fakepkg\n\nshape = fakepkg.", "python")
    assert {"make_polygon", "Polygon", "area_of"} <= set(found[:6])
    uri = (tmp_path / "w" / "n.py").as_uri()
    open_doc(elsewhere, uri, "import os\n\nshape = make_po", "python")
    for _ in range(100):  # the package's exports are read on a thread: a request never waits
        items = [item for item in (await complete(elsewhere, uri, 2, 15)).items if item.label == "make_polygon"]
        if items:
            break
        await asyncio.sleep(0.05)
    assert items, "make_polygon not offered"
    assert [e.new_text for e in items[0].additional_text_edits] == ["from fakepkg import make_polygon\n"]
    assert items[0].label_details.description == "fakepkg"


async def test_a_package_of_node_modules(lsp: LanguageClient, workspace: Path):
    found = await members_at_end(lsp, workspace / "g.js", "import * as typed from 'typed';\n\ntyped.", "javascript")
    assert {"parseThing", "ThingMaker"} <= set(found[:4])


async def test_a_package_installed_while_the_server_runs_has_its_members(lsp: LanguageClient, workspace: Path):
    assert "late_function" not in await members_at_end(lsp, workspace / "late.py", "import latepkg\n\nlatepkg.", "python")
    site = next((workspace / ".venv" / "lib").glob("python*/site-packages"))
    (site / "latepkg").mkdir()  # pip install latepkg
    (site / "latepkg" / "__init__.py").write_text("def late_function():\n    pass\n")
    await asyncio.sleep(5.1)  # a module not found is looked for again 5 s after (loader.MISSING)
    uri = (workspace / "late.py").as_uri()
    await complete(lsp, uri, 2, 8)  # asks for the look
    await lsp.protocol.send_request_async("treecomplete/librariesRead", None)
    assert "late_function" in labels(await complete(lsp, uri, 2, 8))


async def test_an_import_through_a_tsconfig_path_alias_has_the_project_objects_members(lsp: LanguageClient, workspace: Path):
    (workspace / "tsconfig.json").write_text('{\n  // Next.js\n  "compilerOptions": {"paths": {"@/*": ["./src/*"]},},\n}\n')
    (workspace / "src" / "lib").mkdir(parents=True)
    (workspace / "src" / "lib" / "api.ts").write_text("export const api = { fetchUser(id: string) {}, fetchPosts() {} }\n")
    found = await members_at_end(lsp, workspace / "src" / "page.ts", "import { api } from '@/lib/api'\napi.", "typescript")
    assert {"fetchUser", "fetchPosts"} <= set(found[:5])


async def test_a_linked_workspace_package_has_its_objects_members(lsp: LanguageClient, workspace: Path):
    core = workspace / "packages" / "core"
    (core / "src").mkdir(parents=True)
    (core / "package.json").write_text('{"name": "@org/core", "main": "src/index.js"}')
    (core / "src" / "index.js").write_text("export class Ledger { post(entry) {} }\nexport const api = { fetchAll() {} }\n")
    (workspace / "node_modules" / "@org").mkdir(exist_ok=True)
    (workspace / "node_modules" / "@org" / "core").symlink_to(core)  # npm install in a workspaces repository
    found = await members_at_end(lsp, workspace / "packages" / "app" / "main.js",
                                 "import { Ledger } from '@org/core'\nconst ledger = new Ledger()\nledger.", "javascript")
    assert "post" in found[:3]


async def test_broken_environments_do_not_break_completion(lsp: LanguageClient, workspace: Path):
    site = next((workspace / ".venv" / "lib").glob("python*/site-packages"))
    (site / "brokenpkg").mkdir()
    (site / "brokenpkg" / "__init__.py").write_bytes(b"\x00\xff" * 1000)
    (site / "loop").mkdir()
    (site / "loop" / "__init__.py").symlink_to(site / "loop" / "__init__.py")
    (workspace / "node_modules" / "badjson").mkdir()
    (workspace / "node_modules" / "badjson" / "package.json").write_text("{oops")
    python = await members_at_end(lsp, workspace / "h.py", "import brokenpkg\nimport loop\nlocal_name = 1\nbrokenpkg.", "python")
    assert "local_name" in python  # the buffer's words still come
    js = await members_at_end(lsp, workspace / "h.js", "const b = require('badjson');\nconst localName = 1;\nb.", "javascript")
    assert "localName" in js
    found = await members_at_end(lsp, workspace / "i.py", "import os\nos.path.", "python")
    assert "join" in found[:3]  # and the server still reads what it can


@pytest_lsp.fixture(config=CONFIG)
async def shipped(lsp_client: LanguageClient, tmp_path: Path):
    """The server as a user first runs it: the shipped default models (loaded, not trained here)."""
    statuses: list = []
    lsp_client.feature("treecomplete/status")(lambda params: statuses.append(params))
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("visual-studio-code"), root_uri=tmp_path.as_uri(),
                               workspace_folders=[types.WorkspaceFolder(tmp_path.as_uri(), "w")],
                               initialization_options={"treecomplete": {"projectIndex": False}})
    )
    lsp_client.statuses = statuses
    yield lsp_client
    await lsp_client.shutdown_session()


async def _ready(client: LanguageClient, path: Path, language: str) -> None:
    """Open a file of the language and wait until its model has loaded."""
    open_doc(client, path.as_uri(), "value = 1\n", language)
    await complete(client, path.as_uri(), 1, 0)
    for _ in range(600):
        if any(_field(s, "language") == language and _field(s, "state") == "ready" for s in client.statuses):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"the {language} model never loaded: {client.statuses}")


async def _first_at_end(client: LanguageClient, path: Path, text: str, language: str) -> tuple[str, str]:
    """Open ``text`` and complete at its end: the first item's label and detail."""
    open_doc(client, path.as_uri(), text, language)
    line, character = text.count("\n"), len(text.rsplit("\n", 1)[-1])
    result = await complete(client, path.as_uri(), line, character)
    first = min(result.items, key=lambda i: i.sort_text or i.label)
    return first.label, (first.data or {}).get("detail", "")


def _field(status, name: str):
    return status.get(name) if isinstance(status, dict) else getattr(status, name, None)


async def test_the_smoke_cases_hold_with_the_shipped_models(shipped: LanguageClient, tmp_path: Path):
    await _ready(shipped, tmp_path / "warm.py", "python")
    found = await members_at_end(shipped, tmp_path / "a.py", "import os\n\nbase = 'x'\np = os.path.", "python")
    assert "join" in found[:3], found[:5]
    found = await members_at_end(shipped, tmp_path / "b.py", "import json\n\ndata = {}\ntext = json.", "python")
    assert {"dumps", "loads"} <= set(found[:5]), found[:5]
    await _ready(shipped, tmp_path / "warm.js", "javascript")
    found = await members_at_end(shipped, tmp_path / "d.js", "const fs = require('fs');\n\nconst text = fs.", "javascript")
    assert "readFileSync" in found[:5], found[:5]
    # TypeScript, read by its model with its types blanked (server/erasure.py)
    await _ready(shipped, tmp_path / "warm.ts", "typescript")
    text = ("interface Options { retries: number }\n\nexport function fetchWithRetry(options: Options): number {\n"
            "  const attemptCount: number = options.retries;\n  return attem")
    label, detail = await _first_at_end(shipped, tmp_path / "r.ts", text, "typescript")
    assert label == "attemptCount"
    assert "copied from line 4" in detail  # the model's pointer
    text = "interface User { name: string; age: number }\n\nfunction greet(user: User) {\n  return user."
    found = await members_at_end(shipped, tmp_path / "u.ts", text, "typescript")
    assert set(found[:2]) == {"name", "age"}, found[:5]
    assert any(_field(s, "language") == "typescript" and _field(s, "model") == "typescript-pointer-lstm"
               for s in shipped.statuses)  # its own model, fine-tuned on TypeScript
    text = "export function pick(a: string): string;\n/** numbers */\nexport function pick(a: number): number;\nexport function "
    assert (await _first_at_end(shipped, tmp_path / "o.ts", text, "typescript"))[0] == "pick"  # the overloads' name again
    text = "/**\n * @param source The values.\n * @param scheduler Where.\n */\nexport function observeOn<T>(source: T[], "
    assert (await _first_at_end(shipped, tmp_path / "p.ts", text, "typescript"))[0] == "scheduler"  # the doc comment's next
    # Go, a grammar served alone that has a shipped model
    await _ready(shipped, tmp_path / "warm.go", "go")
    text = ("package main\n\nfunc retry(attemptLimit int) int {\n\tbackoffDelay := attemptLimit * 2\n"
            "\treturn backo")
    label, detail = await _first_at_end(shipped, tmp_path / "r.go", text, "go")
    assert label == "backoffDelay"
    assert "copied from line 4" in detail


async def test_typescript_members_of_the_written_type_and_no_keyword(lsp: LanguageClient, workspace: Path):
    text = ("interface User { name: string; age: number }\n\nfunction greet(user: User) {\n"
            "  const label = 'hi';\n  return user.")
    found = await members_at_end(lsp, workspace / "u.ts", text, "typescript")
    assert set(found[:2]) == {"name", "age"}, found[:5]
    assert "return" not in found and "function" not in found


async def test_a_member_at_the_first_request_says_what_it_is(lsp: LanguageClient, workspace: Path):
    """No librariesRead: the first request waits a moment for os.path, or says its list is
    incomplete so that the next keystroke asks again; join comes with its signature, where it
    comes from, and its docstring on resolve."""
    uri = (workspace / "g.py").as_uri()
    open_doc(lsp, uri, "import os\np = os.path.", "python")
    result = await complete(lsp, uri, 1, 12)
    for _ in range(50):
        if any(item.label == "join" and item.label_details is not None for item in result.items):
            break  # the module's member (before it, the word may come from elsewhere)
        assert result.is_incomplete  # a list without the module's members says it is not whole
        await asyncio.sleep(0.1)
        result = await complete(lsp, uri, 1, 12)
    join = next(item for item in result.items if item.label == "join" and item.label_details is not None)
    assert join.kind == types.CompletionItemKind.Function
    assert join.label_details == types.CompletionItemLabelDetails(detail="(a, /, *paths)", description="os.path")
    resolved = await lsp.completion_item_resolve_async(join)
    assert resolved.detail.startswith("def join(a, /, *paths)")
    assert resolved.documentation.value.startswith("Join two or more pathname components")


async def test_keyword_arguments_of_a_library_call(lsp: LanguageClient, workspace: Path):
    uri = (workspace / "k.py").as_uri()
    open_doc(lsp, uri, "import json\ndata = {}\ntext = json.dumps(data, ind", "python")
    await lsp.protocol.send_request_async("treecomplete/librariesRead", None)
    items = (await complete(lsp, uri, 2, 27)).items
    first = min(items, key=lambda i: i.sort_text or i.label)
    assert first.label == "indent=" and first.text_edit.new_text == "indent="
    assert first.kind == types.CompletionItemKind.Variable
