"""Decoding with the insertion decoder (models/insertion.py): the rest of a line as text.

Beam search in two steps, as the paper's sec. 4.3: for each kept hypothesis the likeliest
words (the vocabulary's, and the context's texts through the copy pointer, merged by text),
then for each word the likeliest gaps between the tokens placed so far. A gap's probability
sums its two keys (right of the token before it, left of the one after it). A hypothesis ends
with <eod>; the search stops when no open hypothesis can beat the best finished one, or at the
longest span. Text is the tokens in line order, joined with the spacing the training code
used most between such tokens (``TokenVocabulary.space_between``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from .infill_batches import TokenVocabulary, make_batch
from .insertion import BOS, CURSOR, EOD, EOS, LEFT_OF, PAD, RIGHT_OF, SAME, UNK, InsertionConfig, InsertionTransformer, key_mask, relations

FORMAT = "treecomplete-insertion/1"
SKIP_WORDS = (PAD, UNK, BOS, EOS, CURSOR)


@dataclass
class Hypothesis:
    score: float = 0.0
    generated: list[tuple[int, int]] = field(default_factory=list)  # (model id, occurrence) in generation order
    texts: list[str] = field(default_factory=list)
    line: list[int] = field(default_factory=list)  # indexes into generated, in line order


@dataclass
class Infill:
    text: str
    tokens: list[str]
    logp: float


class InsertionDecoder:
    """A trained insertion decoder and its vocabulary, ready to fill spans."""

    def __init__(self, model: InsertionTransformer, vocab: TokenVocabulary, language: str, device: str = "cpu"):
        self.model, self.vocab, self.language, self.device = model.eval(), vocab, language, device
        self._skip = torch.zeros(len(vocab.texts), dtype=torch.bool)
        self._skip[list(SKIP_WORDS)] = True

    @classmethod
    def load(cls, path: Path, device: str = "cpu") -> InsertionDecoder:
        data = torch.load(path, map_location=device, weights_only=True)
        if data.get("format") != FORMAT:
            raise ValueError(f"{path}: not an insertion decoder ({data.get('format')!r})")
        model = InsertionTransformer(InsertionConfig.from_dict(data["config"]))
        model.load_state_dict({k: v.float() for k, v in data["state"].items()})
        return cls(model.to(device), TokenVocabulary.from_dict(data["vocabulary"]), data["language"], device)

    @torch.no_grad()
    def fill(self, left: list[tuple[str, int]], right: list[tuple[str, int]], beam: int = 4, results: int = 3,
             max_span: int | None = None, budget: float = 1.0, stop=None) -> list[Infill] | None:
        """The likeliest spans between ``left`` and ``right``: (text, flags) tokens before the
        cursor and after the line. Stops at ``budget`` seconds with what has finished; None
        where ``stop()`` turned true between two steps (other work is waiting)."""
        started = time.perf_counter()
        if stop is not None and stop():
            return None
        left, right = left[-self.model.config.left:], right[:self.model.config.right]
        texts = [t for t, _ in left] + [t for t, _ in right]
        table = {t: i for i, t in enumerate(dict.fromkeys(texts))}
        ids = np.asarray([self.vocab.id(t) for t in table], np.int64)
        context = (np.asarray([table[t] for t, _ in left], np.int64), np.asarray([f for _, f in left], np.int64),
                   np.zeros(0, np.int64), np.zeros(0, np.int64),
                   np.asarray([table[t] for t, _ in right], np.int64), np.asarray([f for _, f in right], np.int64))
        batch = make_batch([context], ids, self.model.config.left, self.model.config.right).to(self.device)
        model = self.model
        memory = model.encode(batch.src, batch.src_flags, batch.src_pad)  # (1, S, d)
        kv = model.memory_kv(memory)
        cursor = model.config.left
        texts = _source_texts(batch.src.shape[1], cursor, left, right)
        S = len(texts)
        # as training chose a text's occurrence: the last on the left, else the first on the right
        distance = [cursor - s if s < cursor else s - cursor + S for s in range(S)]
        src = (texts, torch.tensor([self.vocab.id(t) if t is not None else UNK for t in texts], device=self.device),
               distance)
        max_span = max_span or model.config.max_span
        pad = batch.src_pad
        # <s> and </s> first; then one row per kept hypothesis, each step adding its new word
        boundary = torch.tensor([[BOS, EOS]], device=self.device)
        steps = model.step(None, model.vectors(boundary, torch.full_like(boundary, -1), memory),
                           relations(torch.tensor([[-1, 1]], device=self.device)), kv, pad)
        open_, finished = [Hypothesis()], []
        for _ in range(max_span + 1):
            if not open_ or time.perf_counter() - started > budget:
                break
            if stop is not None and stop():
                return None
            H = len(open_)
            last = steps.hidden[:, -1]  # (H, d): the last input's state asks for the next word
            vocab, alpha, log_g, log_not_g = model.word_scores(last.unsqueeze(1), memory.expand(H, -1, -1),
                                                               pad.expand(H, -1))
            candidates = []
            for i, hyp in enumerate(open_):
                words = self._words(vocab[i, 0], alpha[i, 0], float(log_g[i, 0]), float(log_not_g[i, 0]), src, beam)
                for text, (logp, wid, occ) in words:
                    if wid == EOD:
                        if hyp.generated:
                            finished.append(Hypothesis(hyp.score + logp, hyp.generated, hyp.texts, hyp.line))
                        continue
                    candidates.append((hyp.score + logp, i, text, wid, occ))
            candidates.sort(key=lambda c: -c[0])
            candidates = candidates[:beam * 2]
            if not candidates:
                break
            expanded = self._places(candidates, open_, steps.hidden, memory)
            expanded.sort(key=lambda e: -e[0].score)
            best_done = max((f.score for f in finished), default=float("-inf"))
            kept = [(hyp, parent) for hyp, parent in expanded[:beam] if hyp.score > best_done]
            if not kept:
                break
            open_ = [hyp for hyp, _ in kept]
            steps = steps.select(torch.tensor([parent for _, parent in kept], device=self.device))
            new = torch.tensor([[hyp.generated[-1][0]] for hyp in open_], device=self.device)
            occ = torch.tensor([[hyp.generated[-1][1]] for hyp in open_], device=self.device)
            vectors = model.vectors(new, occ, memory.expand(len(open_), -1, -1))
            steps = model.step(steps, vectors, _relations_of_last(open_, self.device), kv, pad)
        finished.sort(key=lambda f: -f.score)
        out, seen = [], set()
        for f in finished:
            tokens = [f.texts[i] for i in f.line]
            text = self.render(tokens)
            if text not in seen:
                seen.add(text)
                out.append(Infill(text, tokens, f.score))
        return out[:results]

    def render(self, tokens: list[str]) -> str:
        out = tokens[0] if tokens else ""
        for a, b in zip(tokens, tokens[1:]):
            out += (" " if self.vocab.space_between(a, b) else "") + b
        return out

    def _words(self, vocab, alpha, log_g, log_not_g, src, k):
        """The k likeliest words: text -> (log p, model id, occurrence). ``src``: the context's
        texts, their model ids (a tensor) and each one's distance from the cursor."""
        texts, ids, distance = src
        mass: dict[str, list] = {}
        top = vocab.masked_fill(self._skip.to(vocab.device), float("-inf")).topk(k)
        for logp, wid in zip(top.values.tolist(), top.indices.tolist()):
            mass[self.vocab.texts[wid]] = [math.exp(logp + log_not_g), wid, -1]
        probs = (alpha + log_g).exp().tolist()
        in_vocab = vocab[ids].tolist()
        for s, (text, p) in enumerate(zip(texts, probs)):
            if text is None or p <= 0:
                continue
            entry = mass.get(text)
            if entry is None:
                wid = self.vocab.id(text)
                mass[text] = [(math.exp(in_vocab[s] + log_not_g) if wid != UNK else 0.0) + p, wid, s]
            else:
                entry[0] += p
                if entry[2] < 0 or distance[s] < distance[entry[2]]:
                    entry[2] = s
        ranked = sorted(mass.items(), key=lambda kv: -kv[1][0])[:k]
        return [(t, (math.log(max(m, 1e-30)), wid, occ)) for t, (m, wid, occ) in ranked]

    def _places(self, candidates, open_, hidden, memory) -> list[tuple[Hypothesis, int]]:
        """Each candidate word at its two likeliest gaps: (hypothesis, the row it extends)."""
        model = self.model
        rows = torch.tensor([c[1] for c in candidates], device=self.device)
        ids = torch.tensor([[c[3]] for c in candidates], device=self.device)
        occ = torch.tensor([[c[4]] for c in candidates], device=self.device)
        vectors = model.vectors(ids, occ, memory.expand(len(candidates), -1, -1))  # (C, 1, d)
        keys_h = hidden[rows]  # (C, K, d)
        placed = torch.ones(len(candidates), 1, keys_h.shape[1], dtype=torch.bool, device=self.device)
        logp = model.place_scores(keys_h[:, -1:], vectors, keys_h, key_mask(placed))[:, 0].tolist()  # (C, 2K)
        out = []
        for c, (score, i, text, wid, o) in enumerate(candidates):
            hyp = open_[i]
            # inputs in line order: <s> (input 0), the generated (input 2 + g), </s> (input 1)
            order = [0, *[2 + g for g in hyp.line], 1]
            row = logp[c]
            gaps = [(_logaddexp(row[2 * a + 1], row[2 * b]), gap) for gap, (a, b) in enumerate(zip(order, order[1:]))]
            for place_logp, gap in sorted(gaps, reverse=True)[:2]:
                line = hyp.line[:gap] + [len(hyp.generated)] + hyp.line[gap:]
                out.append((Hypothesis(score + place_logp, hyp.generated + [(wid, o)], hyp.texts + [text], line), i))
        return out


def _logaddexp(a: float, b: float) -> float:
    top = max(a, b)
    return top if top == float("-inf") else top + math.log(math.exp(a - top) + math.exp(b - top))


def _relations_of_last(hyps: list[Hypothesis], device) -> torch.Tensor:
    """(H, 1, T) the relations of each hypothesis' newest word to its inputs (<s>, </s>, the
    words in generation order, itself last): left 0, same 1, right 2."""
    rows = []
    for h in hyps:
        newest = len(h.generated) - 1
        rank = {g: r for r, g in enumerate(h.line)}
        mine = rank[newest]
        rows.append([LEFT_OF, RIGHT_OF, *[LEFT_OF if rank[g] < mine else RIGHT_OF if rank[g] > mine else SAME
                                           for g in range(len(h.generated))]])
    return torch.tensor(rows, device=device).unsqueeze(1)


def _source_texts(S: int, cursor: int, left, right) -> list[str | None]:
    """The context's texts by position (make_batch's layout: the cursor at ``cursor``)."""
    out: list[str | None] = [None] * S
    L = len(left)
    for i, (t, _) in enumerate(left):
        out[cursor - L + i] = t
    for i, (t, _) in enumerate(right[:S - cursor - 1]):
        out[cursor + 1 + i] = t
    return out
