"""What a model reads beyond the buffer as typed: the code after the cursor, which the
suffix pointer copies from (models/suffix.py), and at a member's name the call that often
follows it and is not typed yet (training saw members under their calls).

``Lookahead`` is the predictor's side of it (engines/predictor.py): its methods read the
predictor's model, vocabularies, device and caches.

Imports torch: only the registry's loading thread imports this module.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import TypeVar

import torch
import tree_sitter

from ..context import PLACEHOLDER, CompletionContext, member_access
from ..languages import CHAINS
from ..models.flatten import EMPTY, flatten_after
from ..models.vocab import UNK_ID
from .incremental import Snapshot

MIN_CALL = 0.01  # below this chance of a call around the member, its inputs are not read
T = TypeVar("T")
SUFFIX_READS = 4  # the last reads of the code after the cursor kept, with their keys


@dataclass
class Cuts:
    """Where, among the elements read, the statement and the expression at the cursor start."""

    statement: int | None = None
    chain: int | None = None
    chain_root: tree_sitter.Node | None = None


class Lookahead:
    """The code after the cursor and the call not typed yet, for the predictor (see the module)."""

    # -- the code after the cursor ----------------------------------------------------

    def _with_suffix(self, scores: dict[str, list], context: CompletionContext, g: torch.Tensor, flat,
                     after_digest: bytes) -> dict[str, list]:
        """``scores`` mixed with the suffix pointer's over the elements after the cursor
        (models/suffix.py): the model's by 1 - r, each copied element's value by r beta."""
        after = self._suffix_read(context, after_digest)
        if after is None:
            return scores
        seen = set(flat.values)
        current = flat.values[-1]
        before = [None, *after.values[:-1]]  # the element before slot 0 is the predicted node
        pairs = torch.tensor([after.allowed, [v in seen for v in after.values],
                              [current != EMPTY and b == current for b in before]], device=self.device)
        pairs = pairs.view(3, 1, 1, len(after.values))
        buckets = self._buckets[:, :, :len(after.values)]
        beta, gate = self.model.suffix.attend(g.view(1, 1, -1), after.keys, pairs[0], pairs[1], pairs[2], buckets)
        r = float(gate[0, 0])
        if r <= 0:
            return scores
        out = {value: [p * (1 - r), copied, origin] for value, (p, copied, origin) in scores.items()}
        for value, mass, offset in zip(after.values, (beta[0, 0] * r).tolist(), after.offsets):
            if mass <= 0:
                continue
            entry = out.get(value)
            if entry is None:
                out[value] = [mass, True, context.cursor + offset]
            else:
                if not entry[1]:
                    entry[1], entry[2] = True, context.cursor + offset
                entry[0] += mass
        return out

    def _suffix_read(self, context: CompletionContext, after_digest: bytes) -> SuffixRead | None:
        """The elements after the cursor and their keys. While one types, the text after the
        cursor and the nodes around it stay the same: the read is kept by those."""
        target = context.target
        end = context.prefix_start + len(PLACEHOLDER)  # the cursor, in the tree read
        around = []
        node = target
        while node is not None:
            around.append((node.type, node.start_byte))
            node = node.parent
        key = (after_digest, target.end_byte - end, tuple(around))
        if key in self._suffix_reads:
            self._suffix_reads.move_to_end(key)
            return self._suffix_reads[key]
        after = flatten_after(target, self.suffix, self._suffix_memo)
        allowed = [v != EMPTY for v in after.values]
        read = None
        if any(allowed):
            types = torch.tensor([[self.type_ids.get(t, UNK_ID) for t in after.annotated_types()]], device=self.device)
            values = torch.tensor([[self.value_ids.get(v, UNK_ID) for v in after.values]], device=self.device)
            keys = self.model.suffix.keys(self.model.embed(types, values))
            read = SuffixRead(after.values, [start - end for start in after.starts], allowed, keys)
        return remember(self._suffix_reads, key, read, SUFFIX_READS)

    # -- the call not typed yet --------------------------------------------------------

    def _call(self, context: CompletionContext, flat, a: int, keys: list[tuple], cuts: Cuts) -> Called | None:
        """At a member's name (``os.path.|``), the inputs the model would read had the call
        that often follows been typed (``os.path.|(...)``): training saw the member under its
        call, the buffer has no call yet. None where the member already is a call's function or
        an object, for a model that reads tree positions, or where its types are unknown. (At
        other names, ``x = |``, reading a call too lowered the editing benchmark's figures.)"""
        grammar = CHAINS.get(context.language.name)
        member = member_access(context.target) if grammar is not None and self.tree is None else None
        if member is None or member.parent is None or member.parent.type in (grammar.call, grammar.member):
            return None
        i = cuts.chain  # the member is the chain's root: nothing above it is a call or a member
        if not i or cuts.chain_root != member:
            return None
        r = a + i
        call = self.type_ids.get(f"{grammar.call}|1{int(flat.has_sibling[r])}")
        called = self.type_ids.get(f"{member.type}|{int(flat.has_child[r])}1")  # the arguments follow it
        as_typed = keys[i][0]
        empty = self.value_ids.get(EMPTY)
        if None in (call, called, empty) or as_typed == UNK_ID:
            return None
        alternative = [*keys[:i], (call, empty, 1, call, 0, 0)]
        for j, (t, v, distance, parent_type, here, nxt) in enumerate(keys[i:], i):
            alternative.append((called if j == i else t, v, distance, called if j + 1 - distance == i else parent_type, here, nxt))
        return Called(i, alternative, call, as_typed)

    def _with_call(self, scores: dict[str, list], snap: Snapshot, called: Called, window: list[str],
                   starts: list[int]) -> dict[str, list]:
        """``scores`` mixed with those after the call's inputs, weighed by how likely the model
        finds a call where the member starts (its type probabilities there, of the call and of
        the member as typed)."""
        if snap.type_logits is None:
            return scores
        probs = torch.softmax(snap.type_logits, -1)
        p_call, p_typed = float(probs[called.call]), float(probs[called.as_typed])
        w = p_call / (p_call + p_typed) if p_call + p_typed > 0 else 0.0
        if w < MIN_CALL:
            return scores
        i = called.index
        out = self.run(snap.state, [called.keys[i:]])
        alpha = out.alpha[0, -1].float() if out.alpha is not None else None
        switch = float(out.switch[0, -1]) if out.switch is not None else None
        other = self.value_scores(out.g[0, -1].float(), alpha, switch, [*window[:i], EMPTY, *window[i:]],
                                  [*starts[:i], starts[i], *starts[i:]])
        mixed: dict[str, list] = {}
        for value in scores.keys() | other.keys():
            p, copied, origin = scores.get(value, (0.0, False, None))
            q, copied_q, origin_q = other.get(value, (0.0, False, None))
            mixed[value] = [(1 - w) * p + w * q, copied or copied_q, origin if p >= q else origin_q]
        return mixed


@dataclass(frozen=True)
class SuffixRead:
    """The elements after the cursor with a value the suffix pointer may copy (``allowed``),
    where each starts from the cursor, and their keys."""

    values: list[str]
    offsets: list[int]
    allowed: list[bool]
    keys: torch.Tensor


@dataclass(frozen=True)
class Called:
    """The inputs with a call around the member at ``index`` (from the anchor), and the type ids
    of the call and of the member as typed."""

    index: int
    keys: list[tuple]
    call: int
    as_typed: int


def remember(cache: OrderedDict, key: tuple, value: T, cap: int) -> T:
    """Keep ``value`` under ``key`` in ``cache``, most recent last, at most ``cap`` entries."""
    cache[key] = value
    cache.move_to_end(key)
    if len(cache) > cap:
        cache.popitem(last=False)
    return value
