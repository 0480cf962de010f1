"""Corpus statistics: the thesis' Table 3.1 (files, nodes, vocabulary sizes per split) and the
statistics columns of Table 3.2 (OoV rate and localness for several K and windows)."""

from __future__ import annotations

from pathlib import Path

import torch

from .batches import column
from .store import Split
from .vocab import SPECIALS, Vocabulary, previous_occurrence

KS = (1_000, 10_000, 50_000)
WINDOWS = (50, 200, 1_000)


def oov_and_localness(split: Split, bound: int, windows: tuple[int, ...]) -> tuple[float, dict[int, float]]:
    """Share of value targets at or past ``bound`` (outside the vocabulary), and for each window
    the share of those that occurred earlier within it (what a pointer can copy): the pointer
    labels of ``vocab``, over the whole split at once."""
    if not split.elements:
        return 0.0, dict.fromkeys(windows, 0.0)
    values = column(split, "values")
    offsets = torch.tensor(split.offsets.tolist(), dtype=torch.int64)
    files = torch.repeat_interleave(torch.arange(len(split)), offsets[1:] - offsets[:-1])
    oov = values >= bound
    back = previous_occurrence(values, files)[oov]
    count = int(oov.sum())
    local = {w: int(((back > 0) & (back <= w)).sum()) for w in windows}
    return count / values.numel(), {w: (local[w] / count if count else 0.0) for w in windows}


def report(directory: Path, split_name: str = "test") -> str:
    types = Vocabulary.load(directory / "types.json")
    values = Vocabulary.load(directory / "values.json")
    splits = {name: Split(directory / name) for name in ("train", "valid", "test")}
    lines = [f"Corpus {directory}", "", "| split | files | nodes (queries) |", "|---|---:|---:|"]
    for name, split in splits.items():
        lines.append(f"| {name} | {len(split):,} | {split.elements:,} |")
    lines += ["", f"Type vocabulary: {types.trained:,} in training (with the two bits); "
              f"values: {values.trained:,} distinct in training, {len(values) - len(SPECIALS):,} in all splits.", ""]
    lines += [f"OoV rate and localness on the {split_name} split (localness: OoV values seen earlier in the window):", "",
              "| K | OoV rate | " + " | ".join(f"local @{w}" for w in WINDOWS) + " |",
              "|---:|---:|" + "---:|" * len(WINDOWS)]
    for k in KS:
        rate, local = oov_and_localness(splits[split_name], values.bound(k), WINDOWS)
        lines.append(f"| {k:,} | {rate:.1%} | " + " | ".join(f"{local[w]:.1%}" for w in WINDOWS) + " |")
    return "\n".join(lines)
