"""The suffix pointer: completing inside a file, copy names from the code after the cursor.

Li et al.'s pointer copies from the L elements before the predicted node. Inside a file the
code below says more: a name read there and bound nowhere above is probably being declared
now (``total = |`` ... ``print(total)``), a parameter being typed is what the body reads, a
member being typed is often one written below on the same receiver. The suffix pointer attends
from the model's output g_t over the S elements after the predicted node (those with a value;
an element's key is its type and value embeddings) with, besides the bilinear score, two pair
features whose weights the query sets and a bias per distance:

- seen: the element's value occurs before the predicted node;
- same: the element follows an element with the current input's value (``self.`` ... ``self.x``);
- distance: how many elements after the predicted node, in buckets (two per doubling).

A gate r_t takes a share of the output distribution:

    P(v) = (1 - r_t) P_model(v) + r_t * sum over slots j holding v of beta_t[j]

With no code after the cursor, r_t = 0 and the model is exactly what it was. The pointer is
trained on a frozen model (models/suffix_train.py), so no prefix-only figure can move.
"""

from __future__ import annotations

import math

import torch
from torch import nn

BUCKETS = 18  # distances 0 .. 511 and beyond


def distance_buckets(distance: torch.Tensor) -> torch.Tensor:
    """0 -> 0, 1 -> 2, 2 -> 3, 3-4 -> 4, 5 -> 5, 6-7 -> 6 ...: two buckets per doubling."""
    return torch.floor(2 * torch.log2(distance.clamp(min=0).float() + 1)).long().clamp(max=BUCKETS - 1)


class SuffixPointer(nn.Module):
    def __init__(self, hidden: int, embedding: int):
        super().__init__()
        self.key = nn.Linear(embedding, hidden)
        self.query = nn.Linear(hidden, hidden, bias=False)
        self.pair = nn.Linear(hidden, 2)  # per query: the weights of "seen" and "same"
        self.distance = nn.Embedding(BUCKETS, 1)
        self.gate = nn.Linear(2 * hidden, 1)
        self.scale = 1.0 / math.sqrt(hidden)

    def forward(self, g: torch.Tensor, embedded: torch.Tensor, allowed: torch.Tensor, seen: torch.Tensor,
                same: torch.Tensor, buckets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """g (B, T, H): the queries; embedded (B, K, E): the elements the queries may see;
        allowed, seen, same (B, T, K) bool; buckets (B or 1, T, K). Returns beta (B, T, K), all
        zero in a row with no allowed element, and the gate r (B, T), zero there too."""
        return self.attend(g, self.keys(embedded), allowed, seen, same, buckets)

    def keys(self, embedded: torch.Tensor) -> torch.Tensor:
        """The elements' keys (B, K, H) from their embeddings (B, K, E)."""
        return torch.tanh(self.key(embedded))

    def attend(self, g: torch.Tensor, keys: torch.Tensor, allowed: torch.Tensor, seen: torch.Tensor, same: torch.Tensor,
               buckets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``forward`` from the elements' keys."""
        scores = torch.einsum("bth,bkh->btk", self.query(g), keys) * self.scale
        weights = self.pair(g)  # (B, T, 2)
        scores = scores + weights[..., :1] * seen.to(scores.dtype) + weights[..., 1:] * same.to(scores.dtype)
        scores = scores + self.distance(buckets).squeeze(-1).to(scores.dtype)
        scores = scores.masked_fill(~allowed, float("-inf"))
        beta = torch.softmax(scores.float(), dim=-1).nan_to_num(0.0)
        context = beta.to(keys.dtype) @ keys
        gate = torch.sigmoid(self.gate(torch.cat([g, context.to(g.dtype)], dim=-1)).float()).squeeze(-1)
        return beta, torch.where(allowed.any(-1), gate, 0.0)


def pair_features(query_values: torch.Tensor, query_index: torch.Tensor, query_files: torch.Tensor,
                  values: torch.Tensor, first: torch.Tensor, previous: torch.Tensor, files: torch.Tensor,
                  offset: int, size: int, empty: int, pad: int) -> tuple[torch.Tensor, ...]:
    """The pair tensors (B, T, K) for queries t (B, T) over elements k (B, K), where query t's
    slot s is element ``t + offset + s`` (s < ``size``): allowed, seen, same, buckets.
    query_values: the raw value of the input at t; query_index: its place in its file's
    sequence; values, first, previous, files: each element's raw value, the place of its
    value's first occurrence in its file, the raw value of the element before it, its file."""
    T, K = query_values.shape[1], values.shape[1]
    t = torch.arange(T, device=values.device).unsqueeze(1)
    k = torch.arange(K, device=values.device).unsqueeze(0)
    slot = k - t - offset  # (T, K)
    band = (slot >= 0) & (slot < size)
    allowed = band.unsqueeze(0) & (files.unsqueeze(1) == query_files.unsqueeze(2))
    allowed &= ((values != empty) & (values != pad)).unsqueeze(1)
    seen = first.unsqueeze(1) <= query_index.unsqueeze(2)
    # the element before slot 0 is the predicted node itself: never compared
    same = (previous.unsqueeze(1) == query_values.unsqueeze(2)) & (slot > 0).unsqueeze(0)
    same &= ((query_values != empty) & (query_values != pad)).unsqueeze(2)
    return allowed, seen, same, distance_buckets(slot).unsqueeze(0)


def first_occurrence(values: torch.Tensor, files: torch.Tensor) -> torch.Tensor:
    """For each position, the position of the first occurrence of its value in its file."""
    n = values.numel()
    if n == 0:
        return torch.zeros(0, dtype=torch.int64)
    key = files.long() * (int(values.max()) + 1) + values.long()
    order = torch.sort(key, stable=True).indices
    ordered = key[order]
    starts = torch.ones(n, dtype=torch.bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    group = torch.cummax(torch.where(starts, torch.arange(n), 0), 0).values
    first = torch.empty(n, dtype=torch.int64)
    first[order] = order[group]
    return first
