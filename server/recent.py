"""A dict bounded to its most recently used keys: the per-document caches of a server that may
hold thousands of open documents."""

from __future__ import annotations

from collections import OrderedDict
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Recent(OrderedDict[K, V]):
    """Keeps the ``limit`` keys most recently stored or read with ``get``; storing one more
    drops the least recently used."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit = limit

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        if key in self:
            self.move_to_end(key)
            return self[key]
        return default

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.limit:
            self.popitem(last=False)
