"""The fallback engine: identifiers of the buffer ranked by recency and frequency.

It answers while a neural model loads, when none is available, and for languages without one.
It must stay fast on any file: it reads a bounded window around the cursor (plus the file's
head, where imports live) with one regular expression, after blanking comments and strings, so
a request costs O(window), not O(file). Kinds come from the tree (definitions query).

Scores, higher first (d = identifiers since the last occurrence, c = occurrences). A word gets
the first of these that applies, in this order:
- seen in code before the cursor, in the window: 10 - ln(1+d) + 0.5 ln(1+c)
- seen in comments or strings before the cursor, in the window: 3.2 + 0.3 ln(1+c)
- seen further back than the window: 3.5 + 0.3 ln(1+c)
- seen after the cursor: 3 - 0.5 ln(1+d) + 0.5 ln(1+c)
- seen in other open documents of the language: 2 + 0.3 ln(1+c)
- the language's common builtins, or where an import names a module, the standard library's
  modules: 1; keywords (not after a dot or in an import's module name): 0.5
The words of this document (the first four) then get, after `obj.`, +4 if seen after the same
`obj.` and +2 if seen after any dot, or elsewhere -3 if only ever seen after a dot; and every
word +2 when it starts with the prefix in the case typed.
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

# Bytes read around the cursor. Tree queries over a range cost more than linearly in its size
# (2.7 ms for 96 KB, 0.55 ms for 32 KB here). 16 KB before the cursor (plus regex-only word
# counts further back) scores as well as 32 KB on the editing benchmark at half the cost.
WINDOW_BEFORE = 16 * 1024
WINDOW_AFTER = 8 * 1024
HEAD = 8 * 1024  # the file's head is always read: imports
FAR = 256 * 1024  # before the window: words only (no tree query, comments not blanked)
OTHER_DOCUMENT = 256 * 1024  # what is read of each other open document
KINDS = {"function": Kind.FUNCTION, "class": Kind.CLASS, "module": Kind.MODULE}
# Where a word was found, the first that applies (a candidate's ``features`` say which, for the
# neural engine's ranker): its tier, then ln(1+d) and ln(1+c) as in the scores above, whether it
# followed the same receiver / any dot (after a dot), whether only ever after a dot (elsewhere),
# and whether it starts with the prefix in the case typed.
CODE, QUOTED, FAR_BACK, AFTER, OTHER, BUILTIN, KEYWORD = range(7)


def _scan(tree: tree_sitter.Tree, language: LanguageSpec, lo: int, hi: int) -> tuple[list[tuple[int, int]], dict[bytes, Kind]]:
    """The comment and string spans of [lo, hi), sorted, and the kinds of the names defined there."""
    spans: list[tuple[int, int]] = []
    kinds: dict[bytes, Kind] = {}
    if lo >= hi:
        return spans, kinds
    cursor = tree_sitter.QueryCursor(language.scan)
    cursor.set_byte_range(lo, hi)
    for capture, nodes in cursor.captures(tree.root_node).items():
        if capture == "skip":
            spans.extend((n.start_byte, n.end_byte) for n in nodes)
        else:
            kinds.update((n.text, KINDS[capture]) for n in nodes if n.text)
    spans.sort()
    return spans, kinds


def _blank(data: bytes, spans: list[tuple[int, int]], lo: int, hi: int) -> bytes:
    """data[lo:hi] with the given spans (comments, strings) replaced by a space."""
    if lo >= hi:
        return b""
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


def _module_position(context: CompletionContext) -> bool:
    """Whether the identifier at the cursor starts the module path of an import (Python):
    ``import o``, ``from o``, ``import a, o``, ``import o as p``."""
    target = context.target
    parent = target.parent if target is not None else None
    if parent is None or not context.language.modules:
        return False
    if parent.type == "ERROR":  # `from o` with no `import` yet
        before = target.prev_sibling
        return before is not None and before.type in ("import", "from")
    if parent.type != "dotted_name" or parent.start_byte != target.start_byte or parent.parent is None:
        return False
    statement = parent.parent.parent if parent.parent.type == "aliased_import" else parent.parent
    if statement.type == "import_statement":
        return True
    module = statement.child_by_field_name("module_name") if statement.type == "import_from_statement" else None
    return module is not None and module.start_byte == parent.start_byte


class FallbackEngine:
    name = "fallback"

    def __init__(self, open_documents: Callable[[], Iterable[Document]] = lambda: ()):
        self._open_documents = open_documents
        self._counts: dict[str, tuple[int, Counter[str]]] = {}  # uri -> (version, counts)
        self._heads: dict[str, tuple[bytes, tuple]] = {}  # uri -> (head bytes, its scan)
        self._far: dict[str, tuple[bytes, Counter[bytes]]] = {}  # uri -> (far bytes, word counts)

    def complete(self, context: CompletionContext, limit: int) -> list[Candidate]:
        tree = context.tree
        if context.category not in (ATTRIBUTE, NAME) or tree is None:
            return []
        language, data = context.language, context.data
        pattern = language.identifier_pattern
        # The window starts on a 4 KB boundary, so that what lies before it stays the same while
        # one types, and its word counts can be reused.
        lo = max(0, (context.prefix_start - WINDOW_BEFORE) // 4096 * 4096)
        hi = min(len(data), context.cursor + WINDOW_AFTER)
        head = min(HEAD, lo)

        head_spans, kinds = self._scan_head(context, tree, head)
        kinds = dict(kinds)
        spans, window_kinds = _scan(tree, language, lo, hi)
        kinds.update(window_kinds)
        before = _blank(data, head_spans, 0, head) + b"\n" + _blank(data, spans, lo, context.prefix_start)
        after = _blank(data, spans, context.cursor, hi)
        keywords = language.keyword_set
        prefix = context.prefix.lower()
        # Words stay bytes until they pass the prefix filter: most never need decoding.
        raw_prefix = prefix.encode("utf-8", "surrogatepass")
        size = len(raw_prefix)

        def matching(words: Iterable[bytes]) -> list[bytes]:
            return [w for w in words if w[:size].lower() == raw_prefix]

        def text(word: bytes) -> str:
            return word.decode("utf-8", "replace")

        def wanted(word: str) -> bool:
            return word.lower().startswith(prefix) and word not in keywords

        scores: dict[str, float] = {}
        signals: dict[str, list[float]] = {}  # word -> [tier, ln(1+d), ln(1+c), same, member, only member, case]
        words_before = pattern.findall(before)
        n = len(words_before)
        last = {w: i for i, w in enumerate(words_before)}
        count = Counter(words_before)
        for word in matching(last):
            if (name := text(word)) not in keywords:
                d, c = math.log1p(n - last[word]), math.log1p(count[word])
                scores[name] = 10 - d + 0.5 * c
                signals[name] = [CODE, d, c, 0, 0, 0, 0]

        # Comments and docs name identifiers too (`res.sendStatus(200)` in a JSDoc example).
        quoted = Counter(pattern.findall(b" ".join(data[max(a, lo):min(b, context.prefix_start)] for a, b in spans)))
        for word in matching(quoted):
            if (name := text(word)) not in keywords and name not in scores:
                scores[name] = 3.2 + 0.3 * math.log1p(quoted[word])
                signals[name] = [QUOTED, 0, math.log1p(quoted[word]), 0, 0, 0, 0]

        far_count = self._far_words(context, max(head, lo - FAR), lo)
        for word in matching(far_count):
            if (name := text(word)) not in keywords and name not in scores:
                scores[name] = 3.5 + 0.3 * math.log1p(far_count[word])
                signals[name] = [FAR_BACK, 0, math.log1p(far_count[word]), 0, 0, 0, 0]

        words_after = pattern.findall(after)
        first_after: dict[bytes, int] = {}
        for i, w in enumerate(words_after):
            first_after.setdefault(w, i)
        count_after = Counter(words_after)
        for word in matching(first_after):
            name = text(word)
            if name not in scores and name not in keywords and name != context.prefix:
                d, c = math.log1p(first_after[word]), math.log1p(count_after[word])
                scores[name] = 3 - 0.5 * d + 0.5 * c
                signals[name] = [AFTER, d, c, 0, 0, 0, 0]

        self._adjust_for_dots(context, before, count, scores, signals)

        for other in self._others(context):
            for word, c in other.items():
                if word not in scores and wanted(word):
                    scores[word] = 2 + 0.3 * math.log1p(c)
                    signals[word] = [OTHER, 0, math.log1p(c), 0, 0, 0, 0]

        module = _module_position(context)
        for word in language.modules if module else language.builtins:
            if word not in scores and wanted(word):
                scores[word] = 1.0
                signals[word] = [BUILTIN, 0, 0, 0, 0, 0, 0]
        if context.category == NAME and not module:
            for word in language.keywords:
                if word.lower().startswith(prefix) and word not in scores:
                    scores[word] = 0.5
                    signals[word] = [KEYWORD, 0, 0, 0, 0, 0, 0]

        if context.prefix:  # the case the user typed is a strong hint
            for word in scores:
                if word.startswith(context.prefix):
                    scores[word] += 2
                    signals[word][6] = 1
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
        return [
            Candidate(
                text=word,
                kind=Kind.KEYWORD if word in keywords else kinds.get(word.encode("utf-8", "surrogatepass"), Kind.VARIABLE),
                score=score,
                detail=f"{'keyword' if word in keywords else 'identifier'} · fallback engine",
                features=tuple(signals[word]),
            )
            for word, score in ranked
        ]

    def _adjust_for_dots(self, context: CompletionContext, before: bytes, count: Counter[bytes], scores: dict[str, float],
                         signals: dict[str, list[float]]) -> None:
        """Member names after a dot, plain names elsewhere (``count``: all occurrences)."""
        chars = context.language.identifier_chars.encode() + rb"\x80-\xff"
        member = rb"\.\s*([" + chars + rb"]+)"
        as_member = Counter(re.findall(member, before))
        if context.category == ATTRIBUTE:
            same_receiver: set[bytes] = set()
            if context.receiver:
                receiver = re.escape(context.receiver.encode("utf-8", "surrogatepass"))
                same_receiver = set(re.findall(rb"(?<![" + chars + rb"])" + receiver + rb"\s*" + member, before))
            for word in scores:
                raw = word.encode("utf-8", "surrogatepass")
                if raw in same_receiver:
                    scores[word] += 4
                    signals[word][3] = 1
                elif raw in as_member:
                    scores[word] += 2
                    signals[word][4] = 1
        else:
            for word in scores:
                raw = word.encode("utf-8", "surrogatepass")
                if as_member[raw] and as_member[raw] == count[raw]:
                    scores[word] -= 3
                    signals[word][5] = 1

    def _scan_head(self, context: CompletionContext, tree: tree_sitter.Tree, head: int) -> tuple:
        """The file's head rarely changes while one types further down: reuse its scan."""
        key = context.data[:head]
        cached = self._heads.get(context.uri)
        if cached is None or cached[0] != key:
            cached = (key, _scan(tree, context.language, 0, head))
            self._heads[context.uri] = cached
        return cached[1]

    def _far_words(self, context: CompletionContext, lo: int, hi: int) -> Counter[bytes]:
        if lo >= hi:
            return Counter()
        key = context.data[lo:hi]
        cached = self._far.get(context.uri)
        if cached is None or cached[0] != key:
            cached = (key, Counter(context.language.identifier_pattern.findall(key)))
            self._far[context.uri] = cached
        return cached[1]

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
                end = min(len(doc.data), OTHER_DOCUMENT)
                text = _blank(doc.data, _scan(tree, doc.language, 0, end)[0], 0, end)
                words = context.language.identifier_pattern.findall(text)
                cached = (doc.version, Counter(w.decode("utf-8", "replace") for w in words))
                self._counts[doc.uri] = cached
            yield cached[1]

    def forget(self, uri: str) -> None:
        self._counts.pop(uri, None)
        self._heads.pop(uri, None)
        self._far.pop(uri, None)
