"""The pointer LSTM with Ahmed et al.'s subtree encoder (models/subtrees.py) on tiny random
models: depths and the frontier on a hand-built tree, no look-ahead, a sequence read in pieces
as read whole, the summaries reaching the output, and training through the shared tooling."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from treecomplete.models import checkpoint
from treecomplete.models.pointer_lstm import ModelConfig, PointerLSTM
from treecomplete.models.subtrees import TreeMemory, depths, frontier
from treecomplete.models.train import train

from .toy import toy_corpus

# a(b(c), d(e, f)) in pre-order: a0 b1 c2 d3 e4 f5; then the predicted node g, a child of a
PARENTS = [None, 0, 1, 0, 3, 3, 0]
DISTANCE = [i + 1 - PARENTS[i + 1] for i in range(6)]  # input i predicts node i + 1
W = 8


def _model(**kw) -> PointerLSTM:
    torch.manual_seed(0)
    cfg = ModelConfig(**{"arch": "pointer-subtrees", "type_dim": 8, "value_dim": 8, "hidden": 16, "window": W,
                         "vocab": 20, "cutoffs": (), "subtree_dim": 8, "subtree_heads": 2, "subtree_window": W, **kw})
    return PointerLSTM(cfg, n_types=12, n_values=23).eval()


def test_depths_follow_the_parents():
    files = torch.zeros(1, 6, dtype=torch.long)
    up, depth, parents = depths(TreeMemory.empty(1, W, "cpu"), files, torch.tensor([DISTANCE]), W)
    assert depth.tolist() == [[0, 1, 2, 1, 2, 2]]
    assert up[0, 1:].tolist() == [1, 1, 3, 1, 2]
    assert parents[0, W:].tolist() == [-1] + [W + p for p in PARENTS[1:6]]  # slots after the memory's W


@pytest.mark.parametrize("query, parent, expected", [
    (2, 0, {1}),  # after c, a child of a comes: b is closed, a open
    (2, 1, {2}),  # after c, a child of b comes: c is closed
    (4, 3, {1, 4}),  # after e, a child of d: b and e
    (5, 0, {1, 3}),  # after f, a child of a: b and d, not what they hold
    (5, 5, {1, 4}),  # a child of f: b, and e (f's closed sibling under the open d)
])
def test_the_frontier_is_the_closed_subtrees_no_other_contains(query, parent, expected):
    depth = torch.tensor([[0, 1, 2, 1, 2, 2]])
    files = torch.zeros(1, 6, dtype=torch.long)
    next_depth = depth[:, parent] + 1
    mask = frontier(depth, files, torch.tensor([query]), next_depth.view(1, 1), W)
    assert set(torch.nonzero(mask[0, 0]).flatten().tolist()) == expected


def _inputs(T: int = 6):
    g = torch.Generator().manual_seed(1)
    types = torch.randint(3, 12, (2, T), generator=g)
    values = torch.randint(3, 23, (2, T), generator=g)
    distance = torch.tensor([DISTANCE[:T], [1, 1, 2, 1, 3, 1][:T]])
    return types, values, torch.zeros(2, T, dtype=torch.long), distance, types.clone()


@torch.no_grad()
def test_no_look_ahead_and_the_summaries_reach_the_output():
    model = _model()
    types, values, files, distance, parent_type = _inputs()
    out = model(types, values, files, distance, parent_type, model.initial_state(2))
    changed = values.clone()
    changed[:, 4] = 3
    again = model(types, changed, files, distance, parent_type, model.initial_state(2))
    torch.testing.assert_close(again.g[:, :4], out.g[:, :4])
    model.subtrees.norm.bias.add_(1.0)  # other summaries: another G where a frontier is read
    moved = model(types, values, files, distance, parent_type, model.initial_state(2))
    assert not torch.allclose(moved.g[0, 5], out.g[0, 5])


@torch.no_grad()
def test_a_sequence_read_in_pieces_gives_what_it_gives_whole():
    model = _model()
    types, values, files, distance, parent_type = _inputs()
    whole = model(types, values, files, distance, parent_type, model.initial_state(2))
    first = model(types[:, :2], values[:, :2], files[:, :2], distance[:, :2], parent_type[:, :2], model.initial_state(2))
    rest = model(types[:, 2:], values[:, 2:], files[:, 2:], distance[:, 2:], parent_type[:, 2:], first.state)
    last = model(types[:, 2:], values[:, 2:], files[:, 2:], distance[:, 2:], parent_type[:, 2:], first.state, last=True)
    torch.testing.assert_close(torch.cat([first.type_logits, rest.type_logits], 1), whole.type_logits)
    torch.testing.assert_close(last.g, whole.g[:, -1:])
    assert model.initial_state(2).nbytes() > _model(arch="pointer").initial_state(2).nbytes()  # the tree memory counts
    picked = rest.state.select(torch.tensor([1]))
    assert picked.tree.depth.shape == (1, W)


def test_trains_saves_and_loads(tmp_path: Path):
    data = toy_corpus(tmp_path)
    out = tmp_path / "m.pt"
    meta, _ = train(data, out, "python", {"arch": "pointer-subtrees", "type_dim": 8, "value_dim": 8, "hidden": 16,
                                          "window": 10, "subtree_window": 6, "subtree_dim": 8, "subtree_heads": 2,
                                          "vocab": 30, "cutoffs": []},
                    {"batch": 2, "segment": 8, "epochs": 1}, quiet=True)
    loaded = checkpoint.load(out)
    assert loaded.model.config.arch == "pointer-subtrees" and meta["steps"] > 0
    assert loaded.model.subtrees is not None
