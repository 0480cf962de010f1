"""Vocabularies and pointer labels (Li et al., thesis §3.2: "unknown word problem").

Values are numbered by descending training frequency (values seen only in other splits come
last), so "the K most frequent training values" is simply "ids below ``bound(K)``": one
numbering serves every vocabulary size. A value at or past the bound is out of vocabulary
(OoV); if it occurred within the last ``window`` elements, the pointer's target is its nearest
earlier occurrence, otherwise the target is UNK (no loss; counted wrong in evaluation).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

PAD, UNK, EOF = "<PAD>", "<UNK>", "<EOF>"
SPECIALS = (PAD, UNK, EOF)
PAD_ID, UNK_ID, EOF_ID = 0, 1, 2
NO_POINTER = 0  # pointer label: nothing to copy


def node_kinds(types: Sequence[str]) -> tuple[list[str], torch.Tensor]:
    """The node kinds of annotated types (``call|10``: the type without Li et al.'s two bits), in
    the order they first appear, and each type's kind index (for ``index_add`` over its probabilities)."""
    kinds: dict[str, int] = {}
    index = torch.tensor([kinds.setdefault(name.partition("|")[0], len(kinds)) for name in types])
    return list(kinds), index


def bound(trained: int, k: int) -> int:
    """The id bound of a vocabulary of the K most frequent of ``trained`` training symbols."""
    return len(SPECIALS) + min(k, trained)


@dataclass
class Vocabulary:
    """Symbols numbered by descending frequency, after the specials."""

    symbols: list[str]
    trained: int  # how many symbols (after the specials) were seen in training

    def __post_init__(self) -> None:
        self.ids = {s: i for i, s in enumerate(self.symbols)}

    @classmethod
    def from_counts(cls, counts: Counter[str], extra: Iterable[str] = ()) -> Vocabulary:
        """``counts`` (training split) first by frequency; then ``extra`` symbols seen only
        elsewhere, so every symbol of every split has an id."""
        ranked = [s for s, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if s not in SPECIALS]
        seen = set(ranked)
        tail = sorted({s for s in extra if s not in seen and s not in SPECIALS})
        return cls(list(SPECIALS) + ranked + tail, len(ranked))

    def __len__(self) -> int:
        return len(self.symbols)

    def encode(self, symbols: Iterable[str]) -> list[int]:
        return [self.ids.get(s, UNK_ID) for s in symbols]

    def bound(self, k: int) -> int:
        """Ids below this are the specials and the K most frequent training symbols."""
        return bound(self.trained, k)

    def save(self, path: Path) -> None:
        data = {"symbols": self.symbols, "trained": self.trained}
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Vocabulary:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(data["symbols"], data["trained"])


def previous_occurrence(values: torch.Tensor, files: torch.Tensor) -> torch.Tensor:
    """For each position, how far back the same value last occurred in the same file (0: never).
    A stable sort by value keeps positions in order, so neighbours in sorted order are
    consecutive occurrences."""
    n = values.numel()
    distance = torch.zeros(n, dtype=torch.int64)
    if n < 2:
        return distance
    order = torch.sort(values, stable=True).indices
    v, f = values[order], files[order]
    same = (v[1:] == v[:-1]) & (f[1:] == f[:-1])
    distance[order[1:][same]] = order[1:][same] - order[:-1][same]
    return distance


def pointer_labels(values: Sequence[int], bound: int, window: int) -> list[int]:
    """For each position of one file: how far back the nearest earlier occurrence of its value
    is, when the value is OoV (id >= ``bound``, see Vocabulary.bound) and that occurrence lies
    within ``window``; NO_POINTER otherwise."""
    v = torch.as_tensor(list(values), dtype=torch.int64)
    back = previous_occurrence(v, torch.zeros_like(v))
    return torch.where((v >= bound) & (back <= window), back, NO_POINTER).tolist()
