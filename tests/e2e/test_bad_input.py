"""Bad input of every kind gets a valid response or an LSP error, and the server keeps serving."""

from __future__ import annotations

import pytest

from .raw import RawServer

URI = "file:///work/bad.py"


@pytest.fixture
def server():
    raw = RawServer()
    raw.initialize()
    raw.open(URI, "value = 1\nva")
    yield raw
    assert raw.close() == 0, b"".join(raw.stderr).decode()[-2000:]


def _still_serving(server: RawServer) -> None:
    labels = [i["label"] for i in server.complete(URI, 1, 2)["result"]["items"]]
    assert labels[0] == "value"


def test_malformed_json_gets_a_parse_error(server):
    server.send_bytes(b'{"jsonrpc": "2.0", "id": 99, "method": ')
    assert server.response(None)["error"]["code"] == -32700
    _still_serving(server)


def test_params_of_the_wrong_type_and_negative_positions(server):
    reply = server.request("textDocument/completion", {"textDocument": {"uri": 5}, "position": "here"})
    assert reply["error"]["code"] == -32602
    reply = server.complete(URI, -1, -4)
    assert reply["error"]["code"] == -32602
    server.notify("textDocument/didChange", {"textDocument": "nope"})
    _still_serving(server)


def test_unknown_methods(server):
    assert server.request("treecomplete/nothing", {})["error"]["code"] == -32601
    server.notify("treecomplete/nothingEither", {})
    _still_serving(server)


def test_positions_past_the_end_and_unknown_documents(server):
    assert server.complete(URI, 1, 500)["result"]["items"][0]["label"] == "value"  # clamped
    assert server.complete(URI, 40, 0)["result"]["items"] == []
    assert server.complete("file:///work/never-opened.py", 0, 0)["result"]["items"] == []
    server.notify("textDocument/didChange", {"textDocument": {"uri": "file:///work/never-opened.py", "version": 2},
                                             "contentChanges": [{"text": "x"}]})
    server.notify("textDocument/didClose", {"textDocument": {"uri": "file:///work/never-opened.py"}})
    _still_serving(server)


def test_change_ranges_beyond_the_end_and_old_versions(server):
    server.notify("textDocument/didChange", {
        "textDocument": {"uri": URI, "version": 2},
        "contentChanges": [{"range": {"start": {"line": 80, "character": 3}, "end": {"line": 90, "character": 0}},
                            "text": "\nvariance = 2\nvar"}],
    })
    labels = [i["label"] for i in server.complete(URI, 3, 3)["result"]["items"]]
    assert labels[:1] == ["variance"]
    server.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 1}, "contentChanges": [{"text": "value = 1\nva"}]})
    _still_serving(server)


def test_binary_junk_and_lone_surrogates(server):
    junk = "".join(chr(c) for c in range(0, 0x250)) + "\ud800\udfff\x00\x00" + "\nvalue_x = 1\nvalue"
    server.open("file:///work/junk.py", junk)
    labels = [i["label"] for i in server.complete("file:///work/junk.py", 2, 5)["result"]["items"]]
    assert "value_x" in labels
    _still_serving(server)


def test_deep_nesting_and_long_files(server):
    server.open("file:///work/deep.py", "x = " + "[" * 10_000 + "\nx")
    assert "result" in server.complete("file:///work/deep.py", 1, 1)
    server.open("file:///work/deep.js", "let y = " + "(" * 10_000 + "\ny", "javascript")
    assert "result" in server.complete("file:///work/deep.js", 1, 1)
    long_file = "".join(f"name_{i} = {i}\n" for i in range(50_000)) + "name_4999"
    server.open("file:///work/long.py", long_file)
    labels = [i["label"] for i in server.complete("file:///work/long.py", 50_000, 9)["result"]["items"]]
    assert labels[0] == "name_49999"  # the most recent match
    assert all(label.startswith("name_4999") for label in labels)
    _still_serving(server)


def test_a_20_mb_document_is_kept_but_not_parsed(server):
    big = "word = 1\n" * (20_000_000 // 9 + 1)
    server.open("file:///work/big.py", big)
    assert server.complete("file:///work/big.py", 5, 2, timeout=120)["result"]["items"] == []
    _still_serving(server)
    logs = b"".join(server.stderr).decode()
    assert "over maxFileSize" in logs
