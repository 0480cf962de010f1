"""Property: any sequence of incremental edits leaves a Document's text equal to a reference
string and its incrementally re-parsed tree equal to a fresh parse of that text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from treecomplete.document import Document
from treecomplete.languages import JAVASCRIPT, PYTHON
from treecomplete.positions import UTF8, UTF16, UTF32, LineIndex, encode, units

ALPHABET = st.sampled_from(list("ab_(): =.\n\r\t\f'\"#é€😀") + ["\r\n", "def ", "if x:\n  ", "//", "{", "}"])
TEXT = st.lists(ALPHABET, max_size=30).map("".join)
EDITS = st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 12), TEXT), min_size=1, max_size=8)


def _position(text: str, index: int, encoding: str) -> tuple[int, int]:
    """The reference conversion: from the Python string, not from the code under test."""
    data = encode(text)
    lines = LineIndex(encode(text))
    offset = len(encode(text[:index]))
    line = lines.line_of(offset)
    return line, units(text[:index][len(data[: lines.starts[line]].decode("utf-8", "surrogatepass")):], encoding)


def _not_inside_crlf(text: str, index: int) -> int:
    """No LSP position lies between the \r and the \n of a line end."""
    return index - 1 if 0 < index < len(text) and text[index - 1 : index + 1] == "\r\n" else index


def _tree_shape(tree) -> list[tuple]:
    out, cursor = [], tree.walk()
    while True:
        node = cursor.node
        out.append((node.type, node.start_byte, node.end_byte, node.start_point, node.end_point))
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return out


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([PYTHON, JAVASCRIPT]),
    st.sampled_from([UTF8, UTF16, UTF32]),
    TEXT,
    EDITS,
    st.booleans(),
)
def test_edits_match_reference_and_fresh_parse(language, encoding, text, edits, parse_between):
    doc = Document("file:///p", text, 0, language, encoding)
    reference = text
    for version, (at, length, insert) in enumerate(edits, 1):
        start = _not_inside_crlf(reference, at % (len(reference) + 1))
        end = _not_inside_crlf(reference, min(len(reference), start + length))
        doc.apply_change(_position(reference, start, encoding), _position(reference, end, encoding), insert)
        reference = reference[:start] + insert + reference[end:]
        doc.version = version
        if parse_between:
            doc.tree  # noqa: B018 - parse now, so the next edit is applied to a parsed tree
        assert doc.text == reference
        assert doc.lines.starts == LineIndex(encode(reference)).starts
    fresh = language.parser().parse(encode(reference))
    assert _tree_shape(doc.tree) == _tree_shape(fresh)


def test_a_subtree_missing_a_token_is_read_again_as_a_fresh_parse_reads_it():
    """tree-sitter reuses an unchanged subtree that holds a MISSING node (``{ a:def`` read as a
    block missing its ``}``) where a fresh parse recovers otherwise (an ERROR holding a pair):
    the document marks its error nodes as edited before each parse (document.reparse_errors)."""
    doc = Document("file:///p.js", "aaaaaa''\n{ a:def ", 0, JAVASCRIPT, UTF8)
    doc.tree  # noqa: B018 - the tree to reuse
    doc.apply_change((0, 0), (0, 6), "")
    fresh = JAVASCRIPT.parser().parse(encode(doc.text))
    assert "ERROR" in str(fresh.root_node)  # the case: a fresh parse recovers with an ERROR node
    assert _tree_shape(doc.tree) == _tree_shape(fresh)
