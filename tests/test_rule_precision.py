"""Each rule's precision on gathered lists (benchmarks/rule_precision.py)."""

from __future__ import annotations

import numpy as np
from benchmarks.editing import MIDDLE, PREFIX
from benchmarks.rank_lists import CompletionList
from benchmarks.rule_precision import count
from treecomplete.ranking.features import ROW, RULES, SIZE

ECHO = RULES.index("the name across the `=` (`f(cookies=c|`, `self.timeout = t|`)")


def _list(mode: str, flagged: list[int], truth: int, rows: int = 3) -> CompletionList:
    x = np.zeros((rows, ROW), dtype=np.float32)
    for row in flagged:
        x[row, SIZE + ECHO] = 1.0
    return CompletionList("pkg", 1, 3, mode, x, truth)


def test_a_rule_is_right_where_it_holds_for_the_truth_and_alone_where_for_it_only():
    counts = count([
        _list(PREFIX, [0], 0),  # fired, right, alone
        _list(PREFIX, [0, 2], 2),  # fired, right, not alone
        _list(PREFIX, [1], 0),  # fired, wrong
        _list(PREFIX, [], 0),  # not fired
        _list(PREFIX, [0], -1),  # fired; the truth not among the candidates: wrong
        _list(MIDDLE, [0], 0),
    ])
    row = counts[PREFIX][RULES[ECHO]]
    assert (row["lists"], row["fired"], row["right"], row["alone"]) == (5, 4, 2, 1)
    assert counts[MIDDLE][RULES[ECHO]]["right"] == 1
    assert counts[PREFIX][RULES[0]] == {"lists": 5}  # a rule that never holds
