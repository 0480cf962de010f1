"""The project index through the real server: words of the workspace's other files are offered,
a saved file is read again, files changed on disk and workspace folders added or removed are
followed, and the setting ``projectIndex`` turns it off."""

from __future__ import annotations

import asyncio

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from .conftest import CONFIG, complete, open_doc


@pytest_lsp.fixture(config=CONFIG)
async def lsp(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


async def _start(client: LanguageClient, root, index: bool, editor: str = "neovim") -> list:
    statuses: list = []
    client.feature("treecomplete/status")(lambda params: statuses.append(params))
    await client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities(editor), root_uri=root.as_uri(),
                               initialization_options={"treecomplete": {"model": "fallback", "projectIndex": index}})
    )
    return statuses


async def _indexed(statuses: list, count: int = 1) -> None:
    for _ in range(200):
        if sum(getattr(s, "state", None) == "indexed" for s in statuses) >= count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the project was never indexed: {statuses}")


async def test_words_of_the_workspace_files_are_offered_and_saved_files_read_again(lsp: LanguageClient, tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "helpers.py").write_text("def compute_checksum_total(data):\n    return data\n")
    statuses = await _start(lsp, tmp_path, True)
    await _indexed(statuses)
    assert statuses[-1].files == 1
    main = (tmp_path / "main.py").as_uri()
    open_doc(lsp, main, "result = comp", "python")
    labels = [item.label for item in (await complete(lsp, main, 0, 13)).items]
    assert "compute_checksum_total" in labels
    assert "compute_later" not in labels

    later = tmp_path / "later.py"
    later.write_text("compute_later = 1\n")  # written by the editor, then didSave
    open_doc(lsp, later.as_uri(), later.read_text(), "python")
    lsp.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(later.as_uri())))
    await _indexed(statuses, 2)
    assert "compute_later" in [item.label for item in (await complete(lsp, main, 0, 13)).items]


async def test_the_setting_turns_it_off(lsp: LanguageClient, tmp_path):
    (tmp_path / "helpers.py").write_text("compute_checksum_total = 1\n")
    statuses = await _start(lsp, tmp_path, False)
    main = (tmp_path / "main.py").as_uri()
    open_doc(lsp, main, "result = comp", "python")
    assert "compute_checksum_total" not in [item.label for item in (await complete(lsp, main, 0, 13)).items]
    assert not [s for s in statuses if getattr(s, "state", None) == "indexed"]


async def _labels(client: LanguageClient, uri: str, line: int, column: int) -> list[str]:
    return [item.label for item in (await complete(client, uri, line, column)).items]


async def test_files_changed_on_disk_and_workspace_folders_are_followed(lsp: LanguageClient, tmp_path):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    (tmp_path / "one" / "helpers.py").write_text("compute_checksum_total = 1\n")
    (tmp_path / "two" / "other.py").write_text("compute_elsewhere = 1\n")
    statuses = await _start(lsp, tmp_path / "one", True, "visual-studio-code")  # it watches files for its servers
    await _indexed(statuses)
    for _ in range(100):
        if lsp.registrations:
            break
        await asyncio.sleep(0.05)
    (registration,) = lsp.registrations
    (watcher,) = registration.register_options["watchers"]  # the client keeps the options as sent
    assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES and "py" in watcher["globPattern"]
    main = (tmp_path / "one" / "main.py").as_uri()
    open_doc(lsp, main, "result = comp", "python")
    assert "compute_checksum_total" in await _labels(lsp, main, 0, 13)

    # a checkout writes one file and deletes another: the client reports both
    created, deleted = tmp_path / "one" / "created.py", tmp_path / "one" / "helpers.py"
    created.write_text("compute_created = 1\n")
    deleted.unlink()
    lsp.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=created.as_uri(), type=types.FileChangeType.Created),
        types.FileEvent(uri=deleted.as_uri(), type=types.FileChangeType.Deleted),
    ]))
    await _indexed(statuses, 2)
    labels = await _labels(lsp, main, 0, 13)
    assert "compute_created" in labels and "compute_checksum_total" not in labels

    # a folder added to the workspace, then removed; each folder is a project of its own
    two = types.WorkspaceFolder(uri=(tmp_path / "two").as_uri(), name="two")
    lsp.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[two], removed=[])))
    await _indexed(statuses, 3)
    elsewhere = (tmp_path / "two" / "use.py").as_uri()
    open_doc(lsp, elsewhere, "value = comp", "python")
    assert "compute_elsewhere" in await _labels(lsp, elsewhere, 0, 12)
    labels = await _labels(lsp, main, 0, 13)
    assert "compute_created" in labels and "compute_elsewhere" not in labels  # the other folder's words: not here
    lsp.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[], removed=[two])))
    await _indexed(statuses, 4)
    assert "compute_elsewhere" not in await _labels(lsp, elsewhere, 0, 12)


async def test_at_a_declaration_the_server_offers_the_project_s_definitions_not_the_block_s_names(lsp: LanguageClient, tmp_path):
    (tmp_path / "tab.js").write_text("const NAME = 'tab';\nconst DATA_KEY = 'bs.tab';\nconst DefaultType = {};\n")
    statuses = await _start(lsp, tmp_path, True)
    await _indexed(statuses)
    toast = (tmp_path / "toast.js").as_uri()
    open_doc(lsp, toast, "const NAME = 'toast';\nconst ", "javascript")
    labels = [item.label for item in (await complete(lsp, toast, 1, 6)).items]
    assert {"DATA_KEY", "DefaultType"} <= set(labels[:3]) and "NAME" not in labels
    assert not {"const", "function", "if"} & set(labels)  # no keyword, no snippet
    main = (tmp_path / "main.py").as_uri()
    source = "class Box:\n    def __init__(self):\n        self.fill_box()\n\n    def "
    open_doc(lsp, main, source, "python")
    labels = [item.label for item in (await complete(lsp, main, 4, 8)).items]
    assert labels[0] == "fill_box" and "__init__" not in labels


async def test_inside_a_module_what_the_project_takes_from_it_and_it_lacks_comes_first(lsp: LanguageClient, tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "parser.py").write_text("from . import nodes\ndef parse(a):\n    return nodes.Concat(a, nodes.Const(1))\n")
    (tmp_path / "pkg" / "compiler.py").write_text("from .nodes import Compare, Const\n")
    statuses = await _start(lsp, tmp_path, True)
    await _indexed(statuses)
    uri = (tmp_path / "pkg" / "nodes.py").as_uri()
    open_doc(lsp, uri, "class Expr:\n    pass\n\n\nclass C(Expr):\n    pass\n\n\nclass Const(Expr):\n    pass\n\n\nclass Compare(Expr):\n    pass\n", "python")
    labels = [item.label for item in (await complete(lsp, uri, 4, 7)).items]
    assert labels[0] == "Concat"  # not Const or Compare, which the file defines already
