"""A day of use, compressed: thousands of real files opened from several workspace folders, a
completion asked in each, a sample edited and asked again, then all closed; the server's RSS (with its child processes')
after each phase and over time, the latency percentiles over time, and the errors.

    python -m benchmarks.soak [--lang python] [--documents 4000] [--edits 200] [--folders DIR ...] [--per-folder N]
                              [--server CMD | --peer NAME] [--plot soak.png] [--out FILE]
    python -m benchmarks.soak --plot soak.png --from NAME=FILE ...   # runs' --out files in one plot

Default folders: the held-out packages (bench-out/heldout/LANG/*, their environments too) and,
for Python, the standard library. Each file is opened whole and a completion asked at once at
the end of its middle line (as a client asks when the user types right after opening); in a
sample, a character is typed there (the first use of a document opened a while ago: "edit")
and then another ("typing", the next keystroke). A request that fails or times out is an error. The PNG (with
matplotlib installed) plots RSS and the p95 of each window of requests over the run; the --out
file holds each request's phase, document and milliseconds too (to find the slow ones).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shlex
import sys
import sysconfig
import time
from pathlib import Path

from lsprotocol import types

from .editing import LANGUAGES
from .latency import peak_rss_mb, percentile, tree_rss_mb
from .lsp import ROOT, Session, peers, run_benchmark
from .machine import describe

SUFFIXES = {"python": (".py",), "javascript": (".js", ".mjs", ".cjs"), "typescript": (".ts",)}
WINDOW = 250  # requests per point of the plot
MAX_BYTES = 512 * 1024


def rss_mb(pid: int) -> float:
    """The server's resident memory with its child processes' (treecomplete's reader process)."""
    return tree_rss_mb(pid)


def own_rss_mb(pid: int) -> float:
    return peak_rss_mb(pid, "VmRSS")


def files_of(folders: list[Path], lang: str, count: int, per_folder: int | None = None) -> list[Path]:
    """The first ``count`` files of the language under the folders, in path order, a folder at a
    time, at most ``per_folder`` from each (hidden folders and those over MAX_BYTES skipped)."""
    found: list[Path] = []
    for folder in folders:
        start = len(found)
        for path in sorted(folder.rglob("*")):
            if len(found) >= count:
                return found
            if per_folder is not None and len(found) - start >= per_folder:
                break
            if (path.suffix in SUFFIXES[lang] and path.is_file() and path.stat().st_size < MAX_BYTES
                    and not any(part.startswith(".") and part not in (".venv",) for part in path.relative_to(folder).parts)):
                found.append(path)
    return found


def middle(text: str) -> tuple[int, int]:
    """The end of the file's middle line: where the completion is asked."""
    lines = text.split("\n")
    line = len(lines) // 2
    return line, len(lines[line].encode("utf-16-le")) // 2


class Run:
    def __init__(self, session: Session):
        self.session = session
        self.requests: list[tuple[str, str, float]] = []  # (phase, uri, ms): the --out file has them, to find the slow ones
        self.errors = 0
        self.timeline: list[tuple[int, float, float]] = []  # (requests so far, RSS MB, p95 of the window)
        self.rss: dict[str, float] = {}

    async def ask(self, phase: str, uri: str, line: int, character: int) -> None:
        started = time.perf_counter()
        try:
            await asyncio.wait_for(self.session.client.text_document_completion_async(
                types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(line, character))), 30)
        except Exception as error:  # a failed request is an error of the run, not of the benchmark
            self.errors += 1
            print(f"  {self.session.name}: {uri}: {type(error).__name__} {error}", file=sys.stderr)
        self.requests.append((phase, uri, (time.perf_counter() - started) * 1000))
        if len(self.requests) % WINDOW == 0:
            window = [ms for _, _, ms in self.requests[-WINDOW:]]
            self.timeline.append((len(self.requests), rss_mb(self.session.pid), percentile(window, 95)))

    def phase(self, name: str) -> dict[str, float]:
        times = [ms for phase, _, ms in self.requests if phase == name]
        self.rss[name] = rss_mb(self.session.pid)
        return {"requests": len(times), "p50_ms": percentile(times, 50) if times else 0.0,
                "p95_ms": percentile(times, 95) if times else 0.0, "max_ms": max(times, default=0.0),
                "rss_mb": self.rss[name], "children_mb": self.rss[name] - own_rss_mb(self.session.pid)}


async def soak(session: Session, files: list[Path], lang: str, edits: int, seed: int, ours: bool) -> dict:
    run = Run(session)
    await session.start()
    try:
        if ours:  # its models loaded and the workspace indexed first: what it holds before any document
            await session.wait_for_model(lang)
            await asyncio.wait_for(session.indexed.wait(), 600)
        started_rss = rss_mb(session.pid)
        started_children = started_rss - own_rss_mb(session.pid)
        positions = {}
        for path in files:
            text = path.read_text(encoding="utf-8", errors="replace")
            positions[path] = middle(text)
            session.open(path.as_uri(), lang, text)
            await run.ask("open", path.as_uri(), *positions[path])
        report = {"started_rss_mb": started_rss, "started_children_mb": started_children, "open": run.phase("open")}
        for path in random.Random(seed).sample(files, min(edits, len(files))):
            line, character = positions[path]
            session.change(path.as_uri(), 2, line, character, "x")  # back to a document opened a while ago
            await run.ask("edit", path.as_uri(), line, character + 1)
            session.change(path.as_uri(), 3, line, character + 1, "y")  # and the next keystroke
            await run.ask("typing", path.as_uri(), line, character + 2)
        report["edit"] = run.phase("edit")
        report["typing"] = run.phase("typing")
        for path in files:
            session.close(path.as_uri())
        await asyncio.sleep(5)
        report["closed_rss_mb"] = rss_mb(session.pid)
        report["closed_children_mb"] = report["closed_rss_mb"] - own_rss_mb(session.pid)
        report["errors"] = run.errors
        report["timeline"] = run.timeline
        report["requests"] = run.requests
        return report
    finally:
        await session.stop()


def plot(results: dict[str, dict], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)", file=sys.stderr)
        return
    figure, (memory, latency) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    for name, report in results.items():
        requests = [r for r, _, _ in report["timeline"]]
        memory.plot(requests, [m for _, m, _ in report["timeline"]], label=name)
        latency.plot(requests, [p for _, _, p in report["timeline"]], label=name)
    memory.set_ylabel("RSS (MB)")
    latency.set_ylabel(f"p95 of {WINDOW} requests (ms)")
    latency.set_xlabel("requests (each file opened and asked, then the edits)")
    memory.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    print(f"plot written to {path}")


async def main_async(args: argparse.Namespace) -> dict:
    lang = args.lang
    folders = [Path(f).resolve() for f in args.folders] if args.folders else sorted(
        p.resolve() for p in (ROOT / "bench-out" / "heldout" / lang).glob("*") if p.is_dir())
    if not args.folders and lang == "python":
        folders.append(Path(sysconfig.get_paths()["stdlib"]))
    files = files_of(folders, lang, args.documents, args.per_folder)
    print(describe())
    print(f"{lang}: {len(files)} files from {len(folders)} folders; {args.edits} edited")
    sessions = []
    if args.peer:
        found = {name: (command, options) for name, command, options in peers(lang)}
        if args.peer not in found:
            sys.exit(f"{args.peer} is not installed here (benchmarks/lsp.py peers)")
        sessions.append(Session(args.peer, found[args.peer][0], found[args.peer][1], root=folders[0], folders=folders))
    else:
        sessions.append(Session("treecomplete", shlex.split(args.server), {"treecomplete": {"model": args.model}},
                                root=folders[0], folders=folders))
    results = {}
    for session in sessions:
        results[session.name] = report = await soak(session, files, lang, args.edits, args.seed, not args.peer)
        print(f"{session.name}: started {report['started_rss_mb']:.0f} MB (child processes {report['started_children_mb']:.0f});"
              f" errors {report['errors']}")
        for phase in ("open", "edit", "typing"):
            r = report[phase]
            print(f"  {phase:<5} {r['requests']:>5} requests  p50 {r['p50_ms']:7.2f} ms  p95 {r['p95_ms']:7.2f} ms"
                  f"  max {r['max_ms']:8.1f} ms  RSS after {r['rss_mb']:.0f} MB (child processes {r['children_mb']:.0f})")
        print(f"  all closed: RSS {report['closed_rss_mb']:.0f} MB (child processes {report['closed_children_mb']:.0f})")
    if args.plot:
        plot(results, Path(args.plot))
    return {"lang": lang, "documents": len(files), "edits": args.edits, "results": results}


def plot_from(pairs: list[str], path: Path) -> None:
    """One plot of several runs' --out files, each named: NAME=FILE."""
    import json

    results = {}
    for pair in pairs:
        name, _, file = pair.partition("=")
        report = json.loads(Path(file).read_text())
        for server, result in report["results"].items():
            results[name or server] = result
    plot(results, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", choices=sorted(LANGUAGES), default="python")
    parser.add_argument("--documents", type=int, default=4000)
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--per-folder", type=int, help="files taken from each folder at most (default: no bound)")
    parser.add_argument("--folders", nargs="*", help="workspace folders to take the files from")
    parser.add_argument("--server", default=f"{sys.executable} -m treecomplete --stdio")
    parser.add_argument("--model", default="", help="treecomplete.model (default: the shipped one)")
    parser.add_argument("--peer", help="run this peer instead (jedi-language-server, pyright, typescript-language-server)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", help="write a PNG of RSS and p95 over the run here")
    parser.add_argument("--out", help="write the results as JSON here")
    parser.add_argument("--from", dest="runs", nargs="*", help="NAME=FILE: plot these runs' --out files, run nothing")
    args = parser.parse_args()
    if args.runs:
        if not args.plot:
            parser.error("--from needs --plot")
        plot_from(args.runs, Path(args.plot))
        return
    run_benchmark(main_async, args)


if __name__ == "__main__":
    main()
