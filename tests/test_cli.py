"""``treecomplete complete FILE:LINE:COL`` as a newcomer runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DEMO = Path(__file__).parent.parent / "examples" / "demo.py"


def _run(*args):
    return subprocess.run([sys.executable, "-m", "treecomplete.cli", *args], capture_output=True, text=True, timeout=60)


def test_complete_prints_ranked_candidates():
    out = _run("complete", f"{DEMO}:14:31")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "prefix='config_dir'" in lines[0]
    assert lines[1].split()[:3] == ["1.", "config_directory", "variable"]


def test_complete_json_and_end_of_file(tmp_path):
    source = tmp_path / "x.js"
    source.write_text("function handleClick() {}\nhandle", encoding="utf-8")
    out = _run("complete", str(source), "--json")
    first = json.loads(out.stdout)[0]
    assert {k: first[k] for k in ("text", "kind")} == {"text": "handleClick", "kind": "function"}
    assert isinstance(first["score"], float) and "copied from line 1" in first["detail"]


def test_clear_errors(tmp_path):
    assert "cannot read" in _run("complete", str(tmp_path / "missing.py") + ":1:1").stderr
    (tmp_path / "notes.txt").write_text("hi")
    out = _run("complete", str(tmp_path / "notes.txt"))
    assert out.returncode == 2 and "not a supported language" in out.stderr
    out = _run("complete", f"{DEMO}:999:1")
    assert out.returncode == 2 and "lines" in out.stderr


def test_the_cli_names_the_same_architectures_as_the_models():
    """cli.ARCHS is spelt out so that --help does not import torch; it must not drift."""
    from treecomplete import cli
    from treecomplete.models.architectures import ARCHS

    assert cli.ARCHS == ARCHS


def test_complete_offers_the_members_of_what_the_file_imports(tmp_path):
    source = tmp_path / "paths.py"
    source.write_text("import os\nbase = os.path.\n", encoding="utf-8")
    out = _run("complete", f"{source}:2:16", "--model", "fallback", "--json")
    assert out.returncode == 0, out.stderr
    found = [c["text"] for c in json.loads(out.stdout)]
    assert "join" in found[:3] and "base" not in found[:10]
