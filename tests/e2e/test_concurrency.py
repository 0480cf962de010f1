"""Never block, never answer stale: completions run on the server's own worker, a completion
overtaken by an edit is answered ContentModified, a cancelled one RequestCancelled."""

from __future__ import annotations

import json

import pytest

from .raw import RawServer

SLOW = "file:///work/slow.py"
URI = "file:///work/a.py"
CONTENT_MODIFIED, REQUEST_CANCELLED = -32801, -32800


@pytest.fixture
def server():
    raw = RawServer()
    raw.initialize()
    # A 3 MB file: its first parse keeps the worker busy long enough to queue work behind it.
    raw.open(SLOW, "def f(a, b):\n    return a.b(c, [1, 2])\n" * 80_000)
    raw.open(URI, "alpha = 1\nal")
    yield raw
    assert raw.close() == 0, b"".join(raw.stderr).decode()[-3000:]


def _send_request(server: RawServer, msg_id: int, method: str, params) -> None:
    server.send_bytes(json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode())


def _completion_params(uri, line, character):
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def _still_answers(server: RawServer) -> None:
    assert server.complete(URI, 1, 2)["result"]["items"][0]["label"] == "alpha"


def test_a_completion_overtaken_by_an_edit_is_never_answered_stale(server):
    # Whether the worker reaches 102 before the edit arrives depends on thread timing (the
    # deterministic check is in tests/test_scheduling.py); a stale answer is never allowed.
    _send_request(server, 101, "textDocument/completion", _completion_params(SLOW, 0, 0))
    _send_request(server, 102, "textDocument/completion", _completion_params(URI, 1, 2))
    server.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2},
                                             "contentChanges": [{"text": "alpha = 1\nalp"}]})
    assert "result" in server.response(101, timeout=60)
    reply = server.response(102)
    if "error" in reply:
        assert reply["error"]["code"] == CONTENT_MODIFIED
    else:
        assert reply["result"]["items"][0]["textEdit"]["range"]["end"]["character"] == 2
    assert server.complete(URI, 1, 3)["result"]["items"][0]["label"] == "alpha"


def test_cancelled_completion(server):
    _send_request(server, 201, "textDocument/completion", _completion_params(SLOW, 0, 0))
    _send_request(server, 202, "textDocument/completion", _completion_params(URI, 1, 2))
    server.notify("$/cancelRequest", {"id": 202})
    reply = server.response(202, timeout=60)
    # Cancelled unless the worker had already answered it (timing; see tests/test_scheduling.py).
    assert reply.get("error", {}).get("code") == REQUEST_CANCELLED or reply["result"]["items"][0]["label"] == "alpha"
    assert "result" in server.response(201, timeout=60)
    _still_answers(server)


def test_a_flood_of_edits_never_gets_a_stale_answer(server):
    # How many are dropped depends on thread timing; that none is answered for an old version
    # does not.
    _send_request(server, 300, "textDocument/completion", _completion_params(SLOW, 0, 0))
    typed = {i: "alpha"[: 1 + i % 5] for i in range(1, 201)}  # typing and deleting "alpha"
    for i in range(1, 201):
        server.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": i + 1},
                                                 "contentChanges": [{"text": "alpha = 1\n" + typed[i]}]})
        _send_request(server, 300 + i, "textDocument/completion", _completion_params(URI, 1, len(typed[i])))
    server.response(300, timeout=60)
    for i in range(1, 200):
        reply = server.response(300 + i)
        if "error" in reply:
            assert reply["error"]["code"] == CONTENT_MODIFIED
        else:  # computed only because no newer edit had arrived yet: then it is right for its version
            assert reply["result"]["items"][0]["textEdit"]["range"]["end"]["character"] == len(typed[i])
    last = server.response(500)["result"]["items"][0]
    assert (last["label"], last["textEdit"]["range"]["end"]["character"]) == ("alpha", len(typed[200]))
