"""The generated code kept between starts (server/startup.py): a second start compiles nothing,
its classes and converters behave as compiled ones, and a cache that is broken or foreign only costs compiling."""

import builtins
import dataclasses
import marshal
from pathlib import Path

import attr
import cattrs
import pytest

from treecomplete import startup


def make_classes(suffix: str) -> tuple[type, type]:
    """An attrs class and a dataclass, made the way lsprotocol's and the server's are."""

    @attr.define
    class Point:
        x: int
        y: int = 0

    @dataclasses.dataclass(frozen=True)
    class Pair:
        left: str
        right: str = suffix

    return Point, Pair


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources the cache had to compile."""
    seen: list[str] = []

    def counting(source, filename, mode, *args, **kwargs):
        seen.append(source)
        return builtins.compile(source, filename, mode, *args, **kwargs)

    monkeypatch.setattr(startup, "compile", counting, raising=False)
    return seen


def check(Point: type, Pair: type) -> None:
    converter = cattrs.Converter()  # generates its structuring code anew, as pygls' does at its first message
    assert converter.structure({"x": 5, "y": 6}, Point) == Point(5, 6)
    assert converter.unstructure(Point(7)) == {"x": 7, "y": 0}
    assert Point(1) == Point(1, 0) != Point(1, 2)
    assert repr(Point(3, 4)) == "Point(x=3, y=4)"
    assert Pair("a") == Pair("a", "z") and hash(Pair("a")) == hash(Pair("a", "z"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        Pair("a").left = "b"  # type: ignore[misc]


def test_a_second_start_compiles_nothing(tmp_path: Path, compiles: list[str]) -> None:
    cache = tmp_path / "code.marshal"
    with startup.GeneratedCode(cache) as code:
        check(*make_classes("z"))
    assert compiles and cache.exists()
    assert len(startup.read(cache)) == len(code.used) > 0
    first = len(compiles)
    with startup.GeneratedCode(cache):
        check(*make_classes("z"))
    assert len(compiles) == first, "the second start compiled again"


def test_the_builtins_are_back_after_the_block(tmp_path: Path) -> None:
    import attr._make
    import cattrs.gen

    code = startup.GeneratedCode(tmp_path / "code.marshal").start()
    assert "compile" in vars(attr._make) and "compile" in vars(cattrs.gen) and "exec" in vars(dataclasses)
    code.stop()
    code.stop()  # twice: the server stops it at initialized and again as it exits
    assert "compile" not in vars(attr._make) and "compile" not in vars(cattrs.gen) and "exec" not in vars(dataclasses)


@pytest.mark.parametrize("content", [b"", b"not marshal at all", marshal.dumps([1, 2]), marshal.dumps({b"k": "not code"})])
def test_a_broken_cache_costs_compiling_only(tmp_path: Path, compiles: list[str], content: bytes) -> None:
    cache = tmp_path / "code.marshal"
    cache.write_bytes(content)
    with startup.GeneratedCode(cache):
        check(*make_classes("z"))
    assert compiles, "nothing was compiled from a broken cache"
    assert startup.read(cache), "the broken cache was not replaced by a good one"


def test_changed_text_is_compiled_and_the_file_keeps_what_was_used(tmp_path: Path, compiles: list[str]) -> None:
    cache = tmp_path / "code.marshal"
    with startup.GeneratedCode(cache):
        dataclasses.make_dataclass("Row", [("left", str)])
    before = len(compiles)
    with startup.GeneratedCode(cache) as code:
        Row = dataclasses.make_dataclass("Row", [("other", str)])  # another field: another __init__
    assert any("other" in source for source in compiles[before:]), "the changed method was not compiled"
    assert Row(other="x").other == "x"
    assert set(startup.read(cache)) == set(code.used), "the file keeps more than the last start used"


def test_an_unwritable_cache_folder_is_no_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with startup.GeneratedCode(blocker / "sub" / "code.marshal"):  # its folder cannot be made
        check(*make_classes("z"))
