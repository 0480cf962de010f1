"""The files benchmarks/latency.py opens after its trace, for the first request after an open."""

from __future__ import annotations

from benchmarks.latency import opened_files


def test_the_largest_files_beside_the_trace_s_of_its_suffix_are_opened_in_name_order(tmp_path):
    for name, size in {"trace.py": 50, "a.py": 10, "b.py": 30, "c.py": 20, "d.js": 99, "huge.py": 600 * 1024}.items():
        (tmp_path / name).write_text("x" * size)
    assert opened_files(tmp_path / "trace.py", 2) == [tmp_path / "b.py", tmp_path / "c.py"]
    assert opened_files(tmp_path / "trace.py", 9) == [tmp_path / "a.py", tmp_path / "b.py", tmp_path / "c.py"]
