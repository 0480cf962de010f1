"""The soak benchmark (benchmarks/soak.py) on a handful of files: the phases it reports, with the
real server process."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from benchmarks.lsp import Session
from benchmarks.soak import files_of, middle, soak


def test_files_are_taken_in_path_order_a_folder_at_a_time(tmp_path: Path):
    for name in ("b.py", "a.py", "sub/c.py", ".hidden/d.py", "e.js"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    assert [p.name for p in files_of([tmp_path], "python", 10)] == ["a.py", "b.py", "c.py"]
    assert len(files_of([tmp_path], "python", 2)) == 2
    other = tmp_path / "sub"
    assert [p.name for p in files_of([tmp_path, other], "python", 10, per_folder=1)] == ["a.py", "c.py"]
    assert middle("a\nbb\nccc") == (1, 2)


def test_a_small_soak_reports_every_phase_without_errors(tmp_path: Path):
    for i in range(4):
        (tmp_path / f"m{i}.py").write_text(f"import os\n\nvalue_{i} = os.path.join('a', 'b')\nprint(value_{i})\n")
    session = Session("treecomplete", [sys.executable, "-m", "treecomplete", "--stdio"],
                      {"treecomplete": {"model": "fallback"}}, root=tmp_path, folders=[tmp_path])
    report = asyncio.run(soak(session, files_of([tmp_path], "python", 10), "python", 2, 0, ours=False))
    assert report["errors"] == 0
    assert report["open"]["requests"] == 4 and report["edit"]["requests"] == 2 and report["typing"]["requests"] == 2
    assert report["open"]["rss_mb"] > 0 and report["closed_rss_mb"] > 0
