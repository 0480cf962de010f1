"""Multi-token items where code follows the cursor: the rest of the line, written by the insertion
decoder (models/insertion.py, Gu et al.'s InDIGO) from the tokens before the cursor and the code
after the line.

It answers where the line is empty after the cursor and code follows the line (a new line
written amid code). The tokens come from the document's tree, read only around the cursor
(``models.infill_data.tokens`` over a byte range), the identifier being typed left out: the
decoder fills from its start and the engine keeps what starts with the typed prefix. Fills are
kept by the tokens read, so typing the identifier's next characters costs nothing more.

In the server the decoding never holds a request: a list answered before its fill is ready
says so (``None``: the tokens are *wanted*), and the worker decodes them once no message has
come for server.QUIET seconds (typing pauses), a step at a time, giving way to the next message
(``fill_wanted(stop)``); the next keystroke's list has the items.

Imports torch (through the decoder): only the model thread uses it.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
from collections import OrderedDict
from pathlib import Path

from ..context import CompletionContext
from ..models.infill_data import flags_of, tokens
from ..models.infill_decode import InsertionDecoder
from .chains import Chain

log = logging.getLogger(__name__)
_CODE = re.compile(rb"\S")  # something written after the line (searched in place: no copy of the rest)

READ_BEFORE = 1024  # bytes read before the cursor at a time, until they hold the tokens the decoder reads
KEY_BEFORE, KEY_AFTER = 4096, 1024  # at most; the bytes a fill is kept by
KEPT = 32  # fills remembered
BUDGET = 0.25  # seconds of decoding at most per new context (given way to any message meanwhile)
RESULTS = 3


class Infiller:
    """A loaded insertion decoder, answering completion contexts."""

    def __init__(self, decoder: InsertionDecoder, budget: float, beam: int = 2):
        self.decoder, self.budget, self.beam = decoder, budget, beam
        self._kept: OrderedDict[bytes, list[Chain]] = OrderedDict()
        # the last fill asked for and not ready: its key and what reads its tokens (a copy of
        # the tree, which later edits leave as it is)
        self.wanted: tuple | None = None

    @classmethod
    def load(cls, path: Path, device, budget: float = BUDGET) -> Infiller:
        return cls(InsertionDecoder.load(path, str(device)), budget)

    def chains(self, context: CompletionContext, wait: bool = True) -> list[Chain] | None:
        """The likeliest rests of the line, as multi-token items (``Chain``: text, probability,
        first token); none where the line goes on after the cursor or nothing follows it.
        Without ``wait``, None where they are not decoded yet (they are then ``wanted``)."""
        data, tree = context.data, context.tree
        if tree is None:
            return []
        eol = data.find(b"\n", context.cursor)
        eol = len(data) if eol < 0 else eol
        if data[context.cursor:eol].strip() or _CODE.search(data, eol) is None:
            return []
        start = context.prefix_start
        # the tokens read are a function of these bytes: the key, without reading the tree
        key = hashlib.blake2b(data[max(0, start - KEY_BEFORE):start] + b"\x00" + data[eol:eol + KEY_AFTER],
                              digest_size=16).digest()
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        if not wait:
            self.wanted = (key, tree.copy(), data, start, eol)
            return None
        return self._fill(key, tree, data, start, eol) or []

    def fill_wanted(self, stop) -> None:
        """Decode the fill last wanted, unless ``stop()`` turns true first (then it is not kept:
        the next list asks again)."""
        if self.wanted is not None:
            key, *where = self.wanted
            self.wanted = None
            if key not in self._kept:
                self._fill(key, *where, stop=stop)

    def _fill(self, key: bytes, tree, data: bytes, start: int, eol: int, stop=None) -> list[Chain] | None:
        try:
            left, right = self._left(tree, data, start), self._right(tree, data, eol)
            found = self.decoder.fill(left, right, beam=self.beam, results=RESULTS, budget=self.budget, stop=stop)
        except Exception:  # a decoder's failure costs its items, never the list
            log.exception("infill failed")
            found = []
        if found is None:
            return None
        out = [Chain(f.text, math.exp(f.logp), f.tokens[0]) for f in found if len(f.tokens) > 1]
        self._kept[key] = out
        while len(self._kept) > KEPT:
            self._kept.popitem(last=False)
        return out

    def _left(self, tree, data: bytes, end: int) -> list[tuple[str, int]]:
        want = self.decoder.model.config.left
        lo = end
        while True:
            lo = max(0, lo - READ_BEFORE)
            toks = [t for t in tokens(tree, lo, end) if t.end <= end]
            if len(toks) >= want or lo == 0 or end - lo >= KEY_BEFORE:
                break
        toks = toks[-want:]
        return [(t.text, f) for t, f in zip(toks, flags_of(toks, data))]

    def _right(self, tree, data: bytes, start: int) -> list[tuple[str, int]]:
        toks = tokens(tree, start, min(len(data), start + KEY_AFTER))[:self.decoder.model.config.right]
        return [(t.text, f) for t, f in zip(toks, flags_of(toks, data))]
