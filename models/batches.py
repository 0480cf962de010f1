"""A corpus split as training batches: B lanes of files laid end to end, cut into segments of
T inputs for truncated back-propagation through time.

Each input is an element (type, value) and its target is the next element of the same file; a
file's last element has ``EOF`` as its target. The LSTM state runs on across segments *and*
across the file boundaries of a lane (an EOF target marks each); attention, the pointer and the
parent never reach into another file (the file id of every position travels with the batch).
Lanes are padded to equal length with PAD, whose targets are never scored.

Targets per position: the next type; the next value's class when it is one of the K most
frequent values; else, for the pointer models, its pointer slot when it occurred within the
window (``vocab.pointer_labels``); else nothing (an UNK target: no loss, counted wrong).

Built with torch alone (no numpy): the split's memory-mapped arrays become tensors once.
"""

from __future__ import annotations

import heapq
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import torch

from .store import Split
from .suffix import first_occurrence
from .tree_positions import ROOT, PositionConfig, codes
from .vocab import EOF_ID, PAD_ID, UNK_ID, Vocabulary, previous_occurrence
from .vocab import bound as vocabulary_bound

NONE = -1  # no target of this kind at this position


@dataclass
class Batch:
    types: torch.Tensor  # (B, T) input type ids
    values: torch.Tensor  # (B, T) input value ids, OoV -> UNK
    raw_values: torch.Tensor  # (B, T) input value ids as in the corpus (what the pointer copies)
    files: torch.Tensor  # (B, T) file id; -1 for padding
    parent_distance: torch.Tensor  # (B, T) parent of the predicted node: how far back from it
    parent_type: torch.Tensor  # (B, T)
    target_type: torch.Tensor  # (B, T) PAD_ID where nothing is scored
    target_value: torch.Tensor  # (B, T) value class, or NONE
    target_pointer: torch.Tensor  # (B, T) pointer slot 0..L-1 (L-1 = the current input), or NONE
    target_raw: torch.Tensor  # (B, T) the next value id as in the corpus; PAD_ID for padding
    positions: torch.Tensor | None = None  # (B, T) tree position codes of the inputs (tree models)
    next_positions: torch.Tensor | None = None  # (B, T) those of the predicted nodes

    def to(self, device: torch.device | str) -> Batch:
        return Batch(**{name: None if getattr(self, name) is None else getattr(self, name).to(device, non_blocking=True)
                        for name in self.__dataclass_fields__})

    def inputs(self) -> dict[str, torch.Tensor | None]:
        """The model's keyword inputs."""
        return {"types": self.types, "values": self.values, "files": self.files, "parent_distance": self.parent_distance,
                "parent_type": self.parent_type, "positions": self.positions, "next_positions": self.next_positions}

    @property
    def scored(self) -> torch.Tensor:
        return self.target_type != PAD_ID


def column(split: Split, name: str) -> torch.Tensor:
    """One of a split's memory-mapped columns as an int64 tensor."""
    view = split.columns[name]
    if len(view) == 0:
        return torch.zeros(0, dtype=torch.int64)
    with warnings.catch_warnings():  # read-only map, and copied by .to() before any write
        warnings.simplefilter("ignore", UserWarning)
        return torch.frombuffer(view, dtype=torch.int32).to(torch.int64)


@dataclass
class CorpusVocabulary:
    """A corpus' symbols, to be mapped onto a model's (the same corpus, or a user's own code
    under a shipped model)."""

    types: list[str]
    values: list[str]
    trained_values: int = 0  # how many values (after the specials) the training split has

    @classmethod
    def load(cls, directory: Path) -> CorpusVocabulary:
        values = Vocabulary.load(directory / "values.json")
        return cls(Vocabulary.load(directory / "types.json").symbols, values.symbols, values.trained)

    def value_bound(self, k: int) -> int:
        """Ids below this are the specials and the K most frequent training values."""
        return vocabulary_bound(self.trained_values, k)

    def mapping(self, model_types: list[str], model_values: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
        """Corpus ids to model ids. A type the model lacks becomes UNK; a value the model lacks
        gets an id past the model's vocabulary, distinct per value, so the pointer can copy it."""
        type_ids = {s: i for i, s in enumerate(model_types)}
        value_ids = {s: i for i, s in enumerate(model_values)}
        bound = len(model_values)
        types = torch.tensor([type_ids.get(s, UNK_ID) for s in self.types], dtype=torch.int64)
        values = torch.tensor([value_ids.get(s, bound + i) for i, s in enumerate(self.values)], dtype=torch.int64)
        return types, values


class Targets:
    """Per-element inputs and targets of a whole split, in corpus order, in the model's ids."""

    def __init__(self, split: Split, bound: int, window: int, pointer: bool,
                 mapping: tuple[torch.Tensor, torch.Tensor] | None = None, tree: PositionConfig | None = None,
                 suffix: bool = False):
        types, values, parents = (column(split, name) for name in ("types", "values", "parents"))
        if mapping is not None:
            types, values = mapping[0][types], mapping[1][values]
        offsets = torch.tensor(split.offsets.tolist(), dtype=torch.int64)
        n = types.numel()
        self.window = window
        lengths = offsets[1:] - offsets[:-1]
        self.offsets, self.lengths = offsets, lengths
        file_ids = torch.repeat_interleave(torch.arange(len(lengths)), lengths)
        last = torch.zeros(n, dtype=torch.bool)
        last[(offsets[1:] - 1)[lengths > 0]] = True
        nxt = torch.arange(n) + 1
        nxt = torch.where(last, torch.zeros_like(nxt), nxt).clamp(max=max(n - 1, 0))
        self.types = types
        self.values = torch.where(values >= bound, torch.full_like(values, UNK_ID), values)
        self.raw_values = values
        self.file_ids = file_ids
        self.target_type = torch.where(last, torch.full_like(types, EOF_ID), types[nxt])
        self.target_raw = torch.where(last, torch.full_like(values, EOF_ID), values[nxt])
        distance = torch.where(last, torch.ones_like(parents), parents[nxt]).clamp(min=1)
        self.parent_distance = distance
        self.parent_type = types[(torch.arange(n) + 1 - distance).clamp(min=0)]
        in_vocab = self.target_raw < bound
        self.target_value = torch.where(in_vocab, self.target_raw, torch.full_like(values, NONE))
        self.target_pointer = torch.full_like(values, NONE)
        if pointer:
            back = previous_occurrence(values, file_ids)[nxt]  # from the predicted element
            usable = ~in_vocab & ~last & (back > 0) & (back <= window)
            self.target_pointer = torch.where(usable, window - back, self.target_pointer)
        for name in FIELDS:  # int32 at rest: a 50M-element split stays within a few GB
            setattr(self, name, getattr(self, name).to(torch.int32))
        self.fields = FIELDS
        if tree is not None:  # int64 codes (models/tree_positions.py)
            self.positions = codes(parents, tree)
            self.next_positions = torch.where(last, torch.full_like(self.positions, ROOT), self.positions[nxt])
            self.fields = FIELDS + POSITIONS
        if suffix:  # what the suffix pointer reads (models/suffix.py), by place in the corpus
            self.index = torch.arange(n, dtype=torch.int32)
            self.first = first_occurrence(values, file_ids).to(torch.int32)
            previous = torch.full_like(values, PAD_ID)  # the raw value before, in the same file
            previous[1:] = torch.where(file_ids[1:] == file_ids[:-1], values[:-1], PAD_ID)
            self.previous = previous.to(torch.int32)
            self.fields = self.fields + SUFFIX

    def __len__(self) -> int:
        return self.types.numel()


FIELDS = ("types", "values", "raw_values", "file_ids", "parent_distance", "parent_type",
          "target_type", "target_value", "target_pointer", "target_raw")
POSITIONS = ("positions", "next_positions")
SUFFIX = ("index", "first", "previous")
PADDING = {"positions": ROOT, "next_positions": ROOT, "types": PAD_ID, "values": PAD_ID, "raw_values": PAD_ID, "file_ids": -1, "parent_distance": 1,
           "parent_type": PAD_ID, "target_type": PAD_ID, "target_value": NONE, "target_pointer": NONE,
           "target_raw": PAD_ID, "index": -1, "first": 1 << 30, "previous": PAD_ID}


def lanes(targets: Targets, lanes_count: int, segment: int, order: torch.Tensor | None = None,
          max_elements: int | None = None) -> dict[str, torch.Tensor]:
    """Lay the files (in ``order``, default corpus order) end to end into ``lanes_count`` lanes,
    each padded to a multiple of ``segment``. Returns (lanes, length) tensors.

    A file longer than a lane's fair share would leave the other lanes padding while it runs
    alone: it is cut into pieces that overlap by the window, the overlap only read, never
    scored, so every scored target still sees its whole window (the LSTM state restarts at a
    piece). Pieces count as separate files for attention."""
    files = order if order is not None else torch.arange(targets.lengths.numel())
    files = files[targets.lengths[files] > 0]
    if max_elements is not None and files.numel():
        keep = torch.cumsum(targets.lengths[files], 0) <= max_elements
        keep[0] = True
        files = files[keep]
    lengths = targets.lengths[files].tolist()
    window = targets.window
    cap = max(-(-sum(lengths) // lanes_count), 4 * window, segment)
    pieces: list[tuple[int, int, int, int]] = []  # (file, start, end, first scored)
    for f, n in zip(files.tolist(), lengths):
        start = 0
        while True:
            end = min(start + cap, n)
            pieces.append((f, start, end, start + window if start else 0))
            if end == n:
                break
            start = end - window
    # Largest pieces first, each to the shortest lane, balances the lanes to within one small
    # piece; each lane then keeps its pieces in ``order``.
    members: list[list[int]] = [[] for _ in range(lanes_count)]
    heap = [(0, lane) for lane in range(lanes_count)]
    for i in sorted(range(len(pieces)), key=lambda i: pieces[i][1] - pieces[i][2]):
        total, lane = heapq.heappop(heap)
        members[lane].append(i)
        heapq.heappush(heap, (total + pieces[i][2] - pieces[i][1], lane))
    length = max(total for total, _ in heap) if heap else 0
    length = -(-length // segment) * segment
    out = {name: torch.full((lanes_count, length), PADDING[name], dtype=torch.int64 if name in POSITIONS else torch.int32)
           for name in targets.fields}
    unscored = ("target_type", "target_value", "target_pointer", "target_raw")
    for lane, chosen in enumerate(members):
        chosen.sort()  # pieces were made in ``order``
        at = 0
        for i in chosen:
            f, start, end, scored = pieces[i]
            base = int(targets.offsets[f])
            for name in targets.fields:
                out[name][lane, at:at + end - start] = getattr(targets, name)[base + start:base + end]
            out["file_ids"][lane, at:at + end - start] = i
            for name in unscored:
                out[name][lane, at:at + scored - start] = PADDING[name]
            at += end - start
    return out


def segments(laid: dict[str, torch.Tensor], segment: int, rows: slice | None = None) -> Iterator[Batch]:
    """The segments of laid-out lanes in order (``rows``: this process' share of the lanes)."""
    length = laid["types"].shape[1]
    for start in range(0, length, segment):
        cut = {name: tensor[rows or slice(None), start:start + segment].long() for name, tensor in laid.items()}
        yield Batch(types=cut["types"], values=cut["values"], raw_values=cut["raw_values"], files=cut["file_ids"],
                    parent_distance=cut["parent_distance"], parent_type=cut["parent_type"],
                    target_type=cut["target_type"], target_value=cut["target_value"],
                    target_pointer=cut["target_pointer"], target_raw=cut["target_raw"],
                    positions=cut.get("positions"), next_positions=cut.get("next_positions"))
