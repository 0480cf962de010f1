"""How often each rule of the ranker (ranking/features.py RULES) is right, on lists gathered from
valid-split packages (benchmarks/rank_lists.py), never a benchmark package.

For each rule: the lists where it holds for some candidate ("fires"), the share of those where
it holds for the true identifier (precision), the share where that identifier is the only
candidate it holds for, and, for the rules that mark what cannot be right (the wrong kind of
member, what cannot name a module), how often they hold for the truth at all. Per mode (a
buffer ending at the cursor, the text after it kept).

    python -m benchmarks.rule_precision --lists bench-out/rank/lists/python [--out FILE]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
from treecomplete.ranking.features import RULES, SIZE

from .editing import MIDDLE, PREFIX
from .rank_lists import CompletionList, load


def count(lists: list[CompletionList]) -> dict[str, dict[str, dict[str, int]]]:
    """Per mode and rule: lists, fired (the rule holds for some candidate), right (it holds for
    the truth), alone (for the truth and no other candidate)."""
    out: dict[str, dict[str, dict[str, int]]] = {mode: defaultdict(lambda: defaultdict(int)) for mode in (PREFIX, MIDDLE)}
    for found in lists:
        flags = np.asarray(found.x[:, SIZE:SIZE + len(RULES)]) > 0
        held = flags.any(axis=0)
        for rule, name in enumerate(RULES):
            row = out[found.mode][name]
            row["lists"] += 1
            if not held[rule]:
                continue
            row["fired"] += 1
            if found.truth >= 0 and flags[found.truth, rule]:
                row["right"] += 1
                row["alone"] += int(flags[:, rule].sum() == 1)
    return {mode: {name: dict(row) for name, row in rules.items()} for mode, rules in out.items()}


def print_table(counts: dict[str, dict[str, dict[str, int]]]) -> None:
    for mode, rules in counts.items():
        print(f"\n{'at a buffer' + chr(39) + 's end' if mode == PREFIX else 'inside a file'}: fired / right (alone) of lists")
        for name, row in rules.items():
            fired = row.get("fired", 0)
            share = f"{row.get('right', 0) / fired:6.1%}" if fired else "     -"
            print(f"  {fired:6d} {share} ({row.get('alone', 0)})  of {row['lists']}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lists", action="append", required=True, help="a folder of gathered lists' parts (repeatable)")
    parser.add_argument("--out", help="write the counts as JSON here")
    args = parser.parse_args()
    counts = count(load([Path(folder) for folder in args.lists]))
    print_table(counts)
    if args.out:
        Path(args.out).write_text(json.dumps(counts, indent=2))


if __name__ == "__main__":
    main()
