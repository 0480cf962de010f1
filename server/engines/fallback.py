"""The fallback engine: identifiers of the buffer ranked by recency and frequency.

It answers while a neural model loads, when none is available, and for languages without one.
It must stay fast on any file: it reads a bounded window around the cursor (plus the file's
head, where imports live) with one regular expression, after blanking comments and strings, so
a request costs O(window), not O(file). Kinds come from the tree (definitions query).

Scores, higher first (d = identifiers since the last occurrence, c = occurrences):
- seen before the cursor: 10 - ln(1+d) + 0.5 ln(1+c)
- after `obj.`: +4 if seen after the same `obj.`, +2 if seen after any dot;
  elsewhere: -3 if only ever seen after a dot
- seen only after the cursor: 3 - 0.5 ln(1+d) + 0.5 ln(1+c)
- seen in other open documents of the language: 2 + 0.3 ln(1+c)
- the language's common builtins: 1; keywords (not after a dot): 0.5
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable

import tree_sitter

from ..context import ATTRIBUTE, NAME, CompletionContext
from ..document import Document
from ..languages import LanguageSpec
from .base import Candidate, Kind

WINDOW_BEFORE = 96 * 1024  # bytes before the cursor that are read
WINDOW_AFTER = 16 * 1024
HEAD = 16 * 1024  # the file's head is always read: imports
KINDS = {"function": Kind.FUNCTION, "class": Kind.CLASS, "module": Kind.MODULE}


def _blank(data: bytes, tree: tree_sitter.Tree, language: LanguageSpec, lo: int, hi: int) -> bytes:
    """data[lo:hi] with comments and strings replaced by a space."""
    if lo >= hi:
        return b""
    cursor = tree_sitter.QueryCursor(language.skip)
    cursor.set_byte_range(lo, hi)
    spans = sorted(
        (n.start_byte, n.end_byte) for n in cursor.captures(tree.root_node).get("skip", ())
    )
    pieces, pos = [], lo
    for start, end in spans:
        start, end = max(start, lo), min(end, hi)
        if start >= end:
            continue
        if start >= pos:
            pieces.append(data[pos:start])
            pos = end
        elif end > pos:
            pos = end
    pieces.append(data[pos:hi])
    return b" ".join(pieces)


def _kinds(tree: tree_sitter.Tree, language: LanguageSpec, ranges: Iterable[tuple[int, int]]) -> dict[str, Kind]:
    kinds: dict[str, Kind] = {}
    for lo, hi in ranges:
        cursor = tree_sitter.QueryCursor(language.definitions)
        cursor.set_byte_range(lo, hi)
        for capture, nodes in cursor.captures(tree.root_node).items():
            for node in nodes:
                if node.text:
                    kinds[node.text.decode("utf-8", "replace")] = KINDS[capture]
    return kinds


class FallbackEngine:
    name = "fallback"

    def __init__(self, open_documents: Callable[[], Iterable[Document]] = lambda: ()):
        self._open_documents = open_documents
        self._counts: dict[str, tuple[int, Counter[str]]] = {}  # uri -> (version, counts)

    def complete(self, context: CompletionContext, limit: int) -> list[Candidate]:
        tree = context.tree
        if context.category not in (ATTRIBUTE, NAME) or tree is None:
            return []
        language, data = context.language, context.data
        pattern = language.identifier_pattern
        lo = max(0, context.prefix_start - WINDOW_BEFORE)
        hi = min(len(data), context.cursor + WINDOW_AFTER)
        head = min(HEAD, lo)

        before = _blank(data, tree, language, 0, head) + b"\n" + _blank(
            data, tree, language, lo, context.prefix_start
        )
        after = _blank(data, tree, language, context.cursor, hi)
        words_before = [w.decode("utf-8", "replace") for w in pattern.findall(before)]
        words_after = [w.decode("utf-8", "replace") for w in pattern.findall(after)]
        keywords = set(language.keywords)

        prefix = context.prefix.lower()

        def wanted(word: str) -> bool:
            return word.lower().startswith(prefix) and word not in keywords

        scores: dict[str, float] = {}
        n = len(words_before)
        last = {w: i for i, w in enumerate(words_before)}
        count = Counter(words_before)
        for word, i in last.items():
            if wanted(word):
                scores[word] = 10 - math.log1p(n - i) + 0.5 * math.log1p(count[word])

        first_after: dict[str, int] = {}
        for i, w in enumerate(words_after):
            first_after.setdefault(w, i)
        count_after = Counter(words_after)
        for word, i in first_after.items():
            if word not in scores and wanted(word) and word != context.prefix:
                scores[word] = 3 - 0.5 * math.log1p(i) + 0.5 * math.log1p(count_after[word])

        self._adjust_for_dots(context, before, scores)

        for other in self._others(context):
            for word, c in other.items():
                if word not in scores and wanted(word):
                    scores[word] = 2 + 0.3 * math.log1p(c)

        for word in language.builtins:
            if word not in scores and wanted(word):
                scores[word] = 1.0
        if context.category == NAME:
            for word in language.keywords:
                if word.lower().startswith(prefix) and word not in scores:
                    scores[word] = 0.5

        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
        kinds = _kinds(tree, language, ((0, head), (lo, hi)))
        return [
            Candidate(
                text=word,
                kind=Kind.KEYWORD if word in keywords else kinds.get(word, Kind.VARIABLE),
                score=score,
                detail=f"{'keyword' if word in keywords else 'identifier'} · fallback engine",
            )
            for word, score in ranked
        ]

    def _adjust_for_dots(self, context: CompletionContext, before: bytes, scores: dict[str, float]) -> None:
        chars = context.language.identifier_chars.encode() + rb"\x80-\xff"
        member = rb"\.\s*([" + chars + rb"]+)"
        attributes = {w.decode("utf-8", "replace") for w in re.findall(member, before)}
        if context.category == ATTRIBUTE:
            same_receiver: set[str] = set()
            if context.receiver:
                receiver = re.escape(context.receiver.encode("utf-8", "surrogatepass"))
                same_receiver = {
                    w.decode("utf-8", "replace")
                    for w in re.findall(rb"(?<![" + chars + rb"])" + receiver + rb"\s*" + member, before)
                }
            for word in scores:
                scores[word] += 4 if word in same_receiver else 2 if word in attributes else 0
        else:
            plain = Counter(context.language.identifier_pattern.findall(re.sub(member, b" ", before)))
            for word in scores:
                if word in attributes and not plain.get(word.encode("utf-8", "surrogatepass")):
                    scores[word] -= 3

    def _others(self, context: CompletionContext) -> Iterable[Counter[str]]:
        """Identifier counts of the other open documents of the same language (cached by version)."""
        for doc in self._open_documents():
            if doc.uri == context.uri or doc.language is not context.language or doc.too_large:
                continue
            cached = self._counts.get(doc.uri)
            if cached is None or cached[0] != doc.version:
                tree = doc.tree
                if tree is None:
                    continue
                text = _blank(doc.data, tree, doc.language, 0, len(doc.data))
                words = context.language.identifier_pattern.findall(text)
                cached = (doc.version, Counter(w.decode("utf-8", "replace") for w in words))
                self._counts[doc.uri] = cached
            yield cached[1]

    def forget(self, uri: str) -> None:
        self._counts.pop(uri, None)
