"""The editing benchmark's positions completed in process, with the multi-token search held to a
fixed number of steps, so that two versions of the server compare identifier by identifier.

benchmarks/editing.py drives the real server, whose multi-token search works to a time budget:
its figures move by an identifier or two from run to run. Here the search's clock advances one
millisecond a reading (three steps in its 4 ms), whatever the machine's load, so a run repeats
exactly. It prints each identifier not ranked first (its rank, the line before it, the first
five candidates), then the top-1 and top-5 counts.

    python -m benchmarks.fixed_steps --lang python --k 1 --middle
    python -m benchmarks.fixed_steps --lang javascript --k 0          # the buffer ending at the cursor
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from treecomplete.sources import chains
from treecomplete.engines.registry import Registry
from treecomplete.sources.libraries.known import Libraries
from treecomplete.sources.project_index import ProjectIndex
from treecomplete.service import CompletionService

from .editing import LANGUAGES, MIDDLE, PREFIX, buffer, collect


class _Clock:
    """A clock that reads one millisecond later each time it is read."""

    now = 0.0

    @classmethod
    def perf_counter(cls) -> float:
        cls.now += 0.001
        return cls.now


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", required=True, choices=sorted(LANGUAGES))
    parser.add_argument("--files", help="held-out packages, one folder each (default bench-out/heldout/LANG)")
    parser.add_argument("--k", type=int, default=1, help="characters of the identifier typed")
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--middle", action="store_true", help="the file's text after the identifier kept")
    args = parser.parse_args()
    chains.time = _Clock  # the search's steps no longer depend on the machine
    language, suffixes = LANGUAGES[args.lang]
    root = Path(args.files or f"bench-out/heldout/{args.lang}").resolve()
    files = sorted(p for p in root.rglob("*") if p.suffix in suffixes and p.is_file()
                   and not {"node_modules", ".venv"} & set(p.relative_to(root).parts) and not p.name.endswith(".d.ts"))
    samples = random.Random(0).sample(collect(files, language, args.lang), args.samples)  # editing.py's seed 0
    models, libraries, services = Registry(), Libraries(), {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):  # each package a project of its own
        project = ProjectIndex()
        project.add_root(folder)
        project.wait()
        services[folder] = CompletionService(models=models, wait_for_models=True, project=project, libraries=libraries)
    first = top5 = n = 0
    for sample in samples:
        if len(sample.name) <= args.k:
            continue
        text, position = buffer(sample, args.k, MIDDLE if args.middle else PREFIX)
        uri = sample.path.as_uri()
        service = next(s for folder, s in services.items() if folder in sample.path.parents)
        service.open(uri, args.lang, 1, text)
        result = service.complete_read(uri, *position, 1000)
        service.close(uri)
        typed = sample.name[:args.k].lower()
        names = [c.text for c in result.candidates if c.text.lower().startswith(typed)] if result else []
        rank = names.index(sample.name) + 1 if sample.name in names else None
        n, first, top5 = n + 1, first + (rank == 1), top5 + (rank is not None and rank <= 5)
        if rank != 1:
            line = sample.data[:sample.start].decode(errors="replace").rsplit("\n", 1)[-1].strip()[-50:]
            print(f"{sample.category:11} {str(rank):5} {sample.name:24} | {line!r:54} -> {names[:5]}")
    print(f"top-1 {first} of {n} ({first / n:.1%}), top-5 {top5} of {n} ({top5 / n:.1%})")


if __name__ == "__main__":
    main()
