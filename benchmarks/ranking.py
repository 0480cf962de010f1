"""Choose the neural engine's ranking constants on files of valid-split packages.

The editing benchmark's held-out packages must not tune anything. This sweeps the constants of
engines/neural.py (MODEL_WEIGHT, RANK_WEIGHT, SCORE_WEIGHT, CACHE_WEIGHT) and the cache n-gram
model's order (engines/ngram.py ORDER) in-process, with the shipped model,
at sampled identifiers of packages that the corpus build put in the valid split, as the editing
benchmark does (the file up to the identifier plus its first k characters), and prints top-1 /
top-5 / MRR@10 per k for each setting. Each position is answered once; the other settings only
re-rank (the predictor remembers the answer).

    python -m benchmarks.ranking --lang python --corpus bench-out/corpus2/python \\
        --packages fastapi,gitpython,isort,oauthlib,beautifulsoup4,poetry
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
from pathlib import Path

from treecomplete.engines import neural, ngram
from treecomplete.engines.registry import Registry
from treecomplete.languages import JAVASCRIPT, PYTHON
from treecomplete.models.corpus import archive_files
from treecomplete.service import CompletionService

from .editing import KS, Scores, collect, end_position

SKIPPED_DIRS = re.compile(r"(^|/)(tests?|docs?|docs_src|examples?|dist|build|node_modules|vendor)/")


def extract(corpus: Path, packages: list[str], suffix: str, out: Path) -> list[Path]:
    """The packages' source files (2-200 KB, no tests, docs or built code), flat under ``out``."""
    splits = json.loads((corpus / "build.json").read_text())["packages"]
    files = []
    for package in packages:
        if splits.get(package) != "valid":
            sys.exit(f"{package}: not a valid-split package of {corpus} (split: {splits.get(package)})")
        stem = package.replace("/", "_")
        archives = [a for a in (corpus / "downloads").iterdir()
                    if re.match(rf"{re.escape(stem)}-\d", a.name, re.IGNORECASE) and not a.name.endswith(".fetched")]
        if not archives:
            sys.exit(f"{package}: no archive under {corpus / 'downloads'}")
        for source in archive_files(sorted(archives)[-1], package):
            if source.path.endswith(suffix) and not SKIPPED_DIRS.search(source.path) and 2048 <= len(source.data) <= 200_000:
                path = out / (stem + "_" + source.path.replace("/", "_"))
                path.write_bytes(source.data)
                files.append(path)
    return sorted(files)


def rank_of(candidates: list, prefix: str, truth: str) -> int | None:
    """1-based rank of the true identifier among the candidates that match the prefix (snippets
    take places; a multi-token item counts for its first identifier only if it is that)."""
    kept = [c for c in candidates if c.text.lower().startswith(prefix.lower())]
    for rank, candidate in enumerate(kept, 1):
        if candidate.snippet is None and re.split(r"[($]", candidate.text, maxsplit=1)[0] == truth:
            return rank
    return None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", choices=["python", "javascript"], required=True)
    parser.add_argument("--corpus", type=Path, required=True, help="a corpus built by treecomplete corpus build")
    parser.add_argument("--packages", required=True, help="comma-separated valid-split packages")
    parser.add_argument("--samples", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--grid", nargs="+", default=["0.5:0.5:1:0:6", "0.5:0.5:1:1.25:6"],
                        help="settings MODEL_WEIGHT:RANK_WEIGHT:SCORE_WEIGHT:CACHE_WEIGHT:ORDER")
    args = parser.parse_args(argv)
    language, suffix = (PYTHON, ".py") if args.lang == "python" else (JAVASCRIPT, ".js")
    grid = [tuple(float(x) for x in setting.split(":")) for setting in args.grid]
    service = CompletionService(models=Registry(), wait_for_models=True)
    scores = {setting: Scores() for setting in grid}
    with tempfile.TemporaryDirectory() as tmp:
        files = extract(args.corpus, args.packages.split(","), suffix, Path(tmp))
        population = collect(files, language, args.lang)
        samples = random.Random(args.seed).sample(population, min(args.samples, len(population)))
        print(f"{args.lang}: {len(samples)} identifiers (seed {args.seed}) from {len(population)} in {len(files)} files")
        for i, sample in enumerate(samples):
            for k in KS:
                if len(sample.name) <= k:
                    continue
                text = sample.data[: sample.start].decode("utf-8", "replace") + sample.name[:k]
                uri = f"file:///ranking/{i}_{k}{suffix}"
                service.open(uri, args.lang, 1, text)
                for setting in grid:
                    neural.MODEL_WEIGHT, neural.RANK_WEIGHT, neural.SCORE_WEIGHT, neural.CACHE_WEIGHT, order = setting
                    ngram.ORDER = int(order)
                    result = service.complete(uri, *end_position(text), 50)
                    rank = rank_of(result.candidates if result else [], sample.name[:k], sample.name)
                    scores[setting].add(k, sample.category, rank)
                service.close(uri)
    print("model:rank:score:cache:order" + "".join(f"{f'k={k} top-1 / top-5 / MRR':>30}" for k in KS))
    for setting, score in scores.items():
        summary = score.summary()
        cells = [summary.get(f"k={k} all") for k in KS]
        print(f"{':'.join(f'{x:g}' for x in setting):<20} " + "".join(
            f"{c['top1']:>12.1%} {c['top5']:>6.1%} {c['mrr10']:>6.3f}   " if c else f"{'-':>30}" for c in cells))


if __name__ == "__main__":
    main()
