"""Editing-scenario accuracy (BENCHMARKS.md §1): the number users feel.

For sampled identifiers of held-out files, open a buffer holding the file up to the identifier
plus its first k characters, request completion at the end, filter and order the items as a
client does, and score where the true identifier lands. Ours, the peer language server and a
recency baseline answer the same positions in the same run. The buffer is opened under the
file's own name, in a workspace of one folder per held-out package (benchmarks/fetch_heldout.sh
keeps their trees), as an editor opens a project; treecomplete waits until its project index
has read them (``--no-project``: without it).

``--middle`` also scores each identifier with the file's text after it kept in the buffer (the
identifier removed, its first k characters typed: completing inside a file), and reports both
modes side by side, each server answering both in the same run.

    python -m benchmarks.editing --lang python --files bench-out/heldout/python [--middle]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import shlex
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from treecomplete.context import member_access
from treecomplete.grammars import NAME_TYPES, WHEELS
from treecomplete.languages import JAVASCRIPT, PYTHON, TYPESCRIPT, LanguageSpec, by_name
from treecomplete.calls import called
from treecomplete.assignments import ASSIGNMENT_READ, assigned_call
from treecomplete.python_types import last_match
from treecomplete.receivers import Target, bindings, chain
from treecomplete.sources.libraries import node_table
from treecomplete.sources.declarations import (
    declares,
    member_position,
    parameters_before,
)
from treecomplete.words import node_text

from . import imported_names
from .lsp import Session, has_model, peers, run_benchmark

SAMPLED = {
    "python": {"identifier"},
    "javascript": {"identifier", "property_identifier", "shorthand_property_identifier",
                   "shorthand_property_identifier_pattern"},
}
SAMPLED["typescript"] = SAMPLED["javascript"]  # values, not types (type_identifier): what the model reads
LANGUAGES = {"python": (PYTHON, (".py",)), "javascript": (JAVASCRIPT, (".js",)), "typescript": (TYPESCRIPT, (".ts",))}
GRAMMAR_ONLY = sorted(WHEELS)  # languages served from their grammar alone: the fallback engine, no model


def sampled(lang: str, node) -> bool:
    """Whether a node is an identifier the benchmark samples: in a grammar served alone, any
    named leaf called so (``identifier``, ``field_identifier``, Ruby's ``constant``, PHP's
    ``name``, Bash's ``variable_name``)."""
    if lang in SAMPLED:
        return node.type in SAMPLED[lang]
    return node.child_count == 0 and node.is_named and (node.type in NAME_TYPES or node.type.endswith("_identifier"))


def language_of(lang: str) -> tuple[LanguageSpec, tuple[str, ...]]:
    if lang in LANGUAGES:
        return LANGUAGES[lang]
    language = by_name(lang)
    if language is None:
        sys.exit(f"no grammar for {lang}: pip install {WHEELS[lang].module.replace('_', '-')}")
    return language, WHEELS[lang].extensions

def heldout(lang: str, folder: str) -> tuple[LanguageSpec, Path, list[Path], list[Path]]:
    """The language, the held-out root, its workspace folders (one per package) and its source
    files, never those of installed dependencies."""
    language, suffixes = language_of(lang)
    root = Path(folder).resolve()
    folders = sorted(p for p in root.iterdir() if p.is_dir()) or [root]  # one workspace folder per package
    files = sorted(p for p in root.rglob("*") if p.suffix in suffixes and p.is_file()
                   and not {"node_modules", ".venv"} & set(p.relative_to(root).parts) and not p.name.endswith(".d.ts"))
    if not files:
        sys.exit(f"no {'/'.join(suffixes)} files under {folder}: run benchmarks/fetch_heldout.sh "
                 "(or fetch_heldout_grammars.sh) first")
    return language, root, folders, files


def arguments(doc: str, samples: int) -> argparse.ArgumentParser:
    """The options the benchmarks over held-out identifiers share."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--lang", choices=sorted(LANGUAGES) + GRAMMAR_ONLY, required=True)
    parser.add_argument("--files", required=True, help="a directory of held-out source files")
    parser.add_argument("--server", default=f"{sys.executable} -m treecomplete --stdio", help="our server's command line")
    parser.add_argument("--model", default="", help="treecomplete.model for our server (default: the shipped one)")
    parser.add_argument("--samples", type=int, default=samples)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-peer", action="store_true", help="skip the peer language servers")
    return parser

KS = (0, 1, 2)
PREFIX, MIDDLE = "prefix", "middle"  # the buffer ends at the cursor; the file's text after the identifier follows it


@dataclass(frozen=True)
class Sample:
    path: Path
    data: bytes
    start: int  # byte offset of the identifier
    name: str
    category: str  # "attribute", "declaration" (``def |``, ``const |``, a class member: server/sources/declarations.py), "parameter"
    # (``def f(a, |``) or "name" (any other)
    target: Target | None = None  # --select imported-name: what the file's import binds the name to


def imported_receiver(node, tree, language: LanguageSpec) -> bool:
    """Whether the object before the dot of the `obj.name` node ``node`` is a module, a class or
    a name that the file's imports before it bind (``os.path.join``, ``t.Any``), and no function
    around it binds that name itself (koa's ``const context = Object.create(this.context)``
    then ``context.state``: an object the function made, not the module)."""
    receiver = node.child_by_field_name("object")
    names = chain(node_text(receiver)) if receiver is not None else None
    return bool(names) and names[0] in bindings(tree, language, [(0, node.start_byte)]) \
        and not imported_names.shadowed(node, names[0])


def project_call_receiver(node, tree, language: LanguageSpec) -> bool:
    """Whether the object before the dot of the `obj.name` node ``node`` is a call of a function
    that the file imports from a project file (a relative import), or a name last assigned one
    (``current().flush``, ``const b = current()`` … ``b.flush``; Python's ``build().name``, ``u =
    build()`` … ``u.name``): what its declarations, or else its returns, say it gives."""
    receiver = node.child_by_field_name("object")
    if receiver is None:
        return False
    bound = bindings(tree, language, [(0, node.start_byte)])
    if language.name != "python":
        target = called(receiver, tree.root_node.text, node.start_byte, bound)
        return target is not None and target.module.startswith(".")
    names = None
    if receiver.type == "call":
        names = chain(node_text(receiver.child_by_field_name("function")))
    elif receiver.type == "identifier":
        call = assigned_call(tree.root_node.text, node.start_byte, node_text(receiver))
        names = list(call.names) if call is not None and call.whole and not call.then and not call.awaited else None
    return bool(names) and names[0] in bound and bound[names[0]].module.startswith(".")


_CONSTRUCTED = rb"(?<![\w$.])%s\s*=\s*(?:new\s+)?([A-Z][\w$]*)\s*\("


def made_receiver(node, bound: dict[str, Target], data: bytes, language: LanguageSpec, root) -> bool:
    """Whether the object before the dot of the `obj.name` node ``node`` is an instance the code
    made: a name last assigned ``X(...)`` or ``new X(...)`` of a class ``X`` that the file defines
    at its top level or an import binds (``c = Cache()`` … ``c.``); in JavaScript also a Node call's
    result or a global's property whose class the shipped table gives (``const s =
    fs.createReadStream(p)`` … ``s.``, ``fs.createReadStream(p).``, ``process.stdout.``).
    ``bound``: what the file's imports bind."""
    receiver = node.child_by_field_name("object")
    if receiver is None:
        return False
    names = chain(node_text(receiver))
    python = language.name == "python"
    if not python and names and len(names) == 2 and node_table.typed(Target("", tuple(names))):
        return True
    if receiver.type == "identifier":
        before = data[max(0, node.start_byte - ASSIGNMENT_READ):node.start_byte]
        found = last_match(re.compile(_CONSTRUCTED % re.escape(receiver.text)), before, 0, len(before))
        made = found.group(1).decode() if found is not None else None
        kinds = ("class_definition",) if python else ("class_declaration",)
        if made is not None and (made in bound or any(c.type in kinds and node_text(c.child_by_field_name("name")) == made
                                                      for c in root.named_children)):
            return True
    if python or receiver.type not in ("identifier", "call_expression", "new_expression"):
        return False
    target = called(receiver, data, node.start_byte, bound)
    return target is not None and node_table.typed(target)


def collect(files: list[Path], language: LanguageSpec, lang: str, select: str = "", drop_imports: bool = False) -> list[Sample]:
    parser = language.parser()
    samples = []
    for path in files:
        data = path.read_bytes()
        tree = parser.parse(data)
        if select == "imported-name":
            samples.extend(imported_samples(path, data, tree, language, lang, drop_imports))
            continue
        bound = bindings(tree, language, [(0, len(data))]) if select == "made-member" else {}
        cursor = tree.walk()
        while True:
            node = cursor.node
            access = member_access(node) if select.endswith("-member") and sampled(lang, node) else None
            if select == "imported-member" and (access is None or not imported_receiver(access, tree, language)):
                pass
            elif select == "called-member" and (access is None or not project_call_receiver(access, tree, language)):
                pass
            elif select == "made-member" and (access is None or not made_receiver(access, bound, data, language, tree.root_node)):
                pass
            elif select == "keyword-argument":
                if keyword_name(node) or option_key(node):
                    samples.append(Sample(path, data, node.start_byte, node.text.decode(), "keyword"))
            elif sampled(lang, node) and node.text and language.identifier.fullmatch(node.text.decode("utf-8", "replace")):
                category = ("attribute" if member_access(node) is not None or after_member_operator(language, data, node.start_byte)
                            else "declaration" if declares(lang, data, node.start_byte)
                            or member_position(lang, data, node.start_byte, node) is not None
                            else "parameter" if parameters_before(lang, data, node.start_byte, node) is not None else "name")
                samples.append(Sample(path, data, node.start_byte, node.text.decode(), category))
            if cursor.goto_first_child():
                continue
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    break
            else:
                continue
            break
    return samples


def imported_samples(path: Path, data: bytes, tree, language: LanguageSpec, lang: str, drop_imports: bool) -> list[Sample]:
    """The names that the file's top-level imports bind, used below them (not in an import, nor
    where a function around them binds the name itself), with what each binds; with
    ``drop_imports``, in the file without its imports. A name that an import elsewhere in the
    file binds too (``if TYPE_CHECKING:``, in a function) is not taken: the buffer binds it."""
    spans = imported_names.import_spans(tree, language)
    if not spans:
        return []
    bound = bindings(tree, language, spans)  # what the file's top-level imports bind
    gaps = [(0, spans[0][0])] + [(a[1], b[0]) for a, b in zip(spans, spans[1:])] + [(spans[-1][1], len(data))]
    for name in bindings(tree, language, [(lo, hi) for lo, hi in gaps if hi > lo]):
        bound.pop(name, None)
    out = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        text = node.text.decode("utf-8", "replace") if node.type == "identifier" and node.text else ""
        target = bound.get(text)
        if target is None or node.start_byte < spans[0][1] or any(a <= node.start_byte < b for a, b in spans) \
                or imported_names.shadowed(node, text) or imported_names.in_import(node):
            continue
        if member_access(node) is not None or declares(lang, data, node.start_byte) or (node.parent and node.parent.type in (
                "keyword_argument", "pair", "import_specifier", "export_specifier", "shorthand_property_identifier_pattern")):
            continue
        buffer_data, start = imported_names.drop(data, spans, node.start_byte) if drop_imports else (data, node.start_byte)
        out.append(Sample(path, buffer_data, start, text, "name", target))
    return out


def keyword_name(node) -> bool:
    """The name of a Python call's keyword argument (``indent`` of ``dumps(x, indent=2)``)."""
    parent = node.parent
    return (node.type == "identifier" and parent is not None and parent.type == "keyword_argument"
            and parent.child_by_field_name("name") == node and parent.parent is not None
            and parent.parent.parent is not None and parent.parent.parent.type == "call")


def option_key(node) -> bool:
    """A key of a JavaScript object literal passed to a call (``encoding`` of
    ``fs.readFileSync(p, { encoding: 'utf8' })``, ``cwd`` of ``spawn(c, a, { cwd })``)."""
    parent = node.parent
    if node.type not in ("property_identifier", "shorthand_property_identifier") or parent is None:
        return False
    obj = parent.parent if parent.type == "pair" and parent.child_by_field_name("key") == node else parent
    return (obj is not None and obj.type == "object" and obj.parent is not None and obj.parent.type == "arguments"
            and obj.parent.parent is not None and obj.parent.parent.type in ("call_expression", "new_expression"))


def after_member_operator(language: LanguageSpec, data: bytes, offset: int) -> bool:
    """In a grammar served alone, whether a member operator (``.``, ``->``, ``::``) comes right
    before ``offset``: a member's name, as the server reads it."""
    before = data[max(0, offset - 64):offset].rstrip(b" \t")
    return language.grammar_only and before.endswith(tuple(op.encode() for op in language.member_operators)) \
        and not before.endswith(b"..")


def end_position(text: str) -> tuple[int, int]:
    """The LSP position (UTF-16) of the end of ``text``."""
    start = max(text.rfind("\n"), text.rfind("\r")) + 1
    line = text.count("\n") + text.count("\r") - text.count("\r\n")
    return line, len(text[start:].encode("utf-16-le")) // 2


def client_order(items: list[types.CompletionItem], prefix: str) -> list[types.CompletionItem]:
    """The items a client shows once ``prefix`` is typed, in its order."""
    kept = [i for i in items if (i.filter_text or i.label).lower().startswith(prefix.lower())]
    kept.sort(key=lambda i: i.sort_text or i.label)
    return kept


def rank_of(items: list[types.CompletionItem], prefix: str, truth: str) -> int | None:
    """1-based rank of the true identifier after client-side filtering and ordering."""
    for rank, item in enumerate(client_order(items, prefix), 1):
        if isinstance(item.text_edit, (types.TextEdit, types.InsertReplaceEdit)):
            text = item.text_edit.new_text
        else:
            text = item.insert_text or item.label
        if re.split(r"[($=]", text, maxsplit=1)[0] == truth:  # `join(`, `indent=`: the name
            return rank
    return None


async def imported_rank(session: Session, items: list[types.CompletionItem], sample: Sample, k: int
                        ) -> tuple[int | None, int | None, int | None]:
    """The 1-based rank of the first item of the name whose import edit binds it as the file's
    import did (asking ``completionItem/resolve`` for an item of the top 10 that has none), the
    rank of the name with any edit or none, and that of the name with an import edit that binds
    it from any module (looked for in the top 10: the edits offered, right or wrong)."""
    kept = client_order(items, sample.name[:k])
    first = imported = None
    python = sample.path.suffix == ".py"
    for rank, item in enumerate(kept[:10], 1):
        if re.split(r"[($=]", item.label, maxsplit=1)[0].strip() != sample.name:
            continue
        first = first or rank
        if not item.additional_text_edits:
            item = await session.resolve(item)
        if imported is None and imported_names.edit_binding(item, sample.name, python) is not None:
            imported = rank
        if imported_names.right_edit(item, sample.name, sample.target, sample.path, python):
            return rank, first, imported
    return None, first or rank_of(items, sample.name[:k], sample.name), imported


def recency_rank(sample: Sample, k: int, language: LanguageSpec) -> int | None:
    """The baseline: identifiers of the buffer, most recently seen first."""
    words = [w.decode("utf-8", "replace") for w in language.identifier_pattern.findall(sample.data[: sample.start])]
    prefix, seen, order = sample.name[:k].lower(), set(), []
    for word in reversed(words):
        if word not in seen and word.lower().startswith(prefix) and word not in language.keywords:
            seen.add(word)
            order.append(word)
    return order.index(sample.name) + 1 if sample.name in order else None


class Scores:
    def __init__(self) -> None:
        self.rows: dict[tuple[int, str], list[int | None]] = defaultdict(list)
        self.each: list[tuple[str, int, int | None]] = []  # (file:offset, k, rank) of each position asked

    def add(self, k: int, category: str, rank: int | None, where: str = "") -> None:
        self.rows[(k, category)].append(rank)
        self.rows[(k, "all")].append(rank)
        if where:
            self.each.append((where, k, rank))

    def summary(self) -> dict[str, dict[str, float]]:
        out = {}
        for (k, category), ranks in sorted(self.rows.items()):
            n = len(ranks)
            out[f"k={k} {category}"] = {
                "n": n,
                "top1": sum(r == 1 for r in ranks) / n,
                "top5": sum(r is not None and r <= 5 for r in ranks) / n,
                "mrr10": sum(1 / r for r in ranks if r is not None and r <= 10) / n,
                "listed": sum(r is not None for r in ranks) / n,
            }
        return out


def buffer(sample: Sample, k: int, mode: str) -> tuple[str, tuple[int, int]]:
    """The buffer's text and the cursor's LSP position for a sample typed to its k-th character."""
    before = sample.data[: sample.start].decode("utf-8", "replace") + sample.name[:k]
    if mode == PREFIX:
        return before, end_position(before)
    after = sample.data[sample.start + len(sample.name.encode()):].decode("utf-8", "replace")
    return before + after, end_position(before)


async def run_server(session: Session, samples: list[Sample], lang: str, neural: bool = False, ours: bool = False,
                     modes: tuple[str, ...] = (PREFIX,), settle: float = 0.0) -> dict[str, Scores]:
    """The buffer is the sampled file, open under its own name, in a workspace of the held-out
    files: a server may read the project's other files (and must not read the open one's future
    from disk). The first position of each file is asked ``settle`` seconds after it opens (the
    user opened the file a moment before typing), the others at once; 0: every one at once.
    Scores per mode."""
    scores = {mode: Scores() for mode in modes}
    opened: set[Path] = set()
    await session.start()
    if ours:
        await asyncio.wait_for(session.indexed.wait(), 60)
    if neural:
        await session.wait_for_model(lang)
    try:
        for sample in samples:
            for k in KS:
                if len(sample.name) <= k:
                    continue
                for mode in modes:
                    text, position = buffer(sample, k, mode)
                    uri = sample.path.as_uri()
                    session.open(uri, lang, text)
                    if settle and sample.path not in opened:
                        await asyncio.sleep(settle)
                    opened.add(sample.path)
                    items = await session.complete(uri, *position)
                    if sample.target is not None:  # --select imported-name: the name with an import edit binding it
                        rank, any_edit, imported = await imported_rank(session, items, sample, k)
                        scores[mode].rows[(k, "name, any edit")].append(any_edit)
                        scores[mode].rows[(k, "name, an import")].append(imported)
                    else:
                        rank = rank_of(items, sample.name[:k], sample.name)
                    session.close(uri)
                    scores[mode].add(k, sample.category, rank, f"{sample.path}:{sample.start}")
    finally:
        await session.stop()
    return scores


def print_table(lang: str, results: dict[str, dict[str, dict[str, float]]], mode: str = PREFIX) -> None:
    print(f"\n{lang}, {'buffer ending at the cursor' if mode == PREFIX else 'the text after the identifier kept'}: "
          "top-1 / top-5 / listed (n)")
    keys = list(next(iter(results.values())).keys())
    print(f"{'':<22}" + "".join(f"{name:>28}" for name in results))
    for key in keys:
        cells = []
        for summary in results.values():
            s = summary.get(key)
            cells.append(f"{s['top1']:6.1%} {s['top5']:6.1%} {s.get('listed', 0):6.1%} ({s['n']})" if s else "")
        print(f"{key:<22}" + "".join(f"{c:>28}" for c in cells))


async def main_async(args: argparse.Namespace) -> dict:
    language, root, folders, files = heldout(args.lang, args.files)
    population = collect(files, language, args.lang, args.select, args.drop_imports)
    samples = random.Random(args.seed).sample(population, min(args.samples, len(population)))
    print(f"{args.lang}: {len(samples)} identifiers sampled (seed {args.seed}) from {len(population)} in {len(files)} files")

    modes = (PREFIX, MIDDLE) if args.middle else (PREFIX,)
    results: dict[str, dict[str, dict]] = {mode: {} for mode in modes}

    positions: dict[str, dict[str, list]] = {mode: {} for mode in modes}

    def keep(label: str, scores: dict[str, Scores]) -> None:
        for mode, found in scores.items():
            results[mode][label] = found.summary()
            positions[mode][label] = found.each

    engines = [("treecomplete (fallback)", "fallback")]
    if has_model(args.lang, args.model):
        engines.append(("treecomplete (model)", args.model))
    for label, model in engines:
        session = Session(label, shlex.split(args.server), {"treecomplete": {"model": model, "projectIndex": not args.no_project}},
                          root=root, folders=folders)
        keep(label, await run_server(session, samples, args.lang, neural=model != "fallback", ours=not args.no_project, modes=modes,
                                     settle=args.settle))
    baseline = Scores()  # the words before the cursor: the same in both modes
    for sample in samples:
        for k in KS:
            if len(sample.name) > k:
                baseline.add(k, sample.category, recency_rank(sample, k, language))
    keep("recency baseline", {mode: baseline for mode in modes})
    found = [] if args.no_peer else peers(args.lang)
    for name, command, options in found:
        keep(name, await run_server(Session(name, command, options, root=root, folders=folders), samples, args.lang, modes=modes,
                                    settle=args.settle))
    if not found and not args.no_peer and not language.grammar_only:
        print("peer not installed: pip install jedi-language-server / npm install in bench-out/node", file=sys.stderr)
    for mode in modes:
        print_table(args.lang, results[mode], mode)
    out = {"lang": args.lang, "samples": len(samples), "seed": args.seed, "files": len(files), "select": args.select,
           "drop_imports": args.drop_imports,
           "results": results[PREFIX], "positions": positions}
    if args.middle:
        out["middle"] = results[MIDDLE]
    return out


def main() -> None:
    parser = arguments(__doc__, samples=200)
    parser.add_argument("--no-project", action="store_true", help="treecomplete without its project index")
    parser.add_argument("--out", help="write the results as JSON here")
    parser.add_argument("--select", choices=["imported-member", "made-member", "called-member", "keyword-argument", "imported-name"],
                        default="",
                        help="only identifiers after a dot whose receiver the file's imports bind (os.path.join, t.Any); "
                             "only those after an instance the code made (c = Cache() ... c.grow, s = fs.createReadStream(p) ... "
                             "s.pipe, process.stdout.write); only those after a call of a project file's function "
                             "(JavaScript, TypeScript: current().flush, b = current() ... b.flush); "
                             "only the names of a call's keyword arguments (Python: indent of dumps(x, indent=2); JavaScript: an "
                             "object literal argument's keys, encoding of fs.readFileSync(p, { encoding })); only names "
                             "the file's imports bind (a hit: the name with an import edit that binds it so)")
    parser.add_argument("--drop-imports", action="store_true",
                        help="with --select imported-name: every import statement removed from the buffer")
    parser.add_argument("--middle", action="store_true",
                        help="also with the file's text after the identifier kept in the buffer; both modes reported")
    parser.add_argument("--settle", type=float, default=0.0,
                        help="seconds between opening a file and asking at its first position (default 0: at once)")
    run_benchmark(main_async, parser.parse_args())


if __name__ == "__main__":
    main()
