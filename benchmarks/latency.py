"""Typing latency through the protocol (BENCHMARKS.md §3).

Open a large real file holding its first part, then type the next characters one by one with
incremental didChange edits, requesting completion after every identifier character, as an
editor does. Prints p50/p95/p99/max request-to-response time, time to answer initialize and the
server's peak RSS (with the Python and the JavaScript model loaded), for treecomplete and for
jedi-language-server on the same trace. Then ``--opens`` other files of the same folder are
opened one at a time and a completion asked at once in each (the first list after an open); the
trace's own first request is reported too (the 3,000-line file just opened).

    python -m benchmarks.latency            # the standard library's inspect.py (3,000+ lines)
    python -m benchmarks.latency --inside   # the same, with the rest of the file after the cursor
    python -m benchmarks.latency --lang javascript --file katex.min.js --by-characters  # typing in a minified line
"""

from __future__ import annotations

import argparse
import inspect
import math
import shlex
import statistics
import sys
import time
from pathlib import Path

from treecomplete.grammars import WHEELS
from treecomplete.memory import descendants

from .editing import end_position, language_of
from .lsp import Session, has_model, peer_command, run_benchmark
from .machine import describe


def peak_rss_mb(pid: int, field: str = "VmHWM") -> float:
    """A process's peak resident memory in MB (``field="VmRSS"``: its resident memory now)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def tree_rss_mb(pid: int) -> float:
    """Resident memory now of the process and all its descendants (the server's library reader) in MB."""
    return sum(mb for mb in (peak_rss_mb(p, "VmRSS") for p in [pid, *descendants(pid)]) if not math.isnan(mb))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def opened_files(path: Path, count: int) -> list[Path]:
    """Other files beside ``path`` with its suffix, for the first request after an open: the
    ``count`` largest under 512 KB (a user opens the big ones too), in name order."""
    found = [p for p in path.parent.glob(f"*{path.suffix}") if p != path and p.is_file() and p.stat().st_size < 512 * 1024]
    return sorted(sorted(found, key=lambda p: -p.stat().st_size)[:count])


async def first_requests(session: Session, files: list[Path], lang: str) -> list[float]:
    """Each file opened holding its first half and a completion asked at once at its end, as a
    client asks when the user types right after opening: milliseconds to each answer."""
    out = []
    for path in files:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        buffer = "".join(lines[: len(lines) // 2])
        uri = path.as_uri()
        session.open(uri, lang, buffer)
        started = time.perf_counter()
        await session.complete(uri, *end_position(buffer))
        out.append((time.perf_counter() - started) * 1000)
        session.close(uri)
    return out


async def run_trace(session: Session, text: str, split: int, chars: int, lang: str, neural: bool = False,
                    both: bool = False, inside: bool = False, opened: list[Path] = ()) -> dict:
    await session.start()
    # from the start of initialize to the first answer that came from the model
    first_neural = session.initialize_seconds + await session.wait_for_model(lang) if neural else None
    if neural and both:  # the other language's model loaded too, as in a mixed workspace
        await session.wait_for_model("javascript" if lang == "python" else "python")
    uri = Path("/tmp/treecomplete-latency" + language_of(lang)[1][0]).as_uri()
    typed = text[split : split + chars]
    buffer = text[:split]
    session.open(uri, lang, buffer + (text[split + chars:] if inside else ""))  # inside: the code after stays below the cursor
    latencies = []
    version = 1
    tree = 0.0  # the most the server and its children held together, sampled after each request
    try:
        for ch in typed:
            line, character = end_position(buffer)
            version += 1
            session.change(uri, version, line, character, ch)
            buffer += ch
            if ch.isalnum() or ch == "_":
                position = end_position(buffer)
                started = time.perf_counter()
                await session.complete(uri, *position)
                latencies.append((time.perf_counter() - started) * 1000)
                tree = max(tree, tree_rss_mb(session.pid))
        rss = peak_rss_mb(session.pid)
        after_open = await first_requests(session, list(opened), lang)
    finally:
        await session.stop()
    return {
        "requests": len(latencies),
        "p50_ms": statistics.median(latencies),
        "p95_ms": percentile(latencies, 95),
        "p99_ms": percentile(latencies, 99),
        "max_ms": max(latencies),
        "initialize_ms": session.initialize_seconds * 1000,
        "peak_rss_mb": rss,
        "peak_tree_rss_mb": tree,
        "first_neural_s": first_neural,
        "first_neural_ms": session.first_neural_ms,  # that first answer's own time (a 2-line buffer)
        "after_open_ms": after_open,
        "first_request_ms": latencies[0],  # the trace's first: the file just opened, its first identifier character typed
    }


async def main_async(args: argparse.Namespace) -> dict:
    path = (Path(args.file) if args.file else Path(inspect.__file__)).resolve()  # a file URI needs an absolute path
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    split = int(len(text) * args.start) if args.by_characters else len("".join(lines[: int(len(lines) * args.start)]))
    print(describe())
    print(f"{path}: {len(lines)} lines; typing {args.chars} characters from line {text.count(chr(10), 0, split) + 1}, "
          f"column {split - text.rfind(chr(10), 0, split)}")
    results = {}
    opened = opened_files(path, args.opens)
    engines = [("treecomplete (fallback)", "fallback")]
    if has_model(args.lang, args.model):
        engines.append(("treecomplete (model)", args.model))
    for label, model in engines:
        session = Session(label, shlex.split(args.server), {"treecomplete": {"model": model}})
        results[label] = await run_trace(session, text, split, args.chars, args.lang, neural=model != "fallback",
                                         both=not args.one_model, inside=args.inside, opened=opened)
    peer = None if args.no_peer else peer_command(args.lang)
    if peer is not None:
        name = "jedi-language-server" if args.lang == "python" else "typescript-language-server"
        results[name] = await run_trace(Session(name, peer[0], peer[1]), text, split, args.chars, args.lang, inside=args.inside,
                                        opened=opened)
    print(f"{'server':<28}{'requests':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}{'init ms':>9}{'RSS MB':>8}{'w/child':>8}")
    for name, r in results.items():
        print(f"{name:<28}{r['requests']:>9}{r['p50_ms']:>9.2f}{r['p95_ms']:>9.2f}{r['p99_ms']:>9.2f}"
              f"{r['max_ms']:>9.1f}{r['initialize_ms']:>9.1f}{r['peak_rss_mb']:>8.0f}{r['peak_tree_rss_mb']:>8.0f}")
    if len(results) == 3:
        _, ours, theirs = results.values()
        print(f"ratio peer/treecomplete: p50 {theirs['p50_ms'] / ours['p50_ms']:.1f}x, p95 {theirs['p95_ms'] / ours['p95_ms']:.1f}x")
    print("the trace's first request (the file just opened, its first identifier character typed): "
          + ", ".join(f"{name} {r['first_request_ms']:.1f} ms" for name, r in results.items()))
    if opened:
        print(f"the first request after an open ({len(opened)} files beside it, each half open, asked at once):")
        for name, r in results.items():
            print(f"  {name:<26} p50 {statistics.median(r['after_open_ms']):.2f} ms, p95 {percentile(r['after_open_ms'], 95):.2f} ms, "
                  f"max {max(r['after_open_ms']):.1f} ms")
    if "treecomplete (model)" in results:
        first = results["treecomplete (model)"]["first_neural_s"]
        took = results["treecomplete (model)"]["first_neural_ms"]
        print(f"time to first neural completion (from initialize): {first:.2f} s; it took {took:.1f} ms")
    return {"file": str(path), "lines": len(lines), "chars": args.chars, "results": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", help="a large source file (default: the standard library's inspect.py)")
    parser.add_argument("--lang", choices=["python", "javascript", "typescript", *sorted(WHEELS)], default="python",
                        help="typescript: served by typescript-pointer-lstm; the others but python: give --file")
    parser.add_argument("--start", type=float, default=0.5, help="fraction of the file opened before typing")
    parser.add_argument("--by-characters", action="store_true",
                        help="--start is a fraction of the characters, not of the lines (a minified file is one line)")
    parser.add_argument("--chars", type=int, default=1500, help="characters typed")
    parser.add_argument("--inside", action="store_true", help="the rest of the file stays after the cursor (typing inside a file)")
    parser.add_argument("--server", default=f"{sys.executable} -m treecomplete --stdio")
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--one-model", action="store_true", help="load only the file's language model (default: both)")
    parser.add_argument("--model", default="", help="treecomplete.model for our server (default: the shipped one)")
    parser.add_argument("--opens", type=int, default=20, help="files beside --file opened after the trace, each asked at once")
    parser.add_argument("--out", help="write the results as JSON here")
    run_benchmark(main_async, parser.parse_args())


if __name__ == "__main__":
    main()
