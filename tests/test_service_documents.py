"""Many open documents: a request reads the most recently used others only, so its cost does not
grow with the documents a day of use leaves open."""

from __future__ import annotations

from treecomplete.service import CompletionService
from treecomplete.sources import open_documents


def test_a_request_reads_the_most_recently_used_other_documents(monkeypatch):
    monkeypatch.setattr(open_documents, "OTHER_DOCUMENTS", 3)
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
    assert len(service.fallback.open_documents._counts) <= 2 * open_documents.OTHER_DOCUMENTS  # the cache stays bounded


def test_going_back_to_a_document_opened_long_ago_counts_no_other_document(monkeypatch):
    """Every open document's last count is kept (packed): the request after going back to one
    counts none of the others, parses none whose tree was dropped, and reads the one just left
    as it was last counted until the server is quiet."""
    from treecomplete import service as service_module

    monkeypatch.setattr(open_documents, "OTHER_DOCUMENTS", 3)
    monkeypatch.setattr(service_module, "TREES_KEPT", 1)
    service = CompletionService()
    for i in range(10):  # each counted by the next one's request, the last while quiet
        service.open(f"file:///d{i}.py", "python", 1, f"unique_word_{i} = {i}\nuni")
        service.complete(f"file:///d{i}.py", 1, 3, 50)
    service.count_changed(lambda: False)
    service.drop_old_trees()
    counted = []
    count = service.fallback.open_documents._count
    monkeypatch.setattr(service.fallback.open_documents, "_count", lambda doc: counted.append(doc.uri) or count(doc))
    service.change("file:///d0.py", 2, [(((0, 0), (0, 0)), "uniquely_new = 0\n")])  # back to the first, typed in
    service.complete("file:///d0.py", 2, 3, 50)
    service.change("file:///d1.py", 2, [(((1, 3), (1, 3)), "q")])  # then at once to the second
    texts = {c.text for c in service.complete("file:///d1.py", 1, 4, 50).candidates}
    assert counted == [] and not service.get("file:///d8.py").parsed  # read, its tree not rebuilt
    assert "unique_word_0" in texts and "uniquely_new" not in texts  # d0 as last counted
    assert service.count_changed(lambda: False) >= 1 and "file:///d0.py" in counted
    texts = {c.text for c in service.complete("file:///d1.py", 1, 4, 50).candidates}
    assert {"unique_word_0", "uniquely_new"} <= texts


def test_completions_are_the_same_when_every_tree_and_cache_is_dropped(monkeypatch):
    """Documents past the most recently used keep their text only; used again, they are parsed
    afresh and answer exactly as before."""
    from treecomplete import service as service_module
    from treecomplete.recent import Recent

    texts = [f"import os\n\ndef handler_{i}(request, limit=3):\n    total_{i} = os.path.join('a', 'b')\n"
             f"    return total_{i}\n\nhand" for i in range(6)]

    def lists(service: CompletionService) -> list[list[tuple]]:
        for i, text in enumerate(texts):
            service.open(f"file:///m{i}.py", "python", 1, text)
        out = []
        for i, text in enumerate(texts):  # each used again after the others
            service.change(f"file:///m{i}.py", 2, [(((6, 4), (6, 4)), "l")])
            out.append([(c.text, c.kind, round(c.score, 6)) for c in service.complete(f"file:///m{i}.py", 6, 5, 50).candidates])
        return out

    kept = lists(CompletionService())
    monkeypatch.setattr(service_module, "TREES_KEPT", 1)
    dropping = CompletionService()
    for name in ("_heads", "_far", "_imports"):
        setattr(dropping.fallback, name, Recent(1))
    assert lists(dropping) == kept
    dropping.drop_old_trees()
    assert [doc.parsed for doc in dropping.documents.values()] == [False] * 5 + [True]  # the last used keeps its tree
    assert all(doc._lines is None and doc._parser is None for doc in list(dropping.documents.values())[:5])  # text only


def test_over_the_memory_limit_the_server_drops_what_it_can_rebuild_and_says_so(caplog):
    from treecomplete import memory
    from treecomplete.sources.libraries.known import Libraries

    service = CompletionService(libraries=Libraries())
    for i in range(4):
        service.open(f"file:///m{i}.py", "python", 1, f"import os\nvalue_{i} = os.path.join('a')\nval")
        service.complete(f"file:///m{i}.py", 2, 3, 50)
    assert all(doc.parsed for doc in service.documents.values()) and service.fallback._heads
    assert service.libraries.loader.wait(10)  # the imports' reads done: none lands after the drop
    service.memory_limit = max(1, int(memory.resident_mb()) - 1)  # already over it
    with caplog.at_level("WARNING"):
        service.open("file:///last.py", "python", 1, "x = 1\nval")
    assert "memoryLimit" in caplog.text and "dropped 4 syntax trees" in caplog.text
    assert [doc.parsed for doc in service.documents.values()] == [False] * 4 + [True]
    assert not service.fallback._heads and not service.libraries.loader._entries
    texts = [c.text for c in service.complete("file:///m0.py", 2, 3, 50).candidates]  # rebuilt as used
    assert "value_0" in texts
    caplog.clear()
    with caplog.at_level("WARNING"):
        service.open("file:///again.py", "python", 1, "y = 2\n")
    assert "memoryLimit" not in caplog.text  # not at every open: DROP_EVERY apart


def test_the_other_documents_words_come_most_frequent_first_and_only_as_far_as_read():
    service = CompletionService()
    words = " ".join(f"word_{n}" for n in range(400))
    service.open("file:///big.py", "python", 1, f"{words}\nfrequent_one = frequent_one + frequent_one\n")
    service.open("file:///small.py", "python", 1, "frequent_one = 1\nword_7 = word_7\n")
    service.open("file:///here.py", "python", 1, "x = 1\n")
    context = _context(service)
    merged = list(service.fallback.open_documents.words(context))
    assert merged[:2] == [("frequent_one", 3), ("word_7", 2)]  # each word once, its highest count in one document
    assert len(merged) == 401
    listed = [c.text for c in service.fallback.complete(context, 20)]
    assert "frequent_one" in listed and len([w for w in listed if w.startswith("word_")]) < 20
    service.change("file:///big.py", 2, [(((0, 0), (0, 0)), "late_word ")])
    # until the server is quiet a request reads the count it has, not the document just left
    assert ("late_word", 1) not in list(service.fallback.open_documents.words(_context(service)))
    assert service.count_changed(lambda: False) == 2  # big.py's new version, here.py's first
    assert ("late_word", 1) in list(service.fallback.open_documents.words(_context(service)))


def test_only_the_head_of_a_long_other_document_is_counted():
    service = CompletionService()
    filler = "".join(f"name_{n} = {n}\n" for n in range(open_documents.OTHER_DOCUMENT // 12))
    assert len(filler) > open_documents.OTHER_DOCUMENT
    service.open("file:///long.py", "python", 1, f"early_word = 1\n{filler}late_word = 2\n")
    service.open("file:///here.py", "python", 1, "x = 1\n")
    words = {w for w, _ in service.fallback.open_documents.words(_context(service))}
    assert "early_word" in words and "late_word" not in words


def test_the_other_documents_words_of_a_prefix_first_letter_are_the_same_as_filtered():
    service = CompletionService()
    service.open("file:///a.py", "python", 1, "Frame = fetch(first, Frame)\nother = fetch(fetch)\n")
    service.open("file:///b.py", "python", 1, "first = fetch_all(first)\nÉtat = 1\n")
    service.open("file:///here.py", "python", 1, "x = 1\n")
    documents = service.fallback.open_documents
    everything = list(documents.words(_context(service)))
    for initial in ("f", "é", "o", "z"):
        expected = [(w, c) for w, c in everything if w.lower().startswith(initial)]
        assert list(documents.words(_context(service), initial)) == expected
    assert [w for w, _ in documents.words(_context(service), "f")][:2] == ["fetch", "Frame"]  # counts, case aside


def test_changed_documents_are_counted_while_quiet_and_a_request_then_counts_none():
    service = CompletionService()
    service.open("file:///a.py", "python", 1, "alpha_word = 1\n")
    service.open("file:///b.js", "javascript", 1, "const beta_word = 1;\n")
    service.open("file:///here.py", "python", 1, "x = 1\n")
    service.change("file:///a.py", 2, [(((1, 0), (1, 0)), "gamma_word = 2\n")])
    documents = service.fallback.open_documents
    assert service.count_changed(lambda: True) == 0  # a message waits: nothing counted
    assert service.count_changed(lambda: False) == 3  # both languages' documents
    assert service.count_changed(lambda: False) == 0  # nothing changed since
    assert documents._counts["file:///a.py"][0] == 2  # counted at its version: the next request counts nothing
    words = {w for w, _ in documents.words(_context(service))}
    assert {"alpha_word", "gamma_word"} <= words and "beta_word" not in words


def _context(service: CompletionService):
    from treecomplete.context import context_at

    doc = service.get("file:///here.py")
    return context_at(doc, len(doc.data))


def test_when_the_last_document_closes_what_was_read_for_the_documents_goes():
    from treecomplete.sources.libraries.known import Libraries

    service = CompletionService(libraries=Libraries())
    service.open("file:///a.py", "python", 1, "import json\njson.")
    service.complete_read("file:///a.py", 1, 5, 50, timeout=10)
    assert service.libraries.loader._entries and service.libraries._python
    service.close("file:///a.py")
    assert not service.libraries.loader._entries and not service.libraries._python
    service.open("file:///b.py", "python", 1, "import json\njson.")  # read again when asked for
    assert "dumps" in [c.text for c in service.complete_read("file:///b.py", 1, 5, 50, timeout=10).candidates]


def test_a_file_switched_for_another_keeps_what_was_read_until_none_stays_open():
    from treecomplete.sources.libraries.known import Libraries

    service = CompletionService(libraries=Libraries())
    later: list[int] = []
    service.on_empty = later.append  # the server runs drop_if_still_empty a moment later
    service.open("file:///a.py", "python", 1, "import json\njson.")
    service.complete_read("file:///a.py", 1, 5, 50, timeout=10)
    service.close("file:///a.py")
    service.open("file:///b.py", "python", 1, "import json\njson.")  # a preview tab: the next file at once
    assert not service.drop_if_still_empty(later[-1])
    assert service.libraries.loader._entries and service.libraries._python  # kept: read once for both
    service.close("file:///b.py")
    assert service.libraries.loader._entries  # not yet
    assert not service.drop_if_still_empty(later[0])  # a close before the last open says nothing
    assert service.drop_if_still_empty(later[-1])
    assert not service.libraries.loader._entries and not service.libraries._python


def test_full_collections_wait_for_the_server_to_be_idle_unless_it_never_is():
    from treecomplete.memory import FULL_ANYWAY, FULL_EVERY, IdleCollections

    state = {"idle": False, "count": FULL_EVERY, "runs": 0}

    def collect():
        state["runs"] += 1
        state["count"] = 0

    collector = IdleCollections(lambda: state["idle"], lambda: state["count"], collect)
    assert not collector.tick()  # due, but the server works
    state["idle"] = True
    assert collector.tick() and state["runs"] == 1
    assert not collector.tick()  # not due again yet
    state["idle"], state["count"] = False, FULL_ANYWAY
    assert collector.tick() and state["runs"] == 2  # a server that never pauses still collects
