"""Every language a grammar wheel serves (server/grammars.py), over stdio: a real-looking
document of each gets the buffer's identifiers, the kinds of tags.scm's definitions, members
after the member operator and no keyword there."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from treecomplete import grammars

from ..grammar_samples import SAMPLES
from .conftest import complete, labels, open_doc

KEYWORD = types.CompletionItemKind.Keyword


def _end(text: str) -> tuple[int, int]:
    lines = text.split("\n")
    return len(lines) - 1, len(lines[-1])


@pytest.mark.parametrize("name", sorted(SAMPLES))
async def test_language_served_from_its_grammar(client: LanguageClient, name: str):
    sample = SAMPLES[name]
    uri = f"file:///work/{name}/billing{sample.extension}"
    text = sample.body + sample.function[:4]
    open_doc(client, uri, text, sample.language_id)
    result = await complete(client, uri, *_end(text))
    assert labels(result)[0] == sample.function
    first = min(result.items, key=lambda i: i.sort_text or i.label)
    if "@definition.function" in grammars.read(name).definitions or "@definition.method" in grammars.read(name).definitions:
        assert first.kind in (types.CompletionItemKind.Function, types.CompletionItemKind.Method)

    text = sample.body + sample.keyword[:3]  # a statement's start: the keyword is offered, as one
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
    result = await complete(client, uri, *_end(text))
    assert any(i.label == sample.keyword and i.kind == KEYWORD for i in result.items)

    if sample.member_line:  # after the member operator: the members read before, and no keyword
        text = sample.body + sample.member_line
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        result = await complete(client, uri, *_end(text))
        assert set(labels(result)[:2]) == set(sample.members)
        assert not any(i.kind == KEYWORD for i in result.items)
        assert not {i.label for i in result.items} & set(grammars.read(name).keywords)
