"""Completion lists for fitting the learned ranking, gathered as the server builds them.

At identifiers sampled from packages that the corpus build put in the valid split (never a
benchmark package), the file is opened as the editing benchmark opens it (the file up to the
identifier plus its first k characters, k = 0..3; ``middle``: the rest of the file after the
identifier too) and completed in-process with the shipped model, the project index reading the
packages' files as a workspace; each list keeps its candidates' features exactly as the neural
engine computed them (ranking/ranker.py, ranking/features.py) and the row of the true identifier.
``--files``: from the package folders that benchmarks/fetch_valid.sh fills (JavaScript's with
their ``node_modules``; Python's: ``benchmarks.valid_python --venv``), where what an installed
package exports is known as in a user's project. ``--drop-imports``: the names an import of the
file binds instead, every import removed from the buffer (``editing --select imported-name
--drop-imports``), where only an import brings the name.
A name offered from several modules (auto-import) is one row: the ranker ranks names.

Gathering is resumable: the sampled identifiers are taken in a fixed order and stored in parts
of PART identifiers (``DIR/part-NNNNN.pkl``); a run stopped at any point goes on from the first
missing part. A progress line goes to stderr.
"""

from __future__ import annotations

import pickle
import random
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from treecomplete.sources.project_index import ProjectIndex

from .editing import MIDDLE, PREFIX
from .ranking import LANGUAGES, complete_list, in_process_service, samples_by_package, samples_in_folders

KS = (0, 1, 2, 3)
PART = 50  # identifiers per stored part


@dataclass
class CompletionList:
    package: str
    k: int
    block: int  # features.case
    mode: str  # editing.PREFIX or MIDDLE
    x: np.ndarray  # candidates x features.ROW, float32
    truth: int  # the true identifier's row, -1 where it is not among the candidates
    dropped: bool = False  # --drop-imports: a name an import of the file binds, the imports removed

    @property
    def fold(self) -> int:
        """Which of two folds the list's package falls in (lists of one package never split)."""
        return zlib.crc32(self.package.encode()) % 2


def valid_packages(corpus: Path) -> list[str]:
    import json

    splits = json.loads((corpus / "build.json").read_text())["packages"]
    return sorted(p for p, split in splits.items() if split == "valid")


def gather(lang: str, corpus: Path | None, out: Path, samples: int, seed: int = 1, packages: list[str] | None = None,
           drop_imports: bool = False, folders: Path | None = None) -> None:
    """Gather the lists of ``samples`` identifiers (at most an equal share per package) into
    ``out``, from the corpus' valid-split archives or the package ``folders`` (with their
    installed dependencies); ``drop_imports``: names an import of the file binds, in the file
    without its imports."""
    language, suffix = LANGUAGES[lang]
    out.mkdir(parents=True, exist_ok=True)
    project = ProjectIndex()
    service = in_process_service(project)
    # an empty document stays open: closing each list's file is never closing the last one,
    # which drops every library read (a day of use keeps some file open)
    service.open(f"untitled:rank-lists{suffix}", lang, 1, "")
    with tempfile.TemporaryDirectory() as tmp:
        if folders is not None:
            by_package = samples_in_folders(folders, language, lang, suffix, project, drop_imports)
        else:
            by_package = samples_by_package(corpus, packages or valid_packages(corpus), language, lang, suffix, Path(tmp),
                                            project, drop_imports)
        if not by_package:
            sys.exit(f"rank_lists: no identifiers to sample in {folders or corpus}")
        rng = random.Random(seed)
        each = max(1, samples // len(by_package))
        chosen = [(package, sample) for package, found in sorted(by_package.items())
                  for sample in rng.sample(found, min(each, len(found)))]
        rng.shuffle(chosen)  # any prefix of the parts spans the packages
        parts = (len(chosen) + PART - 1) // PART
        print(f"{lang}: {len(chosen)} identifiers from {len(by_package)} packages, {parts} parts in {out}", file=sys.stderr)
        started, lists_done = time.monotonic(), 0
        for part in range(parts):
            path = out / f"part-{part:05d}.pkl"
            if path.exists():
                continue
            lists = [CompletionList(package, k, block, mode, np.asarray([c.features for c in kept], dtype=np.float32),
                                    -1 if truth is None else truth, drop_imports)
                     for package, sample in chosen[part * PART:(part + 1) * PART]
                     for mode in (PREFIX, MIDDLE) for k in KS
                     if len(sample.name) > k and (found := complete_list(service, sample, k, mode, lang)) is not None
                     for kept, truth, block in [found] if kept]
            tmp_path = path.with_suffix(".tmp")
            tmp_path.write_bytes(pickle.dumps(lists, protocol=pickle.HIGHEST_PROTOCOL))
            tmp_path.rename(path)
            lists_done += len(lists)
            rate = lists_done / (time.monotonic() - started)
            left = (parts - part - 1) * len(lists) / max(rate, 1e-9)
            print(f"\r[{part + 1}/{parts} parts] {lists_done} lists this run, {rate:.1f}/s, about {left / 60:.0f} min left ",
                  end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)


class _Unpickler(pickle.Unpickler):
    """Reads parts written by this module run as ``__main__`` too."""

    def find_class(self, module: str, name: str):
        if name == "CompletionList":
            return CompletionList
        return super().find_class(module, name)


def load(folders: list[Path]) -> list[CompletionList]:
    """Every list stored in the parts of ``folders``."""
    lists = []
    for folder in folders:
        for path in sorted(folder.glob("part-*.pkl")):
            with path.open("rb") as f:
                lists.extend(_Unpickler(f).load())
    return lists


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", choices=sorted(LANGUAGES), required=True)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--corpus", type=Path, help="a corpus built by treecomplete corpus build (its valid split)")
    source.add_argument("--files", type=Path, help="a folder of valid-split package folders with their dependencies "
                                                   "installed (benchmarks/fetch_valid.sh, benchmarks.valid_python --venv)")
    parser.add_argument("--out", type=Path, required=True, help="the folder of the lists' parts")
    parser.add_argument("--samples", type=int, default=8000, help="identifiers (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--drop-imports", action="store_true",
                        help="names an import of the file binds, every import removed from the buffer (where only "
                             "an import would bring the name: auto-import)")
    args = parser.parse_args(argv)
    gather(args.lang, args.corpus, args.out, args.samples, args.seed, drop_imports=args.drop_imports, folders=args.files)


if __name__ == "__main__":
    main()
