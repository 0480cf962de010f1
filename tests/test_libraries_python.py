"""Python libraries read from source, never imported: the standard library from typeshed's
stubs, a package of an environment's site-packages, the environment found as editors find it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from treecomplete.engines.base import Kind
from treecomplete.sources.libraries.python import PythonLibraries
from treecomplete.sources.libraries.python_environment import environment
from treecomplete.sources.libraries.python_docs import lookup

from .libraries_fixtures import make_venv


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_venv(tmp_path_factory.mktemp("project"))


@pytest.fixture(scope="module")
def libraries(site: Path) -> PythonLibraries:
    return PythonLibraries((site,))


def test_the_standard_library_comes_from_its_stubs(libraries: PythonLibraries):
    path = libraries.members("os.path")
    assert path is not None and path.complete
    assert path.names["join"].kind == Kind.FUNCTION
    assert "join(a, /, *paths)" in path.names["join"].detail and "os.path" in path.names["join"].detail
    assert path.names["join"].uses > path.names.get("altsep", path.names["join"]).uses or "altsep" not in path.names
    assert {"dumps", "loads"} <= set(libraries.members("json").names)
    assert libraries.members("os").names["path"].kind == Kind.MODULE


def test_a_package_of_py_files(libraries: PythonLibraries):
    members = libraries.members("fakepkg")
    names = set(members.names)
    # its definitions, its re-exports, its submodules; not what it imports from elsewhere, nor privates
    assert {"make_polygon", "VERSION", "Polygon", "area_of", "units", "shapes"} <= names
    assert not {"os", "Any", "_private"} & names
    assert members.names["Polygon"].kind == Kind.CLASS
    assert members.names["make_polygon"].detail.startswith("def make_polygon(sides, *, closed)")
    assert {"convert", "METRE"} <= set(libraries.members("fakepkg.units").names)


def test_a_class_with_its_bases_and_instance_attributes(libraries: PythonLibraries):
    polygon = libraries.members("fakepkg.Polygon")
    assert polygon is not None
    names = set(polygon.names)
    assert {"perimeter", "corners", "sides", "regular", "describe"} <= names  # describe: from the base Shape
    assert "_cache" not in names and "__init__" not in names
    assert polygon.names["regular"].kind == Kind.PROPERTY and polygon.names["regular"].kind.base == Kind.VARIABLE
    assert polygon.names["corners"].kind == Kind.FIELD and polygon.names["sides"].kind == Kind.FIELD
    perimeter = polygon.names["perimeter"]
    assert perimeter.kind == Kind.METHOD and perimeter.signature == "(scale)" and perimeter.origin == "fakepkg.shapes.Polygon"
    assert perimeter.doc == "The sum of the sides, scaled."  # the docstring's first paragraph, its lines joined


def test_what_a_member_is(libraries: PythonLibraries):
    """Kinds, signatures and the standard library's docstrings (a stub has none: its source's)."""
    package = libraries.members("fakepkg")
    assert package.names["VERSION"].kind == Kind.CONSTANT and package.names["units"].kind == Kind.MODULE
    assert package.names["make_polygon"].signature == "(sides, *, closed)"
    assert package.names["Polygon"].signature == "(sides)"  # a class's: its __init__'s
    join = libraries.members("os.path").names["join"]
    assert join.kind == Kind.FUNCTION and join.signature == "(a, /, *paths)" and join.origin == "os.path"
    assert not join.doc and lookup(join.doc_of).startswith("Join two or more pathname components")  # read on resolve
    dumps = libraries.members("json").names["dumps"]
    assert dumps.signature.startswith("(obj, *, skipkeys") and lookup(dumps.doc_of).startswith("Serialize ``obj``")


def test_a_stub_is_preferred_to_the_source(libraries: PythonLibraries):
    names = set(libraries.members("stubbed").names)
    assert "from_stub" in names and "from_source" not in names


def test_what_does_not_exist_is_none(libraries: PythonLibraries):
    assert libraries.members("no_such_module_here") is None
    assert libraries.members("fakepkg.no_such_name") is None


def test_reading_imports_nothing(libraries: PythonLibraries, site: Path):
    (site / "exploding.py").write_text("raise SystemExit('imported!')\ndef defused(): pass\n")
    assert "defused" in libraries.members("exploding").names


def test_broken_files_are_skipped(site: Path):
    (site / "broken.py").write_text("def ok(:\n")  # a syntax error
    (site / "binary.py").write_bytes(b"\x00\xff\xfe" * 100)
    (site / "huge.py").write_text("x = 1\n" * 400_000)  # over MAX_FILE
    loop = site / "looped"
    loop.mkdir()
    (loop / "self").symlink_to(loop / "self")  # a symlink loop
    libraries = PythonLibraries((site,))
    for name in ("broken", "binary", "huge", "looped.self", "looped"):
        members = libraries.members(name)  # never raises
        assert members is None or isinstance(members.names, dict)
    assert libraries.members("huge") is None


def test_the_environment_is_found_as_editors_find_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture):
    workspace = tmp_path / "workspace"
    folder = workspace / "src" / "app"
    folder.mkdir(parents=True)
    site = make_venv(workspace, "venv")
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    assert environment(folder, workspace) == (site,)  # venv/ in a folder above the document
    other = make_venv(tmp_path / "elsewhere")
    interpreter = other.parent.parent.parent / "bin" / "python"
    assert environment(folder, workspace, str(interpreter)) == (other,)  # the pythonPath setting first
    lone = tmp_path / "lone"
    lone.mkdir()
    monkeypatch.setenv("VIRTUAL_ENV", str(other.parent.parent.parent))
    assert environment(lone, lone) == (other,)  # else VIRTUAL_ENV
    monkeypatch.delenv("VIRTUAL_ENV")
    own = environment(lone, lone)
    assert own and all(p.is_dir() for p in own)  # else the server's own interpreter
    with caplog.at_level("WARNING"):
        for _ in range(3):  # a wrong setting: logged once, the rest tried
            assert environment(lone, lone, str(tmp_path / "missing" / "bin" / "python")) == own
    assert sum("no site-packages found" in r.message for r in caplog.records) == 1
    assert os.environ.get("VIRTUAL_ENV") is None


def test_a_module_changed_on_disk_is_read_afresh(tmp_path: Path):
    site = make_venv(tmp_path)
    libraries = PythonLibraries((site,))
    assert "convert" in libraries.read("fakepkg.units")[0].names
    assert libraries.read("fakepkg.units")[0] is libraries.read("fakepkg.units")[0]  # kept, not read twice
    units = site / "fakepkg" / "units.py"
    units.write_text("def renamed(value):\n    return value\n")
    os.utime(units, (units.stat().st_mtime + 5, units.stat().st_mtime + 5))
    names = set(libraries.read("fakepkg.units")[0].names)
    assert "renamed" in names and "convert" not in names


def test_hostile_modules_are_harmless(site: Path):
    """Import cycles (star re-exports, bases, a return type naming itself), a 50 MB module: each
    answers None or what it can, never raises, and the rest is still read."""
    (site / "ping.py").write_text("from pong import *\nclass Ping(Pong):\n    def again(self) -> 'Ping':\n        pass\n"
                                  "def ping() -> 'Ping':\n    pass\n")
    (site / "pong.py").write_text("from ping import *\nclass Pong(Ping):\n    def back(self):\n        pass\n")
    with open(site / "vast.py", "w") as out:
        out.write("def f():\n    pass\n" * (50 * 1024 * 1024 // 18))
    libraries = PythonLibraries((site,))
    for dotted in ("ping", "pong", "ping.Ping", "pong.Pong", "ping.ping()", "ping.Ping.again()", "vast", "vast.f()"):
        members = libraries.members(dotted)
        assert members is None or isinstance(members.names, dict)
    assert "again" in libraries.members("ping.ping()").names  # what it can read, it reads
    assert libraries.members("vast") is None  # over MAX_FILE: not read
    assert "join" in libraries.members("os.path").names


def test_the_parsed_modules_of_the_least_recently_used_environment_go_past_the_bound(tmp_path, monkeypatch):
    from treecomplete.sources.libraries import known

    monkeypatch.setattr(known, "ENVIRONMENTS", 2)
    libraries = known.Libraries()
    envs = [(tmp_path / name,) for name in ("a", "b", "c")]
    for env in envs:
        env[0].mkdir()
    first = libraries._libraries(envs[0])
    libraries._libraries(envs[1])
    assert libraries._libraries(envs[0]) is first  # used again: the most recent
    libraries._libraries(envs[2])
    assert list(libraries._python) == [envs[0], envs[2]]  # b, the least recently used, went


def test_parsed_modules_are_bounded_in_bytes_and_read_again_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Past PARSED estimated bytes of parsed modules, an environment starts afresh: the same
    members come back, read again, and the estimate falls."""
    from treecomplete.sources.libraries import python

    site = make_venv(tmp_path)
    libraries = PythonLibraries((site,))
    first = set(libraries.read("fakepkg.units")[0].names)
    held = libraries.parsed_bytes()
    assert held > 0
    assert held == (site / "fakepkg" / "units.py").stat().st_size * python.PER_SOURCE_BYTE  # the one module parsed
    monkeypatch.setattr(python, "PARSED", held)  # full: the next read starts afresh
    resolver = libraries.resolver
    assert "Stubbed" in libraries.read("stubbed")[0].names
    assert libraries.resolver is not resolver and libraries.parsed_bytes() < held + site.joinpath("stubbed.pyi").stat().st_size * python.PER_SOURCE_BYTE
    assert set(libraries.read("fakepkg.units")[0].names) == first


def test_a_read_pauses_before_each_module_it_parses(site: Path):
    """The loader's gate is called before every module parsed, never for one already parsed: a
    read holds the interpreter for one module at most while requests wait to run."""
    parsed_before: list[int] = []
    libraries = PythonLibraries((site,), pause=lambda: parsed_before.append(len(libraries.resolver._module_cache)))
    assert "join" in libraries.read("os.path")[0].names
    parsed = len(libraries.resolver._module_cache)
    assert parsed >= 1 and parsed_before == list(range(len(parsed_before))) and len(parsed_before) >= parsed
    calls = len(parsed_before)
    libraries.members("os.path")  # parsed already: no pause
    assert len(parsed_before) == calls


def test_a_resolver_dropped_is_freed_at_once(site: Path):
    """No reference cycle keeps a dropped resolver and its parsed modules alive until a full
    collection, which the server runs only when idle."""
    import gc
    import weakref

    libraries = PythonLibraries((site,), pause=lambda: None)
    libraries.read("os.path")
    dropped = weakref.ref(libraries.resolver)
    gc.disable()
    try:
        libraries._reset()
        assert dropped() is None, "the dropped resolver waits for a full collection"
    finally:
        gc.enable()


def test_an_environment_dropped_is_freed_at_once(site: Path):
    """Nor does one keep a dropped environment (its resolver and parsed modules) alive: the
    resolver's pause is the loader's gate, not a method of the environment."""
    import gc
    import weakref

    from treecomplete.sources.libraries.loader import Loader

    libraries = PythonLibraries((site,), pause=Loader().gate)
    libraries.read("os.path")
    dropped = weakref.ref(libraries)
    gc.disable()
    try:
        del libraries
        assert dropped() is None, "the dropped environment waits for a full collection"
    finally:
        gc.enable()


def test_an_enums_member_is_an_instance_of_the_enum(libraries: PythonLibraries):
    ok = libraries.members("http.HTTPStatus.OK")  # typeshed's `class HTTPStatus(IntEnum)`: `OK = 200`
    assert ok is not None
    names = set(ok.names)
    assert {"phrase", "description", "name", "value"} <= names  # its own and enum.Enum's
    assert "NOT_FOUND" not in names and "bit_length" in names  # not the other members; int's, through IntEnum
    assert "NOT_FOUND" in libraries.members("http.HTTPStatus").names  # the class itself lists them
    assert {"name", "value"} <= set(libraries.members("re.RegexFlag.IGNORECASE").names)  # enum.IntFlag's
    assert libraries.members("fakepkg.shapes.Polygon.corners") is None  # a plain class's attribute: no enum
