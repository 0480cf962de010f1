"""benchmarks.valid_python: the Python corpus' valid-split sdists extracted as source folders."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from benchmarks.valid_python import extract
from treecomplete.models.corpus import split_of


def sdist(path: Path, root: str, files: dict[str, bytes]) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{root}/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def test_only_the_valid_split_s_packages_and_their_kept_files(tmp_path: Path):
    names = [f"pkg{i}" for i in range(400)]
    valid = next(n for n in names if split_of(n) == "valid")
    train = next(n for n in names if split_of(n) == "train")
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    code = {"src/mod.py": b"def f():\n    return 1\n", "src/big.py": b"x = 1\n" * 40_000, "README": b"x"}
    sdist(downloads / f"{valid}-1.0.tar.gz", f"{valid}-1.0", code)
    sdist(downloads / f"{train}-1.0.tar.gz", f"{train}-1.0", code)
    (downloads / f"{valid}==1.0.fetched").write_text("")
    out = tmp_path / "out"
    assert extract(downloads, out) == (1, 1)
    assert (out / f"{valid}-1.0" / "src" / "mod.py").read_bytes() == code["src/mod.py"]
    assert not (out / f"{train}-1.0").exists() and not (out / f"{valid}-1.0" / "src" / "big.py").exists()
