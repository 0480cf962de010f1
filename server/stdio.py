"""Reading LSP messages from stdin, a whole message per thread hop.

pygls' stdio reader asks a thread pool for every header line and for every body: three thread
round trips per message, 0.43 ms in all on this project's 2-core machine (an idle loop; more
while the worker holds the interpreter), twice per keystroke (the didChange, then the
completion request). Here one thread reads each whole message (its header lines, then its
body) and hands the pieces to the event loop together, so pygls' message loop (``run_async``)
finds them waiting: one hop per message. The framing rules are pygls' own: lines up to an empty
one, the first ``Content-Length`` header giving the body's size.

The thread reads the file descriptor through a buffered reader of its own, not through
``sys.stdin.buffer``: a daemon thread blocked inside that one holds its lock, and the
interpreter, flushing the standard streams as it stops, would abort on it.
"""

from __future__ import annotations

import asyncio
import io
import re
import threading
from collections.abc import Awaitable
from typing import BinaryIO

CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")  # as pygls.io_.run_async reads it


def _source(stream: BinaryIO) -> BinaryIO:
    """A buffered reader of the stream's file descriptor of our own (the stream itself when it
    has none, in memory)."""
    try:
        return io.BufferedReader(io.FileIO(stream.fileno(), "rb", closefd=False))
    except (AttributeError, OSError, io.UnsupportedOperation):
        return stream


class MessageReader:
    """pygls' ``AsyncReader`` over a binary stream, fed by a daemon thread."""

    def __init__(self, stream: BinaryIO):
        self.stream = _source(stream)
        self._pieces: asyncio.Queue[bytes] | None = None

    async def readline(self) -> bytes:
        # A handler the last message started (an async one: a task) takes its first step before
        # the next message is read, as with pygls' reader: the completion handler notes the
        # document's version the request was sent for before a later didChange can change it.
        await asyncio.sleep(0)
        return await self._next()

    def readexactly(self, n: int) -> Awaitable[bytes]:
        return self._next()  # the thread read the body the header announced: n bytes

    def _next(self) -> Awaitable[bytes]:
        if self._pieces is None:
            loop = asyncio.get_running_loop()
            self._pieces = asyncio.Queue()
            threading.Thread(target=self._read, args=(loop, self._pieces), name="treecomplete-stdin", daemon=True).start()
        return self._pieces.get()

    def _read(self, loop: asyncio.AbstractEventLoop, pieces: asyncio.Queue[bytes]) -> None:
        def hand_over(batch: list[bytes]) -> None:
            for piece in batch:
                pieces.put_nowait(piece)

        while True:
            batch: list[bytes] = []
            length = None
            line = b"-"
            while line and line.strip():  # header lines, up to the empty one (or the end)
                line = self.stream.readline()
                batch.append(line)
                if length is None and (match := CONTENT_LENGTH.fullmatch(line)):
                    length = int(match.group(1))
            if line and length:
                body = self.stream.read(length)
                batch.append(body)
                if len(body) < length:
                    batch.append(b"")  # the stream ended inside the body
                    line = b""
            try:
                loop.call_soon_threadsafe(hand_over, batch)
            except RuntimeError:  # the loop is closed: the server is stopping
                return
            if not line:
                return
