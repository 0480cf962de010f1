"""A causal transformer over node sequences with tree positional encodings and a pointer.

Input at step t: type and value embeddings (summed), with ``parent`` an embedding of the
predicted node's parent's type too, plus the position signal:
- ``tree``: the tree positional encoding of element t *and* of the node being predicted
  (element t + 1, whose place in the partial tree is known while completing: Shiv & Quirk's
  decoder aligns outputs with their positions the same way), each through its own projection;
- ``sequential``: sinusoidal encodings of the position along the lane;
- ``both``: the sum.
Pre-norm decoder layers, attention through ``scaled_dot_product_attention``; no query attends
to another file or to the future.

A KV cache instead of a fixed context (as Transformer-XL): each layer keeps the keys and values
of its last ``memory`` positions, detached, and the next segment attends to them. That is the
training state carried across segments, like the LSTM's, and the cache at inference: a new
element costs attention over the cached positions, not a re-read of the context.

Heads as in the pointer LSTM, so the losses, ranks and evaluation are shared (models/scoring.py):
next type and next value (adaptive softmax) from the final state h_t, or with ``combine`` from
G_t = tanh(W [h_t; c_t]) as the LSTM's (c_t the pointer's attention context: what the window
holds reaches the vocabulary heads too), a pointer over the last ``window`` positions of the
same file (bilinear scores of the final states) and the switch s_t = sigmoid(W [h_t; c_t]).
"""

from __future__ import annotations

import contextlib
from dataclasses import asdict, dataclass, field

import torch
from torch import nn
from torch.nn import functional as F

from .heads import ValueScores, value_head
from .pointer_lstm import ContextAttention, Output
from .settings import from_dict
from .tree_positions import PositionConfig, TreePositionalEncoding

SIGNALS = ("tree", "sequential", "both")


@dataclass
class TransformerConfig:
    arch: str = "tree-transformer"
    positions: str = "tree"  # which position signal: tree, sequential, both
    tree: dict = field(default_factory=lambda: {"kind": "binary", "degree": 2, "depth": 32})
    copies: int = 4  # tree encodings, each with its own p
    d_model: int = 256
    layers: int = 4
    heads: int = 8
    ff: int = 1024
    dropout: float = 0.0
    memory: int = 200  # cached positions per layer (the context beyond the current segment)
    window: int = 50  # how far back the pointer copies
    vocab: int = 10_000
    cutoffs: tuple[int, ...] = (2_000,)
    parent: bool = False  # add an embedding of the predicted node's parent's type to the input
    combine: bool = False  # heads read G = tanh(W [h; c]) (the pointer's context c), as the LSTM's do

    def __post_init__(self) -> None:
        if self.arch != "tree-transformer":
            raise ValueError(f"not a tree-transformer configuration (arch {self.arch!r})")
        if self.positions not in SIGNALS:
            raise ValueError(f"positions must be one of {', '.join(SIGNALS)}, not {self.positions!r}")
        if self.d_model % self.heads:
            raise ValueError("d_model must be a multiple of heads")
        if self.memory < self.window:
            raise ValueError("memory must cover the pointer's window")
        self.cutoffs = tuple(self.cutoffs)
        PositionConfig(**self.tree)  # raises on a bad tree setting

    @property
    def tree_config(self) -> PositionConfig:
        return PositionConfig(**self.tree)

    @property
    def uses_tree(self) -> bool:
        return self.positions in ("tree", "both")

    # what the shared data pipeline and evaluation ask of a model
    attends = True
    points = True

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> TransformerConfig:
        return from_dict(cls, data, "model settings")


@dataclass
class Memory:
    """The KV cache: per layer, the keys and values of the last ``memory`` positions; the final
    states of the last ``window`` (what the pointer reads); files and lane positions."""

    keys: torch.Tensor  # (layers, B, M, d)
    values: torch.Tensor  # (layers, B, M, d)
    finals: torch.Tensor  # (B, L, d)
    files: torch.Tensor  # (B, M), -1 for an empty slot
    step: torch.Tensor  # (B,) how many positions each lane has read (for sequential encodings)

    def detach(self) -> Memory:
        return Memory(self.keys.detach(), self.values.detach(), self.finals.detach(), self.files, self.step)

    def select(self, index: torch.Tensor) -> Memory:
        """The lanes ``index`` (B',), in that order: one cache per hypothesis of a beam."""
        return Memory(self.keys.index_select(1, index), self.values.index_select(1, index),
                      self.finals.index_select(0, index), self.files.index_select(0, index),
                      self.step.index_select(0, index))

    def nbytes(self) -> int:
        return sum(t.element_size() * t.nelement() for t in (self.keys, self.values, self.finals, self.files, self.step))


class Layer(nn.Module):
    def __init__(self, d: int, heads: int, ff: int, dropout: float):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.norm2 = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, ff), nn.GELU(), nn.Linear(ff, d))
        self.dropout = dropout

    def forward(self, x: torch.Tensor, cached_k: torch.Tensor, cached_v: torch.Tensor,
                allowed: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        # x (B, T, d) this segment; cached_k/v (B, M, d); allowed (B, T, M + T)
        B, T, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=-1)
        k, v = torch.cat([cached_k, k], dim=1), torch.cat([cached_v, v], dim=1)

        def split(t: torch.Tensor) -> torch.Tensor:
            return t.view(B, -1, self.heads, d // self.heads).transpose(1, 2)

        # in bfloat16, the CPU's attention backward takes 3x float32's time (the products around
        # it gain more than that): under CPU autocast the attention alone stays float32
        in_float = x.device.type == "cpu" and torch.is_autocast_enabled("cpu")
        with torch.autocast("cpu", enabled=False) if in_float else contextlib.nullcontext():
            a = F.scaled_dot_product_attention(*(split(t).float() if in_float else split(t) for t in (q, k, v)),
                                               attn_mask=allowed.unsqueeze(1), dropout_p=self.dropout if self.training else 0.0)
        x = x + self.out(a.transpose(1, 2).reshape(B, T, d))
        return x + F.dropout(self.ff(self.norm2(x)), self.dropout, self.training), k, v


class TreeTransformer(ValueScores, nn.Module):
    def __init__(self, config: TransformerConfig, n_types: int, n_values: int):
        super().__init__()
        self.config = config
        self.n_types, self.n_values = n_types, n_values
        d = config.d_model
        self.type_embedding = nn.Embedding(n_types, d)
        self.value_embedding = nn.Embedding(n_values, d)
        if config.uses_tree:
            self.tree_encoding = TreePositionalEncoding(config.tree_config, config.copies, d)
            self.here = nn.Linear(self.tree_encoding.size, d, bias=False)
            self.next = nn.Linear(self.tree_encoding.size, d, bias=False)
        if config.parent:
            self.parent_embedding = nn.Embedding(n_types, d)
        self.layers = nn.ModuleList(Layer(d, config.heads, config.ff, config.dropout) for _ in range(config.layers))
        self.norm = nn.LayerNorm(d)
        self.pointer = ContextAttention(d)
        self.type_head = nn.Linear(d, n_types)
        self.value_head = value_head(d, n_values, config.cutoffs)
        self.switch = nn.Linear(2 * d, 1)
        if config.combine:
            self.combine = nn.Linear(2 * d, d)

    def initial_state(self, batch: int, device: torch.device | str = "cpu") -> Memory:
        c = self.config
        zeros = torch.zeros(c.layers, batch, c.memory, c.d_model, device=device)
        return Memory(zeros, zeros.clone(), torch.zeros(batch, c.window, c.d_model, device=device),
                      torch.full((batch, c.memory), -1, dtype=torch.long, device=device),
                      torch.zeros(batch, dtype=torch.long, device=device))

    def forward(self, types: torch.Tensor, values: torch.Tensor, files: torch.Tensor, parent_distance: torch.Tensor,
                parent_type: torch.Tensor, state: Memory, positions: torch.Tensor | None = None,
                next_positions: torch.Tensor | None = None, last: bool = False) -> Output:
        """As PointerLSTM.forward (``last`` too), plus the tree position codes of the inputs and
        of the nodes they predict (models/tree_positions.py). With ``parent`` the type of the
        predicted node's parent joins the input, as the LSTM's parent = type does (the tree
        positions say where that parent is, not what it is); its distance is not used."""
        c = self.config
        B, T = types.shape
        M, L = c.memory, c.window
        x = self.type_embedding(types) + self.value_embedding(values)
        if c.parent:
            x = x + self.parent_embedding(parent_type)
        if c.uses_tree:
            if positions is None or next_positions is None:
                raise ValueError("a tree-transformer needs the tree positions of its inputs")
            x = x + self.here(self.tree_encoding(positions)) + self.next(self.tree_encoding(next_positions))
        steps = state.step.unsqueeze(1) + torch.arange(T, device=types.device)  # (B, T)
        if c.positions in ("sequential", "both"):
            x = x + _sinusoid(steps, c.d_model)
        key_files = torch.cat([state.files, files], dim=1)  # (B, M + T)
        t = torch.arange(T, device=types.device).unsqueeze(1)
        k = torch.arange(M + T, device=types.device).unsqueeze(0)
        causal = (k <= M + t) & (k > t)  # the M positions before t, and t itself
        allowed = causal.unsqueeze(0) & (key_files.unsqueeze(1) == files.unsqueeze(2))  # (B, T, M + T)
        keys, vals = [], []
        for i, layer in enumerate(self.layers):
            x, k_i, v_i = layer(x, state.keys[i], state.values[i], allowed)
            keys.append(k_i[:, -M:])
            vals.append(v_i[:, -M:])
        h = self.norm(x)
        finals = torch.cat([state.finals, h], dim=1)  # (B, L + T, d)
        memory = Memory(torch.stack(keys), torch.stack(vals), finals[:, -L:], key_files[:, -M:], state.step + T)
        if last:  # the queries: the last input's only
            h, files, t = h[:, -1:], files[:, -1:], t[-1:]
        Q = h.shape[1]
        # the pointer: keys t-L+1 .. t of the same file
        pointer_files = key_files[:, M - L:]
        pk = torch.arange(L + T, device=types.device).unsqueeze(0)
        band = (pk <= L + t) & (pk > t)
        pointer_allowed = band.unsqueeze(0) & (pointer_files.unsqueeze(1) == files.unsqueeze(2))
        weights, context = self.pointer(h, finals, pointer_allowed)
        index = (t + 1 + torch.arange(L, device=types.device)).unsqueeze(0).expand(B, Q, L)
        alpha = weights.gather(2, index)  # (B, Q, L), oldest first
        h_c = torch.cat([h, context], dim=-1)
        switch = torch.sigmoid(self.switch(h_c)).squeeze(-1)
        g = torch.tanh(self.combine(h_c)) if c.combine else h
        return Output(self.type_head(g), g, alpha, switch, memory)


def _sinusoid(steps: torch.Tensor, d: int) -> torch.Tensor:
    """The original transformer's encodings of integer positions (..., ) -> (..., d)."""
    half = torch.arange(d // 2, device=steps.device, dtype=torch.float32)
    angle = steps.unsqueeze(-1).float() / (10_000 ** (2 * half / d))
    return torch.cat([angle.sin(), angle.cos()], dim=-1)
