"""Line index of a UTF-8 buffer and LSP position conversion.

LSP positions are (line, character) where lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (nothing
else: not form feeds, not U+2028) and ``character`` counts code units of the negotiated
encoding: UTF-8 bytes, UTF-16 code units or UTF-32 code points. Tree-sitter works in UTF-8
byte offsets, so every position crosses this module exactly once.

Text is kept as UTF-8 bytes encoded with ``surrogatepass``: a lone surrogate that a client
sends in a JSON string survives the round trip instead of crashing the encoder.
"""

from __future__ import annotations

import bisect
import itertools
import re

ENCODING_ERRORS = "surrogatepass"
LINE_BREAK = re.compile(rb"\r\n|\r|\n")

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def encode(text: str) -> bytes:
    return text.encode("utf-8", ENCODING_ERRORS)


def decode(data: bytes) -> str:
    # Bytes always come from encode(), but a cut inside a character (a clamped position) must
    # not raise: replace it.
    try:
        return data.decode("utf-8", ENCODING_ERRORS)
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace")


def units(text: str, encoding: str) -> int:
    """Length of ``text`` in code units of ``encoding``."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(encode(text))
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _chars_for_units(text: str, count: int, encoding: str) -> int:
    """How many characters of ``text`` fit in ``count`` code units (never splits a character)."""
    if encoding == UTF32 or text.isascii():
        return min(count, len(text))
    used = 0
    for i, ch in enumerate(text):
        width = len(encode(ch)) if encoding == UTF8 else (2 if ord(ch) > 0xFFFF else 1)
        if used + width > count:
            return i
        used += width
    return len(text)


class LineIndex:
    """Byte offsets of line starts, kept up to date through edits in O(edit + lines after)."""

    def __init__(self, data: bytes):
        if b"\r" in data:
            self.starts = [0] + [m.end() for m in LINE_BREAK.finditer(data)]
        else:  # "\n" alone: the lines' lengths, summed (a quarter of the regular expression's time)
            self.starts = [0, *itertools.accumulate(len(line) + 1 for line in data.split(b"\n")[:-1])]

    def update(self, data: bytes, start: int, old_end: int, new_end: int) -> None:
        """``data`` is the text after replacing bytes [start, old_end) with [start, new_end).

        Whether offset s starts a line depends only on bytes s-1 and s, so starts before
        ``start`` and starts after ``old_end`` (shifted) are unchanged; only [start, new_end]
        is rescanned.
        """
        delta = new_end - old_end
        head = max(1, bisect.bisect_left(self.starts, start))  # offset 0 always starts a line
        tail = bisect.bisect_right(self.starts, old_end)
        fresh = [
            m.end()
            for m in LINE_BREAK.finditer(data, max(start - 1, 0), min(new_end + 1, len(data)))
            if max(start, 1) <= m.end() <= new_end
        ]
        self.starts[head:] = fresh + [s + delta for s in self.starts[tail:]]

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1

    def line_bounds(self, data: bytes, line: int) -> tuple[int, int]:
        """[start, end) of ``line``'s content, without its line break."""
        start = self.starts[line]
        if line + 1 == len(self.starts):
            return start, len(data)
        end = self.starts[line + 1] - 1  # every line but the last ends in a break
        if data[end] == 0x0A and end > start and data[end - 1] == 0x0D:
            end -= 1
        return start, end

    def offset(self, data: bytes, line: int, character: int, encoding: str) -> int:
        """Byte offset of an LSP position, clamped as the spec says: a character past the end
        of its line means the line's end; a line past the end means the end of the text."""
        if line >= len(self.starts):
            return len(data)
        start, end = self.line_bounds(data, line)
        if encoding == UTF8:
            offset = min(start + character, end)
            # Never land inside a multi-byte character: back up to its first byte.
            while offset > start and offset < end and (data[offset] & 0xC0) == 0x80:
                offset -= 1
            return offset
        text = decode(data[start:end])
        return start + len(encode(text[: _chars_for_units(text, character, encoding)]))

    def position(self, data: bytes, offset: int, encoding: str) -> tuple[int, int]:
        """LSP (line, character) of a byte offset."""
        line = self.line_of(offset)
        start = self.starts[line]
        return line, units(decode(data[start:offset]), encoding)
