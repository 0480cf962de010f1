"""Gather, fit and report the learned ranking of one language, in one command.

    python -m benchmarks.rank_fit --lang python --corpus bench-out/rank/corpus-python \\
        --lists bench-out/rank/lists/python [--samples 8000] [--write]

Gathers the lists first where ``--lists`` holds fewer parts than ``--samples`` asks for
(benchmarks/rank_lists.py: valid-split packages only, resumable), then fits gradient-boosted
oblivious trees (CatBoost; each candidate scored as the true identifier or not, as IntelliJ's
completion ranking is fitted) on the features the server computes, and prints, for the lists of
each package fold when fitted on the other fold's (two folds by package: code of other
projects, as in use), top-1 / top-5 / MRR@10 per mode and k of the linear scorer the server
uses without a ranking (linear_weights with the rules' weights) and of the trees; then the
features' importances. ``--write`` fits on every list and stores the trees as
server/ranking/rankings/LANG.json with a card LANG.md (data, features, figures, date).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
from treecomplete.ranking import features, ranker, trees

from . import rank_lists
from .editing import MIDDLE, PREFIX, Scores
from .rank_lists import KS, CompletionList

# Logloss: each candidate scored as the truth or not (as IntelliJ's completion models are), six
# times faster to fit here than QuerySoftMax's softmax over the list (docs/decisions.md).
NEVER = 1e300  # a border no input passes
PARAMS = {"loss_function": "Logloss", "depth": 6, "iterations": 150, "learning_rate": 0.2,
          "l2_leaf_reg": 3.0, "border_count": 64, "random_seed": 0}


def inputs(lang: str, lists: list[CompletionList]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows the trees read (features.INPUTS, as the server computes them), each row's list,
    and its label."""
    scorer = ranker.Ranker(lang)
    x = np.concatenate([scorer.tree_inputs(c.x, c.block) for c in lists])
    group = np.concatenate([np.full(len(c.x), i) for i, c in enumerate(lists)])
    label = np.concatenate([(np.arange(len(c.x)) == c.truth).astype(np.float32) for c in lists])
    return x, group, label


def fit(lang: str, lists: list[CompletionList], params: dict, threads: int) -> dict:
    """Trees fitted on the lists whose truth is among two or more candidates, as trees.Trees reads them."""
    from catboost import CatBoost, Pool

    learnable = [c for c in lists if c.truth >= 0 and len(c.x) > 1]
    x, group, label = inputs(lang, learnable)
    on_top = params.get("baseline", False)
    params = {k: v for k, v in params.items() if k != "baseline"}
    pool = Pool(x, label, group_id=group, baseline=x[:, -1] if on_top else None)  # INPUTS[-1]: the linear score
    model = CatBoost({**params, "verbose": 0, "thread_count": threads, "allow_writing_files": False})
    model.fit(pool)
    with tempfile.TemporaryDirectory() as tmp:
        model.save_model(f"{tmp}/m.json", format="json")
        raw = json.loads(Path(f"{tmp}/m.json").read_text())
    exported = export(raw, params["depth"])
    # CatBoost's FeatureImportance: the loss change for a ranking loss, the prediction-values change otherwise
    importance = dict(zip(features.INPUTS, shares(model.get_feature_importance(pool, type="FeatureImportance"))))
    return {**exported, "baseline": features.LINEAR_SCORE if on_top else None, "importance": importance}


def shares(values) -> list[float]:
    """Each value as a percentage of the values' total size, to two places: a ranking loss's
    changes are 1e-4 and less, which rounding the values themselves turned into zeros."""
    values = np.asarray(values, dtype=np.float64)
    total = float(np.abs(values).sum()) or 1.0
    return [round(float(v), 2) for v in 100.0 * values / total]


def export(raw: dict, depth: int) -> dict:
    """CatBoost's JSON model as trees.Trees reads it, every tree of ``depth`` levels."""
    feature, border, leaves = [], [], []
    for tree in raw["oblivious_trees"]:
        splits, values = tree["splits"], tree["leaf_values"]
        if len(splits) > depth or len(values) != 2 ** len(splits):
            sys.exit(f"a tree of {len(splits)} splits and {len(values)} leaves, not of depth {depth}")
        # A shallower tree (no split left worth making) gets splits that never pass at its
        # missing levels: its leaves keep their indices, the ones added are never reached.
        missing = depth - len(splits)
        feature += [s["float_feature_index"] for s in splits] + [0] * missing
        border += [s["border"] for s in splits] + [NEVER] * missing
        leaves += values + [0.0] * (2 ** depth - len(values))
    scale, bias = raw.get("scale_and_bias", [1.0, [0.0]])
    bias = bias[0] if isinstance(bias, list) else bias
    return {"format": trees.FORMAT, "features": list(features.INPUTS), "depth": depth, "feature": feature,
            "border": [b if b == NEVER else round(b, 6) for b in border], "leaves": [round(v, 6) for v in leaves],
            "scale": scale, "bias": bias}


class Ranks:
    """The truth's rank (1-based, None: not listed) per mode and k, scored as the editing
    benchmark scores them (editing.Scores)."""

    def __init__(self):
        self.scores = Scores()

    def add(self, lst: CompletionList, scores) -> None:
        rank = None
        if lst.truth >= 0:
            scores = np.asarray(scores)
            rank = 1 + int((scores > scores[lst.truth]).sum())
        self.scores.add(lst.k, lst.mode, rank)

    def extend(self, other: Ranks) -> None:
        for key, ranks in other.scores.rows.items():
            if key[1] != "all":
                self.scores.rows[key].extend(ranks)

    def cell(self, mode: str, k: int) -> tuple[float, float, float, int]:
        """Top-1, top-5, MRR@10 and the count of lists."""
        row = self.scores.summary().get(f"k={k} {mode}", {"top1": 0.0, "top5": 0.0, "mrr10": 0.0, "n": 0})
        return row["top1"], row["top5"], row["mrr10"], row["n"]


def linear_scores(scorer: ranker.Ranker, c: CompletionList) -> np.ndarray:
    """A list's candidates scored by the linear scorer the server falls back to."""
    return scorer.tensor_scores(torch.from_numpy(c.x.astype(np.float64)), c.block).numpy()


def linear_ranks(lang: str, lists: list[CompletionList]) -> Ranks:
    """The ranks under the linear scorer the server falls back to (no learned ranking)."""
    scorer = ranker.Ranker(lang)
    out = Ranks()
    for c in lists:
        out.add(c, linear_scores(scorer, c))
    return out


def tree_ranks(lang: str, fitted: dict | trees.Trees, lists: list[CompletionList]) -> Ranks:
    """The ranks under trees (fitted, or a ranking file loaded), in the cases they serve; the
    linear scorer's in the others, as the server ranks."""
    scorer = ranker.Ranker(lang)
    model = fitted if isinstance(fitted, trees.Trees) else trees.Trees(fitted)
    out = Ranks()
    for c in lists:
        if model.serves(c.block):
            out.add(c, model.scores(scorer.tree_inputs(c.x, c.block)))
        else:
            out.add(c, linear_scores(scorer, c))
    return out


def show(label: str, ranks: Ranks) -> list[str]:
    lines = []
    for mode in (PREFIX, MIDDLE):
        cells = [ranks.cell(mode, k) for k in KS]
        lines.append(f"| {label}, {'at the end' if mode == PREFIX else 'inside'} | "
                     + " | ".join(f"{a:.1%} / {b:.1%} / {m:.3f}" for a, b, m, _ in cells) + " |")
    return lines


def by_case(lists: list[CompletionList]) -> dict[str, list[CompletionList]]:
    """The lists after a dot and elsewhere (features.CASE_INPUTS' first): the rules and the
    signals differ between them, and a ranking may win in one and lose in the other; and those
    gathered with the file's imports removed (rank_lists --drop-imports), where only an import
    would bring the name."""
    dot = [c for c in lists if features.case_inputs(c.block)[0] == 1.0]
    return {"after a dot": dot, "elsewhere": [c for c in lists if features.case_inputs(c.block)[0] != 1.0],
            "imports removed": [c for c in lists if c.dropped]}


def report(lang: str, lists: list[CompletionList], params: dict, threads: int,
           against: Path | None = None) -> tuple[list[str], list[int]]:
    """Two folds by package: each fold's lists ranked by trees fitted on the other's; all lists,
    then after a dot and elsewhere apart; and per case (features.CASES), the lists whose truth
    each ranks first. Also the cases where the trees rank first at least as many as the linear
    scorer: those the written trees serve. ``against``: a ranking file (the one shipped) whose
    ranks on the same lists are shown beside them, in the cases it serves (fitted on lists of
    both folds' packages, it has seen what it ranks: its figures flatter it)."""
    shipped = trees.load(against, features.INPUTS) if against is not None else None
    linear, learned, by_shipped = Ranks(), Ranks(), Ranks()
    cases = {name: (Ranks(), Ranks(), Ranks()) for name in by_case([])}
    firsts = {block: [0, 0, 0] for block in range(len(features.CASES))}  # lists; first by the linear scorer; by the trees
    for fold in (0, 1):
        train = [c for c in lists if c.fold != fold]
        test = [c for c in lists if c.fold == fold]
        if not train or not test:
            sys.exit("every list's package falls in one fold: gather from more packages, or fit with --no-report")
        fitted = fit(lang, train, params, threads)
        linear.extend(linear_ranks(lang, test))
        learned.extend(tree_ranks(lang, fitted, test))
        if shipped is not None:
            by_shipped.extend(tree_ranks(lang, shipped, test))
        for name, part in by_case(test).items():
            cases[name][0].extend(linear_ranks(lang, part))
            cases[name][1].extend(tree_ranks(lang, fitted, part))
            if shipped is not None:
                cases[name][2].extend(tree_ranks(lang, shipped, part))
        for block, counts in first_counts(lang, fitted, test).items():
            firsts[block] = [a + b for a, b in zip(firsts[block], counts)]
    counts = [linear.cell(mode, k)[3] for mode in (PREFIX, MIDDLE) for k in KS]
    header = ["| top-1 / top-5 / MRR@10 | " + " | ".join(f"k={k}" for k in KS) + " |", "|---|" + "---|" * len(KS)]
    lines = [f"{len(lists)} lists of {len({c.package for c in lists})} packages ({sum(counts)} ranked; "
             "each fold ranked by trees fitted on the other's packages)", "", *header]
    named = f"the ranking in {against.name}" if against is not None else ""
    lines += show("linear scorer", linear) + show("learned ranking", learned) + (show(named, by_shipped) if named else [])
    for name, (by_linear, by_trees, by_file) in cases.items():
        if any(by_linear.scores.rows.values()):
            lines += ["", *header, *show(f"linear scorer, {name}", by_linear), *show(f"learned ranking, {name}", by_trees),
                      *(show(f"{named}, {name}", by_file) if named else [])]
    served = [block for block, (n, by_linear, by_trees) in firsts.items() if n and by_trees >= by_linear]
    lines += ["", "| case | lists | first by the linear scorer | first by the trees | served by the trees |",
              "|---|---|---|---|---|"]
    lines += [f"| {features.CASES[block]} | {n} | {by_linear} | {by_trees} | {'yes' if block in served else 'no'} |"
              for block, (n, by_linear, by_trees) in firsts.items() if n]
    return lines, served


def first_counts(lang: str, fitted: dict, lists: list[CompletionList]) -> dict[int, tuple[int, int, int]]:
    """Per case: the lists whose truth is listed, and how many of them the linear scorer and the
    trees rank first."""
    scorer = ranker.Ranker(lang)
    model = trees.Trees(fitted)
    out: dict[int, list[int]] = {}
    for c in lists:
        if c.truth < 0:
            continue
        row = out.setdefault(c.block, [0, 0, 0])
        row[0] += 1
        by_linear = linear_scores(scorer, c)
        by_trees = np.asarray(model.scores(scorer.tree_inputs(c.x, c.block)))
        row[1] += int((by_linear > by_linear[c.truth]).sum() == 0)
        row[2] += int((by_trees > by_trees[c.truth]).sum() == 0)
    return {block: tuple(row) for block, row in out.items()}


def card(lang: str, fitted: dict, lists: list[CompletionList], figures: list[str], params: dict) -> str:
    top = sorted(fitted["importance"].items(), key=lambda kv: -kv[1])[:15]
    return "\n".join([
        f"# The learned ranking for {lang}", "",
        f"Written by `python -m benchmarks.rank_fit --lang {lang} --loss {params['loss_function']}"
        f"{' --baseline' if params.get('baseline') else ''} ...` on {datetime.date.today()}.", "",
        f"- Data: {len(lists)} completion lists at identifiers of {len({c.package for c in lists})} valid-split packages "
        "(benchmarks/rank_lists.py; no benchmark package), k = 0..3, at a buffer's end and inside a file.",
        f"- Model: {len(fitted['feature']) // fitted['depth']} oblivious trees of depth {fitted['depth']} (CatBoost, "
        f"{params['loss_function']}, learning rate {params['learning_rate']}"
        f"{', on top of the linear scorer' if fitted.get('baseline') else ''}), read by ranking/trees.py.",
        f"- Features: the {len(fitted['features'])} of ranking/features.py INPUTS.", "",
        "## Figures (two folds by package)", "", *figures, "",
        "## Importances (CatBoost's FeatureImportance: the loss change for a ranking loss, else the "
        "prediction-values change; % of their total; the 15 largest)", "",
        *[f"- {name}: {value:.2f}" for name, value in top], ""])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", choices=sorted(rank_lists.LANGUAGES), required=True)
    parser.add_argument("--corpus", type=Path, help="a corpus built by treecomplete corpus build (to gather)")
    parser.add_argument("--lists", type=Path, nargs="+", required=True,
                        help="the folders of the lists' parts (gathering: into the first)")
    parser.add_argument("--samples", type=int, default=0, help="gather up to this many identifiers first")
    parser.add_argument("--iterations", type=int, default=PARAMS["iterations"])
    parser.add_argument("--depth", type=int, default=PARAMS["depth"])
    parser.add_argument("--loss", default=PARAMS["loss_function"], help="a CatBoost ranking loss (QuerySoftMax, YetiRank...)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--baseline", action="store_true", help="fit the trees on top of the linear scorer's score")
    parser.add_argument("--max-lists", type=int, default=0, help="fit on the first this many lists (0: all)")
    parser.add_argument("--write", action="store_true", help="store the trees fitted on every list, and their card")
    parser.add_argument("--out", type=Path, help="store the trees fitted on every list (and their card) in this file or folder instead")
    parser.add_argument("--no-report", action="store_true", help="fit on every list without the two folds' figures")
    parser.add_argument("--against", type=Path, help="a ranking file (the one shipped) to rank the same lists beside the folds' trees")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("catboost") is None:  # said before any gathering or loading: the fit needs it
        sys.exit("rank_fit: catboost is not installed (pip install -e '.[rank]')")
    if args.samples:
        if args.corpus is None:
            parser.error("--samples needs --corpus")
        rank_lists.gather(args.lang, args.corpus, args.lists[0], args.samples)
    lists = rank_lists.load(args.lists)
    if args.max_lists:
        lists = lists[:args.max_lists]
    if not lists:
        sys.exit(f"no lists in {', '.join(map(str, args.lists))}")
    params = {**PARAMS, "iterations": args.iterations, "depth": args.depth, "loss_function": args.loss,
              "baseline": args.baseline}
    figures, served = ([], None) if args.no_report else report(args.lang, lists, params, args.threads, args.against)
    print("\n".join(figures))
    fitted = fit(args.lang, lists, params, args.threads)
    if served is not None:
        fitted["cases"] = served  # the other cases stay with the linear scorer
    for name, value in sorted(fitted["importance"].items(), key=lambda kv: -kv[1]):
        print(f"{value:8.2f}  {name}")
    if args.write or args.out:
        ranker.RANKINGS.mkdir(exist_ok=True)
        path = args.out or ranker.RANKINGS / f"{args.lang}.json"
        if path.is_dir():  # a folder: the file named as the server looks for it
            path = path / f"{args.lang}.json"
        path.write_text(json.dumps({k: v for k, v in fitted.items() if k != "importance"}, separators=(",", ":")) + "\n")
        path.with_suffix(".md").write_text(card(args.lang, fitted, lists, figures, params))
        print(f"written to {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
