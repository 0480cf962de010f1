"""The parent-attention pointer-mixture LSTM (Li et al., IJCAI 2018; thesis ch. 3).

Equation numbers are the thesis':
- 3.1-3.3 context attention over the last L hidden states M_t = [h_{t-L+1} .. h_t]: scores,
  weights alpha_t, context c_t = M_t alpha_t. We score with a bilinear form (q = W h_t,
  score = q . m / sqrt(H)) instead of the additive tanh form: it is one batched matmul per
  segment instead of a (B, T, L, H) tensor, which is what makes training affordable on a CPU;
- 3.4 the parent vector p_t: the hidden state of the predicted node's parent (paper), or the
  parent's type embedding (the authors' released code); ``config.parent`` picks;
- 3.5 G_t = tanh(W_g [h_t; c_t; p_t]), the vocabulary distribution w_t from G_t;
- 3.6-3.7 the pointer distribution l_t = alpha_t and the switch s_t = sigmoid(W_s [h_t; c_t]);
  output [s_t w_t ; (1 - s_t) l_t].
Next-type and next-value are two heads on the same G_t (one model per language, not two).

Baselines from the same code (``config.arch``): ``vanilla`` (G_t = h_t), ``attention``
(context attention, no parent unless asked), ``pointer`` and ``pointer-random`` (the pointer's
weights random instead of alpha_t). ``pointer-subtrees`` adds Ahmed et al.'s attention-only
subtree encoder (models/subtrees.py): a second attention of h_t over the summaries of the closed
subtrees before the cursor, its context one more part of G_t's input. The value head is
``nn.AdaptiveLogSoftmaxWithLoss`` when the vocabulary is large: the full softmax dominates CPU
training time.

This module knows tensors only: batches come from models/batches.py, losses and metrics are
computed here from the log-probabilities, training is in models/train.py.
"""

from __future__ import annotations

import copy
import math
from dataclasses import asdict, dataclass

import torch
from torch import nn

from .heads import ValueScores, value_head
from .settings import from_dict
from .subtrees import SubtreeEncoder, TreeMemory, depths, frontier
from .suffix import SuffixPointer

ARCHS = ("vanilla", "attention", "pointer", "pointer-random", "pointer-subtrees")
PARENTS = ("none", "hidden", "type")
SHORT = 8  # inference on the CPU steps the LSTM by hand up to this many inputs (_stepwise)


def native_bfloat16() -> bool:
    """Whether this CPU multiplies bfloat16 in hardware (AVX-512 BF16 or AMX): elsewhere a
    bfloat16 LSTM is emulated, slower than float32."""
    cpu = torch.cpu
    return any(getattr(cpu, name, lambda: False)() for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported"))


@dataclass
class ModelConfig:
    arch: str = "pointer"
    parent: str = "hidden"
    type_dim: int = 64
    value_dim: int = 192
    hidden: int = 256
    window: int = 50  # L: attention memory, and how far back the pointer copies
    vocab: int = 10_000  # K: the most frequent training values; the rest go to the pointer
    cutoffs: tuple[int, ...] = (2_000,)  # adaptive softmax clusters; () for a full softmax
    suffix: int = 0  # S: elements after the predicted node the suffix pointer reads (models/suffix.py); 0: none
    # pointer-subtrees (models/subtrees.py): summary width, heads, composition steps, and how
    # many elements back the frontier reaches
    subtree_dim: int = 64
    subtree_heads: int = 4
    subtree_steps: int = 3
    subtree_window: int = 100

    def __post_init__(self) -> None:
        if self.arch not in ARCHS:
            raise ValueError(f"arch must be one of {', '.join(ARCHS)}, not {self.arch!r}")
        if self.parent not in PARENTS:
            raise ValueError(f"parent must be one of {', '.join(PARENTS)}, not {self.parent!r}")
        if self.subtrees and self.subtree_window > self.window:
            raise ValueError("subtree_window must be at most window")
        if self.suffix and not self.points:
            raise ValueError("a suffix pointer needs a pointer model (arch pointer)")
        self.cutoffs = tuple(self.cutoffs)

    @property
    def attends(self) -> bool:
        return self.arch != "vanilla"

    @property
    def points(self) -> bool:
        return self.arch in ("pointer", "pointer-random", "pointer-subtrees")

    @property
    def subtrees(self) -> bool:
        return self.arch == "pointer-subtrees"

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> ModelConfig:
        return from_dict(cls, data, "model settings")


@dataclass
class State:
    """What one lane carries from a segment to the next: the LSTM state and the attention
    memory (the last L hidden states, the file each came from, their input value ids)."""

    h: torch.Tensor  # (1, B, H)
    c: torch.Tensor  # (1, B, H)
    memory: torch.Tensor  # (B, L, H)
    memory_file: torch.Tensor  # (B, L) file id, -1 for an empty slot
    tree: TreeMemory | None = None  # pointer-subtrees: the inputs the subtree encoder reads again

    def detach(self) -> State:
        return State(self.h.detach(), self.c.detach(), self.memory.detach(), self.memory_file, self.tree)

    def select(self, index: torch.Tensor) -> State:
        """The lanes ``index`` (B',), in that order: one state per hypothesis of a beam."""
        return State(self.h.index_select(1, index), self.c.index_select(1, index),
                     self.memory.index_select(0, index), self.memory_file.index_select(0, index),
                     self.tree.select(index) if self.tree is not None else None)

    def packed(self) -> State:
        """The state to keep between requests: the attention memory in bfloat16 (half the bytes;
        exact where the fast reads wrote it, fast_reads), the rest as it is. The forward reads
        either."""
        if self.memory.dtype == torch.bfloat16:
            return self
        return State(self.h, self.c, self.memory.to(torch.bfloat16), self.memory_file, self.tree)

    def nbytes(self) -> int:
        return sum(t.element_size() * t.nelement() for t in (self.h, self.c, self.memory, self.memory_file)) \
            + (self.tree.nbytes() if self.tree is not None else 0)


@dataclass
class Output:
    type_logits: torch.Tensor  # (B, T, n_types)
    g: torch.Tensor  # (B, T, H): input of the value head
    alpha: torch.Tensor | None  # (B, T, L) pointer weights over the window, oldest first
    switch: torch.Tensor | None  # (B, T) probability of taking the vocabulary
    state: State


class ContextAttention(nn.Module):
    """Eqs 3.1-3.3 over a band: query t sees keys t-L+1 .. t of its own file."""

    def __init__(self, hidden: int):
        super().__init__()
        self.query = nn.Linear(hidden, hidden, bias=False)
        self.scale = 1.0 / math.sqrt(hidden)

    def forward(self, h: torch.Tensor, keys: torch.Tensor, allowed: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # h (B, T, H); keys (B, L + T, H); allowed (B, T, L + T)
        scores = torch.einsum("bth,bkh->btk", self.query(h), keys) * self.scale
        scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)  # a row with no key: all zero
        return weights, weights @ keys  # (B, T, L + T), (B, T, H)


class PointerLSTM(ValueScores, nn.Module):
    def __init__(self, config: ModelConfig, n_types: int, n_values: int):
        super().__init__()
        self.config = config
        self.n_types, self.n_values = n_types, n_values  # n_values: specials + K
        H = config.hidden
        self.type_embedding = nn.Embedding(n_types, config.type_dim)
        self.value_embedding = nn.Embedding(n_values, config.value_dim)
        self.lstm = nn.LSTM(config.type_dim + config.value_dim, H, batch_first=True)
        width = H
        if config.attends:
            self.attention = ContextAttention(H)
            width += H
        if config.parent == "hidden":
            width += H
        elif config.parent == "type":
            width += config.type_dim
        self.subtrees = None
        if config.subtrees:
            self.subtrees = SubtreeEncoder(config.type_dim + config.value_dim, config.subtree_dim,
                                           config.subtree_heads, config.subtree_steps)
            self.subtree_query = nn.Linear(H, config.subtree_dim, bias=False)
            width += config.subtree_dim
        self.combine = nn.Linear(width, H) if config.attends or config.parent != "none" else None
        self.type_head = nn.Linear(H, n_types)
        self.value_head = value_head(H, n_values, config.cutoffs)
        self.switch = nn.Linear(2 * H, 1) if config.points else None
        self.suffix = SuffixPointer(H, config.type_dim + config.value_dim) if config.suffix else None
        self._lstm_bf16: nn.LSTM | None = None  # fast_reads(): a bfloat16 copy, not a registered module

    def fast_reads(self, on: bool = True) -> bool:
        """Inference on a CPU with native bfloat16: reads of more than SHORT inputs run the
        recurrence in bfloat16 (its weights copied once; inputs, outputs and states stay
        float32), about twice as fast as float32 for a read of 250 inputs. The models were
        trained under bfloat16 autocast, where the LSTM ran in bfloat16 too. ``on=False``: every
        read in float32 again. Whether it is on."""
        if not on:
            self.__dict__["_lstm_bf16"] = None
        elif native_bfloat16() and self._lstm_bf16 is None:
            # outside state_dict and .parameters(): set past nn.Module's registration
            self.__dict__["_lstm_bf16"] = copy.deepcopy(self.lstm).to(torch.bfloat16).eval()
        return self._lstm_bf16 is not None

    def embed(self, types: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        """The input embeddings of elements: type and value, side by side."""
        return torch.cat([self.type_embedding(types), self.value_embedding(values)], dim=-1)

    def initial_state(self, batch: int, device: torch.device | str = "cpu") -> State:
        H, L = self.config.hidden, self.config.window
        zeros = torch.zeros(1, batch, H, device=device)
        tree = TreeMemory.empty(batch, self.config.subtree_window, device) if self.subtrees is not None else None
        return State(zeros, zeros.clone(), torch.zeros(batch, L, H, device=device),
                     torch.full((batch, L), -1, dtype=torch.long, device=device), tree)

    def forward(self, types: torch.Tensor, values: torch.Tensor, files: torch.Tensor, parent_distance: torch.Tensor,
                parent_type: torch.Tensor, state: State, positions: torch.Tensor | None = None,
                next_positions: torch.Tensor | None = None, last: bool = False) -> Output:
        """types, values, files (B, T): the inputs and the file each belongs to (a lane runs
        through many files; attention and pointer never cross into another one).
        parent_distance (B, T): how far back from the *predicted* node its parent is (1 = the
        current input); parent_type (B, T): that parent's type id. ``positions`` and
        ``next_positions`` (tree positions, read by the tree-transformer) are not used here.
        ``last``: the outputs for the last input only (T = 1 in them; the state is the same),
        which is all inference reads: attention and heads skip the others."""
        B, T = types.shape
        L = self.config.window
        x = self.embed(types, values)
        if not self.training and T <= SHORT and x.device.type == "cpu":
            h, (h_n, c_n) = _stepwise(self.lstm, x, state.h, state.c)
        elif self._lstm_bf16 is not None and not self.training and x.device.type == "cpu":
            h, (h_n, c_n) = self._lstm_bf16(x.bfloat16(), (state.h.bfloat16(), state.c.bfloat16()))
            h, h_n, c_n = h.float(), h_n.float(), c_n.float()
        else:
            h, (h_n, c_n) = self.lstm(x, (state.h, state.c))  # (B, T, H)
        keys = torch.cat([state.memory.to(h.dtype), h], dim=1)  # (B, L + T, H); a packed memory is bfloat16
        key_files = torch.cat([state.memory_file, files], dim=1)  # (B, L + T)
        new_state = State(h_n, c_n, keys[:, -L:], key_files[:, -L:])
        summaries = None
        if self.subtrees is not None:
            summaries, new_state.tree = self._subtrees(types, values, files, parent_distance, state.tree, last)
        if last:  # the queries: the last input's only
            h, files, parent_distance, parent_type = h[:, -1:], files[:, -1:], parent_distance[:, -1:], parent_type[:, -1:]
        Q = h.shape[1]
        t = torch.arange(T - Q, T, device=h.device).unsqueeze(1)  # query t is key L + t
        parts = [h]
        alpha = context = None
        if self.config.attends:
            k = torch.arange(L + T, device=h.device).unsqueeze(0)
            band = (k <= L + t) & (k > t)  # keys t-L+1 .. t
            allowed = band.unsqueeze(0) & (key_files.unsqueeze(1) == files.unsqueeze(2))
            weights, context = self.attention(h, keys, allowed)
            parts.append(context)
            # the window of query t, oldest first: keys t+1 .. t+L
            index = (t + 1 + torch.arange(L, device=h.device)).unsqueeze(0).expand(B, Q, L)
            alpha = weights.gather(2, index)  # (B, Q, L)
        if self.config.parent == "hidden":
            # the parent of the node after input t is input t + 1 - d, key L + t + 1 - d; a
            # parent farther back than the window is replaced by the current input (d = 1)
            d = parent_distance.clamp(min=1)
            d = torch.where(d > L, torch.ones_like(d), d)
            index = (L + t.T + 1 - d).unsqueeze(-1).expand(B, Q, h.shape[-1])
            parts.append(keys.gather(1, index))
        elif self.config.parent == "type":
            parts.append(self.type_embedding(parent_type))
        if summaries is not None:
            r, allowed = summaries
            scores = torch.einsum("bqd,bnd->bqn", self.subtree_query(h), r) / math.sqrt(r.shape[-1])
            weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1).nan_to_num(0.0)
            parts.append(weights @ r)
        g = torch.tanh(self.combine(torch.cat(parts, dim=-1))) if self.combine is not None else h
        switch = None
        if self.config.points:
            switch = torch.sigmoid(self.switch(torch.cat([h, context], dim=-1))).squeeze(-1)
            if self.config.arch == "pointer-random":
                alpha = _random_pointer(alpha)
        return Output(self.type_head(g), g, alpha, switch, new_state)

    def _subtrees(self, types: torch.Tensor, values: torch.Tensor, files: torch.Tensor, parent_distance: torch.Tensor,
                  memory: TreeMemory, last: bool) -> tuple[tuple[torch.Tensor, torch.Tensor], TreeMemory]:
        """The summaries of the memory's and the new inputs' subtrees (B, W + T, D), which of
        them each query reads (its frontier, (B, Q, W + T)), and the memory after the inputs."""
        W, T = memory.depth.shape[1], types.shape[1]
        up, depth, parents = depths(memory, files, parent_distance, W)
        all_types, all_values = torch.cat([memory.types, types], 1), torch.cat([memory.values, values], 1)
        all_up, all_depth = torch.cat([memory.up, up], 1), torch.cat([memory.depth, depth], 1)
        all_files = torch.cat([memory.files, files], 1)
        r = self.subtrees(self.embed(all_types, all_values), parents)
        queries = torch.arange(W + T - (1 if last else T), W + T, device=types.device)
        d = parent_distance[:, -queries.numel():]  # the predicted node's parent, d back from the query
        slot = queries.unsqueeze(0) + 1 - d
        known = (d > 0) & (d <= W) & (slot >= 0)
        slot = torch.where(known, slot, 0)
        parent_depth = all_depth.gather(1, slot)
        parent_file = torch.where(known, all_files.gather(1, slot), -1)
        next_depth = torch.where(parent_file >= 0, parent_depth + 1, 1)
        allowed = frontier(all_depth, all_files, queries, next_depth, W)
        kept = TreeMemory(all_types[:, -W:], all_values[:, -W:], all_up[:, -W:], all_depth[:, -W:],
                          all_files[:, -W:], parent_distance[:, -1])
        return (r, allowed), kept


def _stepwise(lstm: nn.LSTM, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, tuple]:
    """``lstm(x, (h, c))`` one step at a time: for the few inputs of a keystroke on a CPU,
    where the fused kernel's set-up costs several times the arithmetic (0.6 ms against 0.1 ms
    for one input here)."""
    xw = nn.functional.linear(x, lstm.weight_ih_l0, lstm.bias_ih_l0 + lstm.bias_hh_l0)  # (B, T, 4H)
    h, c = h[0], c[0]
    w_hh = lstm.weight_hh_l0.t()
    out = []
    for t in range(x.shape[1]):
        i, f, g, o = torch.addmm(xw[:, t], h, w_hh).chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        out.append(h)
    return torch.stack(out, 1), (h.unsqueeze(0), c.unsqueeze(0))


def _random_pointer(alpha: torch.Tensor) -> torch.Tensor:
    """The pointer-random baseline: random weights over the same allowed window slots."""
    allowed = alpha > 0
    noise = torch.rand_like(alpha).masked_fill(~allowed, 0.0)
    return noise / noise.sum(-1, keepdim=True).clamp(min=1e-9)
