"""The stdin reader: pygls' framing (header lines up to an empty one, then the body the first
Content-Length announces), whole messages handed over at once, the end of the stream."""

from __future__ import annotations

import asyncio
import io
import os
import threading

from treecomplete.stdio import MessageReader


def _message(body: bytes, extra: bytes = b"") -> bytes:
    return b"Content-Length: %d\r\n%s\r\n%s" % (len(body), extra, body)


async def _read(reader: MessageReader) -> list[bytes]:
    """What pygls' message loop reads (``pygls.io_.run_async``): lines until the stream ends,
    and after the empty line that closes a header with a length, the body."""
    out: list[bytes] = []
    length = 0
    while True:
        line = await reader.readline()
        out.append(line)
        if not line:
            return out
        if not length and line.startswith(b"Content-Length: "):
            length = int(line[16:])
        if length and not line.strip():
            out.append(await reader.readexactly(length))
            length = 0


def test_messages_from_a_pipe_written_in_pieces():
    first, second = b'{"jsonrpc": "2.0", "method": "a"}', '{"text": "é\\n"}'.encode()
    data = _message(first, b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n") + _message(second)
    r, w = os.pipe()

    def write() -> None:
        for i in range(0, len(data), 7):  # headers and bodies split across writes
            os.write(w, data[i:i + 7])
        os.close(w)

    threading.Thread(target=write).start()
    with os.fdopen(r, "rb") as stream:
        pieces = asyncio.run(_read(MessageReader(stream)))
    assert pieces == [b"Content-Length: %d\r\n" % len(first), b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n",
                      b"\r\n", first, b"Content-Length: %d\r\n" % len(second), b"\r\n", second, b""]


def test_a_stream_that_ends_inside_a_body():
    stream = io.BytesIO(b"Content-Length: 50\r\n\r\n{\"partial\"")  # in memory: no file descriptor
    pieces = asyncio.run(_read(MessageReader(stream)))
    assert pieces == [b"Content-Length: 50\r\n", b"\r\n", b'{"partial"', b""]


def test_an_empty_line_without_a_length_reads_on():
    stream = io.BytesIO(b"\r\n" + _message(b"{}"))
    pieces = asyncio.run(_read(MessageReader(stream)))
    assert pieces == [b"\r\n", b"Content-Length: 2\r\n", b"\r\n", b"{}", b""]
