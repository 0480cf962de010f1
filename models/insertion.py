"""Insertion decoding with an inferred order (Gu, Liu & Cho, "Insertion-based Decoding with
automatically Inferred Generation Order", TACL 2019: Transformer-InDIGO), filling the rest of a
line between the cursor and the code after it (models/infill_data.py).

The encoder reads the context: the LEFT tokens before the cursor, a cursor token, the RIGHT
tokens after the line, each as its token's embedding plus its flags' (starts a line, follows a
space, named) plus its place relative to the cursor.

The decoder generates the span's tokens in an order it chooses. Its inputs are the tokens in the
order they were generated, after two boundary tokens (<s> standing for the cursor, </s> for the
code after the line). Their positions are relative only (sec. 3.1): r_ij in {left, same, right}
of token j seen from token i, which never changes once both are placed, so each step's states
are those of a causal pass, as in a left-to-right Transformer. Self-attention adds Shaw et al.'s
relative key term (eq. 7):

    e_ij = (x_i W^Q)(x_j W^K + A_{r_ij})^T / sqrt(d_head)

At step t the last state h_t predicts (sec. 4.1):
- the word, eq. 5, with a copy pointer over the context added (the paper leaves copying out;
  here most identifiers are the file's own): p(w) = (1 - g) softmax(h_t E^T)_w + g sum_{s: text
  s = w} softmax(h_t W^C M^T)_s, g = sigmoid(w_g . h_t), M the encoder's states;
- where it goes, eq. 6: a pointer over two keys per placed token (insert to its left: h_j W^L,
  to its right: h_j W^R), queried by h_t W^P + e(w), e(w) the chosen word's vector. A gap
  between two placed tokens is reached from either side, so its probability sums the two
  (eq. 9); left of <s> and right of </s> are not allowed. Generation ends with <eod>.

Training orders (sec. 4.2): left to right (``l2r``), or the model's own (``sao``, Searched
Adaptive Order, greedily: at each step the remaining token with the highest p(word) p(place),
searched under dropout as the paper's noise). ``loss`` takes any order.

A token's vector is its embedding plus, where its text occurs in the context, a projection of
the encoder's state at the occurrence nearest the cursor: how an identifier outside the
vocabulary is told apart from another.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import nn

from .infill_data import LEFT, MAX_SPAN, RIGHT

PAD, UNK, BOS, EOS, EOD, CURSOR = range(6)
SPECIALS = ("<pad>", "<unk>", "<s>", "</s>", "<eod>", "<cursor>")
LEFT_OF, SAME, RIGHT_OF = 0, 1, 2
NEVER = -1e4  # log p of what cannot be: finite, so that a sum over nothing has a gradient


@dataclass
class InsertionConfig:
    vocab: int = 8000  # texts, besides SPECIALS
    d: int = 192
    heads: int = 4
    enc_layers: int = 2
    dec_layers: int = 2
    ff: int = 768
    dropout: float = 0.1
    left: int = LEFT
    right: int = RIGHT
    max_span: int = MAX_SPAN

    @classmethod
    def from_dict(cls, data: dict) -> InsertionConfig:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})

    def to_dict(self) -> dict:
        return asdict(self)


class RelativeSelfAttention(nn.Module):
    """Causal self-attention over the generated tokens with relative positions (eq. 7)."""

    def __init__(self, d: int, heads: int, dropout: float):
        super().__init__()
        self.h, self.dh = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d)
        self.rel = nn.Parameter(torch.randn(3, d // heads) * 0.02)  # A: left, same, right
        self.out = nn.Linear(d, d)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, rel: torch.Tensor, allowed: torch.Tensor | None, past=None):
        """x (B, T, d); rel (B, T, T') with T' = T plus the ``past`` rows' keys and values,
        which the new rows attend to as well (a decode's earlier steps). Returns the output
        and every row's keys and values."""
        B, T, D = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.h, self.dh).permute(2, 0, 3, 1, 4)  # each (B, h, T, dh)
        if past is not None:
            k, v = torch.cat([past[0], k], 2), torch.cat([past[1], v], 2)
        scores = q @ k.transpose(-1, -2)  # (B, h, T, T')
        bias = (q @ self.rel.t()).gather(3, rel.unsqueeze(1).expand(B, self.h, T, k.shape[2]))
        scores = (scores + bias) / math.sqrt(self.dh)
        if allowed is not None:
            scores = scores.masked_fill(~allowed.unsqueeze(1), float("-inf"))
        y = self.drop(scores.softmax(-1)) @ v  # (B, h, T, dh)
        return self.out(y.transpose(1, 2).reshape(B, T, D)), (k, v)


class DecoderLayer(nn.Module):
    def __init__(self, c: InsertionConfig):
        super().__init__()
        self.n1, self.n2, self.n3 = nn.LayerNorm(c.d), nn.LayerNorm(c.d), nn.LayerNorm(c.d)
        self.self_attn = RelativeSelfAttention(c.d, c.heads, c.dropout)
        self.cross = nn.MultiheadAttention(c.d, c.heads, dropout=c.dropout, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(c.d, c.ff), nn.GELU(), nn.Linear(c.ff, c.d))
        self.drop = nn.Dropout(c.dropout)

    def memory_kv(self, memory: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The cross-attention's keys and values of the context, (B, h, S, dh) each: computed
        once for every step of a decode."""
        B, S, D = memory.shape
        h = self.cross.num_heads
        w, b = self.cross.in_proj_weight, self.cross.in_proj_bias
        kv = F.linear(memory, w[D:], b[D:]).view(B, S, 2, h, D // h).permute(2, 0, 3, 1, 4)
        return kv[0], kv[1]

    def forward(self, x, rel, allowed, kv, memory_pad, past=None):
        """Returns the rows' outputs and the self-attention's keys and values (``past``'s too)."""
        y, cache = self.self_attn(self.n1(x), rel, allowed, past)
        x = x + self.drop(y)
        B, T, D = x.shape
        h = self.cross.num_heads
        q = F.linear(self.n2(x), self.cross.in_proj_weight[:D], self.cross.in_proj_bias[:D])
        q = q.view(B, T, h, D // h).transpose(1, 2)
        k, v = kv
        if k.shape[0] != B:  # one context read by several hypotheses
            k, v, memory_pad = k.expand(B, -1, -1, -1), v.expand(B, -1, -1, -1), memory_pad.expand(B, -1)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=~memory_pad[:, None, None, :],
                                           dropout_p=self.cross.dropout if self.training else 0.0)
        x = x + self.drop(self.cross.out_proj(y.transpose(1, 2).reshape(B, T, D)))
        return x + self.drop(self.ff(self.n3(x))), cache


@dataclass
class Steps:
    """A decode's inputs so far (incremental decoding): per decoder layer the self-attention's
    keys and values (B, h, T, dh), and the last layer's states (B, T, d), the place keys' rows."""

    caches: list[tuple[torch.Tensor, torch.Tensor]]
    hidden: torch.Tensor

    def select(self, rows: torch.Tensor) -> Steps:
        return Steps([(k[rows], v[rows]) for k, v in self.caches], self.hidden[rows])


class InsertionTransformer(nn.Module):
    def __init__(self, config: InsertionConfig):
        super().__init__()
        c = self.config = config
        self.embed = nn.Embedding(len(SPECIALS) + c.vocab, c.d)
        self.flag_embed = nn.Embedding(8, c.d)
        self.position = nn.Embedding(c.left + 1 + c.right, c.d)
        layer = nn.TransformerEncoderLayer(c.d, c.heads, c.ff, c.dropout, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, c.enc_layers, enable_nested_tensor=False)
        self.enc_norm = nn.LayerNorm(c.d)
        self.occurrence = nn.Linear(c.d, c.d)  # the context state added to a token found there
        self.layers = nn.ModuleList(DecoderLayer(c) for _ in range(c.dec_layers))
        self.norm = nn.LayerNorm(c.d)
        self.copy_query = nn.Linear(c.d, c.d)
        self.gate = nn.Linear(c.d, 1)
        self.place_query = nn.Linear(c.d, c.d)
        self.place_keys = nn.Linear(c.d, 2 * c.d)  # W^L, W^R
        self.drop = nn.Dropout(c.dropout)

    # -- the context ------------------------------------------------------------------

    def encode(self, src: torch.Tensor, flags: torch.Tensor, pad: torch.Tensor) -> torch.Tensor:
        """src, flags, pad: (B, S) with S = left + 1 + right, the cursor at index ``left``."""
        positions = torch.arange(src.shape[1], device=src.device)
        x = self.drop(self.embed(src) + self.flag_embed(flags) + self.position(positions))
        return self.enc_norm(self.encoder(x, src_key_padding_mask=pad))  # (B, S, d)

    def vectors(self, ids: torch.Tensor, occurrence: torch.Tensor, memory: torch.Tensor) -> torch.Tensor:
        """Tokens' vectors: embedding plus the context state where the text occurs (-1: nowhere)."""
        found = occurrence.clamp(min=0)
        states = memory.gather(1, found.unsqueeze(-1).expand(*found.shape, memory.shape[-1]))
        return self.embed(ids) + self.occurrence(states) * (occurrence >= 0).unsqueeze(-1)

    # -- the decoder --------------------------------------------------------------------

    def memory_kv(self, memory: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
        return [layer.memory_kv(memory) for layer in self.layers]

    def decode(self, ids, occurrence, rel, pad, memory, memory_pad, kv=None) -> torch.Tensor:
        """ids, occurrence: (B, T) in generation order; rel: (B, T, T); returns states (B, T, d).
        ``kv``: ``memory_kv(memory)``, where several decodes read the same context."""
        kv = kv if kv is not None else self.memory_kv(memory)
        T = ids.shape[1]
        causal = torch.ones(T, T, dtype=torch.bool, device=ids.device).tril()
        allowed = causal.unsqueeze(0) & ~pad.unsqueeze(1)
        allowed = allowed | torch.eye(T, dtype=torch.bool, device=ids.device)  # a pad row attends to itself
        x = self.drop(self.vectors(ids, occurrence, memory))
        for layer, layer_kv in zip(self.layers, kv):
            x, _ = layer(x, rel, allowed, layer_kv, memory_pad)
        return self.norm(x)

    def step(self, steps: Steps | None, vectors: torch.Tensor, rel: torch.Tensor, kv, memory_pad) -> Steps:
        """Incremental decoding (eval): the states of new rows ``vectors`` (B, R, d) placed after
        the inputs ``steps`` holds, ``rel`` (B, R, T + R) their relations to all inputs. Each row
        attends to the earlier ones and to the rows before it among the new (causal, as decode)."""
        B, R, _ = vectors.shape
        T = 0 if steps is None else steps.hidden.shape[1]
        allowed = torch.ones(R, T + R, dtype=torch.bool, device=vectors.device).tril(T).unsqueeze(0)
        x, caches = vectors, []
        for i, (layer, layer_kv) in enumerate(zip(self.layers, kv)):
            x, cache = layer(x, rel, allowed, layer_kv, memory_pad, None if steps is None else steps.caches[i])
            caches.append(cache)
        h = self.norm(x)
        return Steps(caches, h if steps is None else torch.cat([steps.hidden, h], 1))

    def word_scores(self, h, memory, memory_pad):
        """log p_vocab (B, T, V), log alpha over the context (B, T, S), log g and log (1 - g)."""
        vocab = (h @ self.embed.weight.t()).float().log_softmax(-1)
        copy = (self.copy_query(h) @ memory.transpose(1, 2)).float()
        copy = copy.masked_fill(memory_pad.unsqueeze(1), float("-inf")).log_softmax(-1)
        g = self.gate(h).float().squeeze(-1)
        return vocab, copy, F.logsigmoid(g), F.logsigmoid(-g)

    def place_scores(self, h_query, word_vectors, h_keys, key_allowed):
        """log p(place) over 2 keys per placed token: h_query, word_vectors (B, N, d) for N
        candidate words; h_keys (B, K, d); key_allowed (B, N, 2K) -> (B, N, 2K)."""
        B, K, d = h_keys.shape
        keys = self.place_keys(h_keys).view(B, K, 2, d).reshape(B, 2 * K, d)  # key 2j: left of j, 2j+1: right
        q = self.place_query(h_query) + word_vectors
        scores = (q @ keys.transpose(1, 2)).float() / math.sqrt(d)
        return scores.masked_fill(~key_allowed, float("-inf")).log_softmax(-1)


def relations(places: torch.Tensor) -> torch.Tensor:
    """places (B, T): each input's place in the line (<s> -1, </s> span length) -> r (B, T, T)."""
    diff = places.unsqueeze(1) - places.unsqueeze(2)  # place_j - place_i
    return (diff.sign() + 1).long()  # j left of i: 0, same: 1, right: 2


def word_logp(vocab, copy, log_g, log_not_g, target, target_copy, vocab_ok) -> torch.Tensor:
    """log p(target) of the word mixture: (B, T) from target ids (B, T), the context positions
    holding the target's text (B, T, S) and whether the vocabulary's term counts (B, T)."""
    from_vocab = vocab.gather(-1, target.clamp(min=0).unsqueeze(-1)).squeeze(-1) + log_not_g
    from_vocab = from_vocab.masked_fill(~vocab_ok, NEVER)
    from_copy = copy.masked_fill(~target_copy, NEVER).logsumexp(-1) + log_g
    return torch.logaddexp(from_vocab, from_copy)


def neighbours(places: torch.Tensor, placed: torch.Tensor, target_place: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """For a word going to ``target_place`` (B, N): the index of the placed input just left of
    it and just right of it, among inputs with ``places`` (B, K) of which ``placed`` (B, N, K)."""
    p = places.unsqueeze(1)  # (B, 1, K)
    t = target_place.unsqueeze(-1)  # (B, N, 1)
    big = torch.full_like(p - t, 1 << 20)
    left_gap = torch.where(placed & (p < t), t - p, big)
    right_gap = torch.where(placed & (p > t), p - t, big)
    return left_gap.argmin(-1), right_gap.argmin(-1)


def place_targets(places, placed, target_place) -> torch.Tensor:
    """The two keys (B, N, 2K) that put a word at ``target_place``: right of its left
    neighbour, left of its right neighbour (eq. 9)."""
    left, right = neighbours(places, placed, target_place)
    K = places.shape[1]
    out = torch.zeros(*target_place.shape, 2 * K, dtype=torch.bool, device=places.device)
    out.scatter_(-1, (2 * left + 1).unsqueeze(-1), True)
    out.scatter_(-1, (2 * right).unsqueeze(-1), True)
    return out


def key_mask(placed: torch.Tensor) -> torch.Tensor:
    """Allowed keys (..., 2K) among placed inputs (..., K): not left of <s> (input 0), not right
    of </s> (input 1)."""
    allowed = placed.repeat_interleave(2, dim=-1).clone()
    allowed[..., 0] = False
    allowed[..., 3] = False
    return allowed
