"""Tree positions and Shiv & Quirk's tree positional encodings (NeurIPS 2019, §3).

A node's position is its path from the root: the child index taken at each step down. The
encoding is a stack of one-hot n-vectors, the newest step first, at most k deep: going down to
child i pushes e_i (``D_i x = e_i ; x[:-n]``), going up pops (``U x = x[n:] ; 0``), so
``U D_i = I`` for stacks shallower than k, and two nodes within depth k have different stacks.

Two ways to read an AST as such a tree (``PositionConfig.kind``):
- ``binary``: left-child right-sibling (the paper's n = 2): a node's first child is its left
  child (digit 0), its next sibling its right child (digit 1). Long child lists (a module's
  statements) become deep right spines, so k must be large (32);
- ``nary``: the child index itself, clipped to n - 1 (child 7, 8, 9... of a block all read as
  the last digit), with a shallower stack (k = 16).

A position is packed into one int64, the *code*: the digits, newest in the lowest bits, and a
sentinel 1 bit just above the oldest one (so the depth, up to k, is in the code too). Codes of a
whole corpus column come from the parent offsets with pointer doubling (vectorised, log2 k
rounds); codes at a completion context come from the same rule on the elements before the
cursor, walking the syntax tree where an element's parent lies before the context.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import torch
from torch import nn

from .flatten import previous_elements

KINDS = ("binary", "nary")
ROOT = 1  # the empty stack: the sentinel bit alone


@dataclass(frozen=True)
class PositionConfig:
    kind: str = "binary"
    degree: int = 2  # n
    depth: int = 32  # k

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"tree positions must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.kind == "binary" and self.degree != 2:
            raise ValueError("binarised trees have degree 2")
        if self.degree < 2 or self.depth < 1 or self.bits * self.depth > 62:
            raise ValueError(f"degree {self.degree} and depth {self.depth} do not fit a 62-bit code")

    @property
    def bits(self) -> int:
        return max(1, math.ceil(math.log2(self.degree)))

    def to_dict(self) -> dict:
        return asdict(self)


def push(code: int, digit: int, config: PositionConfig) -> int:
    """D_digit on a code: one step down; the oldest digit falls off past depth k."""
    b, k = config.bits, config.depth
    depth = (code.bit_length() - 1) // b
    out = (code << b) | digit
    if depth >= k:
        out = (out & ((1 << (b * k)) - 1)) | (1 << (b * k))
    return out


def up_and_digits(parents: torch.Tensor, config: PositionConfig) -> tuple[torch.Tensor, torch.Tensor]:
    """From parent offsets (0 for a root), each element's step up in the chosen tree (-1 at a
    root) and the digit of the step down to it."""
    n = parents.numel()
    index = torch.arange(n)
    parent = torch.where(parents > 0, index - parents, torch.full_like(index, -1))
    group = torch.where(parents > 0, parent, -1 - index)  # each root alone: roots are not siblings
    order = torch.sort(group, stable=True).indices  # children of one parent together, in order
    grouped = group[order]
    first = torch.ones(n, dtype=torch.bool)
    first[1:] = grouped[1:] != grouped[:-1]
    start = torch.cummax(torch.where(first, torch.arange(n), torch.zeros(n, dtype=torch.long)), 0).values
    rank = torch.empty(n, dtype=torch.long)
    rank[order] = torch.arange(n) - start
    if config.kind == "nary":
        return parent, rank.clamp(max=config.degree - 1)
    previous = torch.empty(n, dtype=torch.long)
    previous[order] = torch.cat([order[:1], order[:-1]])  # the element before in its sibling group
    has_previous = rank > 0
    return torch.where(has_previous, previous, parent), has_previous.long()


def codes(parents: torch.Tensor, config: PositionConfig) -> torch.Tensor:
    """The code of every element of a column of parent offsets (files laid end to end; an
    offset never reaches into another file)."""
    parents = parents.to(torch.long)
    n = parents.numel()
    up, digit = up_and_digits(parents, config)
    b, k = config.bits, config.depth
    mask = (1 << (b * k)) - 1
    # pointer doubling: after round r each element holds the last min(depth, 2^r) digits of its
    # path and the ancestor 2^r steps up (a sentinel element n stands above every root)
    anc = torch.where(up >= 0, up, torch.full_like(up, n))
    anc = torch.cat([anc, torch.tensor([n])])
    held = torch.cat([torch.where(up >= 0, 1, 0), torch.tensor([0])])
    value = torch.cat([torch.where(up >= 0, digit, 0), torch.tensor([0])])
    for _ in range(max(1, math.ceil(math.log2(k))) + 1):
        full = held >= k
        extra = ((value[anc] << (held * b)) & mask)
        value = torch.where(full, value, value | extra)
        held = torch.clamp(held + held[anc], max=k)
        anc = anc[anc]
    held, value = held[:n], value[:n] & mask
    return value | (torch.ones_like(value) << (held * b))


def window_codes(parents: Sequence[int], config: PositionConfig, outside: Callable[[int], int]) -> list[int]:
    """Codes of a context's elements from their parent offsets, where an element whose parent
    is before the context (offset reaching past its start) gets ``outside(i)``: its code read
    from the syntax tree. Children of an element inside the context are all inside it too
    (pre-order), so their digits come from the context alone."""
    out: list[int] = []
    children: dict[int, list[int]] = {}  # parent index -> its children so far
    for i, offset in enumerate(parents):
        p = i - offset
        if offset <= 0 or p < 0:
            out.append(outside(i))
            continue
        siblings = children.setdefault(p, [])
        if config.kind == "nary":
            out.append(push(out[p], min(len(siblings), config.degree - 1), config))
        elif siblings:
            out.append(push(out[siblings[-1]], 1, config))
        else:
            out.append(push(out[p], 0, config))
        siblings.append(i)
    return out


def code_of_node(node, config: PositionConfig) -> int:
    """The code of an element's syntax node, read from the tree (at most k steps up)."""
    steps: list[int] = []  # newest first
    while len(steps) < config.depth and node.parent is not None:
        if config.kind == "nary":
            steps.append(len(previous_elements(node, config.degree - 1)))
            node = node.parent
        else:
            before = previous_elements(node, 1)
            steps.append(1 if before else 0)
            node = before[0] if before else node.parent
    code = ROOT
    for digit in reversed(steps):
        code = push(code, digit, config)
    return code


def context_codes(flat, target, target_parent: int, config: PositionConfig) -> tuple[list[int], int]:
    """Codes of the elements of ``flatten_before``'s output and of the predicted node ``target``."""
    n = len(flat)

    def outside(i: int) -> int:
        return code_of_node(flat.node(i) if i < n else target, config)

    out = window_codes([*flat.parents, target_parent], config, outside)
    return out[:-1], out[-1]


def digits(code: torch.Tensor, config: PositionConfig) -> tuple[torch.Tensor, torch.Tensor]:
    """(..., k) digits, newest first, and whether each level is on the path."""
    b, k = config.bits, config.depth
    shifts = torch.arange(k, device=code.device) * b
    level = code.unsqueeze(-1) >> shifts
    valid = level > 1  # the sentinel is still above this level
    return (level & ((1 << b) - 1)) * valid, valid


class TreePositionalEncoding(nn.Module):
    """Codes to vectors: the one-hot stack (n * k) weighted per level by p^level, one copy per
    learned p (tanh-bounded, times sqrt(1 - p^2)), copies concatenated, scaled by
    sqrt(d_model / 2)."""

    def __init__(self, config: PositionConfig, copies: int, d_model: int):
        super().__init__()
        self.config = config
        self.raw_p = nn.Parameter(torch.linspace(-1.0, 1.0, copies) * 0.5 + 0.5)  # p in (0.0, 0.76) at start
        self.scale = math.sqrt(d_model / 2)
        self.size = copies * config.depth * config.degree

    def forward(self, code: torch.Tensor) -> torch.Tensor:
        digit, valid = digits(code, self.config)
        onehot = nn.functional.one_hot(digit, self.config.degree).float() * valid.unsqueeze(-1)  # (..., k, n)
        p = torch.tanh(self.raw_p)  # (copies,)
        levels = torch.arange(self.config.depth, device=code.device, dtype=torch.float32)
        weight = p.unsqueeze(1) ** levels * torch.sqrt(1 - p * p).unsqueeze(1)  # (copies, k)
        out = weight[:, :, None] * onehot.unsqueeze(-3)  # (..., copies, k, n)
        return out.flatten(-3) * self.scale


def stack_vector(code: int, config: PositionConfig) -> torch.Tensor:
    """The parameter-free stack (n * k) of one code, newest step first."""
    digit, valid = digits(torch.tensor(code), config)
    return (nn.functional.one_hot(digit, config.degree) * valid.unsqueeze(-1)).flatten().float()


def down(x: torch.Tensor, i: int, n: int) -> torch.Tensor:
    """D_i x = e_i ; x[:-n]."""
    e = torch.zeros(n)
    e[i] = 1
    return torch.cat([e, x[:-n]])


def up(x: torch.Tensor, n: int) -> torch.Tensor:
    """U x = x[n:] ; 0_n."""
    return torch.cat([x[n:], torch.zeros(n)])
