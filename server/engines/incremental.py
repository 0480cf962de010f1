"""Per-document model state along the node sequence: after an edit, the model reads again only
from the first element that changed.

What the model reads at a cursor (its *context*) is the document's elements from an *anchor* up
to the predicted node, from an empty state:
- with fewer than ``limit`` elements before the cursor, from the document's first element, as
  in training (a file is read from its start);
- otherwise from the anchor element the document's session keeps, while it lies among the last
  ``limit`` elements and at least ``context`` before the cursor; else a new anchor, ``context``
  elements before the cursor.
So one request reads at most ``limit`` elements whatever the file size, and typing on moves the
anchor once every ``limit - context`` elements. The bounds are the model's (``Bounds``): the
LSTM's state after 100 elements read from an empty one ranks as a longer read's does (on the
validation packages' identifiers of Python, JavaScript and TypeScript, top-1 and top-5 within
three identifiers of 300 either way against reading 200 to 300; 64 to 128 lost four at Python's
k = 0: docs/decisions.md), so it reads 100 to 200, and a document's first request (or one whose
state was dropped) reads half as much. Go's reads 200 to 300 (LONGER_READS): with 100 to 200 its
k = 0 top-1 fell by four identifiers of 300, the same in two runs. The tree-transformer reads 200
to 300: whenever a half-typed statement changes the tree around the cursor, every element's tree
position changes and it reads its whole context again; 200 to 300 instead of 400 to 600 cut its
p99 by a third, with held-out editing accuracy within a few lists either way.

A session keeps, per document, the inputs read from its anchor (one key per element) and
snapshots of the model after some of them: at the cut points a request names (where the
statement and the expression at the cursor start), at the end, and at the last multiple of
EVERY before the cut points that a read passes. A request compares its inputs with the
session's, resumes from the last snapshot at or before the first difference, and reads only
the rest. The answer is the from-scratch reading of the same context
(tests/test_incremental.py), to float rounding (bfloat16's where the LSTM reads in it:
models/pointer_lstm.py, fast_reads). Sessions are dropped on didClose and, least
recently used first, when all of them together pass a memory cap.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, is_dataclass, replace
from typing import Any

import torch

from ..models.lru import SizedLRU


@dataclass(frozen=True)
class Bounds:
    context: int  # elements read at least, where the document has them
    limit: int  # elements read at most


LSTM_BOUNDS = Bounds(100, 200)
TRANSFORMER_BOUNDS = Bounds(200, 300)
LONGER_READS = {"go": Bounds(200, 300)}  # LSTMs that rank better reading more: Go's (k=0 top-1 +4 of 300)
LIMIT = max(LSTM_BOUNDS.limit, TRANSFORMER_BOUNDS.limit)  # what any model reads at most
EVERY = 64  # a read keeps a snapshot at the last multiple of EVERY it passes before the cut points
EXTRA = 6  # snapshots kept besides those (cut points, ends), most recent first
MEMORY_CAP = 32 << 20  # bytes of snapshots across all documents, per model (packed: ~120 documents)


@dataclass
class Snapshot:
    """The model after reading ``index`` elements of a session, and its output at the last one
    (what it predicts for the element at ``index``); no output at 0."""

    state: Any  # pointer_lstm.State or tree_transformer.Memory
    type_logits: torch.Tensor | None = None  # (n_types,)
    g: torch.Tensor | None = None  # (width,)
    alpha: torch.Tensor | None = None  # (L,)
    switch: float | None = None
    shared: bool = False  # the empty state every session starts from: held once, counted in none

    def nbytes(self) -> int:
        if self.shared:
            return 0
        extra = sum(t.element_size() * t.nelement() for t in (self.type_logits, self.g, self.alpha) if t is not None)
        return self.state.nbytes() + extra


def compact(state: Any) -> Any:
    """``state`` with each tensor that is a view into a larger block copied out alone, so that a
    snapshot holds what it counts (``nbytes``): the attention memory after a read is a slice of
    the old memory and the new outputs side by side."""
    changed = {}
    for name, value in vars(state).items():
        if isinstance(value, torch.Tensor):
            if value.untyped_storage().nbytes() > value.element_size() * value.nelement():
                changed[name] = value.clone()
        elif is_dataclass(value):
            inner = compact(value)
            if inner is not value:
                changed[name] = inner
    return replace(state, **changed) if changed else state


@dataclass
class Session:
    """What a document's model has read: the anchor, the inputs since, snapshots along them."""

    anchor: tuple[int, str, str] | None  # start byte, type, value of the first element; None: the file's start
    keys: list[tuple] = field(default_factory=list)
    snapshots: dict[int, Snapshot] = field(default_factory=dict)
    recent: list[int] = field(default_factory=list)  # snapshot indexes off the EVERY grid, newest last

    def resume_point(self, keys: list[tuple]) -> int:
        """The last snapshot at or before the first input that differs from ``keys``, and before
        the last input (whose output is needed)."""
        same = 0
        for old, new in zip(self.keys, keys):
            if old != new:
                break
            same += 1
        limit = min(same, len(keys) - 1)
        return max((i for i in self.snapshots if i <= limit), default=0)

    def keep(self, index: int, snapshot: Snapshot) -> None:
        self.snapshots[index] = snapshot
        if index % EVERY:
            if index in self.recent:
                self.recent.remove(index)
            self.recent.append(index)
            while len(self.recent) > EXTRA:
                self.snapshots.pop(self.recent.pop(0), None)

    def truncate(self, keys: list[tuple], valid: int) -> None:
        """The session now reads ``keys``; snapshots past the first ``valid`` inputs are stale."""
        self.keys = keys
        for i in [i for i in self.snapshots if i > valid]:
            del self.snapshots[i]
        self.recent = [i for i in self.recent if i <= valid]

    def nbytes(self) -> int:
        return sum(s.nbytes() for s in self.snapshots.values())


class Sessions(SizedLRU):
    """Sessions by document URI, least recently used first, under a memory cap: ``put`` stores
    (or re-measures) a session, then evicts others while over the cap; the newest one always
    stays."""

    def __init__(self, cap: int = MEMORY_CAP):
        super().__init__(cap)

    def put(self, uri: str, session: Session) -> None:
        super().put(uri, session, session.nbytes())

    def forget(self, uri: str) -> None:
        self.pop(uri)

    def total(self) -> int:
        return self.size

    def uris(self) -> Iterable[str]:
        return list(self)


def anchor_index(starts: list[int], types: list[str], values: list[str], session: Session | None,
                 bounds: Bounds = LSTM_BOUNDS) -> int:
    """Where the context starts among the last elements before the cursor (``starts``, ``types``,
    ``values``: at most ``bounds.limit`` of them, oldest first)."""
    n = len(starts)
    if n < bounds.limit:
        return 0  # the whole document before the cursor
    if session is not None and session.anchor is not None:
        start, kind, value = session.anchor
        # the anchor element by its start byte (pre-order starts never decrease), then its content
        lo, hi = 0, n
        while lo < hi:
            mid = (lo + hi) // 2
            if starts[mid] < start:
                lo = mid + 1
            else:
                hi = mid
        for i in range(lo, min(n, lo + 8)):
            if starts[i] != start:
                break
            if types[i] == kind and values[i] == value and n - i >= bounds.context:
                return i
    return n - bounds.context
