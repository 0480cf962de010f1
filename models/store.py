"""The corpus on disk: flattened files of one split as flat int32 arrays, memory-mapped.

A split directory holds ``types.i32``, ``values.i32`` and ``parents.i32`` (one entry per
element, all files concatenated), ``offsets.i64`` (where each file starts; one more entry than
files) and ``files.json`` (each file's package and path). Reading maps the arrays instead of
loading them: a corpus larger than memory trains the same way.
"""

from __future__ import annotations

import json
import mmap
import sys
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SPLITS = ("train", "valid", "test")  # a corpus' splits, by package (corpus.split_of)

FIELDS = ("types", "values", "parents")


class SplitWriter:
    """Appends encoded files to a split directory."""

    def __init__(self, directory: Path):
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self._streams = {name: open(directory / f"{name}.i32", "wb") for name in FIELDS}
        self._offsets = array("q", [0])
        self._files: list[dict[str, str]] = []

    def add(self, types: Sequence[int], values: Sequence[int], parents: Sequence[int], **meta: str) -> None:
        if not len(types) == len(values) == len(parents):
            raise ValueError("types, values and parents must have one entry per element")
        for name, column in zip(FIELDS, (types, values, parents)):
            data = array("i", column)
            if sys.byteorder != "little":
                data.byteswap()
            data.tofile(self._streams[name])
        self._offsets.append(self._offsets[-1] + len(types))
        self._files.append(meta)

    def close(self) -> None:
        for stream in self._streams.values():
            stream.close()
        offsets = array("q", self._offsets)
        if sys.byteorder != "little":
            offsets.byteswap()
        (self.directory / "offsets.i64").write_bytes(offsets.tobytes())
        (self.directory / "files.json").write_text(json.dumps(self._files), encoding="utf-8")

    def __enter__(self) -> SplitWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class EncodedFile:
    types: memoryview
    values: memoryview
    parents: memoryview
    meta: dict[str, str]


class Split:
    """A memory-mapped split: ``len(split)`` files, ``split[i]`` one file's arrays (views)."""

    def __init__(self, directory: Path):
        if sys.byteorder != "little":
            raise RuntimeError("corpus files are little-endian; this machine is not")
        self.directory = directory
        self._maps = []
        self.columns = {name: self._map(directory / f"{name}.i32").cast("i") for name in FIELDS}
        self.offsets = self._map(directory / "offsets.i64").cast("q")
        self.files = json.loads((directory / "files.json").read_text(encoding="utf-8"))
        if len(self.offsets) != len(self.files) + 1:
            raise ValueError(f"{directory}: offsets.i64 and files.json disagree; rebuild the corpus")

    def _map(self, path: Path) -> memoryview:
        if path.stat().st_size == 0:
            return memoryview(b"")
        with open(path, "rb") as handle:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        self._maps.append(mapped)
        return memoryview(mapped)

    def __len__(self) -> int:
        return len(self.files)

    @property
    def elements(self) -> int:
        return self.offsets[-1] if len(self.offsets) else 0

    def __getitem__(self, index: int) -> EncodedFile:
        start, end = self.offsets[index], self.offsets[index + 1]
        return EncodedFile(*(self.columns[name][start:end] for name in FIELDS), meta=self.files[index])
