"""The ranker's own cost: scoring one list of N candidates with the shipped learned ranking and
with the linear scorer, apart from everything else a request does.

    python -m benchmarks.rank_cost --lang python [--candidates 200] [--repeat 2000] [--ranking FILE]

Rows are drawn from lists that benchmarks/rank_lists.py gathered (``--lists DIR``), else made
up: the trees' cost depends on the count of rows and trees, not on the values.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from treecomplete.ranking import features, ranker


def rows(count: int, lists: Path | None, seed: int = 0) -> list[list[float]]:
    rng = random.Random(seed)
    width = features.ROW
    if lists is not None:
        from .rank_lists import load

        pool = [row.tolist() for c in load([lists])[:200] for row in c.x]
        return [rng.choice(pool) for _ in range(count)]
    return [[rng.choice((0.0, 1.0, rng.gauss(0, 2))) for _ in range(width)] for _ in range(count)]


def timed(score, xs: list[list[float]], repeat: int) -> tuple[float, float]:
    """Median and p95 of one call, in milliseconds."""
    for _ in range(20):
        score(xs, 2)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        score(xs, 2)
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", default="python")
    parser.add_argument("--candidates", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=2000)
    parser.add_argument("--lists", type=Path, help="draw rows from these gathered lists")
    parser.add_argument("--ranking", type=Path, help="a ranking file (default: the one shipped for --lang)")
    args = parser.parse_args(argv)
    xs = rows(args.candidates, args.lists)
    learned = ranker.Ranker(args.lang, ranking=args.ranking) if args.ranking else ranker.for_language(args.lang)
    if learned.trees is None:
        print(f"{args.lang}: no learned ranking loaded ({learned.problem or 'none shipped'})")
    else:
        p50, p95 = timed(learned.scores, xs, args.repeat)
        print(f"learned ranking ({learned.trees.count} trees of depth {learned.trees.depth}), "
              f"{args.candidates} candidates: p50 {p50:.3f} ms, p95 {p95:.3f} ms")
    linear = ranker.Ranker(args.lang)
    p50, p95 = timed(linear.scores, xs, args.repeat)
    print(f"linear scorer, {args.candidates} candidates: p50 {p50:.3f} ms, p95 {p95:.3f} ms")


if __name__ == "__main__":
    main()
