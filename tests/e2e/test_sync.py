"""Incremental sync end to end: multi-byte text under each position encoding, CRLF and CR line
ends, form feeds, edits spanning lines. What the server holds is read back through completion:
the right identifiers, and text edits whose ranges are right in the client's units."""

from __future__ import annotations

import pytest
from pytest_lsp import LanguageClient

from treecomplete.positions import units

from .conftest import change, complete, labels, open_doc
from .raw import RawServer


def _range(line, start_char, end_line, end_char):
    return {"start": {"line": line, "character": start_char}, "end": {"line": end_line, "character": end_char}}


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_multibyte_edits_in_every_encoding(encoding):
    server = RawServer()
    try:
        caps = {"general": {"positionEncodings": [encoding]}}
        assert server.initialize(caps)["result"]["capabilities"]["positionEncoding"] == encoding
        uri = "file:///work/m.py"
        server.open(uri, "résumé_total = 1\r\nbeta_γ = 2\r\n")
        typed = 'x = "😀é"; ré'
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                 "contentChanges": [{"range": _range(2, 0, 2, 0), "text": typed}]})
        reply = server.complete(uri, 2, units(typed, encoding))["result"]
        assert reply["items"][0]["label"] == "résumé_total"
        assert reply["items"][0]["textEdit"]["range"] == _range(2, units('x = "😀é"; ', encoding), 2, units(typed, encoding))

        # Replace from the middle of line 0 to the middle of line 1 (across a CRLF).
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
            {"range": _range(0, units("résumé", encoding), 1, units("beta_γ", encoding)), "text": "_δ"},
        ]})
        # Now: 'résumé_δ = 2\r\nx = "😀é"; ré'
        reply = server.complete(uri, 1, units(typed, encoding))["result"]
        names = [i["label"] for i in reply["items"]]
        assert names[0] == "résumé_δ" and "résumé_total" not in names and "beta_γ" not in names
    finally:
        assert server.close() == 0


def test_cr_line_ends_and_form_feeds():
    server = RawServer()
    try:
        server.initialize()
        uri = "file:///work/cr.py"
        server.open(uri, "first_name = 1\rsecond\f_name = 2\rfi")
        assert server.complete(uri, 2, 2)["result"]["items"][0]["label"] == "first_name"
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": _range(2, 2, 2, 2), "text": "\rsec"}]})
        reply = server.complete(uri, 3, 3)["result"]
        assert reply["items"][0]["label"] == "second"
        assert reply["items"][0]["textEdit"]["range"] == _range(3, 0, 3, 3)
    finally:
        assert server.close() == 0


async def test_many_small_edits_as_an_editor_sends_them(client: LanguageClient):
    uri = "file:///work/typing.js"
    open_doc(client, uri, "const totalCount = 0;\n", "javascript")
    typed = "let x = tota"
    for i, ch in enumerate(typed):
        change(client, uri, i + 2, ((1, i, 1, i), ch))
    result = await complete(client, uri, 1, len(typed))
    assert labels(result)[0] == "totalCount"
    # Backspace twice, then replace the whole text.
    change(client, uri, 40, ((1, len(typed) - 2, 1, len(typed)), ""))
    assert labels(await complete(client, uri, 1, len(typed) - 2))[0] == "totalCount"
    change(client, uri, 41, (None, "const other = 1;\not"))
    assert labels(await complete(client, uri, 1, 2)) [0] == "other"
