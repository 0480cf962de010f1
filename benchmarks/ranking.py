"""Fit the neural engine's ranking weights on files of valid-split packages.

The editing benchmark's held-out packages must not tune anything. This completes, in-process
with the shipped model, at sampled identifiers of packages that the corpus build put in the
valid split, as the editing benchmark does (the file up to the identifier plus its first k
characters), records every candidate's features (ranking/ranker.py), and fits the weights of
each case (after a dot or not, k = 0 or not) by minimising the cross-entropy of a softmax over
each list's candidates at the true identifier (listwise learning to rank), pulled towards the
hand-set weights (ranker.DEFAULT) by an L2 term. It prints top-1 / top-5 / MRR@10 per k for the
weights in use, for the hand-set ones, and for weights fitted on one half of the files and
measured on the other (two folds, split by package: code of other projects, as in use); then
the weights fitted on all the files, which ``--write`` stores in ranking/linear_weights.py, with
the hidden layer (``--hidden``) fitted on top of them by the same loss.
Each package gives the same number of identifiers, so that no large one decides the weights.

    python -m benchmarks.ranking --lang python --corpus bench-out/corpus2/python \\
        --packages fastapi,gitpython,isort,oauthlib,beautifulsoup4,poetry --seed 1 --lists py1.pt
    python -m benchmarks.ranking ... --seed 2 --lists py2.pt
    python -m benchmarks.ranking ... --lists py1.pt py2.pt --write

``--middle`` collects lists with the file's text after the identifier kept in the buffer
(completing inside a file, benchmarks.editing --middle); lists of both modes fit together, and
the figures are shown per mode.

The lists are collected as the server builds them (the fallback engine's best
neural.FALLBACK_LIST words with the model's), so the weights see what they will rank: each
package's files keep their paths, and the project index (server/sources/project.py) reads them as the
server reads a workspace folder, never the file being completed (``--no-project``: without it).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import runpy
import sys
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path

import torch
from treecomplete.ranking import features, linear_weights, ranker
from treecomplete.engines.registry import Registry
from treecomplete.languages import JAVASCRIPT, PYTHON, TYPESCRIPT
from treecomplete.sources.libraries.known import Libraries
from treecomplete.models.corpus import archive_files
from treecomplete.sources.installed import EXPORTS
from treecomplete.sources.project_index import ProjectIndex
from treecomplete.service import CompletionService

from .editing import KS, MIDDLE, PREFIX, Scores, buffer, collect

SKIPPED_DIRS = re.compile(r"(^|/)(tests?|docs?|docs_src|examples?|dist|build|node_modules|_?vendor(ed)?)/")
WEIGHTS_FILE = Path(linear_weights.__file__)
# The languages whose weights are fitted here (those with a model: TypeScript's, read as
# JavaScript, has its own weights fitted on .ts files) and the files sampled.
LANGUAGES = {"python": (PYTHON, ".py"), "javascript": (JAVASCRIPT, ".js"), "typescript": (TYPESCRIPT, ".ts")}


def sampled_file(path: str, size: int, suffix: str) -> bool:
    """Whether a package's file (its path inside, ``/``-separated) is sampled: source of the
    language (not a declaration file), 2-200 KB, no tests, docs or built code."""
    return path.endswith(suffix) and not path.endswith(".d" + suffix) and not SKIPPED_DIRS.search(path) \
        and 2048 <= size <= 200_000


def extract(corpus: Path, packages: list[str], suffix: str, out: Path) -> list[Path]:
    """The packages' source files (2-200 KB, no tests, docs or built code), at their paths in a
    folder per package under ``out`` (the project the server's index reads)."""
    splits = json.loads((corpus / "build.json").read_text())["packages"]
    files = []
    for package in packages:
        if splits.get(package) != "valid":
            sys.exit(f"{package}: not a valid-split package of {corpus} (split: {splits.get(package)})")
        stem = package.replace("/", "_")
        # archives normalise - _ . (and npm's name a scoped package's scope-name-version.tgz)
        name = "[-_.]".join(map(re.escape, re.split(r"[-_./]", package.lstrip("@"))))
        archives = [a for a in (corpus / "downloads").iterdir()
                    if re.match(name + r"-\d", a.name, re.IGNORECASE) and not a.name.endswith(".fetched")]
        if not archives:
            sys.exit(f"{package}: no archive under {corpus / 'downloads'}")
        for source in archive_files(sorted(archives)[-1], package):
            if (sampled_file(source.path, len(source.data), suffix)
                    and ".." not in source.path.split("/") and not source.path.startswith("/")):
                path = out / stem / source.path
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(source.data)
                files.append(path)
    return sorted(files)


class Lists:
    """Per case: each completion list's features (candidates x features) and the truth's row."""

    def __init__(self):
        self.rows: list[tuple[int, int, int, torch.Tensor, int | None, str]] = []  # (fold, k, case, X, truth, mode)

    def add(self, fold: int, k: int, block: int, x: list[tuple[float, ...]], truth: int | None, mode: str) -> None:
        self.rows.append((fold, k, block, torch.tensor(x, dtype=torch.float64), truth, mode))


class Packed:
    """Lists of one case packed into one matrix, for a listwise loss computed at once: each
    list's candidates' rows, which list each row belongs to, and the rows of the truths."""

    def __init__(self, lists: list[tuple[torch.Tensor, int]]):
        self.x = torch.cat([x for x, _ in lists])
        self.segment = torch.cat([torch.full((len(x),), i) for i, (x, _) in enumerate(lists)])
        starts = torch.tensor([0] + [len(x) for x, _ in lists[:-1]]).cumsum(0)
        self.truth = starts + torch.tensor([t for _, t in lists])
        self.n = len(lists)

    def loss(self, scores: torch.Tensor) -> torch.Tensor:
        """The mean over lists of -log softmax(scores of the list)[truth]."""
        top = torch.full((self.n,), -torch.inf, dtype=scores.dtype).scatter_reduce(0, self.segment, scores.detach(), "amax")
        total = torch.zeros(self.n, dtype=scores.dtype).index_add(0, self.segment, (scores - top[self.segment]).exp())
        return (total.log() + top - scores[self.truth]).mean()


def fit(rows, l2: float, steps: int = 200) -> list[float]:
    """Weights (all cases, flat) minimising the mean listwise cross-entropy plus l2 * |w - DEFAULT|^2."""
    weights = []
    for block in range(len(features.CASES)):
        start = torch.tensor(ranker.DEFAULT[block * features.SIZE:(block + 1) * features.SIZE], dtype=torch.float64)
        lists = [(x, t) for _, _, b, x, t, _ in rows if b == block and t is not None and len(x) > 1]
        w = start.clone().requires_grad_(True)
        if lists:
            packed = Packed(lists)
            optimiser = torch.optim.LBFGS([w], max_iter=steps, line_search_fn="strong_wolfe")

            def closure():
                optimiser.zero_grad()
                loss = packed.loss(packed.x @ w) + l2 * ((w - start) ** 2).sum()
                loss.backward()
                return loss

            optimiser.step(closure)
        weights.extend(w.detach().tolist())
    return weights


def fit_only(rows, names: list[str], weights: list[float], layer: dict | None, l2: float, steps: int = 200,
             cases: tuple[str, ...] = ()) -> list[float]:
    """The weights in use with only the features ``names`` fitted, per case, by the same loss
    (their L2 pull towards ranker.DEFAULT's values), the others and the hidden layer held: a new
    feature learns its weight without refitting what was fitted on more lists before. In
    ``cases`` every linear weight is fitted (the hidden layer still held)."""
    zero = [0.0] * len(weights)
    hidden = ranker.Ranker("hidden", zero, layer) if layer is not None else None
    out = list(weights)
    for block in range(len(features.CASES)):
        chosen = list(range(features.SIZE)) if features.CASES[block] in cases else [features.NAMES.index(name) for name in names]
        base = torch.tensor(weights[block * features.SIZE:(block + 1) * features.SIZE], dtype=torch.float64)
        start = torch.tensor([ranker.DEFAULT[block * features.SIZE + i] for i in chosen], dtype=torch.float64)
        lists = [(x, t) for _, _, b, x, t, _ in rows if b == block and t is not None and len(x) > 1]
        w = base[chosen].clone().requires_grad_(True)
        if lists:
            packed = Packed(lists)
            fixed = packed.x @ base - packed.x[:, chosen] @ base[chosen]
            if hidden is not None:
                fixed = fixed + hidden.tensor_scores(packed.x, block)
            x = packed.x[:, chosen]
            optimiser = torch.optim.LBFGS([w], max_iter=steps, line_search_fn="strong_wolfe")

            def closure():
                optimiser.zero_grad()
                loss = packed.loss(x @ w + fixed) + l2 * ((w - start) ** 2).sum()
                loss.backward()
                return loss

            optimiser.step(closure)
        for i, v in zip(chosen, w.detach().tolist()):
            out[block * features.SIZE + i] = v
    return out


# Features the hidden layer does not see: those that say how recent a word is. Between two words
# alike but for recency the linear weights decide, and they prefer the more recent; a hidden layer
# seeing them learnt to flip such pairs in small buffers (tests/test_neural_ranking.py).
NOT_HIDDEN = ("log(rank+1)", "ln(1+d)", "fallback score")


def fit_hidden(rows, weights: list[float], hidden: int, epochs: int, decay: float = 1e-3, seed: int = 0) -> tuple[list[float], dict]:
    """The weights (starting from ``weights``) and a hidden layer of ``hidden`` units over the
    features (but NOT_HIDDEN) and the case (ranking/ranker.py), fitted together by the same
    listwise cross-entropy with Adam, the layer's weights pulled towards 0 by ``decay``."""
    torch.manual_seed(seed)
    size, cases = features.SIZE, len(features.CASES)
    lists = [(b, x, t) for _, _, b, x, t, _ in rows if t is not None and len(x) > 1]
    x = torch.zeros(len(lists), max(len(x) for _, x, _ in lists), size + cases)
    mask = torch.zeros(x.shape[:2], dtype=torch.bool)
    for i, (b, rows, _) in enumerate(lists):
        x[i, :len(rows), :size] = rows.float()
        x[i, :len(rows), size + b] = 1
        mask[i, :len(rows)] = True
    truth = torch.tensor([t for _, _, t in lists])
    block = torch.tensor([b for b, _, _ in lists])
    linear = torch.tensor(weights, dtype=torch.float32).view(cases, size).requires_grad_(True)
    layer = torch.nn.Linear(size + cases, hidden)
    unseen = [features.NAMES.index(name) for name in NOT_HIDDEN]
    with torch.no_grad():
        layer.weight[:, unseen] = 0  # no input reaches them, so they stay 0
    seen = torch.ones(size + cases)
    seen[unseen] = 0
    out = torch.nn.Linear(hidden, 1, bias=False)
    parameters = [linear, *layer.parameters(), *out.parameters()]
    optimiser = torch.optim.Adam(parameters, lr=3e-3)
    for _ in range(epochs):
        for batch in torch.randperm(len(lists)).split(256):
            xb = x[batch]
            s = (xb[..., :size] * linear[block[batch]][:, None, :]).sum(-1) + out(torch.tanh(layer(xb * seen))).squeeze(-1)
            loss = torch.nn.functional.cross_entropy(s.masked_fill(~mask[batch], -1e9), truth[batch])
            loss = loss + decay * (layer.weight.square().sum() + out.weight.square().sum())
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    return linear.detach().flatten().tolist(), {"w": layer.weight.detach().tolist(), "b": layer.bias.detach().tolist(),
                                                "v": out.weight.detach()[0].tolist()}


def score(rows, weights: list[float], layer: dict | None = None) -> Scores:
    """Each list ranked as the server ranks it (ranking/ranker.py) with these weights and layer."""
    rank_by = ranker.Ranker("fitted", weights, layer)
    ranks: list[int | None] = [None] * len(rows)
    for block in range(len(features.CASES)):
        chosen = [i for i, (_, _, b, x, t, _) in enumerate(rows) if b == block and t is not None]
        if not chosen:
            continue
        packed = Packed([(rows[i][3], rows[i][4]) for i in chosen])
        s = rank_by.tensor_scores(packed.x, block)
        above = torch.zeros(packed.n, dtype=torch.long).index_add(0, packed.segment, (s > s[packed.truth][packed.segment]).long())
        for i, a in zip(chosen, above.tolist()):
            ranks[i] = a + 1
    scores = Scores()
    for (_, k, _, _, _, mode), rank in zip(rows, ranks):
        scores.rows[(k, mode)].append(rank)
        scores.add(k, "all", rank)
    return scores


def held_out(rows, fitted: Callable[[list], tuple[list[float], dict | None]]) -> Scores:
    """Each fold's lists ranked with the weights (and layer) ``fitted`` on the other fold's:
    two folds split by package, code of other projects as in use."""
    held = Scores()
    for fold in (0, 1):
        weights, layer = fitted([r for r in rows if r[0] != fold])
        for key, ranks in score([r for r in rows if r[0] == fold], weights, layer).rows.items():
            held.rows[key].extend(ranks)
    return held


def show(label: str, scores: Scores) -> None:
    """One line per mode of the lists (the buffer ending at the cursor; the text after it kept)
    where there are both, else one."""
    summary = scores.summary()
    modes = [mode for mode in (PREFIX, MIDDLE) if f"k=0 {mode}" in summary]
    for mode in modes if len(modes) > 1 else ["all"]:
        cells = [summary.get(f"k={k} {mode}") for k in KS]
        print(f"{label + ('' if mode == 'all' else f' ({mode})'):<28}"
              + "".join(f"{c['top1']:>12.1%} {c['top5']:>6.1%} {c['mrr10']:>6.3f}   " if c else f"{'-':>30}" for c in cells))


def write(language: str, weights: list[float], layer: dict | None) -> None:
    current = runpy.run_path(str(WEIGHTS_FILE))  # as it is now: another language's fit may have written it since
    table = dict(current["WEIGHTS"])
    table[language] = tuple(round(v, 4) for v in weights)
    layers = dict(current.get("HIDDEN", {}))
    layers.pop(language, None)
    if layer is not None:  # another language's layer (weights fitted with --only on top of it): its name
        layers[language] = next((name for name, other in layers.items() if other == layer), layer)
    lines = [WEIGHTS_FILE.read_text().split("WEIGHTS:")[0].rstrip() + "\n", "", "WEIGHTS: dict[str, tuple[float, ...]] = {"]
    for name in sorted(table):
        lines.append(f"    {name!r}: (")
        for block, case in enumerate(features.CASES):
            chunk = table[name][block * features.SIZE:(block + 1) * features.SIZE]
            lines.append(f"        # {case}")
            lines.append("        " + ", ".join(f"{v:g}" for v in chunk) + ",")
        lines.append("    ),")
    lines += ["}", "", "HIDDEN: dict[str, dict[str, tuple] | str] = {"]
    for name in sorted(layers):
        if isinstance(layers[name], str):
            lines.append(f"    {name!r}: {layers[name]!r},")
            continue
        lines.append(f"    {name!r}: {{")
        for key in ("w", "b", "v"):
            rows = layers[name][key]
            if key == "w":
                lines.append(f"        {key!r}: (")
                lines += ["            (" + ", ".join(f"{v:.4g}" for v in row) + ")," for row in rows]
                lines.append("        ),")
            else:
                lines.append(f"        {key!r}: (" + ", ".join(f"{v:.4g}" for v in rows) + "),")
        lines.append("    },")
    lines.append("}")
    WEIGHTS_FILE.write_text("\n".join(lines) + "\n")


def samples_by_package(corpus: Path, packages: list[str], language, lang: str, suffix: str, tmp: Path,
                       project: ProjectIndex | None, drop_imports: bool = False) -> dict[str, list]:
    """The identifiers of the packages' files (extracted under ``tmp``, which the project index
    reads as workspace folders, waited for) by package; ``drop_imports``: the names an import
    of the file binds, every import removed from the buffer (``editing --select imported-name
    --drop-imports``)."""
    return _by_package(extract(corpus, packages, suffix, tmp), tmp, language, lang, project, drop_imports)


def _by_package(files: list[Path], root: Path, language, lang: str, project: ProjectIndex | None,
                drop_imports: bool) -> dict[str, list]:
    """The identifiers of ``files`` by their package (the folder under ``root``), each package
    folder a workspace folder of the project index (waited for)."""
    if project is not None:
        for folder in sorted(p for p in root.iterdir() if p.is_dir()):
            project.add_root(folder)
        project.wait()
    by_package: dict[str, list] = {}
    for sample in collect(files, language, lang, "imported-name" if drop_imports else "", drop_imports):
        by_package.setdefault(sample.path.relative_to(root).parts[0], []).append(sample)
    return by_package


def packages_in(root: Path, suffix: str) -> list[Path]:
    """The source files of the package folders under ``root`` (benchmarks/fetch_valid.sh's, with
    their installed dependencies), filtered as ``extract`` filters an archive's (``sampled_file``),
    nothing under node_modules or .venv."""
    return sorted(p for p in root.glob(f"*/**/*{suffix}") if p.is_file()
                  and not {"node_modules", ".venv"} & set(p.relative_to(root).parts)
                  and sampled_file(p.relative_to(root).as_posix(), p.stat().st_size, suffix))


def samples_in_folders(root: Path, language, lang: str, suffix: str, project: ProjectIndex | None,
                       drop_imports: bool = False) -> dict[str, list]:
    """samples_by_package's identifiers from the package folders under ``root`` as they are (each
    a workspace folder of the project index, waited for), by package."""
    root = root.resolve()  # the files' URIs, the index's folders
    return _by_package(packages_in(root, suffix), root, language, lang, project, drop_imports)


def complete_list(service: CompletionService, sample, k: int, mode: str, lang: str) -> tuple[list, int | None, int] | None:
    """The neural engine's list at ``sample`` typed to its k-th character, as the editing
    benchmark asks for it: the candidates that the ranker ranked and that match the prefix, the
    truth's row among them (None: not listed), and the case (features.case); None where the
    neural engine did not rank the list."""
    prefix = sample.name[:k].lower()
    text, position = buffer(sample, k, mode)
    EXPORTS.wait(str(sample.path.parent), lang == "python")  # what installed packages export: a server reads it once
    uri = sample.path.as_uri()  # the index does not count this file: its buffer is what counts
    service.open(uri, lang, 1, text)
    result = service.complete_read(uri, *position, 1000)
    service.close(uri)
    if result is None or result.engine != "neural":
        return None
    kept: list = []
    seen: set[str] = set()  # a name offered from several modules is one candidate of the ranker's
    for c in result.candidates:
        if c.snippet is None and c.features is not None and c.text.lower().startswith(prefix) and c.text not in seen:
            seen.add(c.text)
            kept.append(c)
    if any(len(c.features) != features.ROW for c in kept):
        return None  # the fallback engine's own list (in a TypeScript type): not what the ranker ranks
    truth = next((j for j, c in enumerate(kept) if c.text == sample.name), None)
    context = result.context
    return kept, truth, features.case(context.category, context.prefix, features.code_after(context.data, context.cursor))


NO_LIMIT = 1 << 20  # MB: the memoryLimit setting's highest


def in_process_service(project: ProjectIndex | None) -> CompletionService:
    """The service that lists are gathered from, in this process: the shipped models (waited
    for), libraries read as the server reads them (stdlib stubs, Node's table, and the packages'
    own dependencies where they are installed beside them), and no memoryLimit. The process holds the benchmark's
    samples too (several GB with ``--drop-imports``): over the limit, the service would drop the
    libraries read and its child process every DROP_EVERY documents, and the lists after each
    drop would lack what a server that keeps them knows."""
    service = CompletionService(models=Registry(), wait_for_models=True, project=project, libraries=Libraries())
    service.memory_limit = NO_LIMIT
    return service


def gather(args, language, suffix: str) -> list:
    """Complete at the sampled identifiers and keep each list's candidates' features."""
    project = None if args.no_project else ProjectIndex()
    service = in_process_service(project)
    service.open(f"untitled:ranking{suffix}", args.lang, 1, "")  # open throughout: no close is the last (rank_lists.py)
    lists = Lists()
    with tempfile.TemporaryDirectory() as tmp:
        by_package = samples_by_package(args.corpus, args.packages.split(","), language, args.lang, suffix, Path(tmp), project)
        rng = random.Random(args.seed)
        each = args.samples // len(by_package)
        samples = [(package, sample) for package, found in sorted(by_package.items())
                   for sample in rng.sample(found, min(each, len(found)))]
        print(f"{args.lang}: {len(samples)} identifiers (seed {args.seed}, at most {each} per package) "
              f"from {sum(map(len, by_package.values()))} in {len(by_package)} packages")
        mode = MIDDLE if args.middle else PREFIX
        for package, sample in samples:
            fold = zlib.crc32(package.encode()) % 2
            for k in KS:
                if len(sample.name) <= k or (found := complete_list(service, sample, k, mode, args.lang)) is None:
                    continue
                kept, truth, block = found
                lists.add(fold, k, block, [c.features[:features.SIZE] for c in kept], truth, mode)  # the linear features
    return lists.rows


def _padded(row: tuple) -> tuple:
    """A kept list as lists are now: features added since it was collected are 0 (those of the
    code after the cursor, for lists collected without it), the mode that of the buffer ending
    at the cursor where none was kept. (Middle-mode lists collected before the cases with code
    after the cursor existed hold the end-of-buffer cases: collect them again.)"""
    fold, k, block, x, truth, *mode = row
    if x.dim() < 2:  # no candidate
        x = x.reshape(0, features.SIZE)
    elif x.shape[1] < features.SIZE:
        x = torch.nn.functional.pad(x, (0, features.SIZE - x.shape[1]))
    return fold, k, block, x, truth, mode[0] if mode else PREFIX


def in_use(language: str) -> tuple[list[float], dict | None]:
    """The weights and hidden layer the server ranks ``language`` with (ranker.weights_of)."""
    weights, layer = ranker.weights_of(language)
    return list(weights), layer


def report_only(args, rows) -> None:
    """--only: the weights in use, and those with only the named features fitted (two folds by
    package, then all the lists)."""
    names = args.only.split(";")
    cases = tuple(filter(None, args.refit_cases.split(";")))
    in_use_now, layer = in_use(args.lang)
    show("in use", score(rows, in_use_now, layer))
    held = held_out(rows, lambda train: (fit_only(train, names, in_use_now, layer, args.l2, cases=cases), layer))
    show(f"{len(names)} fitted{' (all in ' + '; '.join(cases) + ')' if cases else ''}, l2 {args.l2:g}", held)
    weights = fit_only(rows, names, in_use_now, layer, args.l2, cases=cases)
    for block, case in enumerate(features.CASES):
        print(f"{case}: " + ", ".join(f"{name} {weights[block * features.SIZE + features.NAMES.index(name)]:.3f}" for name in names))
    if args.write:
        write(args.lang, weights, layer)
        print(f"written to {WEIGHTS_FILE}")


def report(args, rows) -> None:
    if args.only:
        return report_only(args, rows)
    show("in use", score(rows, *in_use(args.lang)))
    show("hand-set (DEFAULT)", score(rows, list(ranker.DEFAULT)))
    show(f"fitted, l2 {args.l2:g}", held_out(rows, lambda train: (fit(train, args.l2), None)))
    if args.hidden:
        held = held_out(rows, lambda train: fit_hidden(train, fit(train, args.l2), args.hidden, args.epochs, args.decay))
        show(f"+ hidden layer of {args.hidden}", held)
    weights, layer = fit(rows, args.l2), None
    for block, case in enumerate(features.CASES):
        chunk = weights[block * features.SIZE:(block + 1) * features.SIZE]
        print(f"{case}: " + ", ".join(f"{name} {v:.3f}" for name, v in zip(features.NAMES, chunk)))
    if args.hidden:
        weights, layer = fit_hidden(rows, weights, args.hidden, args.epochs, args.decay)
    if args.write:
        write(args.lang, weights, layer)
        print(f"written to {WEIGHTS_FILE}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", choices=sorted(LANGUAGES), required=True)
    parser.add_argument("--corpus", type=Path, required=True, help="a corpus built by treecomplete corpus build")
    parser.add_argument("--packages", required=True, help="comma-separated valid-split packages")
    parser.add_argument("--samples", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--l2", type=float, default=0.001, help="pull towards the hand-set weights (ranker.DEFAULT)")
    parser.add_argument("--hidden", type=int, default=32, help="units of the hidden layer fitted with the weights (0: none)")
    parser.add_argument("--epochs", type=int, default=40, help="passes over the lists fitting the hidden layer")
    parser.add_argument("--decay", type=float, default=1e-3, help="pull of the hidden layer's weights towards 0")
    parser.add_argument("--no-project", action="store_true", help="complete without the project index (server/sources/project.py)")
    parser.add_argument("--write", action="store_true", help="store the weights fitted on all files")
    parser.add_argument("--only", default="", help="fit only these features (names as in features.NAMES, ';' between), "
                                                    "the other weights and the hidden layer held as in use")
    parser.add_argument("--refit-cases", default="", help="with --only: cases (features.CASES, ';' between) whose linear "
                                                          "weights are all fitted")
    parser.add_argument("--middle", action="store_true", help="collect with the file's text after the identifier kept in "
                                                                   "the buffer (benchmarks.editing --middle)")
    parser.add_argument("--lists", type=Path, nargs="+", default=[],
                        help="fit on the lists kept in these files; where none exists, collect and keep them in the first")
    args = parser.parse_args(argv)
    language, suffix = LANGUAGES[args.lang]
    kept = [path for path in args.lists if path.exists()]
    if kept:
        rows = [_padded(row) for path in kept for row in torch.load(path)]
    else:
        rows = gather(args, language, suffix)
        if args.lists:
            torch.save(rows, args.lists[0])
    listed = Scores()
    for _, k, _, _, truth, _ in rows:
        listed.add(k, "all", 1 if truth is not None else None)
    print("truth among the candidates" + "".join(f"{listed.summary()[f'k={k} all']['top1']:>28.1%}  " for k in KS))
    print("weights (files not fitted on)" + "".join(f"{f'k={k} top-1 / top-5 / MRR':>30}" for k in KS))
    report(args, rows)


if __name__ == "__main__":
    main()
