"""benchmarks.rank_diff: two runs of the editing benchmark compared position by position."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchmarks.rank_diff import differing


def test_positions_ranked_otherwise_are_found_and_counted(tmp_path: Path):
    a = [["a.py:10", 0, 1], ["a.py:10", 1, 1], ["b.py:4", 0, None], ["c.py:7", 0, 3]]
    b = [["a.py:10", 0, 2], ["a.py:10", 1, 1], ["b.py:4", 0, None]]  # c.py was not asked in b
    assert differing(a, b) == [("a.py:10", 0, 1, 2)]
    for name, each in (("a.json", a), ("b.json", b)):
        (tmp_path / name).write_text(json.dumps({"positions": {"prefix": {"treecomplete (model)": each}}}))
    out = subprocess.run([sys.executable, "-m", "benchmarks.rank_diff", str(tmp_path / "a.json"), str(tmp_path / "b.json")],
                         capture_output=True, text=True, check=True, cwd=Path(__file__).parents[1]).stdout
    assert "1 of 4 positions ranked differently" in out and "a.py:10 k=0: 1 / 2" in out
