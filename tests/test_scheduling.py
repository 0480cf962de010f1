"""The server's scheduling, deterministically: a worker held busy by a gate, a handler awaiting
behind it, and an edit or a cancellation arriving meanwhile."""

from __future__ import annotations

import asyncio
import threading

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified

from treecomplete.engines.registry import OFF
from treecomplete.server import create_server

URI = "file:///work/a.py"
PARAMS = types.CompletionParams(types.TextDocumentIdentifier(URI), types.Position(1, 2))


@pytest.fixture
def busy_server():
    ls = create_server()
    ls.service.open(URI, "python", 1, "alpha = 1\nal")
    ls.versions[URI] = 1
    gate = threading.Event()
    ls.worker.submit(gate.wait)  # the worker is busy until the gate opens
    calls = []
    complete = ls.complete_current
    ls.complete_current = lambda *args: calls.append(args) or complete(*args)
    yield ls, gate, calls, ls.protocol.fm.features[types.TEXT_DOCUMENT_COMPLETION]
    gate.set()
    ls.worker.shutdown()


async def test_answer_when_nothing_changed(busy_server):
    ls, gate, calls, completion = busy_server
    task = asyncio.ensure_future(completion(PARAMS))
    await asyncio.sleep(0.05)
    gate.set()
    assert (await task).items[0].label == "alpha"


async def test_an_edit_while_waiting_makes_it_content_modified(busy_server):
    ls, gate, calls, completion = busy_server
    task = asyncio.ensure_future(completion(PARAMS))
    await asyncio.sleep(0.05)
    ls.versions[URI] = 2  # what did_change does on the event loop when an edit arrives
    gate.set()
    with pytest.raises(JsonRpcContentModified):
        await task


async def test_a_cancelled_request_is_never_computed(busy_server):
    ls, gate, calls, completion = busy_server
    task = asyncio.ensure_future(completion(PARAMS))
    await asyncio.sleep(0.05)
    task.cancel()  # what pygls does on $/cancelRequest
    with pytest.raises(asyncio.CancelledError):
        await task
    gate.set()
    await asyncio.get_running_loop().run_in_executor(ls.worker, lambda: None)  # drain the worker
    assert calls == []


def test_the_last_documents_reads_go_a_moment_after_it_closes_unless_another_opens(monkeypatch):
    monkeypatch.setattr("treecomplete.server.EMPTY_DROP", 0.05)
    ls = create_server()
    dropped = []
    drop = ls.service.drop_if_still_empty
    ls.service.drop_if_still_empty = lambda closes: dropped.append((closes, drop(closes))) or dropped[-1][1]
    try:
        ls.service.open(URI, "python", 1, "alpha = 1\nal")
        ls.service.close(URI)
        ls.service.open("file:///work/b.py", "python", 1, "beta = 1\n")  # the next file at once
        ls.service.close("file:///work/b.py")
        for _ in range(100):
            if len(dropped) == 2:
                break
            threading.Event().wait(0.02)
        # the first close's timer finds a document opened since; the last one's drops (in either order)
        assert sorted(dropped) == [(1, False), (2, True)]
    finally:
        ls.worker.shutdown()


async def test_changed_documents_are_counted_once_edits_pause(monkeypatch):
    monkeypatch.setattr("treecomplete.server.QUIET", 0.3)  # a margin for a slow machine's sleeps
    ls = create_server()
    ls.event_loop = asyncio.get_running_loop()
    counts = []
    count = ls.service.count_changed
    ls.service.count_changed = lambda busy: counts.append(count(busy)) or counts[-1]
    try:
        ls.service.open(URI, "python", 1, "alpha = 1\nal")
        ls.service.open("file:///work/b.py", "python", 1, "beta = 1\n")
        for _ in range(5):  # typing: each edit puts the count off again
            ls.when_quiet()
            await asyncio.sleep(0.01)
        assert counts == []
        await asyncio.sleep(0.5)
        await ls.event_loop.run_in_executor(ls.worker, lambda: None)  # drain the worker
        assert counts == [2]
    finally:
        ls.worker.shutdown()


async def test_the_rest_of_the_line_is_decoded_once_requests_pause(monkeypatch):
    monkeypatch.setattr("treecomplete.server.QUIET", 0.3)  # a margin for a slow machine's sleeps
    ls = create_server()
    ls.models.configure(OFF)  # the fallback engine answers: no model loads meanwhile
    ls.event_loop = asyncio.get_running_loop()
    ls.service.open(URI, "python", 1, "alpha = 1\nal")
    ls.versions[URI] = 1
    fills = []

    class Wanting:  # a neural engine whose every list wants a rest of the line decoded
        wanted = object()

        def fill_wanted(self, busy):
            fills.append(busy())

    ls.service.neural = Wanting()
    completion = ls.protocol.fm.features[types.TEXT_DOCUMENT_COMPLETION]
    try:
        for _ in range(4):  # typing: each request puts the decoding off again
            await completion(PARAMS)
            await asyncio.sleep(0.1)
        assert fills == []
        await asyncio.sleep(0.5)
        await ls.event_loop.run_in_executor(ls.worker, lambda: None)  # drain the worker
        assert fills == [False]  # once, with nothing else queued behind it
    finally:
        ls.worker.shutdown()
