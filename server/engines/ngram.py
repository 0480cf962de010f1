"""A cache n-gram model of the buffer: how the tokens just before the cursor went on before.

Code repeats itself locally (Tu et al., "On the localness of software", FSE 2014; Hellendoorn
and Devanbu, "Are deep neural networks the best choice for modeling source code?", FSE 2017):
the same call takes the same first argument, `self.assertEqual(` follows `self.` in a test,
`x` follows `for x in`. The neural model sees the buffer through a 600-element window and a
vocabulary; this sees the last CONTEXT bytes exactly. It counts what followed each earlier
occurrence of the last 1..ORDER lexical tokens before the identifier at the cursor, and
interpolates the orders with Witten-Bell smoothing down to a uniform distribution over the
window's distinct tokens. Its log-probability is one of the features the neural engine ranks a
candidate by (ranking/ranker.py); ORDER was chosen on valid-split files.

It reads only the text before the identifier being typed, so what is typed of it never counts.
It must stay cheap (it runs on every keystroke that starts a new identifier): tokens are
memoised per line, and each order's continuations are found by one regular-expression scan.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from ..context import CompletionContext

ORDER = 6  # the longest context, in tokens
CONTEXT = 16 * 1024  # bytes read before the cursor's identifier: 32 KB scored no better
SEP = "\x00"  # between tokens in the joined string that the scans read; never inside one
MEMO_LINES = 10_000  # lines whose tokens are remembered, per language (a window holds ~400)


class Continuations:
    """What followed the last 1..ORDER tokens before the cursor, each time they occurred."""

    def __init__(self, tokens: list[str]):
        # per order n = 1, 2, ...: (what followed the last n tokens, how many times in all);
        # an order never seen ends the chain, since every longer one is then unseen too
        self.orders: list[tuple[Counter[str], int]] = []
        self.floor = 1.0 / (len(set(tokens)) + 1)
        joined = SEP + SEP.join(tokens) + SEP
        for n in range(1, min(ORDER, len(tokens)) + 1):
            found = _followers(joined, SEP + SEP.join(tokens[-n:]))
            if not found:
                break
            self.orders.append((found, found.total()))
        self._log_unseen = math.log(self.probability(SEP))  # SEP: a word no order has seen
        self._logs: dict[str, float] = {}

    def probability(self, word: str) -> float:
        """Witten-Bell interpolation of the orders, from the uniform floor up."""
        p = self.floor
        for counts, total in self.orders:
            distinct = len(counts)
            p = (counts[word] + distinct * p) / (total + distinct)
        return p

    def log_probability(self, word: str) -> float:
        if not self.orders or word not in self.orders[0][0]:  # unseen by order 1: by every order
            return self._log_unseen
        log_p = self._logs.get(word)
        if log_p is None:
            log_p = self._logs[word] = math.log(self.probability(word))
        return log_p


def _followers(joined: str, context: str) -> Counter[str]:
    """The tokens that follow each occurrence of ``context`` (SEP, then tokens joined by SEP) in
    ``joined``, in the order they occur. Occurrences do not overlap, so a context that overlaps
    itself ("a a") may be counted less often. ``str.find``, not a regular expression: each
    request's contexts are new, and a pattern compiled per order cost more than the scans."""
    found: Counter[str] = Counter()
    step = len(context)  # a match takes the context; the SEP after it may start the next one
    at = joined.find(context + SEP)
    while at != -1:
        start = at + step + 1
        end = joined.find(SEP, start)
        if end > start:
            found[joined[start:end]] += 1
        at = joined.find(context + SEP, at + step)
    return found


def window(context: CompletionContext) -> bytes:
    """The CONTEXT bytes before the identifier at the cursor: all the model reads."""
    return context.data[max(0, context.prefix_start - CONTEXT):context.prefix_start]


class Tokenizer:
    """Lexical tokens: identifiers and numbers, and single other characters. No token spans a
    line, so each line's tokens are remembered: the window moves, its lines mostly stay."""

    def __init__(self, identifier_chars: str):
        self._pattern = re.compile(r"[" + identifier_chars + r"\w]+|[^\s" + SEP + "]")
        self._lines: dict[bytes, list[str]] = {}

    def tokens(self, window: bytes) -> list[str]:
        if len(self._lines) > MEMO_LINES:
            self._lines.clear()
        out: list[str] = []
        for line in window.split(b"\n"):
            tokens = self._lines.get(line)
            if tokens is None:
                tokens = self._lines[line] = self._pattern.findall(line.decode("utf-8", "replace"))
            out += tokens
        return out
