"""LSP positions <-> UTF-8 byte offsets, in every encoding and with every kind of line end."""

from __future__ import annotations

import pytest

from treecomplete.positions import UTF8, UTF16, UTF32, LineIndex, encode

TEXT = "a\u00e9\U0001f600b\r\nx\ry\fz\n\n"  # é (2 bytes, 1 UTF-16 unit), 😀 (4 bytes, 2 units)


@pytest.mark.parametrize(
    ("encoding", "character", "expected"),
    [
        (UTF8, 1, 1), (UTF8, 3, 3), (UTF8, 7, 7), (UTF8, 2, 1),  # 2 is inside é: snaps back
        (UTF16, 2, 3), (UTF16, 4, 7), (UTF16, 3, 3),  # 3 is inside 😀: snaps back
        (UTF32, 2, 3), (UTF32, 3, 7), (UTF32, 4, 8),
        (UTF16, 99, 8),  # past the end of the line: the line's end, before \r\n
    ],
)
def test_offsets_on_a_line_with_multibyte_characters(encoding, character, expected):
    data = encode(TEXT)
    assert LineIndex(data).offset(data, 0, character, encoding) == expected


def test_line_ends_are_lf_crlf_and_cr_only():
    data = encode(TEXT)
    index = LineIndex(data)
    # "a..b\r\n" | "x\r" | "y\fz\n" (a form feed is not a line end) | "\n" | ""
    assert index.starts == [0, 10, 12, 16, 17]
    assert index.line_bounds(data, 0) == (0, 8)
    assert index.line_bounds(data, 2) == (12, 15)
    assert index.offset(data, 2, 2, UTF16) == 14  # after the form feed
    assert index.offset(data, 9, 0, UTF16) == len(data)  # past the last line: the end



@pytest.mark.parametrize("text", ["", "a", "a\n", "\n\n", "x = 1\n\ny\f= 2", "a\u00e9\n\U0001f600\n", "a\r\nb\n", "\r"])
def test_line_starts_are_those_of_every_line_break(text):
    import re

    data = encode(text)
    assert LineIndex(data).starts == [0] + [m.end() for m in re.finditer(rb"\r\n|\r|\n", data)]

@pytest.mark.parametrize("encoding", [UTF8, UTF16, UTF32])
def test_position_round_trip(encoding):
    data = encode(TEXT)
    index = LineIndex(data)
    for offset in (0, 1, 3, 7, 8, 10, 12, 14, 16, 17):
        line, character = index.position(data, offset, encoding)
        assert index.offset(data, line, character, encoding) == offset


@pytest.mark.parametrize(
    ("before", "start", "end", "insert"),
    [
        ("a\rb", 2, 2, "\n"),  # "\r" + "\n": one line end, not two
        ("a\r\nb", 2, 3, ""),  # deleting the \n of \r\n leaves a \r line end
        ("a\nb\nc", 1, 4, "x"),  # a change spanning lines
        ("abc", 3, 3, "\r\n\r\n"),
        ("\n\n\n", 0, 3, ""),
    ],
)
def test_incremental_update_matches_a_fresh_index(before, start, end, insert):
    old = encode(before)
    new = old[:start] + encode(insert) + old[end:]
    index = LineIndex(old)
    index.update(new, start, end, start + len(encode(insert)))
    assert index.starts == LineIndex(new).starts
