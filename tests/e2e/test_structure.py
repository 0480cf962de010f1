"""Structure completions through the real server with the shipped Python model: the statement
the model expects becomes a snippet for a client that supports them and plain text for one
that does not (pytest-lsp checks every item against the client's capabilities)."""

from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from .conftest import CONFIG, complete, open_doc

URI = "file:///work/loop.py"
TEXT = "def total(items):\n    result = 0\n    fo"


def _capabilities(snippets: bool) -> types.ClientCapabilities:
    capabilities = client_capabilities("visual-studio-code")
    item = capabilities.text_document.completion.completion_item
    item.snippet_support = snippets
    if not snippets:
        item.insert_text_mode_support = None
    return capabilities


@pytest_lsp.fixture(params=[True, False], ids=["snippets", "plain"], config=CONFIG)
async def lsp(request, lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=_capabilities(request.param),
                               initialization_options={"treecomplete": {"model": "python-pointer-lstm"}}))
    lsp_client.snippets = request.param
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_the_expected_statement_becomes_a_snippet(lsp: LanguageClient):
    open_doc(lsp, URI, TEXT, "python")
    for _ in range(300):  # the model loads in the background
        result = await complete(lsp, URI, 2, 6)
        loop = [item for item in result.items if item.label == "for"]
        if loop and loop[0].kind == types.CompletionItemKind.Snippet:
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("no structure completion for `for`")
    item = loop[0]
    text = item.text_edit.new_text
    if lsp.snippets:
        assert item.insert_text_format == types.InsertTextFormat.Snippet
        assert item.insert_text_mode == types.InsertTextMode.AsIs
        assert text == "for ${1:item} in ${2:items}:\n        ${0:pass}"  # the buffer's 4 spaces, one level in
    else:
        assert item.insert_text_format == types.InsertTextFormat.PlainText
        assert text == "for item in items:\n    pass"  # relative indentation: the client adds the line's
    resolved = await lsp.completion_item_resolve_async(item)
    assert "for_statement" in (resolved.detail or "") and "for item in items" in resolved.documentation.value
    # the statement at the cursor goes on after it (`fo| = sum(items)`): it is written, no statement is offered
    open_doc(lsp, "file:///work/assigned.py", TEXT + " = sum(items)\n    return fo\n", "python")
    result = await complete(lsp, "file:///work/assigned.py", 2, 6)
    assert "fo" in [item.label for item in result.items]  # answered, by the model
    assert not [item for item in result.items if item.kind == types.CompletionItemKind.Snippet]
