"""Many open documents: a request reads the most recently used others only, so its cost does not
grow with the documents a day of use leaves open."""

from __future__ import annotations

from treecomplete.engines import fallback
from treecomplete.service import CompletionService


def test_a_request_reads_the_most_recently_used_other_documents(monkeypatch):
    monkeypatch.setattr(fallback, "OTHER_DOCUMENTS", 3)
    service = CompletionService()
    for i in range(10):
        service.open(f"file:///d{i}.py", "python", 1, f"unique_word_{i} = {i}\n")
    service.open("file:///here.py", "python", 1, "x = 1\nunique")
    texts = {c.text for c in service.complete("file:///here.py", 1, 6, 50).candidates}
    assert {"unique_word_9", "unique_word_8", "unique_word_7"} <= texts  # the last three opened
    assert "unique_word_0" not in texts
    service.change("file:///d0.py", 2, [(((0, 0), (0, 0)), "# edited\n")])  # used again: among the recent
    texts = {c.text for c in service.complete("file:///here.py", 1, 6, 50).candidates}
    assert "unique_word_0" in texts and "unique_word_7" not in texts
    assert len(service.fallback._counts) <= 2 * fallback.OTHER_DOCUMENTS  # the cache stays bounded
