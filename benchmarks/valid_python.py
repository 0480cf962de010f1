"""The Python corpus' validation-split packages as source folders, for the editing benchmark on
code the choices are made on (never the held-out packages):

    python -m benchmarks.valid_python --downloads DIR [--out bench-out/valid/python]

DIR holds the corpus' sdists (``treecomplete corpus build --lang python --manifest
models/manifests/python.txt`` downloads them); the packages that models.corpus.split_of puts in
the valid split are extracted, a folder each, their ``.py`` files only, those the corpus skips
left out (models.corpus.skip_reason), and files over 200 KB. ``--venv``: each package's own
dependencies installed in a ``.venv`` beside its files, without the package itself (whose files
are the workspace's), as benchmarks/fetch_heldout.sh installs the held-out ones': what the
server reads as installed packages (sources/installed.py) when ranking lists are gathered from
these folders (``python -m benchmarks.rank_lists --files``).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
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


def install_dependencies(folder: Path) -> bool:
    """The dependencies of the package in ``folder`` (``name-version``) in ``folder/.venv``."""
    name, _, version = folder.name.rpartition("-")  # as extract names it: a version holds no "-"
    pip = [str(folder / ".venv" / "bin" / "pip"), "--quiet", "--disable-pip-version-check"]
    steps = [[sys.executable, "-m", "venv", str(folder / ".venv")],
             pip + ["install", "--prefer-binary", f"{name}=={version}"], pip + ["uninstall", "-y", name]]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # this checkout is no dependency of theirs
    for step in steps:
        if subprocess.run(step, stdout=subprocess.DEVNULL, env=env).returncode != 0:
            print(f"{folder.name}: dependencies not installed ({' '.join(step[:3])} failed)")
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--downloads", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("bench-out/valid/python"))
    parser.add_argument("--venv", action="store_true", help="install each package's dependencies in a .venv beside it")
    args = parser.parse_args()
    packages, files = extract(args.downloads, args.out)
    print(f"python (valid): {packages} packages, {files} files in {args.out}")
    if args.venv:
        folders = sorted(p for p in args.out.iterdir() if p.is_dir() and not (p / ".venv").exists())
        done = sum(install_dependencies(folder) for folder in folders)
        print(f"dependencies installed for {done} of {len(folders)} packages")


if __name__ == "__main__":
    main()
