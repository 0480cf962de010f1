"""Where two runs of the editing benchmark rank differently, position by position.

    python -m benchmarks.rank_diff A.json B.json   # each written by benchmarks.editing --out

For each mode and each server both ran: how many positions (a file, an offset, a k) got another
rank, and the first few of them. Two runs of the same code on the same positions should say 0.
"""

from __future__ import annotations

import argparse
import json


def differing(a: list, b: list) -> list[tuple[str, int, int | None, int | None]]:
    """The positions of ``a`` whose rank ``b`` gives otherwise: (where, k, rank in a, rank in b)."""
    theirs = {(where, k): rank for where, k, rank in b}
    return [(where, k, rank, theirs[(where, k)]) for where, k, rank in a if (where, k) in theirs and theirs[(where, k)] != rank]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--show", type=int, default=5, help="positions printed per server")
    args = parser.parse_args()
    a, b = (json.loads(open(path, encoding="utf-8").read()).get("positions", {}) for path in (args.a, args.b))
    for mode in sorted(set(a) & set(b)):
        for server in sorted(set(a[mode]) & set(b[mode])):
            found = differing(a[mode][server], b[mode][server])
            print(f"{mode}, {server}: {len(found)} of {len(a[mode][server])} positions ranked differently")
            for where, k, first, second in found[:args.show]:
                print(f"  {where} k={k}: {first} / {second}")


if __name__ == "__main__":
    main()
