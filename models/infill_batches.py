"""Batches for the insertion decoder (models/insertion.py) from token streams
(models/infill_data.py), the decoder's inputs for a given generation order, and the loss.

A batch holds the context (``src``: left tokens right-aligned before the cursor token, the
right context after it) and the span in line order; ``inputs(batch, order)`` lays the span out
in a generation order (``order[b, k]``: the span index generated k-th), which is all that
differs between left-to-right training, searched orders and decoding.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from .infill_data import IDENTIFIER, SPACE, Examples
from .insertion import BOS, CURSOR, EOD, EOS, NEVER, PAD, SPECIALS, UNK, InsertionTransformer, key_mask, place_targets, relations, word_logp

SPACING_TOP = 300  # texts told apart by the spacing table; the rest are words or punctuation


class TokenVocabulary:
    """The decoder's texts: SPECIALS, then the training split's most frequent texts."""

    def __init__(self, texts: list[str], spaced: set[int] | None = None):
        self.texts = [*SPECIALS, *texts]
        self.index = {t: i for i, t in enumerate(self.texts)}
        self.spaced = spaced or set()  # spacing-table pairs written with a space between

    @classmethod
    def from_examples(cls, examples: Examples, size: int) -> TokenVocabulary:
        counts = np.asarray(examples.counts)
        order = np.argsort(-counts, kind="stable")[:size]
        vocab = cls([examples.texts[i] for i in order if counts[i] > 0])
        vocab.spaced = spacing(examples, vocab)
        return vocab

    def id(self, text: str) -> int:
        return self.index.get(text, UNK)

    def spacing_key(self, text: str) -> int:
        i = self.index.get(text, UNK) - len(SPECIALS)
        if 0 <= i < SPACING_TOP:
            return i
        word = IDENTIFIER.match(text) or text[:1].isdigit() or text[:1] == "\x00"  # (a text left out of a pack)
        return SPACING_TOP if word else SPACING_TOP + 1

    def space_between(self, left: str, right: str) -> bool:
        return self.spacing_key(left) * (SPACING_TOP + 2) + self.spacing_key(right) in self.spaced

    def to_dict(self) -> dict:
        return {"texts": self.texts[len(SPECIALS):], "spaced": sorted(self.spaced)}

    @classmethod
    def from_dict(cls, data: dict) -> TokenVocabulary:
        return cls(data["texts"], set(data["spaced"]))


def spacing(examples: Examples, vocab: TokenVocabulary) -> set[int]:
    """Pairs of spacing keys written with a space between more often than not, in training."""
    keys = np.asarray([vocab.spacing_key(t) for t in examples.texts], np.int64)
    ids, flags = examples.ids, examples.flags
    same_line = (flags[1:] & 1) == 0
    pair = keys[ids[:-1]] * (SPACING_TOP + 2) + keys[ids[1:]]
    pair, spaced = pair[same_line], (flags[1:][same_line] & SPACE) != 0
    total = np.bincount(pair, minlength=(SPACING_TOP + 2) ** 2)
    with_space = np.bincount(pair[spaced], minlength=(SPACING_TOP + 2) ** 2)
    return set(np.flatnonzero(2 * with_space > total).tolist())


@dataclass
class Batch:
    src: torch.Tensor  # (B, S) model ids
    src_flags: torch.Tensor  # (B, S)
    src_pad: torch.Tensor  # (B, S) bool
    span: torch.Tensor  # (B, N) model ids, PAD beyond each span
    span_len: torch.Tensor  # (B,)
    occurrence: torch.Tensor  # (B, N) the context index of each span token's text nearest the cursor, or -1
    copy: torch.Tensor  # (B, N, S) bool: context positions holding each span token's text

    def to(self, device) -> Batch:
        return Batch(*(getattr(self, f).to(device) for f in self.__dataclass_fields__))


def make_batch(contexts: list[tuple], ids: np.ndarray, left: int, right: int) -> Batch:
    """``contexts``: (left ids, left flags, span ids, span flags, right ids, right flags), ids
    into a table of texts (Examples.example) that ``ids`` maps to the model's (``model_ids``);
    the span may be empty (decoding). The context is cut to ``left`` and ``right`` tokens."""
    B, S, LEFT = len(contexts), left + 1 + right, left
    N = max(1, max(len(c[2]) for c in contexts))
    glob = np.full((B, S), -1, np.int64)
    flags = np.zeros((B, S), np.int64)
    span_glob = np.full((B, N), -2, np.int64)
    lengths = np.zeros(B, np.int64)
    for b, (lid, lfl, sid, _sfl, rid, rfl) in enumerate(contexts):
        lid, lfl, rid, rfl = lid[len(lid) - min(len(lid), left):], lfl[len(lfl) - min(len(lfl), left):], rid[:right], rfl[:right]
        glob[b, LEFT - len(lid):LEFT], flags[b, LEFT - len(lid):LEFT] = lid, lfl
        glob[b, LEFT + 1:LEFT + 1 + len(rid)], flags[b, LEFT + 1:LEFT + 1 + len(rid)] = rid, rfl
        span_glob[b, :len(sid)] = sid
        lengths[b] = len(sid)
    src = np.where(glob >= 0, ids[np.maximum(glob, 0)], PAD)
    src[:, LEFT] = CURSOR
    pad = glob < 0
    pad[:, LEFT] = False
    span = np.where(span_glob >= 0, ids[np.maximum(span_glob, 0)], PAD)
    copy = (span_glob[:, :, None] == glob[:, None, :]) & (glob[:, None, :] >= 0)
    # nearest the cursor: the last occurrence on the left, else the first on the right
    distance = np.abs(np.arange(S) - LEFT) + (np.arange(S) > LEFT) * S
    scored = np.where(copy, -distance[None, None, :], -(1 << 30))
    occurrence = np.where(copy.any(-1), scored.argmax(-1), -1)
    t = torch.from_numpy
    return Batch(t(src), t(flags), t(pad), t(span), t(lengths), t(occurrence), t(copy))


def model_ids(vocab: TokenVocabulary, texts: list[str]) -> np.ndarray:
    return np.asarray([vocab.id(t) for t in texts], np.int64)


@dataclass
class Inputs:
    ids: torch.Tensor  # (B, T) <s>, </s>, then the span in generation order
    occurrence: torch.Tensor  # (B, T)
    places: torch.Tensor  # (B, T): place in the line (<s> -1, </s> the span's length)
    pad: torch.Tensor  # (B, T)


def inputs(batch: Batch, order: torch.Tensor, steps: int | None = None) -> Inputs:
    """The decoder's inputs after ``steps`` generated words (all by default) in ``order`` (B, N)."""
    B, N = order.shape
    steps = N if steps is None else steps
    k = torch.arange(steps, device=order.device)
    chosen = order[:, :steps].clamp(min=0)
    valid = (k.unsqueeze(0) < batch.span_len.unsqueeze(1)) & (order[:, :steps] >= 0)
    ids = torch.cat([torch.full((B, 1), BOS, device=order.device), torch.full((B, 1), EOS, device=order.device),
                     torch.where(valid, batch.span.gather(1, chosen), PAD)], 1)
    occ = torch.cat([torch.full((B, 2), -1, device=order.device),
                     torch.where(valid, batch.occurrence.gather(1, chosen), -1)], 1)
    places = torch.cat([torch.full((B, 1), -1, device=order.device), batch.span_len.unsqueeze(1),
                        torch.where(valid, chosen, 1 << 20)], 1)
    pad = torch.cat([torch.zeros(B, 2, dtype=torch.bool, device=order.device), ~valid], 1)
    return Inputs(ids, occ, places, pad)


def left_to_right(batch: Batch) -> torch.Tensor:
    N = batch.span.shape[1]
    k = torch.arange(N, device=batch.span.device).expand(len(batch.span), N)
    return torch.where(k < batch.span_len.unsqueeze(1), k, -1)


def loss(model: InsertionTransformer, batch: Batch, order: torch.Tensor, memory=None) -> tuple[torch.Tensor, torch.Tensor, int]:
    """Summed -log p(word) and -log p(place) over every step of ``order``, and the steps (words
    with <eod>)."""
    if memory is None:
        memory = model.encode(batch.src, batch.src_flags, batch.src_pad)
    x = inputs(batch, order)
    h = model.decode(x.ids, x.occurrence, relations(x.places), x.pad, memory, batch.src_pad)  # (B, T, d)
    B, T = x.ids.shape
    N = T - 2
    steps = torch.arange(N + 1, device=h.device)  # hidden 1 + j predicts word j (j = N: <eod>)
    h_steps = h[:, 1:]  # (B, N + 1, d)
    n = batch.span_len.unsqueeze(1)
    is_word = steps.unsqueeze(0) < n  # (B, N + 1)
    is_step = steps.unsqueeze(0) <= n
    chosen = order.clamp(min=0)
    target = torch.where(is_word[:, :N], batch.span.gather(1, chosen), EOD)
    target = torch.cat([target, torch.full((B, 1), EOD, device=h.device)], 1)
    target = torch.where(is_word, target, torch.where(is_step, EOD, PAD))
    copy = batch.copy.gather(1, chosen.unsqueeze(-1).expand(-1, -1, batch.copy.shape[2]))
    copy = torch.cat([copy, torch.zeros_like(copy[:, :1])], 1) & is_word.unsqueeze(-1)
    vocab_ok = (target != UNK) | ~copy.any(-1)
    vocab, alpha, log_g, log_not_g = model.word_scores(h_steps, memory, batch.src_pad)
    words = -word_logp(vocab, alpha, log_g, log_not_g, target, copy, vocab_ok).masked_fill(~is_step, 0)
    # places: step j's word is input 2 + j; inputs 0 .. 1 + j are placed when it is chosen
    word_vectors = model.vectors(x.ids[:, 2:], x.occurrence[:, 2:], memory)  # (B, N, d)
    placed = torch.arange(T, device=h.device).view(1, 1, T) <= (steps[:N] + 1).view(1, N, 1)
    placed = placed & ~x.pad.unsqueeze(1)
    targets = place_targets(x.places, placed, x.places[:, 2:])
    logp = model.place_scores(h[:, 1:N + 1], word_vectors, h, key_mask(placed))
    places = -(logp.masked_fill(~targets, NEVER).logsumexp(-1)).masked_fill(~is_word[:, :N], 0)
    return words.sum(), places.sum(), int(is_step.sum())


@torch.no_grad()
def searched_order(model: InsertionTransformer, batch: Batch, memory=None) -> torch.Tensor:
    """The order the model prefers (SAO, greedy): at each step the remaining span token with
    the highest log p(word) + log p(place)."""
    if memory is None:
        memory = model.encode(batch.src, batch.src_flags, batch.src_pad)
    B, N = batch.span.shape
    order = torch.full((B, N), -1, dtype=torch.long, device=batch.span.device)
    k = torch.arange(N, device=order.device)
    remaining = k.unsqueeze(0) < batch.span_len.unsqueeze(1)
    vectors = model.vectors(batch.span, batch.occurrence, memory)  # (B, N, d)
    kv = model.memory_kv(memory)
    for j in range(N):
        if not remaining.any():
            break
        x = inputs(batch, order, j)
        h = model.decode(x.ids, x.occurrence, relations(x.places), x.pad, memory, batch.src_pad, kv)
        last = h[:, j + 1]  # (B, d)
        vocab, alpha, log_g, log_not_g = model.word_scores(last.unsqueeze(1), memory, batch.src_pad)
        vocab_ok = (batch.span != UNK) | ~batch.copy.any(-1)
        words = word_logp(vocab.expand(B, N, -1), alpha.expand(B, N, -1), log_g.expand(B, N), log_not_g.expand(B, N),
                          batch.span, batch.copy, vocab_ok)
        placed = (~x.pad).unsqueeze(1).expand(B, N, -1)
        targets = place_targets(x.places, placed, k.expand(B, N))
        logp = model.place_scores(last.unsqueeze(1).expand(B, N, -1), vectors, h, key_mask(placed))
        score = words + logp.masked_fill(~targets, NEVER).logsumexp(-1)
        score = score.masked_fill(~remaining, float("-inf"))
        pick = score.argmax(-1)
        active = remaining.any(-1)
        order[:, j] = torch.where(active, pick, -1)
        remaining[torch.arange(B, device=order.device)[active], pick[active]] = False
    return order


def language_of(directory: Path) -> str:
    return json.loads((directory / "texts.json").read_text(encoding="utf-8"))["language"]
