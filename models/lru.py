"""A least-recently-used map under a cap on the sum of its values' sizes (each value's size is
given when it is stored). The newest entry always stays, whatever its size. Used for the
flatten memo's subtrees (models/flatten.py), the server's per-document model sessions
(server/engines/incremental.py) and the open documents' word counts (server/sources/open_documents.py)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SizedLRU(Generic[K, V]):
    def __init__(self, cap: int):
        self.cap = cap
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self.size = 0  # the sum of the entries' sizes

    def get(self, key: K) -> V | None:
        """The value stored under ``key``, now the most recently used; None if there is none."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[0]

    def put(self, key: K, value: V, size: int) -> None:
        """Store (or replace and re-measure) ``value``, then drop the least recently used
        entries while over the cap."""
        self.pop(key)
        self._entries[key] = (value, size)
        self.size += size
        while self.size > self.cap and len(self._entries) > 1:
            _, (_, dropped) = self._entries.popitem(last=False)
            self.size -= dropped

    def pop(self, key: K) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self.size -= entry[1]

    def clear(self) -> None:
        self._entries.clear()
        self.size = 0

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[K]:
        """Keys, least recently used first."""
        return iter(list(self._entries))
