"""Multi-token completions: beam search over (type, value) elements from where the member chain
at the cursor starts, rendered back to source text (``os.path.join(``, ``self.assertEqual(``,
``document.getElementById(``).

The model generates in its own order, pre-order: the outermost node of ``os.path.join(...)``
(a call) comes before ``os``. So the search starts from the model's state just before the
chain's first node (the predictor keeps a snapshot there), generates node types and, for
identifier leaves, values (vocabulary and pointer, as for one token), and reproduces what is
already typed: the leaves before the cursor's prefix are forced, the first free leaf must start
with the prefix's first character. A node's parent and tree position follow from the two bits
every type carries (has a child, has a right sibling), as in the training sequences. A
hypothesis ends at the first argument list (rendered as ``(``) or when the chain's subtree is
complete; the search stops at its time budget with what has finished.

Imports torch (through the predictor that calls it).
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field

import torch

from ..languages import Grammar
from ..models.flatten import EMPTY
from ..models.tree_positions import push
from ..models.vocab import PAD_ID, UNK_ID

WIDTH = 4  # hypotheses kept per step
TYPES_PER_STEP = 4
VALUES_PER_STEP = 3
MAX_NODES = 10
RESULTS = 5
VOCABULARY_READ = 30  # the vocabulary's most probable values a hypothesis' leaf is chosen among




@dataclass(frozen=True)
class Chain:
    text: str  # what replaces the typed prefix, e.g. "path.join("
    probability: float  # of the generated types and free values
    first: str  # the identifier the continuation starts with (the single-token item it extends)


@dataclass
class Start:
    snapshot: object  # incremental.Snapshot before the chain's first node
    index: int  # that node's index among the elements read
    parent_index: int  # its parent's index (negative: before the context)
    parent_type: int
    code: int  # its tree position (0 for a model without them)
    window: list[str]  # the values read before it
    forced: list[str]  # identifier leaves of the chain typed before the prefix
    prefix: str  # the first free leaf starts with this (lower case)
    typed: str  # source text from the chain's start to the prefix
    grammar: Grammar
    identifier: re.Pattern[str]


@dataclass
class Node:
    type: str
    value: str
    child: bool
    sibling: bool
    parent: int | None  # index among the generated nodes; None for the chain's root
    code: int
    children: list[int] = field(default_factory=list)


@dataclass
class Hypothesis:
    logp: float
    nodes: list[Node]
    open: list[int]  # generated ancestors of the next node
    forced: int  # forced leaves used
    free: int  # free leaves generated
    window: list[str]
    lane: int = 0  # the row of the batched model output it continues from

    def key(self, predictor, start: Start) -> tuple | None:
        """The input for the last node, or None when the chain's subtree is complete."""
        nodes = self.nodes
        k = len(nodes) - 1
        last = nodes[k]
        cursor = last
        if last.child:
            parent = k
        else:
            while not cursor.sibling:
                if cursor.parent is None:
                    return None
                cursor = nodes[cursor.parent]
                self.open.pop()
            if cursor.parent is None:
                return None
            parent = cursor.parent
        if last.child:
            self.open.append(k)
        rank = len(nodes[parent].children)
        code = next_code(predictor.tree, nodes[parent], nodes, rank)
        name = annotated(nodes[parent])
        distance = len(nodes) - parent
        value_id = predictor.value_ids.get(last.value, UNK_ID)
        return (predictor.type_ids.get(annotated(last), UNK_ID), value_id, distance,
                predictor.type_ids.get(name, PAD_ID), last.code, code)


def annotated(node: Node) -> str:
    return f"{node.type}|{int(node.child)}{int(node.sibling)}"


def next_code(tree, parent: Node, nodes: list[Node], rank: int) -> int:
    if tree is None:
        return 0
    if tree.kind == "nary":
        return push(parent.code, min(rank, tree.degree - 1), tree)
    if rank == 0:
        return push(parent.code, 0, tree)
    return push(nodes[parent.children[-1]].code, 1, tree)


def render(nodes: list[Node], grammar: Grammar) -> str | None:
    """Source text of the generated nodes, up to the first ``(``; None if they are no chain."""

    def go(k: int) -> tuple[str, bool] | None:  # text, complete
        node = nodes[k]
        if node.type in grammar.leaves:
            return node.value, True
        kids = node.children
        if node.type not in (grammar.member, grammar.call) or not kids:
            return None
        first = go(kids[0])
        if first is None or not first[1]:
            return first
        if len(kids) != 2:
            return None
        second = nodes[kids[1]]
        if node.type == grammar.member and second.type in grammar.leaves and not second.children:
            return f"{first[0]}.{second.value}", True
        if node.type == grammar.call and second.type == grammar.args:
            return f"{first[0]}(", False
        return None

    out = go(0)
    return out[0] if out is not None else None


@dataclass
class Found:
    chains: list[Chain]  # most probable first
    first: dict[str, float]  # the identifier at the cursor -> probability summed over the structures searched


def search(predictor, start: Start, budget: float, steps: int = MAX_NODES,
           vocabulary: list[tuple[int, float]] | None = None) -> Found:
    """Continuations of the chain at the cursor after at most ``steps`` runs of the model over
    the beams, and within ``budget`` seconds, and what they say of the identifier at the cursor.
    A count of steps gives the same list whatever else the machine does; the budget is a bound
    for a slow or busy machine. ``vocabulary``: the start snapshot's ``vocabulary_top`` row, most
    probable first (at least VOCABULARY_READ), where the caller read it already."""
    deadline = time.perf_counter() + budget
    grammar = start.grammar
    snap = start.snapshot
    allowed, allowed_ids = _allowed_types(predictor, grammar)
    if not allowed:
        return Found([], {})
    state = snap.state
    type_logp = torch.log_softmax(snap.type_logits, -1).unsqueeze(0)
    g = snap.g.unsqueeze(0)
    alpha = snap.alpha.unsqueeze(0) if snap.alpha is not None else None
    switch = [snap.switch]
    live = [Hypothesis(0.0, [], [], 0, 0, list(start.window))]
    finished: dict[str, tuple[float, str]] = {}
    first: dict[str, float] = {}
    step = 0.0  # what the last step cost: the model and the values of its hypotheses
    began = time.perf_counter()
    for run in range(MAX_NODES):
        grown: list[Hypothesis] = []
        tops = [vocabulary[:VOCABULARY_READ]] if run == 0 and vocabulary is not None else None
        for h in live:
            scores = type_logp[h.lane].index_select(0, allowed_ids)
            top = torch.topk(scores, min(TYPES_PER_STEP, len(allowed)))
            values = None  # this hypothesis' candidate values, read once
            for lp, i in zip(top.values.tolist(), top.indices.tolist()):
                name = predictor.types[allowed[i]]
                base, bits = name.split("|")
                child, sibling = bits[0] == "1", bits[1] == "1"
                parent = h.open[-1] if h.open else None
                if not h.nodes:
                    parent = None
                elif parent is None:
                    continue
                code = start.code if not h.nodes else next_code(
                    predictor.tree, h.nodes[parent], h.nodes, len(h.nodes[parent].children))
                if base in grammar.leaves:
                    if h.forced < len(start.forced):
                        options = [(start.forced[h.forced], 0.0, 1)]
                    else:
                        if values is None:
                            if tops is None:  # the vocabulary's share, for every lane at once
                                tops = predictor.vocabulary_top(g, VOCABULARY_READ)
                            values = _values(predictor, h, g, alpha, switch, start, tops[h.lane])
                        options = [(v, math.log(p), 0) for v, p in values
                                   if h.free or v.lower().startswith(start.prefix)][:VALUES_PER_STEP]
                    for value, vlp, used in options:
                        if not used and not h.free:  # the first free leaf: its marginal, over structures
                            first[value] = first.get(value, 0.0) + math.exp(h.logp + lp + vlp)
                        grown.append(_extend(h, base, value, child, sibling, parent, code, lp + vlp, used, 1 - used))
                elif base == grammar.args:
                    done = _extend(h, base, EMPTY, child, sibling, parent, code, lp, 0, 0)
                    _finish(done, start, finished)
                else:
                    grown.append(_extend(h, base, EMPTY, child, sibling, parent, code, lp, 0, 0))
        grown.sort(key=lambda h: -h.logp)
        live, keys = [], []
        for h in grown:
            if len(live) == WIDTH:
                break
            key = h.key(predictor, start)
            if key is None:
                _finish(h, start, finished)
            else:
                live.append(h)
                keys.append(key)
        now = time.perf_counter()
        step, began = now - began, now  # this step: its model run and the values it read
        if not live or run >= steps or now + step > deadline:  # no step that would end past the deadline
            break
        lanes = torch.tensor([h.lane for h in live], device=predictor.device)
        out = predictor.run(state.select(lanes), [[k] for k in keys])
        state = out.state
        type_logp = torch.log_softmax(out.type_logits[:, -1].float(), -1)
        g = out.g[:, -1].float()
        alpha = out.alpha[:, -1].float() if out.alpha is not None else None
        switch = out.switch[:, -1].tolist() if out.switch is not None else [None] * len(live)
        for lane, h in enumerate(live):
            h.lane = lane
            h.window.append(h.nodes[-1].value)
    ranked = sorted(finished.items(), key=lambda kv: -kv[1][0])[:RESULTS]
    return Found([Chain(text, math.exp(lp), head) for text, (lp, head) in ranked], first)


def _allowed_types(predictor, grammar: Grammar) -> tuple[list[int], torch.Tensor]:
    """The type ids a chain is made of (leaves, members, calls, argument lists), once per model."""
    cache = predictor.chain_types
    if grammar not in cache:
        allowed = [i for i, name in enumerate(predictor.types) if _allowed(name, grammar)]
        cache[grammar] = allowed, torch.tensor(allowed, device=predictor.device)
    return cache[grammar]


def _allowed(name: str, grammar: Grammar) -> bool:
    base, _, bits = name.partition("|")
    if base in grammar.leaves:
        return bits[:1] == "0"
    if base in (grammar.call, grammar.member):
        return bits[:1] == "1"
    return base == grammar.args


def _values(predictor, h: Hypothesis, g, alpha, switch, start: Start, vocabulary) -> list[tuple[str, float]]:
    scores = predictor.value_scores(g[h.lane], alpha[h.lane] if alpha is not None else None, switch[h.lane],
                                    h.window, vocabulary=vocabulary)
    ranked = sorted(((v, s[0]) for v, s in scores.items() if s[0] > 0 and start.identifier.fullmatch(v)),
                    key=lambda vp: -vp[1])
    return ranked[:50]


def _extend(h: Hypothesis, base: str, value: str, child: bool, sibling: bool, parent: int | None, code: int,
            logp: float, forced: int, free: int) -> Hypothesis:
    nodes = [Node(n.type, n.value, n.child, n.sibling, n.parent, n.code, list(n.children)) for n in h.nodes]
    node = Node(base, value, child, sibling, parent, code)
    if parent is not None:
        nodes[parent].children.append(len(nodes))
    nodes.append(node)
    return Hypothesis(h.logp + logp, nodes, list(h.open), h.forced + forced, h.free + free, list(h.window), h.lane)


def _finish(h: Hypothesis, start: Start, finished: dict[str, tuple[float, str]]) -> None:
    text = render(h.nodes, start.grammar)
    if text is None or h.forced < len(start.forced) or not text.startswith(start.typed):
        return
    rest = text[len(start.typed):]
    match = start.identifier.match(rest)
    if match is None or match.end() == len(rest) or not rest.lower().startswith(start.prefix):
        return  # one token only: the single-token items have it
    if rest not in finished or finished[rest][0] < h.logp:
        finished[rest] = (h.logp, match.group(0))
