"""The other open documents' words: what the user has open beside the document, a source of
names the project index may not hold yet (unsaved edits, files outside the workspace).

Only the OTHER_DOCUMENTS most recently used documents of the language are read, and their words
merged once for the same documents at the same versions: a request's cost does not grow with
the documents a day of use leaves open.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Reversible

from ..context import CompletionContext
from ..document import Document
from ..words import blank, scan

OTHER_DOCUMENT = 256 * 1024  # what is read of each other open document
OTHER_DOCUMENTS = 32  # the other open documents read: the most recently used of the language


class OpenDocuments:
    def __init__(self, documents: Callable[[], Reversible[Document]] = lambda: ()):
        self._documents = documents  # the open documents, in the order of their last use
        self._counts: OrderedDict[str, tuple[int, Counter[str]]] = OrderedDict()  # uri -> (version, counts), bounded
        self._merged: tuple[tuple, list[tuple[str, int]]] | None = None

    def words(self, context: CompletionContext) -> list[tuple[str, int]]:
        """The other documents' words with their counts (a word's count is that of the most
        recently used document holding it), the most frequent first."""
        others = list(self._others(context))
        key = (context.uri, tuple((uri, version) for uri, version, _ in others))
        if self._merged is None or self._merged[0] != key:
            merged: dict[str, int] = {}
            for _, _, counts in others:
                for word, c in counts.items():
                    merged.setdefault(word, c)
            self._merged = (key, sorted(merged.items(), key=lambda item: (-item[1], item[0])))
        return self._merged[1]

    def _others(self, context: CompletionContext) -> Iterable[tuple[str, int, Counter[str]]]:
        """Identifier counts of the most recently used other documents of the language, with
        their URI and version (cached by version, for twice as many documents)."""
        read = 0
        for doc in reversed(self._documents()):
            if read >= OTHER_DOCUMENTS:
                break
            if doc.uri == context.uri or doc.language is not context.language or doc.too_large:
                continue
            cached = self._counts.get(doc.uri)
            if cached is None or cached[0] != doc.version:
                tree = doc.tree
                if tree is None:
                    continue
                end = min(len(doc.data), OTHER_DOCUMENT)
                text = blank(doc.data, scan(tree, doc.language, 0, end)[0], 0, end)
                words = context.language.identifier_pattern.findall(text)
                cached = (doc.version, Counter(w.decode("utf-8", "replace") for w in words))
                self._counts[doc.uri] = cached
                while len(self._counts) > 2 * OTHER_DOCUMENTS:
                    self._counts.popitem(last=False)
            self._counts.move_to_end(doc.uri)
            read += 1
            yield doc.uri, doc.version, cached[1]

    def clear(self) -> None:
        self._counts.clear()
        self._merged = None

    def forget(self, uri: str) -> None:
        self._counts.pop(uri, None)
