"""The Python corpus' validation-split packages as source folders, for the editing benchmark on
code the choices are made on (never the held-out packages):

    python -m benchmarks.valid_python --downloads DIR [--out bench-out/valid/python]

DIR holds the corpus' sdists (``treecomplete corpus build --lang python --manifest
models/manifests/python.txt`` downloads them); the packages that models.corpus.split_of puts in
the valid split are extracted, a folder each, their ``.py`` files only, those the corpus skips
left out (models.corpus.skip_reason), and files over 200 KB. No dependencies are
installed beside them.
"""

from __future__ import annotations

import argparse
import re
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

from treecomplete.models.corpus import skip_reason, split_of

_ARCHIVE = re.compile(r"(.+?)-(\d[^-]*)\.(tar\.gz|tgz|tar\.bz2|zip)$")
MAX_FILE = 200_000


def members(archive: Path):
    """Each ``.py`` file of an sdist: its path inside and its bytes."""
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                if info.filename.endswith(".py") and info.file_size <= MAX_FILE:
                    yield info.filename, z.read(info)
        return
    with tarfile.open(archive) as t:
        for info in t.getmembers():
            if info.isfile() and info.name.endswith(".py") and info.size <= MAX_FILE:
                yield info.name, t.extractfile(info).read()


def extract(downloads: Path, out: Path) -> tuple[int, int]:
    packages = files = 0
    for archive in sorted(downloads.iterdir()):
        found = _ARCHIVE.match(archive.name)
        if found is None or split_of(found.group(1)) != "valid":
            continue
        packages += 1
        folder = out / f"{found.group(1)}-{found.group(2)}"
        try:
            for name, data in members(archive):
                parts = PurePosixPath(name).parts[1:] or PurePosixPath(name).parts
                if skip_reason(name, data, "python") is None:
                    target = folder.joinpath(*parts)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)
                    files += 1
        except (OSError, tarfile.TarError, zipfile.BadZipFile) as error:
            print(f"{archive.name}: {error}")
    return packages, files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--downloads", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("bench-out/valid/python"))
    args = parser.parse_args()
    packages, files = extract(args.downloads, args.out)
    print(f"python (valid): {packages} packages, {files} files in {args.out}")


if __name__ == "__main__":
    main()
