"""A model at a completion context: the next-value distribution of a pointer-mixture LSTM or a
tree-transformer, the node types it expects where the statement and the expression at the
cursor start, and multi-token continuations (sources/chains.py).

The context is the document's elements before the predicted node, flattened by the same rules
as training (``models.flatten.flatten_before``, at most the model's ``incremental.Bounds`` whatever
the file size), with their tree positions and the predicted node's for a model that reads them.
Subtrees read by an earlier request (the statements before the cursor) are copied from a memo
rather than walked again (``models.flatten.Memo``).
The model reads them incrementally, per document (engines/incremental.py): after an edit, only
from the first element that changed. Values come from the vocabulary's share plus the
pointer's, whose window slots are read as the identifiers they hold, so an identifier the
vocabulary has never seen is offered when it occurs nearby.

Imports torch: only the registry's loading thread imports this module.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import NamedTuple, TypeVar

import torch
import tree_sitter

from ..context import CompletionContext
from ..languages import BLOCKS, CHAINS
from ..models import checkpoint
from ..models.architectures import TREE_TRANSFORMER, family, tree_positions
from ..models.flatten import Memo, flatten_before, parent_annotated_type, parent_element
from ..models.lru import SizedLRU
from ..models.suffix import distance_buckets
from ..models.tree_positions import context_codes
from ..models.vocab import PAD_ID, UNK_ID, node_kinds
from ..sources import chains
from .incremental import EVERY, LONGER_READS, LSTM_BOUNDS, TRANSFORMER_BOUNDS, Session, Sessions, Snapshot, anchor_index, compact
from .lookahead import Cuts, Lookahead, SuffixRead, remember

T = TypeVar("T")
RECENT = 32  # contexts whose answers are kept
TOP_VALUES = 200  # vocabulary values considered per prediction
SUFFIX_MEMO = 4096  # elements of the subtrees after the cursor kept flattened


class Prediction(NamedTuple):
    """A value the model offers at a cursor. An answer holds its predictions as plain tuples of
    these fields (``_predictions``): the collector stops tracking a tuple of plain values after
    its first young collection, and a cached answer's ~200 are not walked again at each."""

    value: str
    probability: float
    copied: bool  # offered by the pointer, not the vocabulary
    origin: int | None = None  # for a copy: the byte offset of the occurrence it was copied from


@dataclass
class Answer:
    """What the model says at a cursor."""

    predictions: list[tuple[str, float, bool, int | None]]  # Prediction's fields, most probable first
    statement: dict[str, float] = field(default_factory=dict)  # statement type -> P, where one starts at the cursor
    expression: dict[str, float] = field(default_factory=dict)  # expression type -> P at the expression's start
    chains: list[chains.Chain] = field(default_factory=list)
    first: dict[str, float] = field(default_factory=dict)  # the identifier at the cursor, over the chains searched


class Predictor(Lookahead):
    """A loaded checkpoint, turned into predictions at a completion context."""

    def __init__(self, loaded: checkpoint.Loaded, device: torch.device, threads: int | None = None):
        self.model = loaded.model
        self.language = loaded.language
        self.types = loaded.types
        self.values = loaded.values
        self.type_ids = {s: i for i, s in enumerate(loaded.types)}
        self.value_ids = {s: i for i, s in enumerate(loaded.values)}
        self._kinds, self._kind_of = node_kinds(loaded.types)  # the types without their two bits
        self.device = device
        # torch's intra-op threads for the thread that asks (a per-thread setting), on a CPU
        self.threads = threads if device.type == "cpu" else None
        # the LSTM's longer reads in bfloat16 where the CPU has it, and the states kept packed
        self.packed = device.type == "cpu" and hasattr(self.model, "fast_reads") and self.model.fast_reads()
        self.tree = tree_positions(self.model.config)
        self.suffix = getattr(self.model.config, "suffix", 0)  # elements the suffix pointer reads
        self._suffix_reads: OrderedDict[tuple, SuffixRead | None] = OrderedDict()
        self._suffix_memo = SizedLRU(SUFFIX_MEMO)  # subtrees after the cursor, by their text
        self._buckets = distance_buckets(torch.arange(self.suffix, device=device)).view(1, 1, -1)
        lstm = LONGER_READS.get(self.language, LSTM_BOUNDS)
        self.bounds = TRANSFORMER_BOUNDS if family(self.model.config) == TREE_TRANSFORMER else lstm
        self.sessions = Sessions()
        self._empty = Snapshot(self.model.initial_state(1, device), shared=True)  # every session's start
        self.flat_memo = Memo()  # subtrees before the cursor, flattened by earlier requests
        self.chain_types: dict = {}  # grammar -> the type ids a member chain is made of (chains.py)
        self.infill = None  # sources/infill.Infiller, where the language has an insertion decoder
        # the last contexts' answers: typing an identifier leaves the context before it
        # unchanged, so every keystroke after its first is answered without the model
        self._recent: OrderedDict[tuple, Answer] = OrderedDict()  # by what the model reads
        self._texts: OrderedDict[tuple, Answer] = OrderedDict()  # by the text around the prefix

    def float32(self) -> Predictor:
        """Every read in float32 and the states kept so: answers that depend on where a read
        stopped only to float32's rounding (tests comparing an incremental reading with one
        from scratch)."""
        if self.packed:
            self.model.fast_reads(False)
            self.packed = False
            self.forget_answers()
            self.sessions = Sessions()
        return self

    @classmethod
    def load(cls, path: Path, device: str | None = None, threads: int | None = None) -> Predictor:
        chosen = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        return cls(checkpoint.load(path, chosen), chosen, threads)

    def forget(self, uri: str) -> None:
        """The document is closed: drop its state."""
        self.sessions.forget(uri)

    def forget_answers(self) -> None:
        """Drop the remembered answers and flattened subtrees (sessions stay): the next request
        reads the model."""
        self._recent.clear()
        self._texts.clear()
        self.flat_memo.clear()
        self._suffix_memo.clear()
        self._suffix_reads.clear()

    @torch.inference_mode()
    def infills(self, context: CompletionContext, wait: bool) -> list[chains.Chain] | None:
        """The rest of the line where code follows it (sources/infill.py): [] without an
        insertion decoder; without ``wait``, None where it is not decoded yet."""
        if self.infill is None:
            return []
        if self.threads is not None and torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)
        return self.infill.chains(context, wait)

    @torch.inference_mode()
    def fill_wanted(self, stop) -> None:
        """Decode the rest of the line a list wanted (sources/infill.py), giving way to ``stop()``."""
        if self.infill is not None:
            self.infill.fill_wanted(stop)

    def predict(self, context: CompletionContext) -> list[Prediction]:
        """Next-value candidates at the cursor, most probable first."""
        return [Prediction._make(p) for p in self.answer(context).predictions]

    @torch.inference_mode()
    def answer(self, context: CompletionContext, chain_budget: float = 0.0, chain_steps: int = chains.MAX_NODES) -> Answer:
        """Values at the cursor, statement and expression types, and (with a budget in seconds)
        multi-token continuations."""
        if context.target is None:
            return Answer([])
        if self.threads is not None and torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)
        session = self.sessions.get(context.uri)
        # What the model reads is a function of the text around the typed prefix (the prefix is
        # a placeholder in the tree read) and of the session's anchor: while one types an
        # identifier, both stay the same, and the answer is reused without flattening.
        text_key = (context.uri, session.anchor if session is not None else None, _digest(context.data, 0, context.prefix_start),
                    _digest(context.data, context.cursor, len(context.data)), context.prefix[:1].lower(), chain_budget > 0)
        if text_key in self._texts:
            self._texts.move_to_end(text_key)
            return self._texts[text_key]
        flat, target_parent = flatten_before(context.target, self.bounds.limit, self.flat_memo)
        n = len(flat)
        if n == 0:
            return Answer([])
        a = anchor_index(flat.starts, flat.types, flat.values, session, self.bounds)
        anchor = None if a == 0 and n < self.bounds.limit else (flat.starts[a], flat.types[a], flat.values[a])
        if session is None or session.anchor != anchor:
            session = Session(anchor, snapshots={0: self._empty})
        keys = self._keys(flat, a, target_parent, context.target)
        cuts = self._cuts(context, flat, a)
        called = self._call(context, flat, a, keys, cuts)
        constraint = context.prefix[:1].lower()
        suffix_key = text_key[3] if self.suffix else None  # what the suffix pointer reads
        cache_key = (context.uri, anchor, tuple(keys), cuts.statement, cuts.chain, constraint, chain_budget > 0, suffix_key)
        if cache_key in self._recent:
            self._recent.move_to_end(cache_key)
            return remember(self._texts, text_key, self._recent[cache_key], RECENT)

        at = called.index if called is not None else None
        last = self._read(session, keys, [c for c in (cuts.statement, cuts.chain, at) if c is not None])
        self.sessions.put(context.uri, session)
        window = flat.values[a:]
        vocabulary = self.vocabulary_top(last.g.unsqueeze(0))[0]  # the multi-token search's first step reads it too
        scores = self.value_scores(last.g, last.alpha, last.switch, window, flat.starts[a:], vocabulary=vocabulary)
        if called is not None and (snap := session.snapshots.get(called.index)) is not None:
            scores = self._with_call(scores, snap, called, window, flat.starts[a:])
        if self.suffix:
            scores = self._with_suffix(scores, context, last.g, flat, text_key[3])
        answer = Answer(_predictions(scores))
        if cuts.statement is not None and (snap := session.snapshots.get(cuts.statement)) is not None:
            answer.statement = self._types(snap)
        if cuts.chain is not None and (snap := session.snapshots.get(cuts.chain)) is not None:
            answer.expression = self._types(snap)
            if chain_budget > 0 and snap.type_logits is not None:
                found = chains.search(self, self._chain_start(context, flat, a, keys, cuts, snap), chain_budget, chain_steps,
                                      vocabulary if snap is last else None)
                answer.chains, answer.first = found.chains, found.first
        remember(self._recent, cache_key, answer, RECENT)
        return remember(self._texts, text_key, answer, RECENT)

    # -- reading -------------------------------------------------------------------------

    def _keys(self, flat, a: int, target_parent: int, target: tree_sitter.Node) -> list[tuple]:
        """One input per element from the anchor: type, value, the distance from the node it
        predicts to that node's parent, the parent's type, and the tree positions of the element
        and of the node it predicts (0 for a model without them)."""
        n = len(flat)
        types = [self.type_ids.get(t, UNK_ID) for t in flat.annotated_types()]
        values = [self.value_ids.get(v, UNK_ID) for v in flat.values]
        # the parent of the node after input i is element i + 1's parent; after the last input,
        # the predicted node's
        distance = [d if d > 0 else 1 for d in (*flat.parents[1:], target_parent)]
        # the parent's type is the one training saw: from the sequence, or from the tree for a
        # parent before the flattened tail (a statement of a long body, the module)
        parent_type = [PAD_ID] * n
        far: dict[int, int] = {}  # such parents are ancestors of the tail's first element: a few
        for i in range(a, n):
            if (j := i + 1 - distance[i]) >= 0:
                parent_type[i] = types[j]
            elif (parent := parent_element(flat.node(i + 1) if i + 1 < n else target)) is not None:
                if parent.id not in far:
                    far[parent.id] = self.type_ids.get(parent_annotated_type(parent), UNK_ID)
                parent_type[i] = far[parent.id]
        # a parent before the anchor is "the element before the anchor", whatever it is: the
        # same input however far back the flattened tail happened to start
        distance = [d if i + 1 - d >= a else i + 2 - a for i, d in enumerate(distance)]
        if self.tree is not None:
            here, predicted = context_codes(flat, target, target_parent, self.tree)
            nxt = [*here[1:], predicted]
        else:
            here = nxt = [0] * n
        return [(types[i], values[i], distance[i], parent_type[i], here[i], nxt[i]) for i in range(a, n)]

    def run(self, state, rows: list[list[tuple]]):
        """The model over input rows of equal length (one per lane of ``state``); its outputs for
        the last input of each row only."""
        batch = torch.tensor(rows, dtype=torch.long, device=self.device)  # (B, T, 6)
        types, values, distance, parent_type, here, nxt = batch.unbind(-1)
        extra = {"positions": here, "next_positions": nxt} if self.tree is not None else {}
        return self.model(types, values, torch.zeros_like(types), distance, parent_type, state, last=True, **extra)

    def _read(self, session: Session, keys: list[tuple], cuts: list[int]) -> Snapshot:
        """Bring the session to ``keys``, keeping snapshots at ``cuts``, at the end and at the
        last point of the EVERY grid before them; the snapshot at the end. (One grid point, not
        each: every stop is a call of the model, ~0.7 ms besides its inputs, and a document's
        first read would stop four times on its way to the cursor.)"""
        m = len(keys)
        start = session.resume_point(keys)
        for cut in cuts:  # a cut point without its snapshot is read again
            if cut not in session.snapshots and cut < start:
                start = max(i for i in session.snapshots if i <= cut)
        session.truncate(keys, start)
        ahead = [c for c in cuts if start < c <= m]
        grid = range((start // EVERY + 1) * EVERY, min(ahead, default=m), EVERY)
        stops = sorted({*grid[-1:], *ahead, m})
        state = session.snapshots[start].state
        at = start
        snapshot = session.snapshots[start]
        for stop in stops:
            out = self.run(state, [keys[at:stop]])
            # packed first: its memory is then a tensor of its own, which compact leaves as it is
            state = compact(out.state.packed() if self.packed else out.state)
            snapshot = Snapshot(
                state,
                out.type_logits[0, -1].float(),
                out.g[0, -1].float(),
                out.alpha[0, -1].float() if out.alpha is not None else None,
                float(out.switch[0, -1]) if out.switch is not None else None,
            )
            session.keep(stop, snapshot)
            at = stop
        return snapshot

    def _cuts(self, context: CompletionContext, flat, a: int) -> Cuts:
        """The statement that starts at the cursor (for structure completions) and the expression
        the cursor's member chain starts (for multi-token ones), as indexes from the anchor."""
        target = context.target
        n = len(flat)
        cuts = Cuts()
        blocks = BLOCKS.get(context.language.name, ())
        i = n - 1
        while i >= a and flat.starts[i] == target.start_byte:
            node = flat.node(i)
            if node.parent is not None and node.parent.type in blocks:
                cuts.statement = i - a
            i -= 1
        grammar = CHAINS.get(context.language.name)
        if grammar is None:
            return cuts
        root = target
        while root.parent is not None and root.parent.type in (grammar.call, grammar.member):
            root = root.parent
        cuts.chain_root = root
        if root == target:
            cuts.chain = n - a
        else:
            for j in range(n - 1, a - 1, -1):
                if flat.nodes[j] == root:  # None where the memo copied a subtree: never an ancestor
                    cuts.chain = j - a
                    break
        return cuts

    # -- outputs -------------------------------------------------------------------------

    def _types(self, snapshot: Snapshot) -> dict[str, float]:
        """Node types (without their two bits) and their probabilities for the next element."""
        if snapshot.type_logits is None:
            return {}
        probs = torch.softmax(snapshot.type_logits.reshape(-1), -1).cpu().double()  # summed as Python would
        sums = torch.zeros(len(self._kinds), dtype=torch.float64).index_add_(0, self._kind_of, probs)
        return dict(zip(self._kinds, sums.tolist()))

    def vocabulary_top(self, g: torch.Tensor, top: int = TOP_VALUES) -> list[list[tuple[int, float]]]:
        """Per row of ``g`` (B, width): the ``top`` vocabulary values and their probabilities."""
        probs = self.model.value_log_probs(g).exp()
        found = torch.topk(probs, min(top, probs.shape[-1]))
        return [list(zip(i, p)) for i, p in zip(found.indices.tolist(), found.values.tolist())]

    def value_scores(self, g: torch.Tensor, alpha: torch.Tensor | None, switch: float | None,
                     window: list[str], starts: list[int] | None = None, top: int = TOP_VALUES,
                     vocabulary: list[tuple[int, float]] | None = None) -> dict[str, list]:
        """value -> [probability, copied, origin byte] from the vocabulary's share and the
        pointer's over the last inputs ``window`` (their start bytes: ``starts``).
        ``vocabulary``: ``vocabulary_top``'s row for ``g``, when already computed."""
        if vocabulary is None:
            vocabulary = self.vocabulary_top(g.unsqueeze(0), top)[0]
        scores: dict[str, list] = {}
        share = 1.0
        if switch is not None and alpha is not None:
            share = switch
            # slot s of the L attended holds input n - L + s; slots before the first input are
            # padding. One pass in slot order: the sums, the insertion order (which orders ties)
            # and the origin (the first slot of the largest mass) are those of a per-slot loop.
            masses = (alpha * (1 - switch)).tolist()
            first = max(len(window) - len(masses), 0)  # the input in the first unpadded slot
            masses = masses[len(masses) - (len(window) - first):]
            origins = starts[first:] if starts is not None else repeat(None)
            best: dict[str, float] = {}
            for value, mass, origin in zip(window[first:], masses, origins):
                if mass <= 0:
                    continue
                entry = scores.get(value)
                if entry is None:
                    scores[value] = [mass, True, origin]
                    best[value] = mass
                else:
                    entry[0] += mass
                    if mass > best[value]:
                        best[value] = mass
                        entry[2] = origin
        for index, p in vocabulary:
            entry = scores.setdefault(self.values[index], [0.0, False, None])
            entry[0] += p * share
        return scores

    def _chain_start(self, context: CompletionContext, flat, a: int, keys: list[tuple], cuts: Cuts,
                     snap: Snapshot) -> chains.Start:
        cut = cuts.chain
        grammar = CHAINS[context.language.name]
        root = cuts.chain_root
        leaves = [flat.values[a + j] for j in range(cut, len(keys)) if flat.types[a + j] in grammar.leaves]
        typed = context.data[root.start_byte:context.prefix_start].decode("utf-8", "replace")
        before = keys[cut - 1]  # the input whose prediction the cut element is
        return chains.Start(
            snapshot=snap,
            index=cut,
            parent_index=cut - before[2],
            parent_type=before[3],
            code=before[5],
            window=flat.values[a:a + cut],
            forced=leaves,
            prefix=context.prefix[:1].lower(),
            typed=typed,
            grammar=grammar,
            identifier=context.language.identifier,
        )


def _predictions(scores: dict[str, list]) -> list[tuple[str, float, bool, int | None]]:
    ranked = sorted(scores.items(), key=lambda kv: -kv[1][0])
    return [(v, p, copied, origin if copied else None) for v, (p, copied, origin) in ranked]


def _digest(data: bytes, start: int, end: int) -> bytes:
    return hashlib.blake2b(memoryview(data)[start:end], digest_size=16).digest()
