"""Losses and ranks of the pointer-mixture output (thesis eqs 3.6-3.7).

The output distribution is [s w ; (1 - s) l]: a value target in the vocabulary is scored by
s w[target], an OoV target by (1 - s) l[slot] at the window slot the pointer labels name.
For ranking (evaluation and completion), window slots are read as the values they hold: a slot
holding an in-vocabulary value adds its mass to that value, slots holding the same OoV value
add up, so every candidate is a distinct value.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from .batches import NONE, Batch
from .pointer_lstm import Output
from .vocab import PAD_ID

EPS = 1e-9


@dataclass
class LossParts:
    type_sum: torch.Tensor
    value_sum: torch.Tensor
    type_count: int
    value_count: int


def loss(model: nn.Module, out: Output, batch: Batch) -> LossParts:
    """Summed negative log-likelihoods of the next types and values, and how many were scored."""
    scored = batch.scored
    type_sum = F.cross_entropy(out.type_logits[scored], batch.target_type[scored], reduction="sum")
    vocab_rows = batch.target_value != NONE
    g = out.g[vocab_rows]
    log_p = model.value_target_log_prob(g, batch.target_value[vocab_rows]) if g.numel() else g.new_zeros(0)
    value_sum = -log_p.sum()
    count = int(vocab_rows.sum())
    if out.switch is not None:
        value_sum = value_sum - torch.log(out.switch[vocab_rows] + EPS).sum()
        pointer_rows = batch.target_pointer != NONE
        if pointer_rows.any():
            slot = batch.target_pointer[pointer_rows].unsqueeze(1)
            p = out.alpha[pointer_rows].gather(1, slot).squeeze(1)
            value_sum = value_sum - (torch.log(p + EPS) + torch.log(1 - out.switch[pointer_rows] + EPS)).sum()
            count += int(pointer_rows.sum())
    return LossParts(type_sum, value_sum, int(scored.sum()), count)


def window_values(memory_raw: torch.Tensor, raw_values: torch.Tensor, window: int) -> torch.Tensor:
    """The raw value ids in each query's window, oldest first: (B, T, L) from the memory's
    (B, L) and the segment's (B, T) inputs."""
    keys = torch.cat([memory_raw, raw_values], dim=1)  # (B, L + T)
    T = raw_values.shape[1]
    index = torch.arange(T).unsqueeze(1) + 1 + torch.arange(window).unsqueeze(0)  # (T, L)
    return keys[:, index]


def value_scores(model: nn.Module, g: torch.Tensor, switch: torch.Tensor | None, alpha: torch.Tensor | None,
                 slot_values: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Rows g (N, H). Returns the vocabulary scores (N, V) with in-vocabulary slot mass added,
    the OoV slot scores (N, L) with equal values summed, and a (N, L) mask of the slots that
    stand for a distinct OoV value (the first slot of each)."""
    # the head runs where the model is (a GPU while training validates); the scores come back to g's device
    vocab = model.value_log_probs(g.to(next(model.parameters()).device)).exp().to(g.device)
    if switch is None or alpha is None or slot_values is None:
        empty = vocab.new_zeros(vocab.shape[0], 0)
        return vocab, empty, empty.bool()
    return mixture(vocab * switch.unsqueeze(1), alpha * (1 - switch).unsqueeze(1), slot_values)


def mixture(vocab: torch.Tensor, mass: torch.Tensor, slot_values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The vocabulary's share (N, V) and the slots' masses (N, S) holding raw values (N, S) as
    ``value_scores`` returns them: in-vocabulary slot mass added to the vocabulary, equal OoV
    values summed, the first slot of each distinct OoV value marked."""
    V = vocab.shape[1]
    in_vocab = slot_values < V
    vocab = vocab.scatter_add(1, torch.where(in_vocab, slot_values, 0), torch.where(in_vocab, mass, 0))
    same = slot_values.unsqueeze(2) == slot_values.unsqueeze(1)  # (N, S, S)
    oov_scores = (same.float() @ mass.unsqueeze(2)).squeeze(2)
    earlier = torch.tril(same, diagonal=-1).any(2)
    distinct = ~in_vocab & ~earlier & (slot_values != PAD_ID)
    return vocab, torch.where(distinct, oov_scores, 0), distinct


def ranks(vocab: torch.Tensor, oov: torch.Tensor, distinct: torch.Tensor, slot_values: torch.Tensor | None,
          target: torch.Tensor) -> torch.Tensor:
    """1-based rank of each row's target value among all candidates; a target with no mass
    (an UNK target, or an OoV value not in the window) gets a rank past any cut-off."""
    N, V = vocab.shape
    in_vocab = target < V
    score = torch.where(in_vocab, vocab.gather(1, target.clamp(max=V - 1).unsqueeze(1)).squeeze(1), 0)
    if oov.shape[1]:
        hit = (slot_values == target.unsqueeze(1)) & distinct
        score = torch.where(in_vocab, score, (oov * hit).sum(1))
    above = (vocab > score.unsqueeze(1)).sum(1) + ((oov > score.unsqueeze(1)) & distinct).sum(1)
    rank = above + 1
    return torch.where(score > 0, rank, torch.full_like(rank, 1 << 30))


def type_ranks(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    score = logits.gather(1, target.unsqueeze(1))
    return (logits > score).sum(1) + 1
