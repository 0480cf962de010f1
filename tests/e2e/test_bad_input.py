"""Bad input of every kind gets a valid response or an LSP error, and the server keeps serving."""

from __future__ import annotations

import json

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
    assert "at params.position" in reply["error"]["message"]  # the field at fault, as the JSON names it
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
    assert "over maxFileSize" in server.log_until("over maxFileSize")


def _closed_log(act) -> str:
    """The whole log of a server that ``act`` sent its messages to, and that served after them."""
    raw = RawServer()
    try:
        raw.initialize()
        raw.open(URI, "value = 1\nva")
        act(raw)
        _still_serving(raw)
    finally:
        assert raw.close() == 0
    return raw.log()


def test_an_invalid_notification_is_ignored_and_logged_in_a_line():
    def act(raw: RawServer) -> None:
        raw.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": None}, "contentChanges": [{"text": "x"}]})
        raw.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": "file:///work/other.py", "type": "gone"}]})

    logs = _closed_log(act)  # the change was not applied: still serving `value`
    assert "textDocument/didChange: invalid params, ignored: invalid value for type, expected int at params.textDocument.version" in logs
    assert "workspace/didChangeWatchedFiles: invalid params, ignored: invalid value for type, expected FileChangeType at params.changes[0].type" in logs
    assert "Traceback" not in logs


def test_a_batch_or_a_bare_value_is_an_invalid_request():
    def act(raw: RawServer) -> None:
        for body in (b"[1, 2]", b'"didOpen"'):
            raw.send_bytes(body)
            assert raw.response(None)["error"]["code"] == -32600

    logs = _closed_log(act)
    assert "a message that is a JSON array, not an object: ignored" in logs
    assert "Traceback" not in logs


def _next_request(raw: RawServer, method: str) -> dict:
    while (message := raw.messages.get(timeout=30)).get("method") != method or "id" not in message:
        pass
    return message


def test_a_malformed_response_fails_its_request_and_the_server_goes_on():
    raw = RawServer()
    try:
        capabilities = {"workspace": {"configuration": True, "didChangeWatchedFiles": {"dynamicRegistration": True}}}
        raw.request("initialize", {"processId": None, "rootUri": None, "capabilities": capabilities})
        raw.notify("initialized", {})
        asked = _next_request(raw, "workspace/configuration")
        raw.send_bytes(json.dumps({"jsonrpc": "2.0", "id": asked["id"], "result": 5}).encode())  # not a list
        registration = _next_request(raw, "client/registerCapability")  # what came after the settings' pull
        raw.send_bytes(json.dumps({"jsonrpc": "2.0", "id": registration["id"], "result": None}).encode())
        raw.open(URI, "value = 1\nva")
        assert raw.complete(URI, 1, 2)["result"]["items"][0]["label"] == "value"
    finally:
        assert raw.close() == 0
    logs = raw.log()
    assert f"the response to request {asked['id']!r}: invalid, its request failed" in logs
    assert "workspace/configuration failed" in logs
    assert "Traceback" not in logs


def test_uris_no_file_can_have_and_ids_no_request_can_have():
    nul = "file:///work/a%00b.py"  # a null byte: no path the system could open

    def act(raw: RawServer) -> None:
        raw.open(nul, "value_here = 1\nvalue")
        assert [i["label"] for i in raw.complete(nul, 1, 5)["result"]["items"]][0] == "value_here"
        raw.notify("textDocument/didSave", {"textDocument": {"uri": nul}})
        raw.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": nul, "type": 2}]})
        raw.notify("workspace/didChangeWorkspaceFolders", {"event": {"added": [{"uri": "file:///work/%00", "name": "a"}],
                                                                     "removed": [{"uri": "file:///work/%00", "name": "a"}]}})
        raw.notify("$/cancelRequest", {"id": {"not": "an id"}})

    logs = _closed_log(act)
    assert "$/cancelRequest: invalid params, ignored" in logs
    assert "Traceback" not in logs
