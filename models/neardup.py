"""Near-duplicate files: MinHash over shingles of the node sequence, with LSH banding.

Two files are near-duplicates when the estimated Jaccard similarity of their sets of
``SHINGLE``-element shingles (type and value of consecutive elements) is at least
``THRESHOLD``: a copied module with a few edits, a vendored file with a changed header. The
sequence, not the text, so comments and layout do not hide a copy. ``PERMUTATIONS`` hash
functions of the form (a x + b) mod p give the signature, in torch, one file at a time; its
``BANDS`` bands are bucketed, and only files sharing a bucket are compared.

Deterministic (crc32, fixed seeds): the same corpus builds the same way on every machine.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import torch

SHINGLE = 5
PERMUTATIONS = 64
BANDS = 16  # of 4 rows: pairs at Jaccard 0.8 share a band with probability ~0.9999
THRESHOLD = 0.8
PRIME = (1 << 31) - 1

_generator = torch.Generator().manual_seed(20181)
_A = torch.randint(1, PRIME, (PERMUTATIONS, 1), generator=_generator, dtype=torch.int64)
_B = torch.randint(0, PRIME, (PERMUTATIONS, 1), generator=_generator, dtype=torch.int64)


def signature(types: Sequence[str], values: Sequence[str]) -> torch.Tensor | None:
    """The MinHash signature of a node sequence; None when it has too few shingles to judge."""
    tokens = [f"{t}\x00{v}" for t, v in zip(types, values)]
    if len(tokens) < SHINGLE + 4:
        return None
    shingles = {zlib.crc32("\x01".join(tokens[i:i + SHINGLE]).encode("utf-8", "surrogatepass"))
                for i in range(len(tokens) - SHINGLE + 1)}
    h = torch.tensor(sorted(shingles), dtype=torch.int64).unsqueeze(0) % PRIME
    return ((_A * h + _B) % PRIME).min(dim=1).values  # (PERMUTATIONS,)


class NearDuplicates:
    """Files seen so far; ``seen`` says whether a new one nearly repeats one of them."""

    def __init__(self) -> None:
        self._buckets: list[dict[bytes, list[int]]] = [{} for _ in range(BANDS)]
        self._signatures: list[torch.Tensor] = []

    def seen(self, types: Sequence[str], values: Sequence[str]) -> bool:
        sig = signature(types, values)
        if sig is None:
            return False
        rows = PERMUTATIONS // BANDS
        keys = [str(sig[b * rows:(b + 1) * rows].tolist()).encode("ascii") for b in range(BANDS)]
        candidates = {i for band, key in enumerate(keys) for i in self._buckets[band].get(key, ())}
        for i in candidates:
            if float((self._signatures[i] == sig).float().mean()) >= THRESHOLD:
                return True
        index = len(self._signatures)
        self._signatures.append(sig)
        for band, key in enumerate(keys):
            self._buckets[band].setdefault(key, []).append(index)
        return False
