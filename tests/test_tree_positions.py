"""Tree positions (Shiv & Quirk §3): the stack operators, uniqueness, the corpus codes from
parent offsets, and the codes the server computes at a cursor against the corpus ones."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
import torch

from treecomplete.languages import JAVASCRIPT, PYTHON
from treecomplete.models.flatten import flatten, flatten_before
from treecomplete.models.tree_positions import (ROOT, PositionConfig, TreePositionalEncoding, codes, context_codes, down,
                                                push, stack_vector, up)

from .syntax import identifier_leaves

FIXTURES = Path(__file__).parent / "fixtures"
BINARY = PositionConfig("binary", 2, 32)
NARY = PositionConfig("nary", 4, 6)


@pytest.mark.parametrize("config", [PositionConfig("binary", 2, 5), NARY])
def test_up_undoes_down_within_the_depth(config):
    n, k = config.degree, config.depth
    for path in itertools.product(range(n), repeat=k - 1):  # every stack with room for one more
        x = ROOT
        for d in path:
            x = push(x, d, config)
        v = stack_vector(x, config)
        for i in range(n):
            pushed = down(v, i, n)
            assert torch.equal(up(pushed, n), v)
            assert torch.equal(pushed, stack_vector(push(x, i, config), config))  # D_i on codes and vectors agree


@pytest.mark.parametrize("config", [PositionConfig("binary", 2, 6), PositionConfig("nary", 3, 4)])
def test_encodings_are_unique_within_the_depth(config):
    encoding = TreePositionalEncoding(config, copies=2, d_model=16)
    seen = {}
    for depth in range(config.depth + 1):
        for path in itertools.product(range(config.degree), repeat=depth):
            x = ROOT
            for d in path:
                x = push(x, d, config)
            key = tuple(encoding(torch.tensor(x)).detach().round(decimals=5).tolist())
            assert key not in seen, f"{path} and {seen[key]} share an encoding"
            seen[key] = path
    assert len(seen) == sum(config.degree ** d for d in range(config.depth + 1))


def test_deeper_than_k_forgets_the_oldest_step():
    config = PositionConfig("binary", 2, 3)
    a = push(push(push(push(ROOT, 0, config), 1, config), 1, config), 0, config)
    b = push(push(push(push(ROOT, 1, config), 1, config), 1, config), 0, config)
    assert push(push(push(ROOT, 1, config), 1, config), 0, config) == a  # only the last 3 steps remain
    assert a == b


def _by_hand(parents: list[int], config: PositionConfig) -> list[int]:
    out: list[int] = []
    children: dict[int, list[int]] = {}
    for i, offset in enumerate(parents):
        if offset == 0:
            out.append(ROOT)
            continue
        p = i - offset
        siblings = children.setdefault(p, [])
        if config.kind == "nary":
            out.append(push(out[p], min(len(siblings), config.degree - 1), config))
        else:
            out.append(push(out[siblings[-1]], 1, config) if siblings else push(out[p], 0, config))
        siblings.append(i)
    return out


@pytest.mark.parametrize("config", [BINARY, NARY, PositionConfig("binary", 2, 4)])
def test_corpus_codes_follow_the_tree(config):
    """Pointer doubling over two files laid end to end equals walking each tree by hand."""
    first = flatten(PYTHON.parser().parse((FIXTURES / "inventory.py").read_bytes())).parents
    second = flatten(JAVASCRIPT.parser().parse((FIXTURES / "cart.js").read_bytes())).parents
    got = codes(torch.tensor(first + second), config).tolist()
    assert got == _by_hand(first, config) + _by_hand(second, config)
    assert len(set(got)) > 20  # the positions do tell the nodes apart


@pytest.mark.parametrize(("language", "name"), [(PYTHON, "inventory.py"), (JAVASCRIPT, "cart.js")])
@pytest.mark.parametrize("config", [BINARY, PositionConfig("nary", 8, 16)])
def test_codes_at_a_cursor_equal_the_corpus_codes(language, name, config):
    """The server's codes (a bounded context, the tree walked for what lies before it) are
    the ones training read, for the context and for the predicted node."""
    tree = language.parser().parse((FIXTURES / name).read_bytes())
    full = flatten(tree)
    expected = codes(torch.tensor(full.parents), config).tolist()
    checked = 0
    for leaf in identifier_leaves(tree.root_node):
        at = [i for i, s in enumerate(full.starts) if s == leaf.start_byte and full.values[i] == leaf.text.decode()]
        if not at:
            continue
        target = at[0]
        flat, target_parent = flatten_before(leaf, 30)
        got, target_code = context_codes(flat, leaf, target_parent, config)
        assert got == expected[target - len(flat):target]
        assert target_code == expected[target]
        checked += 1
    assert checked > 50
