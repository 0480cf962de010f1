"""Files parsed in a child process (the server's way): the same answers as parsed here, a
failure or a dead child said and survived, the child gone when idle or when the server drops
what it read."""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from treecomplete.languages import PYTHON
from treecomplete.sources.libraries.known import Libraries
from treecomplete.sources.libraries.python import PythonLibraries
from treecomplete.sources.project import file_words
from treecomplete.sources.project_index import ProjectIndex
from treecomplete.sources.reader_process import ReaderProcess

from .libraries_fixtures import make_venv


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_venv(tmp_path_factory.mktemp("project"))


@pytest.fixture
def reader():
    process = ReaderProcess(environments=2)
    yield process
    process.stop()


def _until(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_a_module_read_in_the_child_is_the_module_read_here(reader: ReaderProcess, site: Path):
    for dotted in ("os.path", "fakepkg", "json.dumps()"):
        there, files_there = reader.read((site,), dotted)
        here, files_here = PythonLibraries((site,)).read(dotted)
        assert there == here, dotted
        assert files_there == files_here
    assert reader.find((site,), "fakepkg") == PythonLibraries((site,)).find("fakepkg")
    assert reader.started == 1 and reader.running()


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="resident memory is read from /proc")
def test_the_memory_limit_counts_the_child(reader: ReaderProcess, site: Path):
    from treecomplete import memory

    reader.read((site,), "json")
    assert memory.resident_mb(children=True) > memory.resident_mb() + 5  # the child holds an interpreter of its own


def test_a_files_words_from_the_child_are_the_words_read_here_and_interned(reader: ReaderProcess, tmp_path: Path):
    path = tmp_path / "m.py"
    data = b"import os\nfrom .nodes import Name\n\nclass Store:\n    def load(self):\n        return os.path.join(self.root)\n"
    there = reader.file_words(data, str(path))
    assert there == file_words(data, PYTHON, path=path)
    assert "Store" in there.defined and ("os", "path") in there.pairs
    word = next(w for w in there.words if w == "Store")
    assert word is sys.intern("Store")  # one string per word across files, as when read here


def test_a_call_that_fails_in_the_child_says_why_and_the_child_goes_on(reader: ReaderProcess, site: Path, tmp_path: Path):
    with pytest.raises(RuntimeError, match="KeyError"):
        reader.file_words(b"x = 1\n", str(tmp_path / "notes.unknown"))  # no language of that suffix
    assert reader.read((site,), "json")[0] is not None
    assert reader.started == 1


def test_a_child_that_dies_is_started_again(reader: ReaderProcess, site: Path):
    reader.read((site,), "json")
    os.kill(reader.pid(), signal.SIGKILL)
    assert _until(lambda: not reader.running())
    members, _ = reader.read((site,), "json")
    assert members is not None and "dumps" in members.names
    assert reader.started == 2


@pytest.mark.skipif(os.name != "posix", reason="a call's time is bounded where a pipe can be waited on")
def test_a_child_that_hangs_is_killed_and_the_call_fails(site: Path):
    process = ReaderProcess(limit=0.5)
    try:
        process.read((site,), "json")
        os.kill(process.pid(), signal.SIGSTOP)  # hung: it never answers
        with pytest.raises(RuntimeError, match="no answer"):
            process.read((site,), "os.path")
        assert not process.running()
        assert process.read((site,), "os.path")[0] is not None  # the next call gets a new child
        assert process.started == 2
    finally:
        process.stop()


def test_a_child_that_cannot_start_fails_the_call_and_the_next_one_tries_again(site: Path, monkeypatch):
    from treecomplete.sources import reader_process

    popen = reader_process.subprocess.Popen
    process = ReaderProcess()
    try:
        def refuse(*args, **kwargs):
            raise OSError(24, "Too many open files")

        monkeypatch.setattr(reader_process.subprocess, "Popen", refuse)
        with pytest.raises(RuntimeError, match="Too many open files"):
            process.read((site,), "json")
        process.warm()  # logged, not raised
        monkeypatch.setattr(reader_process.subprocess, "Popen", popen)
        assert process.read((site,), "json")[0] is not None
    finally:
        process.stop()


def test_where_no_child_can_start_the_files_are_parsed_in_the_server(site: Path, tmp_path: Path, monkeypatch):
    from treecomplete.sources import reader_process

    def refuse(*args, **kwargs):
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(reader_process.subprocess, "Popen", refuse)
    libraries = Libraries(separate=True)
    env = (site,)
    outcomes = []
    for _ in range(reader_process.STARTS):
        try:
            outcomes.append(libraries._libraries(env).read("json")[0])
        except RuntimeError:
            outcomes.append("failed")
    assert outcomes[:-1] == ["failed"] * (reader_process.STARTS - 1)  # said, and tried again
    assert outcomes[-1] is not None and "dumps" in outcomes[-1].names  # then read here
    assert libraries.reader.unavailable and libraries._libraries(env).find("json") is not None
    (tmp_path / "a.py").write_text("def beta_helper():\n    return 1\n")
    index = ProjectIndex(separate=True)
    index.reader.failed_starts = reader_process.STARTS  # as after as many failed starts
    index.add_root(tmp_path)
    assert index.wait(10)
    assert "beta_helper" in index.snapshot(PYTHON).files[str(tmp_path / "a.py")].defined


def test_a_child_over_its_memory_bound_exits_after_answering(site: Path):
    process = ReaderProcess(full=1)  # every child is over 1 MB: each answers once, then exits
    try:
        for dotted in ("json", "os.path", "json"):
            members, _ = process.read((site,), dotted)
            assert members is not None and members.names, dotted
            assert not process.running()
        assert process.started == 3
    finally:
        process.stop()


def test_the_child_exits_when_idle_and_its_log_records_come_back(site: Path, caplog: pytest.LogCaptureFixture):
    broken = site / "brokenreader"
    broken.mkdir(exist_ok=True)
    (broken / "__init__.py").write_bytes(b"\x00\xff" * 100)
    process = ReaderProcess(idle=0.3)
    try:
        with caplog.at_level(logging.INFO):
            members, _ = process.read((site,), "brokenreader")
        assert members is None or not members.names
        assert any("brokenreader not read" in r.getMessage() for r in caplog.records)  # logged by the server
        assert _until(lambda: not process.running())
        assert process.read((site,), "json")[0] is not None  # and a later read starts it again
        assert process.started == 2
    finally:
        process.stop()


def test_the_server_s_libraries_and_index_parse_in_children(site: Path, tmp_path: Path):
    libraries = Libraries(separate=True)
    try:
        env = (site,)
        assert libraries._libraries(env).read("json")[0] is not None
        assert libraries.reader.running()
        libraries.clear()  # the server drops what it read: the child goes, its memory with it
        assert _until(lambda: not libraries.reader.running())
    finally:
        libraries.reader.stop()
    (tmp_path / "a.py").write_text("def alpha_helper():\n    return 1\n")
    index = ProjectIndex(separate=True)
    try:
        index.add_root(tmp_path)
        assert index.wait(10)
        assert "alpha_helper" in index.snapshot(PYTHON).files[str(tmp_path / "a.py")].defined
        assert index.reader.started == 1
    finally:
        index.reader.stop()
