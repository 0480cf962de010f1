"""Multi-token completion inside a file: the next leaves of a line written between code that is
already there (issue 54's insertion decoding against the server's chains).

For sampled identifiers of held-out files, the buffer holds the file with the rest of the
identifier's line removed but its first k characters (``--typed``, default 0), the cursor after
them, as when one writes a new line amid code. The truth is the removed text's named leaves (identifiers,
numbers, strings: ``models.infill_data.leaves``); a proposal scores at n when its first n leaves
are the truth's first n, over the positions whose truth has at least n.

- ``indigo``: the insertion decoder (``--model``), its best span and its best 5; and how often
  its best line of two tokens or more (what the server offers) is the whole line, among the
  positions where the decoder gives it at least 0.1 ... 0.7 (``--min-leaves 1``: positions where
  one name ends the line count too);
- ``server``: treecomplete over stdio, its first item and its first 5 in the client's order,
  each item's text read the same way (a chain's ``os.path.join(`` gives os, path, join); where
  an insertion decoder is installed (it decodes once the server has been quiet server.QUIET
  seconds), the list of a second request ``--pause`` seconds after the first, as the next
  keystroke's after a pause (``--pause`` a little over QUIET: the request comes while the
  decoder runs, which times what the decoding, giving way between steps, adds to it). Request
  times: the first and the second request's p50 / p95. ``--floors P ...``: the same lists
  scored again with the rests of the line the decoder gives less than P taken out, as a floor in
  the server (neural.INFILL_FLOOR) would leave them out; ``--floors 1.1``: none kept.

    python -m benchmarks.infill --lang python --files bench-out/heldout/python --model M.pt
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import torch
from lsprotocol import types
import numpy as np
from treecomplete.models.infill_data import IDENTIFIER, MAX_SPAN, NAMED, Examples, flags_of, leaves, tokens
from treecomplete.server import QUIET

from .editing import client_order, end_position, heldout
from .latency import percentile
from .lsp import Session, run_benchmark

SNIPPET = re.compile(r"\$\{\d+:([^}]*)\}|\$\{\d+\}|\$\d+")
MAX_N = 5
SURE = (0.1, 0.2, 0.3, 0.5, 0.7)  # the decoder's probabilities at which its best line is checked whole
LINE_DETAIL = re.compile(r"rest of the line · model ([\d.]+)%")


@dataclass
class Position:
    path: Path | None
    buffer: str  # the file without the rest of the line
    cursor: tuple[int, int]  # LSP position
    truth: list[str]  # the removed text's leaves
    typed: str  # the identifier's first k characters, in the buffer
    left: list[tuple[str, int]]  # tokens before the cursor, with their flags
    right: list[tuple[str, int]]  # tokens after the line


def from_streams(directory: Path, split: str, lang: str, samples: int, seed: int = 0, min_leaves: int = 2) -> list[Position]:
    """The same positions (k = 0) from a split of token streams (``treecomplete infill data``):
    where decoding settings are chosen, never on the held-out packages."""
    examples = Examples(directory, split)
    rng = np.random.default_rng(seed)
    out: list[Position] = []
    for i in rng.permutation(examples.cursors):
        if len(out) == samples:
            break
        if not examples.flags[i] & NAMED or not IDENTIFIER.fullmatch(examples.texts[examples.ids[i]]):
            continue
        lid, lfl, sid, _, rid, rfl = examples.example(int(i))
        truth = leaves(" ".join(examples.texts[t] for t in sid), lang)
        if len(truth) >= min_leaves and len(rid):
            out.append(Position(None, "", (0, 0), truth, "", [(examples.texts[t], int(f)) for t, f in zip(lid, lfl)],
                                [(examples.texts[t], int(f)) for t, f in zip(rid, rfl)]))
    return out


def collect(files: list[Path], language, lang: str, samples: int, seed: int = 0, typed: int = 0,
            min_leaves: int = 2) -> list[Position]:
    parser = language.parser()
    found = []
    for path in files:
        data = path.read_bytes()
        tree = language.parse(parser, data)
        toks = tokens(tree)
        flags = flags_of(toks, data)
        for i, t in enumerate(toks):
            if not t.named or not IDENTIFIER.fullmatch(t.text):
                continue
            j = i
            while j + 1 < len(toks) and toks[j + 1].line == t.line:
                j += 1
            if j - i + 1 > MAX_SPAN or j + 1 >= len(toks) or toks[j].end_line != t.line:
                continue
            end = data.index(b"\n", toks[j].end) if b"\n" in data[toks[j].end:] else len(data)
            truth = leaves(data[t.start:end].decode("utf-8", "replace"), lang)
            if len(truth) < min_leaves:
                continue
            found.append((path, i, j, t.start, end, toks, flags, data))
    random.Random(seed).shuffle(found)
    out = []
    for path, i, j, start, end, toks, flags, data in found[:samples]:
        before = data[:start].decode("utf-8", "replace")
        prefix = toks[i].text[:typed]
        buffer = before + prefix + data[end:].decode("utf-8", "replace")
        out.append(Position(path, buffer, end_position(before + prefix),
                            leaves(data[start:end].decode("utf-8", "replace"), lang), prefix,
                            [(t.text, f) for t, f in zip(toks[:i], flags[:i])],
                            [(t.text, f) for t, f in zip(toks[j + 1:], flags[j + 1:])]))
    return out


class Scores:
    def __init__(self) -> None:
        self.top1 = [[0, 0] for _ in range(MAX_N + 1)]  # n -> [hits, positions]
        self.top5 = [[0, 0] for _ in range(MAX_N + 1)]

    def add(self, truth: list[str], proposals: list[list[str]]) -> None:
        for n in range(1, min(MAX_N, len(truth)) + 1):
            hit = [p[:n] == truth[:n] for p in proposals[:5]]
            self.top1[n][0] += bool(hit[:1] and hit[0])
            self.top5[n][0] += any(hit)
            self.top1[n][1] += 1
            self.top5[n][1] += 1

    def row(self) -> dict:
        return {f"n{n}": {"positions": self.top1[n][1], "top1": 100 * self.top1[n][0] / max(1, self.top1[n][1]),
                          "top5": 100 * self.top5[n][0] / max(1, self.top5[n][1])} for n in range(1, MAX_N + 1)}


def line_probability(item: types.CompletionItem) -> float | None:
    """The decoder's probability of a rest-of-the-line item (its detail: "rest of the line ·
    model 12.3%"), None for any other item."""
    detail = (item.data or {}).get("detail", "") if isinstance(item.data, dict) else ""
    found = LINE_DETAIL.match(detail or "")
    return float(found.group(1)) / 100 if found else None


def item_text(item: types.CompletionItem) -> str:
    if isinstance(item.text_edit, (types.TextEdit, types.InsertReplaceEdit)):
        text = item.text_edit.new_text
    else:
        text = item.insert_text or item.label
    return SNIPPET.sub(lambda m: m.group(1) or "", text)


async def main_async(args: argparse.Namespace) -> dict:
    if args.data:
        positions = from_streams(Path(args.data), args.split, args.lang, args.samples, args.seed, args.min_leaves)
        args.no_server = True
    else:
        language, root, folders, files = heldout(args.lang, args.files)
        positions = collect(files, language, args.lang, args.samples, args.seed, args.typed, args.min_leaves)
    report: dict = {"positions": len(positions)}
    if args.model:
        from treecomplete.models.infill_decode import InsertionDecoder
        torch.set_num_threads(1)  # as the server's model thread
        decoder = InsertionDecoder.load(Path(args.model))
        scores, times, best_lines = Scores(), [], []
        for p in positions:
            started = time.perf_counter()
            found = decoder.fill(p.left, p.right, beam=args.beam, results=5 if not p.typed else 20, budget=args.budget)
            times.append(1000 * (time.perf_counter() - started))
            found = [f for f in found if f.text.lower().startswith(p.typed.lower())]
            scores.add(p.truth, [leaves(f.text, args.lang) for f in found])
            line = next((f for f in found if len(f.tokens) > 1), None)  # what the server would offer
            if line is not None:
                best_lines.append((math.exp(line.logp), leaves(line.text, args.lang) == p.truth))
        report["indigo"] = {**scores.row(), "ms_p50": percentile(times, 50), "ms_p95": percentile(times, 95)}
        # how often its best line is the whole line, by how sure it is of it
        report["indigo, best line by its probability"] = {
            f">= {t:g}": {"positions": len(kept), "right": 100 * sum(r for _, r in kept) / max(1, len(kept))}
            for t in SURE for kept in [[b for b in best_lines if b[0] >= t]]}
    if not args.no_server:
        session = Session("treecomplete", [sys.executable, "-m", "treecomplete", "--stdio"], root=root, folders=folders)
        await session.start()
        await session.wait_for_model(args.lang)
        scores, first, again = Scores(), [], []
        by_floor = {floor: Scores() for floor in args.floors}
        for k, p in enumerate(positions):
            uri = p.path.as_uri()
            session.open(uri, args.lang, p.buffer, k + 1)
            started = time.perf_counter()
            items = await session.complete(uri, *p.cursor)
            first.append(1000 * (time.perf_counter() - started))
            # the rest of the line is decoded once the server has been quiet QUIET seconds: the next keystroke asks again
            await asyncio.sleep(args.pause)
            started = time.perf_counter()
            later = await session.complete(uri, *p.cursor)
            again.append(1000 * (time.perf_counter() - started))
            items = client_order(later or items, p.typed)
            session.close(uri)
            scores.add(p.truth, [leaves(item_text(i), args.lang) for i in items[:5]])
            chances = [line_probability(i) for i in items]
            for floor, kept in by_floor.items():  # the rests of the line less likely than the floor left out
                kept.add(p.truth, [leaves(item_text(i), args.lang) for i, chance in zip(items, chances)
                                   if chance is None or chance >= floor][:5])
        await session.stop()
        report["server"] = {**scores.row(), "ms_p50": percentile(first, 50), "ms_p95": percentile(first, 95),
                            "again_ms_p50": percentile(again, 50), "again_ms_p95": percentile(again, 95)}
        report.update({f"server, rests of the line >= {floor:g}": kept.row() for floor, kept in by_floor.items()})
    if "indigo, best line by its probability" in report:
        cells = "  ".join(f"{t}: {c['positions']} ({c['right']:.0f}% right)"
                          for t, c in report["indigo, best line by its probability"].items())
        print(f"indigo's best line, by its probability, of {len(positions)} positions: {cells}")
    for name in ("indigo", "server", *(f"server, rests of the line >= {floor:g}" for floor in args.floors)):
        if name in report:
            row = report[name]
            cells = "  ".join(f"n={n}: {row[f'n{n}']['top1']:5.1f} / {row[f'n{n}']['top5']:5.1f} ({row[f'n{n}']['positions']})"
                              for n in range(1, MAX_N + 1))
            extra = f"  p50 {row['ms_p50']:.1f} ms p95 {row['ms_p95']:.1f} ms" if "ms_p50" in row else ""
            if "again_ms_p50" in row:
                extra += f"; asked again: p50 {row['again_ms_p50']:.1f} ms p95 {row['again_ms_p95']:.1f} ms"
            print(f"{name:8} top-1 / top-5 exact on the first n leaves: {cells}{extra}")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", default="python", choices=("python", "javascript"))
    parser.add_argument("--files", help="a folder of held-out packages")
    parser.add_argument("--data", help="token streams instead (treecomplete infill data): the decoder alone")
    parser.add_argument("--split", default="valid", help="of --data (default %(default)s)")
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", help="an insertion decoder checkpoint (treecomplete infill train)")
    parser.add_argument("--typed", type=int, default=0, help="characters of the identifier typed (default 0)")
    parser.add_argument("--beam", type=int, default=4)
    parser.add_argument("--min-leaves", type=int, default=2,
                        help="positions whose rest of the line holds at least this many leaves (1: a name ending its line too)")
    parser.add_argument("--floors", type=float, nargs="*", default=[],
                        help="also score the server's lists with its rests of the line less likely than each left out")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds of decoding (default %(default)s)")
    parser.add_argument("--pause", type=float, default=QUIET + 0.3, help="seconds before asking again (default %(default)s)")
    parser.add_argument("--no-server", action="store_true", help="the decoder alone")
    parser.add_argument("--out", help="keep the report as JSON")
    run_benchmark(main_async, parser.parse_args())


if __name__ == "__main__":
    main()
