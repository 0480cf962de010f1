"""Attention-only tree traversal (Ahmed, Samee & Mercer, "You Only Need Attention to Traverse
Trees", ACL 2019) over the node sequence before the cursor, read by the pointer LSTM's decoder
(``arch: pointer-subtrees``).

A subtree is encoded bottom-up by attention over its children alone, no recurrence: the rows
of node v are its own embedding x_v and its children's representations (the dependency-tree
form X_d of eq. 1), and

    a_v = MultiHead(Q = x_v W^Q, K = X_d W^K, V = X_d W^V)        (eqs. 3-4, one W per role for
                                                                   every node, as the paper)
    r_v = LayerNorm(tanh((a_v + x_v) W + b))                       (eq. 8's residual and tanh)

The paper's composition is table 3's "M" (multi-head attention) with the node's own row as the
only query, so eq. 8's element-wise sum runs over that one row; the LayerNorm keeps deep
subtrees' sums bounded. The composition is applied ``steps`` times to every node of the window
at once (a masked attention whose keys are each node's children): after k steps a subtree of
height <= k is encoded exactly, a deeper one to its top k levels.

The decoder reads the *frontier*: the closed subtrees before the cursor that no closed subtree
contains (the left siblings of every node on the path from the root to the predicted node). A
node j before query t is on it exactly when no node between it and the predicted node is
shallower and one is as shallow: ``min(depth(j+1 .. t+1)) == depth(j)``. Depths come from the
parent distances the model reads anyway, so training and the server compute them the same way,
and a subtree's summary only ever reads nodes of that subtree, all before the cursor.

A parent more than ``window`` elements back counts as outside the window (depth 1, no parent
slot), so a sequence read in pieces gives what it gives read whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

FAR = 1 << 20  # a depth larger than any real one


@dataclass
class TreeMemory:
    """The last ``window`` inputs of a lane, as the subtree encoder reads them again."""

    types: torch.Tensor  # (B, W)
    values: torch.Tensor  # (B, W)
    up: torch.Tensor  # (B, W) elements back to the input's parent; 0: a root
    depth: torch.Tensor  # (B, W)
    files: torch.Tensor  # (B, W) -1 for an empty slot
    distance: torch.Tensor  # (B,) the last input's parent distance: that of the next input

    @classmethod
    def empty(cls, batch: int, window: int, device: torch.device | str) -> TreeMemory:
        zeros = torch.zeros(batch, window, dtype=torch.long, device=device)
        return cls(zeros, zeros.clone(), zeros.clone(), zeros.clone(), torch.full_like(zeros, -1),
                   torch.zeros(batch, dtype=torch.long, device=device))

    def select(self, index: torch.Tensor) -> TreeMemory:
        return TreeMemory(*(t.index_select(0, index) for t in vars(self).values()))

    def nbytes(self) -> int:
        return sum(t.element_size() * t.nelement() for t in vars(self).values())


def depths(memory: TreeMemory, files: torch.Tensor, parent_distance: torch.Tensor,
           window: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Each new input's distance back to its parent and its depth, (B, T) each, and the parent
    slot of every slot of the memory and the inputs (``parent_slots``, (B, W + T)). The parent
    distance read with input i is that of input i + 1 (what it predicts); input 0's is the
    memory's. Distance 0 or a parent in another file: a root (depth 0); a parent farther back
    than ``window`` or in an empty slot: depth 1."""
    B, T = files.shape
    W = memory.depth.shape[1]
    up = torch.cat([memory.distance.unsqueeze(1), parent_distance[:, :-1]], dim=1)  # (B, T)
    all_files = torch.cat([memory.files, files], dim=1)
    parents = parent_slots(torch.cat([memory.up, up], dim=1), all_files, window)
    slot = torch.arange(W, W + T, device=files.device).unsqueeze(0) - up
    valid = (up > 0) & (up <= window) & (slot >= 0)
    parent_file = torch.where(valid, all_files.gather(1, torch.where(valid, slot, 0)), -1)
    root = (up <= 0) | ((parent_file >= 0) & (parent_file != files))
    all_depth = torch.cat([memory.depth, torch.where(root, 0, 1)], dim=1)  # without a parent slot
    rows = torch.arange(B, device=files.device)
    for i in range(T):  # a parent's depth may be this segment's
        p = parents[:, W + i]
        all_depth[:, W + i] = torch.where(p >= 0, all_depth[rows, p.clamp(min=0)] + 1, all_depth[:, W + i])
    return up, all_depth[:, W:], parents


def parent_slots(up: torch.Tensor, files: torch.Tensor, window: int) -> torch.Tensor:
    """(B, N) the slot of each slot's parent within the same window and file, -1 where there is none."""
    n = torch.arange(up.shape[1], device=up.device).unsqueeze(0)
    slot = n - up
    ok = (up > 0) & (up <= window) & (slot >= 0)
    slot = torch.where(ok, slot, 0)
    same = files.gather(1, slot) == files
    return torch.where(ok & same & (files >= 0), slot, -1)


def frontier(depth: torch.Tensor, files: torch.Tensor, queries: torch.Tensor, next_depth: torch.Tensor,
             window: int) -> torch.Tensor:
    """(B, Q, N): the slots on the frontier of each query slot (``queries``, (Q,)), whose
    predicted node has ``next_depth`` (B, Q)."""
    N = depth.shape[1]
    x = torch.arange(N, device=depth.device)
    later = x.view(1, 1, N) > queries.view(1, -1, 1)  # (1, Q, N)
    d = depth.unsqueeze(1).masked_fill(later, FAR)  # (B, Q, N)
    at_or_after = d.flip(-1).cummin(-1).values.flip(-1)  # min over j .. query
    after = torch.cat([at_or_after[..., 1:], torch.full_like(at_or_after[..., :1], FAR)], dim=-1)
    after = torch.minimum(after, next_depth.unsqueeze(-1))
    query_files = files[:, queries]  # (B, Q)
    inside = ~later & (x.view(1, 1, N) > queries.view(1, -1, 1) - window)
    return (after == depth.unsqueeze(1)) & inside & (files.unsqueeze(1) == query_files.unsqueeze(-1)) \
        & (files >= 0).unsqueeze(1)


class SubtreeEncoder(nn.Module):
    """Eqs. 1-8 as above: every slot's subtree representation, (B, N, dim)."""

    def __init__(self, d_in: int, dim: int, heads: int, steps: int):
        super().__init__()
        if dim % heads:
            raise ValueError("subtree_dim must be a multiple of subtree_heads")
        self.heads, self.steps = heads, steps
        self.project = nn.Linear(d_in, dim)
        self.q, self.k, self.v = (nn.Linear(dim, dim, bias=False) for _ in range(3))
        self.out = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def _split(self, t: torch.Tensor) -> torch.Tensor:
        B, N, D = t.shape
        return t.view(B, N, self.heads, D // self.heads).transpose(1, 2)  # (B, h, N, d)

    def forward(self, x: torch.Tensor, parents: torch.Tensor) -> torch.Tensor:
        B, N, _ = x.shape
        x = self.project(x)
        children = parents.unsqueeze(1) == torch.arange(N, device=x.device).view(1, N, 1)  # (B, j, c)
        q, k_self, v_self = self._split(self.q(x)), self._split(self.k(x)), self._split(self.v(x))
        scale = 1.0 / math.sqrt(q.shape[-1])
        own = (q * k_self).sum(-1, keepdim=True) * scale  # (B, h, N, 1)
        r = self.norm(torch.tanh(self.out(x)))  # height 0: a node alone
        for _ in range(self.steps):
            k, v = self._split(self.k(r)), self._split(self.v(r))
            scores = (q @ k.transpose(-1, -2) * scale).masked_fill(~children.unsqueeze(1), float("-inf"))
            weights = torch.softmax(torch.cat([own, scores], dim=-1), dim=-1)
            a = weights[..., :1] * v_self + weights[..., 1:] @ v  # (B, h, N, d)
            a = a.transpose(1, 2).reshape(B, N, -1)
            r = self.norm(torch.tanh(self.out(a + x)))
        return r
