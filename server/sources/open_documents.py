"""The other open documents' words: what the user has open beside the document, a source of
names the project index may not hold yet (unsaved edits, files outside the workspace).

Only the OTHER_DOCUMENTS most recently used documents of the language are read, each one's words
counted and sorted once per version (and grouped by their first letter, case aside) while the
server is quiet after an edit (``count_changed``). A request reads the count a document has, of
an earlier version if it changed since the server was last quiet (the user moved to another
document within QUIET of typing), and counts only a document never counted: every open
document's last count is kept, packed (its words, interned, and their counts: ~12 bytes a word),
so that going back to one opened long ago counts nothing. Merged as far as a request reads,
those of the prefix's first letter only: its cost does not grow with the documents a day of use
leaves open, nor with the words a prefix rules out, nor with the size of the document just left.
"""

from __future__ import annotations

import heapq
import sys
from array import array
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Reversible

from ..context import CompletionContext
from ..document import Document
from ..models.lru import SizedLRU
from ..words import blank, scan

# what is read of each other open document: its first 64 KB. The count of a document opened or
# changed is paid while the server is quiet, ~0.1 ms a KB (mostly the query for its comments and
# strings); past 64 KB, its most frequent words are already there (docs/decisions.md)
OTHER_DOCUMENT = 64 * 1024
OTHER_DOCUMENTS = 32  # the other open documents read: the most recently used of the language
KEPT_WORDS = 2_000_000  # words of the packed counts kept across the open documents (~24 MB), least recently used out first


class OpenDocuments:
    def __init__(self, documents: Callable[[], Reversible[Document]] = lambda: ()):
        self._documents = documents  # the open documents, in the order of their last use
        # uri -> (version, its words with their counts, the most frequent first), bounded
        self._counts: OrderedDict[str, tuple[int, Ranked]] = OrderedDict()
        # uri -> (version, its words, their counts), the same order: every document's last count
        self._kept: SizedLRU[str, tuple[int, tuple[str, ...], array]] = SizedLRU(KEPT_WORDS)

    def words(self, context: CompletionContext, initial: str = "") -> Iterator[tuple[str, int]]:
        """The other documents' words, the most frequent first, each once with its highest count
        in one document: a merge of each document's words sorted once (per version), read only
        as far as the caller reads. ``initial`` (one lowercase character): only the words whose
        lowercase form starts with it."""
        seen: set[str] = set()
        lists = (ranked.starting(initial) for _, _, ranked in self._others(context))
        for word, c in heapq.merge(*lists, key=_by_count):
            if word not in seen:
                seen.add(word)
                yield word, c

    def _others(self, context: CompletionContext) -> Iterable[tuple[str, int, Ranked]]:
        """The words of the most recently used other documents of the language, counted and
        sorted, with their URI and the version counted (cached for twice as many documents; a
        version since then is counted when the server is quiet, not here)."""
        read = 0
        for doc in reversed(self._documents()):
            if read >= OTHER_DOCUMENTS:
                break
            if doc.uri == context.uri or doc.language is not context.language or doc.too_large:
                continue
            counted = self._ranked(doc, latest=False)
            if counted is None:
                continue
            read += 1
            yield doc.uri, *counted

    def count_changed(self, busy: Callable[[], bool] = lambda: False) -> int:
        """Count now the documents a request would count (those it reads whose version changed
        since their last count), while the server is quiet, so that the first request in another
        document does not pay for the one just edited; stops as soon as ``busy()`` says a message
        waits. Returns how many were counted."""
        counted = 0
        read: dict[object, int] = {}
        for doc in reversed(self._documents()):
            # a request reads up to OTHER_DOCUMENTS of the language besides its own: OTHER_DOCUMENTS + 1
            if doc.language is None or doc.too_large or read.get(doc.language, 0) > OTHER_DOCUMENTS:
                continue
            read[doc.language] = read.get(doc.language, 0) + 1
            cached = self._counts.get(doc.uri) or self._kept.get(doc.uri)
            if cached is not None and cached[0] == doc.version:
                continue
            if busy():  # asked before each count only: a day's thousands of documents pass by cheaply
                break
            if self._ranked(doc, touch=False) is not None:
                counted += 1
        return counted

    def _ranked(self, doc: Document, touch: bool = True, latest: bool = True) -> tuple[int, Ranked] | None:
        """``doc``'s words counted and sorted, with the version counted: from the caches while
        its version holds, or whatever version they hold unless ``latest`` (None: no tree to read
        its comments and strings from)."""
        cached = self._counts.get(doc.uri)
        if cached is None or (latest and cached[0] != doc.version):
            kept = self._kept.get(doc.uri)
            if kept is not None and (not latest or kept[0] == doc.version):
                cached = (kept[0], Ranked(list(zip(kept[1], kept[2]))))
            else:
                cached = self._count(doc)
                if cached is None:
                    return None
            self._counts[doc.uri] = cached
            while len(self._counts) > 2 * OTHER_DOCUMENTS:
                self._counts.popitem(last=False)
        if touch:
            self._counts.move_to_end(doc.uri)
        return cached

    def _count(self, doc: Document) -> tuple[int, Ranked] | None:
        tree = doc.tree
        if tree is None:
            return None
        end = min(len(doc.data), OTHER_DOCUMENT)
        text = blank(doc.data, scan(tree, doc.language, 0, end)[0], 0, end)
        words = doc.language.identifier_pattern.findall(text)
        counts = Counter(sys.intern(w.decode("utf-8", "replace")) for w in words)
        ranked = sorted(counts.items(), key=_by_count)
        self._keep(doc.uri, doc.version, ranked)
        return doc.version, Ranked(ranked)

    def _keep(self, uri: str, version: int, ranked: list[tuple[str, int]]) -> None:
        packed = (version, tuple(w for w, _ in ranked), array("I", (c for _, c in ranked)))  # counts of 64 KB
        self._kept.put(uri, packed, len(ranked))

    def clear(self) -> None:
        self._counts.clear()
        self._kept.clear()

    def forget(self, uri: str) -> None:
        self._counts.pop(uri, None)
        self._kept.pop(uri)


class Ranked:
    """One document's words with their counts, the most frequent first; and those of each first
    letter (lowercase), grouped when first asked."""

    __slots__ = ("words", "_by_initial")

    def __init__(self, words: list[tuple[str, int]]):
        self.words = words
        self._by_initial: dict[str, list[tuple[str, int]]] | None = None

    def starting(self, initial: str) -> list[tuple[str, int]]:
        if not initial:
            return self.words
        if self._by_initial is None:
            groups: dict[str, list[tuple[str, int]]] = {}
            for item in self.words:
                groups.setdefault(item[0].lower()[:1], []).append(item)
            self._by_initial = groups
        return self._by_initial.get(initial, [])


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]
