"""Keystrokes saved: the share of an identifier's characters a user does not type.

For sampled identifiers of held-out files (the editing benchmark's sample, same seed), open the
file up to the identifier (``--middle``: with the text after it kept too) under its own name and
type the identifier a character at a time with incremental edits, asking for completion after
each, as an editor does. The list is filtered and ordered as a client does it
(``editing.rank_of``). Two users are counted:

- *first*: accepts the completion as soon as it is first in the list (one key);
- *top-5*: accepts it as soon as it is among the first five (the arrow keys, then one key).

An identifier never accepted costs its characters. saved = 1 - keys pressed / characters, over
all sampled identifiers. Before the first character a list is shown only after a member operator
(``obj.|``), where editors open it unasked; elsewhere it opens with the first typed character.
treecomplete, the peers (jedi-language-server and pyright for Python, typescript-language-server
for JavaScript and TypeScript) and the recency baseline answer the same identifiers in one run.

    python -m benchmarks.keystrokes --lang python --files bench-out/heldout/python [--samples 150] [--middle]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shlex
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .editing import MIDDLE, PREFIX, Sample, arguments, buffer, collect, heldout, language_of, rank_of, recency_rank
from .lsp import Session, has_model, peers, run_benchmark


@dataclass
class Keys:
    """Characters and keys pressed by each kind of user, per category of identifier."""

    characters: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    first: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    top5: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    count: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, category: str, characters: int, first: int, top5: int) -> None:
        for key in (category, "all"):
            self.characters[key] += characters
            self.first[key] += first
            self.top5[key] += top5
            self.count[key] += 1

    def summary(self) -> dict[str, dict[str, float]]:
        return {key: {"n": self.count[key], "characters": chars,
                      "saved_first": 1 - self.first[key] / chars, "saved_top5": 1 - self.top5[key] / chars}
                for key, chars in sorted(self.characters.items())}


def shown_unasked(sample: Sample) -> bool:
    """Whether an editor shows the list before the identifier's first character: after a member
    operator."""
    return sample.category == "attribute"


def keys_pressed(ranks: dict[int, int | None], length: int) -> tuple[int, int]:
    """Keys pressed by the *first* and the *top-5* user, given the identifier's rank after each
    count of typed characters (a count missing from ``ranks``: no list shown). The top-5 user
    accepts at once where the arrow keys and the accepting key cost less than typing the rest."""
    first = top5 = None
    for k in range(length):
        rank = ranks.get(k)
        if rank is None:
            continue
        if top5 is None and rank <= 5 and k + rank < length:
            top5 = k + rank  # rank - 1 arrow keys, then one key to accept
        if rank == 1:
            first = k + 1
            break
    return first or length, top5 or length


async def type_identifier(session: Session, sample: Sample, lang: str, mode: str, settle: float = 0.0) -> dict[int, int | None]:
    """Type one identifier into its buffer, ``settle`` seconds after it opens (0: at once); its
    rank after each count of typed characters."""
    text, (line, character) = buffer(sample, 0, mode)
    uri = sample.path.as_uri()
    session.open(uri, lang, text)
    ranks: dict[int, int | None] = {}
    try:
        if settle:
            await asyncio.sleep(settle)
        for k, char in enumerate(sample.name):
            if k > 0 or shown_unasked(sample):
                items = await session.complete(uri, line, character)
                ranks[k] = rank_of(items, sample.name[:k], sample.name)
                if ranks[k] == 1:
                    break
            session.change(uri, k + 2, line, character, char)
            character += len(char.encode("utf-16-le")) // 2
    finally:
        session.close(uri)
    return ranks


async def run_server(session: Session, samples: list[Sample], lang: str, modes: tuple[str, ...],
                     neural: bool = False, ours: bool = False, settle: float = 0.0) -> dict[str, Keys]:
    keys = {mode: Keys() for mode in modes}
    opened: set[Path] = set()  # files whose first identifier was typed: the others are typed at once
    await session.start()
    try:
        if ours:
            await asyncio.wait_for(session.indexed.wait(), 60)
        if neural:
            await session.wait_for_model(lang)
        for sample in samples:
            for mode in modes:
                ranks = await type_identifier(session, sample, lang, mode, settle if sample.path not in opened else 0.0)
                opened.add(sample.path)
                keys[mode].add(sample.category, len(sample.name), *keys_pressed(ranks, len(sample.name)))
    finally:
        await session.stop()
    return keys


def recency(samples: list[Sample], lang: str) -> Keys:
    """The baseline: the buffer's identifiers, most recently seen first."""
    language, _ = language_of(lang)
    keys = Keys()
    for sample in samples:
        ranks = {k: recency_rank(sample, k, language) for k in range(len(sample.name)) if k > 0 or shown_unasked(sample)}
        keys.add(sample.category, len(sample.name), *keys_pressed(ranks, len(sample.name)))
    return keys


def print_table(results: dict[str, dict[str, dict[str, float]]], mode: str) -> None:
    print(f"\nkeystrokes saved, {'buffer ending at the cursor' if mode == PREFIX else 'the text after the identifier kept'}:"
          " first / top-5 (identifiers)")
    keys = list(next(iter(results.values())).keys())
    print(f"{'':<12}" + "".join(f"{name:>30}" for name in results))
    for key in keys:
        cells = [f"{s['saved_first']:6.1%} {s['saved_top5']:6.1%} ({s['n']})" if (s := summary.get(key)) else ""
                 for summary in results.values()]
        print(f"{key:<12}" + "".join(f"{c:>30}" for c in cells))


async def main_async(args: argparse.Namespace) -> dict:
    language, root, folders, files = heldout(args.lang, args.files)
    population = collect(files, language, args.lang)
    samples = random.Random(args.seed).sample(population, min(args.samples, len(population)))
    print(f"{args.lang}: {len(samples)} identifiers sampled (seed {args.seed}), {sum(len(s.name) for s in samples)} characters")
    modes = (PREFIX, MIDDLE) if args.middle else (PREFIX,)
    results: dict[str, dict[str, dict]] = {mode: {} for mode in modes}
    model = args.model or ("" if has_model(args.lang, "") else "fallback")
    session = Session("treecomplete", shlex.split(args.server), {"treecomplete": {"model": model}}, root=root, folders=folders)
    for mode, keys in (await run_server(session, samples, args.lang, modes, neural=model != "fallback", ours=True,
                                                        settle=args.settle)).items():
        results[mode]["treecomplete"] = keys.summary()
    for name, command, options in ([] if args.no_peer else peers(args.lang)):
        found = await run_server(Session(name, command, options, root=root, folders=folders), samples, args.lang, modes,
                                 settle=args.settle)
        for mode, keys in found.items():
            results[mode][name] = keys.summary()
    baseline = recency(samples, args.lang).summary()
    for mode in modes:
        results[mode]["recency baseline"] = baseline
        print_table(results[mode], mode)
    return {"lang": args.lang, "samples": len(samples), "seed": args.seed, "results": results}


def main() -> None:
    parser = arguments(__doc__, samples=150)
    parser.add_argument("--middle", action="store_true", help="also with the file's text after the identifier kept")
    parser.add_argument("--out", help="write the results as JSON here")
    parser.add_argument("--settle", type=float, default=0.0,
                        help="seconds between opening a file and typing its first identifier (default 0)")
    run_benchmark(main_async, parser.parse_args())


if __name__ == "__main__":
    main()
