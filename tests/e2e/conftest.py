"""pytest-lsp fixtures: the real ``treecomplete-ls`` process over stdio, initialised as VS Code
and as Neovim would, with each one's real client capabilities."""

from __future__ import annotations

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities, make_test_lsp_client

from ..conftest import SERVER

CLIENTS = ["visual-studio-code", "neovim"]


def editor_client() -> LanguageClient:
    """pytest-lsp's client, answering ``client/registerCapability`` as the editors whose
    capabilities it claims do (the server registers a file watcher where they allow it); what
    was registered is kept in ``registrations``."""
    client = make_test_lsp_client()
    client.registrations = []  # type: ignore[attr-defined]
    client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: client.registrations.extend(params.registrations))
    return client


CONFIG = ClientServerConfig(server_command=SERVER, client_factory=editor_client)


@pytest_lsp.fixture(params=CLIENTS, config=CONFIG)
async def client(request, lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        # The protocol tests pin the fallback engine's answers; the neural engine has its own.
        types.InitializeParams(capabilities=client_capabilities(request.param), root_uri=None,
                               initialization_options={"treecomplete": {"model": "fallback"}})
    )
    yield
    await lsp_client.shutdown_session()


def open_doc(client: LanguageClient, uri: str, text: str, language_id: str, version: int = 1) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language_id, version=version, text=text)
        )
    )


def change(client: LanguageClient, uri: str, version: int, *changes: tuple[tuple[int, int, int, int] | None, str]) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangeWholeDocument(text=text)
                if span is None
                else types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(span[0], span[1]), types.Position(span[2], span[3])),
                    text=text,
                )
                for span, text in changes
            ],
        )
    )


async def complete(client: LanguageClient, uri: str, line: int, character: int) -> types.CompletionList:
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line, character)
        )
    )
    assert isinstance(result, types.CompletionList)
    return result


def labels(result: types.CompletionList) -> list[str]:
    return [item.label for item in sorted(result.items, key=lambda i: i.sort_text or i.label)]
