"""The incremental-edit property soaked: tests/test_document_edits.py's property (any sequence
of edits leaves the text equal to a reference and the incrementally re-parsed tree equal to a
fresh parse) run on many more random examples than the test suite's 200, in a row.

    python -m benchmarks.edit_soak [--examples 20000] [--seed N]

Prints the examples run and the seconds taken; on a failure, hypothesis's shrunk example and
a non-zero exit.
"""

from __future__ import annotations

import argparse
import sys
import time

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from tests import test_document_edits as edits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    inner = edits.test_edits_match_reference_and_fresh_parse.hypothesis.inner_test

    @seed(args.seed)
    @settings(max_examples=args.examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from([edits.PYTHON, edits.JAVASCRIPT]), st.sampled_from([edits.UTF8, edits.UTF16, edits.UTF32]),
           edits.TEXT, edits.EDITS, st.booleans())
    def soak(language, encoding, text, changes, parse_between):
        inner(language, encoding, text, changes, parse_between)

    started = time.perf_counter()
    try:
        soak()
    except AssertionError as error:
        notes = "\n".join(getattr(error, "__notes__", ()))  # hypothesis's falsifying example
        print(f"failed after {time.perf_counter() - started:.0f} s: {error!r}\n{notes}", file=sys.stderr)
        raise SystemExit(1) from None
    print(f"{args.examples} examples passed in a row (seed {args.seed}), {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
