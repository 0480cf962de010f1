"""The value head both architectures share: a distribution over the K vocabulary values from a
row of the model's output, through ``nn.AdaptiveLogSoftmaxWithLoss`` when the vocabulary is
large (the full softmax dominates CPU training time), else a linear layer and a softmax."""

from __future__ import annotations

import functools

import torch
from torch import nn
from torch.nn import functional as F


def value_head(width: int, n_values: int, cutoffs: tuple[int, ...]) -> nn.Module:
    kept = [c for c in cutoffs if c < n_values - 1]
    return nn.AdaptiveLogSoftmaxWithLoss(width, n_values, kept, div_value=4.0) if kept else nn.Linear(width, n_values)


@functools.cache
def _log_softmax_dtype(device: str, dtype: torch.dtype) -> torch.dtype:
    """The dtype of log_softmax's result for a ``dtype`` input under ``device``'s autocast."""
    with torch.autocast(device, dtype=dtype):
        return torch.log_softmax(torch.zeros(1, 1, dtype=dtype, device=device), 1).dtype


class ValueScores:
    """For a module with a ``value_head`` made by ``value_head``."""

    value_head: nn.Module

    def value_log_probs(self, g: torch.Tensor) -> torch.Tensor:
        """log w_t over the vocabulary, (N, n_values), for rows g (N, width)."""
        if isinstance(self.value_head, nn.AdaptiveLogSoftmaxWithLoss):
            return self.value_head.log_prob(g)
        return F.log_softmax(self.value_head(g), dim=-1)

    def value_target_log_prob(self, g: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        """log w_t[target] for rows g (N, width), targets (N,) in the vocabulary."""
        if isinstance(self.value_head, nn.AdaptiveLogSoftmaxWithLoss):
            device = g.device.type
            if torch.is_autocast_enabled(device):
                # the head writes its clusters' log-probabilities into a tensor of g's dtype: make
                # it the dtype log_softmax gives under this autocast (bfloat16 on a CPU, float32
                # on CUDA, where log_softmax autocasts up; either other dtype fails)
                g = g.to(_log_softmax_dtype(device, torch.get_autocast_dtype(device)))
            return self.value_head(g, target).output
        return F.log_softmax(self.value_head(g), dim=-1).gather(1, target.unsqueeze(1)).squeeze(1)
