"""The window of the buffer that the fallback engine reads around the cursor, and the scores of
the words found there (the first tiers of engines/fallback.py's list): in code before the
cursor, in its comments and strings, further back, after it; then what a dot changes.

A window is bounded in bytes whatever the file's size; ``Scores`` holds each word's score and
its signals, which the neural engine's ranker reads as features (ranking/ranker.py).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ..context import ATTRIBUTE, CompletionContext
from ..engines.base import Kind
from ..languages import DEFINES, LOCALS, PARAMETER_NAME
from ..words import alone, blank, member_pattern, member_words

# Bytes read around the cursor. Tree queries over a range cost more than linearly in its size
# (2.7 ms for 96 KB, 0.55 ms for 32 KB here). 16 KB before the cursor (plus regex-only word
# counts further back) scores as well as 32 KB on the editing benchmark at half the cost.
WINDOW_BEFORE = 16 * 1024
WINDOW_AFTER = 8 * 1024
HEAD = 8 * 1024  # the file's head is always read: imports
FAR = 256 * 1024  # before the window: words only (no tree query, comments not blanked)

# Where a word was found, the first that applies (a candidate's ``features`` say which, for the
# neural engine's ranker): its tier, then ln(1+d) and ln(1+c) as in engines/fallback.py's scores,
# whether it followed the same receiver / any dot (after a dot), whether only ever after a dot
# (elsewhere), whether it starts with the prefix in the case typed, then (whatever its tier)
# ln(1+f), f the project's other files that use it, and whether a file the buffer imports does.
# PROJECT (files of the project on disk, server/sources/project.py) ranks between OTHER and BUILTIN; it
# is numbered last so that the ranker's tier columns of the others stay where they were.
CODE, QUOTED, FAR_BACK, AFTER, OTHER, BUILTIN, KEYWORD, PROJECT = range(8)
SAME, MEMBER, ONLY_MEMBER, CASE = 3, 4, 5, 6  # the signals' columns after the tier, d and c
SAME_AFTER = 10  # what a word written after the same receiver after the cursor, and nowhere before it, gains
_OWN_MEMBER = re.compile(rb"\b(?:self|cls|this)\s*\.\s*([A-Za-z_$][\w$]*)")  # members of the object whose class is written


@dataclass
class Window:
    """What the engine reads around the cursor: [lo, hi) and the file's first ``head`` bytes,
    their comment and string spans, and the kinds of the names defined there."""

    lo: int
    hi: int
    head: int
    head_spans: list[tuple[int, int]]
    spans: list[tuple[int, int]]
    kinds: dict[bytes, Kind]


class Scores(dict):
    """word -> score, with each word's signals (``signals``: [tier, ln(1+d), ln(1+c), same
    receiver, after a dot, only after a dot, case typed], the ranker's features)."""

    def __init__(self, context: CompletionContext):
        super().__init__()
        self.signals: dict[str, list[float]] = {}
        # the code after the cursor (whatever a word's tier): ln(1+w), w the words before its
        # first use there; the members written there after the same receiver
        self.after: dict[str, float] = {}
        self.after_counts: Counter[bytes] = Counter()  # the words after the cursor, counted
        self.same_after: set[str] = set()
        self.keywords = context.language.not_identifiers(context.category == ATTRIBUTE)
        self.names: frozenset[str] = frozenset()  # keywords the window writes as names (names_written)
        self.prefix = context.prefix.lower()
        # Words stay bytes until they pass the prefix filter: most never need decoding.
        self._raw_prefix = self.prefix.encode("utf-8", "surrogatepass")

    def names_written(self, kinds: dict[bytes, Kind], reserved: frozenset[str]) -> None:
        """Where a grammar served alone writes a contextual keyword as a name in the window
        (Kotlin's `value`, server/grammars.py), it is a name here, offered as the others."""
        written = {w.decode("utf-8", "replace") for w in kinds} & reserved
        if written:
            self.names = frozenset(written)
            self.keywords = self.keywords - written

    def add(self, word: str, score: float, tier: int, d: float = 0, c: float = 0) -> None:
        self[word] = score
        self.signals[word] = [tier, d, c, 0, 0, 0, 0]

    def matching(self, words: Iterable[bytes]) -> list[bytes]:
        """The words (bytes) that start with the prefix, case-insensitively."""
        size = len(self._raw_prefix)
        return [w for w in words if w[:size].lower() == self._raw_prefix]

    def wanted(self, word: str) -> bool:
        return word.lower().startswith(self.prefix) and word not in self.keywords

    def new(self, word: bytes) -> str | None:
        """``word`` decoded, if it is no keyword and has no score yet."""
        name = word.decode("utf-8", "replace")
        return name if name not in self and name not in self.keywords else None


def buffer_words(context: CompletionContext, window: Window, before: bytes, far_count: Counter[bytes],
                 scores: Scores, after: bytes) -> Counter[bytes]:
    """The buffer's words: in code before the cursor (``before``), in its comments and strings,
    further back than the window (``far_count``), in code after the cursor (``after``). Returns
    the counts of those in code before it."""
    pattern, data = context.language.identifier_pattern, context.data
    words_before = pattern.findall(before)
    n = len(words_before)
    last = {w: i for i, w in enumerate(words_before)}
    count = Counter(words_before)
    for word in scores.matching(last):
        if (name := word.decode("utf-8", "replace")) not in scores.keywords:
            d, c = math.log1p(n - last[word]), math.log1p(count[word])
            scores.add(name, 10 - d + 0.5 * c, CODE, d, c)

    # Comments and docs name identifiers too (`res.sendStatus(200)` in a JSDoc example).
    quoted = Counter(pattern.findall(b" ".join(data[max(a, window.lo):min(b, context.prefix_start)] for a, b in window.spans)))
    for word in scores.matching(quoted):
        if name := scores.new(word):
            scores.add(name, 3.2 + 0.3 * math.log1p(quoted[word]), QUOTED, c=math.log1p(quoted[word]))

    for word in scores.matching(far_count):
        if name := scores.new(word):
            scores.add(name, 3.5 + 0.3 * math.log1p(far_count[word]), FAR_BACK, c=math.log1p(far_count[word]))

    words_after = pattern.findall(after)
    first_after: dict[bytes, int] = {}
    for i, w in enumerate(words_after):
        first_after.setdefault(w, i)
    count_after = Counter(words_after)
    scores.after_counts = count_after
    for word in scores.matching(first_after):
        name = word.decode("utf-8", "replace")
        scores.after[name] = d = math.log1p(first_after[word])
        if name not in scores and name not in scores.keywords and name != context.prefix:
            c = math.log1p(count_after[word])
            scores.add(name, 3 - 0.5 * d + 0.5 * c, AFTER, d, c)
    return count


def reads_after(context: CompletionContext, after: bytes, scores: Scores, member: bool = False) -> set[str]:
    """The words of the AFTER tier (used after the cursor, nowhere before it) that the code
    there reads without binding them (``print(total)``, ``open(path)``; not ``for x``, ``as f``,
    ``x =``), outside member names and builtins: what is being declared, where a name is. At a
    member's name (``member``: a method, a class field, an object literal's key), those the code
    there reads after a dot instead (``this.flush()`` below ``|() {``)."""
    language = context.language
    members = Counter(member_words(after, language))
    if member:
        return {word for word, signals in scores.signals.items()
                if signals[0] == AFTER and members[word.encode("utf-8", "surrogatepass")]}
    bound = {name for match in LOCALS[language.name].finditer(after) for name in match.groups() if name} \
        if language.name in LOCALS else set()
    counts = scores.after_counts
    builtins = set(language.builtins)
    out = set()
    for word, signals in scores.signals.items():
        raw = word.encode("utf-8", "surrogatepass")
        if signals[0] == AFTER and raw not in bound and members[raw] < counts[raw] and word not in builtins:
            out.add(word)
    return out


def defined_in(language: str, code: bytes) -> set[str]:
    """The functions, classes and parameters ``code`` defines by name (``def run(x)``: run, x)."""
    pattern = DEFINES.get(language)
    names: set[str] = set()
    if pattern is None:
        return names
    for match in pattern.finditer(code):
        groups = match.groups()
        for i in range(0, len(groups), 2):
            if groups[i]:
                names.add(groups[i].decode("utf-8", "replace"))
            if i + 1 < len(groups) and groups[i + 1]:
                names.update(m.group(1).decode("utf-8", "replace") for m in PARAMETER_NAME.finditer(groups[i + 1]))
    return names


def drop_reserved(context: CompletionContext, before: bytes, after: bytes, scores: Scores) -> None:
    """After a dot, where any word may name a member (JavaScript), the reserved words that the
    buffer and the other documents brought and that the code does not write after a dot (no
    `return` after `user.`; `promise.catch` stays). The members the project, the language and
    the receiver's library list come after this, reserved or not."""
    if context.category != ATTRIBUTE:
        return
    reserved = [word for word in scores if word in context.language.reserved_set and word not in scores.names]
    if not reserved:
        return
    written = set(member_words(before, context.language)) | set(member_words(after, context.language))
    for word in reserved:
        if word.encode("utf-8", "surrogatepass") not in written:
            del scores[word]
            del scores.signals[word]


def after_cursor(context: CompletionContext, window: Window) -> bytes:
    """The code after the cursor in the window, comments and strings blanked."""
    return blank(context.data, window.spans, context.cursor, window.hi)


def adjust_for_dots(context: CompletionContext, before: bytes, count: Counter[bytes], scores: Scores,
                    declaring: dict[bytes, Kind] | None = None, member: bool = False, after: bytes = b"") -> None:
    """Member names after a dot, plain names elsewhere (``count``: all occurrences). At a
    declaration (``declaring``: the kinds of the names the file defines around the cursor), a
    name only ever used after a dot, after ``self.`` among others, and not defined is what is
    being declared more often than not: ``self._write_title()`` above, then ``def
    _write_title``. (Any receiver's members would lift JavaScript's property names at
    ``const |``: fewer names declared there were among the first five.) At a member's name
    (``member``), the other names only used after a dot are not lowered: members are
    what a dot reads. A member written after the same receiver after the cursor (``after``)
    rises above the words of the code before it (or by a little less than one written before it
    after the same receiver, where the code before has it too)."""
    as_member = Counter(member_words(before, context.language))
    signals = scores.signals
    if context.category == ATTRIBUTE:
        same_receiver: set[bytes] = set()
        same_after: set[bytes] = set()
        if context.receiver:
            receiver = re.escape(context.receiver.encode("utf-8", "surrogatepass"))
            chars = context.language.identifier_chars.encode() + rb"\x80-\xff"
            after_dot = member_pattern(context.language.identifier_chars, context.language.member_operators).pattern
            written = re.compile(alone(receiver, rb"[" + chars + rb"]") + rb"\s*" + after_dot)  # the receiver's bytes first: scanned fast
            same_receiver = set(written.findall(before))
            same_after = set(written.findall(after))
        for word in scores:
            raw = word.encode("utf-8", "surrogatepass")
            if raw in same_after:
                scores.same_after.add(word)
            if raw in same_receiver:
                scores[word] += 4
                signals[word][SAME] = 1
            elif raw in same_after:  # above the words of the code before, where nothing else placed it
                scores[word] += SAME_AFTER if signals[word][0] == AFTER else 3
            elif raw in as_member:
                scores[word] += 2
                signals[word][MEMBER] = 1
    else:
        own_members = set(_OWN_MEMBER.findall(before)) if declaring is not None else set()
        for word in scores:
            raw = word.encode("utf-8", "surrogatepass")
            if as_member[raw] and as_member[raw] == count[raw]:
                if declaring is not None and raw not in declaring and raw in own_members:
                    scores[word] += 3
                elif not member:
                    scores[word] -= 3
                    signals[word][ONLY_MEMBER] = 1
