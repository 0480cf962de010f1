"""flatten_before with a memo of the subtrees earlier calls read: through random typing and
deleting, the same sequence as without one (types, values, parents, starts, both bits), its
copied elements' nodes found again in the tree, and fewer elements walked."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.languages import JAVASCRIPT, PYTHON
from treecomplete.models import flatten as flatten_module
from treecomplete.models.flatten import Memo, flatten_before

FIXTURES = Path(__file__).parent / "fixtures"
FIELDS = ("types", "values", "parents", "starts", "ends", "has_child", "has_sibling")


def _edits(source: str, seed: int, steps: int):
    """Documents and cursor offsets: the source cut at random places and typed on character by
    character, with a deletion now and then."""
    rng = random.Random(seed)
    for _ in range(steps):
        cut = rng.randrange(len(source) // 3, len(source) - 40)
        text = source[:cut]
        for ch in source[cut:cut + rng.randrange(5, 40)]:
            if rng.random() < 0.1 and len(text) > 3:
                text = text[:-rng.randrange(1, 3)]
            else:
                text += ch
            yield text


@pytest.mark.parametrize(("language", "name", "limit"),
                         [(PYTHON, "inventory.py", 600), (JAVASCRIPT, "cart.js", 600), (PYTHON, "inventory.py", 40)])
def test_a_memo_changes_nothing_but_the_cost(language, name, limit):
    source = (FIXTURES / name).read_text()
    memo = Memo()
    copied = compared = 0
    for text in _edits(source, seed=len(name) + limit, steps=12):
        doc = Document("file:///work/" + name, text, 1, language)
        context = context_at(doc, len(doc.data))
        if context is None or context.target is None:
            continue
        with_memo, parent = flatten_before(context.target, limit, memo)
        plain, plain_parent = flatten_before(context.target, limit)
        assert parent == plain_parent
        for field in FIELDS:
            assert getattr(with_memo, field) == getattr(plain, field), field
        for i, node in enumerate(with_memo.nodes):
            if node is None:
                copied += 1
                found = with_memo.node(i)
                assert (found.start_byte, found.end_byte) == (plain.nodes[i].start_byte, plain.nodes[i].end_byte)
                assert found.type == plain.nodes[i].type
            else:
                assert node == plain.nodes[i]
        compared += 1
    assert compared > 100
    assert copied > 10 * compared  # the memo is used, not merely consulted


def test_the_memo_walks_fewer_nodes_and_stays_under_its_cap(monkeypatch):
    source = (FIXTURES / "inventory.py").read_text()
    doc = Document("file:///work/inventory.py", source[: len(source) * 2 // 3], 1, PYTHON)
    target = context_at(doc, len(doc.data)).target
    walked: list[int] = []
    element = flatten_module._element
    monkeypatch.setattr(flatten_module, "_element", lambda *a: walked.append(1) or element(*a))
    for memo in (Memo(), Memo(cap=200)):
        walked.clear()
        first, _ = flatten_before(target, 300, memo)
        walked_first = len(walked)
        walked.clear()
        again, _ = flatten_before(target, 300, memo)
        assert again.values == first.values
        assert len(walked) < walked_first / (4 if memo.cap > 1000 else 1.5)
        assert 0 < memo.size <= memo.cap


def test_a_subtree_with_other_text_at_the_same_place_is_not_copied():
    before = "def f(a):\n    total = a + 1\n    return total\n\nx = f(2)\ny"
    after = "def f(a):\n    total = a - 1\n    return total\n\nx = f(2)\ny"
    memo = Memo()
    for text in (before, after):
        doc = Document("file:///work/same.py", text, 1, PYTHON)
        flat, _ = flatten_before(context_at(doc, len(doc.data)).target, 600, memo)
    assert "-" in flat.values and "+" not in flat.values


def test_a_memo_s_segments_are_not_walked_by_the_collector():
    """A memo's segments hold tuples of plain values, which the garbage collector stops tracking
    after one collection: the thousands of them a day of requests caches cost no young
    collection (lists would be walked at each until promoted)."""
    import gc

    source = (FIXTURES / "inventory.py").read_text()
    memo = Memo()
    doc = Document("file:///work/inventory.py", source, 1, PYTHON)
    flatten_before(context_at(doc, len(doc.data)).target, 600, memo)
    segments = [segment for segment, _ in memo._entries.values()]
    gc.collect()
    assert segments and not any(gc.is_tracked(getattr(s, f)) for s in segments for f in FIELDS)
