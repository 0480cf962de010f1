"""The thesis' Tables 3.2-3.4 for our corpora: vanilla LSTM, attentional LSTM, pointer mixture
and pointer-random at two vocabulary sizes, plus the parent input as hidden state vs type
embedding, each trained for one epoch on the same random files of the training split (``--nodes`` of them)
and evaluated on the test split.

    python -m benchmarks.ablation --lang javascript --data bench-out/corpus2/javascript \
        --nodes 1000000 --out bench-out/ablation/javascript

Equal nodes, not equal time, so that architectures are compared on the same data; the shipped
models train far longer (their model cards say how long).
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

import torch

from treecomplete.models import checkpoint
from treecomplete.models.batches import CorpusVocabulary
from treecomplete.models.evaluate import evaluate
from treecomplete.models.store import Split, SplitWriter
from treecomplete.models.train import train

BASE = {"type_dim": 64, "value_dim": 192, "hidden": 256, "window": 50, "cutoffs": [2000]}
VARIANTS = [
    ("vanilla LSTM", {"arch": "vanilla", "parent": "none"}),
    ("attentional LSTM", {"arch": "attention", "parent": "none"}),
    ("pointer-random", {"arch": "pointer-random", "parent": "hidden"}),
    ("pointer mixture (parent = hidden state)", {"arch": "pointer", "parent": "hidden"}),
    ("pointer mixture (parent = type embedding)", {"arch": "pointer", "parent": "type"}),
]
KS = (10_000, 1_000)


def subset(data: Path, out: Path, nodes: int, valid_nodes: int, seed: int = 0) -> Path:
    """A corpus directory whose train split is a random set of files of about ``nodes`` nodes
    and whose valid split is cut to ``valid_nodes``; vocabularies and test split are the
    corpus' own (same ids), so every variant reads a small split and is scored on the real test."""
    if (out / "train" / "files.json").exists():
        return out
    out.mkdir(parents=True, exist_ok=True)
    for name in ("types.json", "values.json"):
        shutil.copyfile(data / name, out / name)
    for split_name, budget, shuffle in (("train", nodes, True), ("valid", valid_nodes, False)):
        split = Split(data / split_name)
        order = torch.randperm(len(split), generator=torch.Generator().manual_seed(seed)).tolist() if shuffle else range(len(split))
        total = 0
        with SplitWriter(out / split_name) as writer:
            for i in order:
                f = split[i]
                writer.add(f.types, f.values, f.parents, **f.meta)
                total += len(f.types)
                if total >= budget:
                    break
    (out / "test").symlink_to((data / "test").resolve())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", choices=["python", "javascript"], required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--nodes", type=int, default=1_000_000, help="training nodes per variant (one epoch)")
    parser.add_argument("--test-elements", type=int, default=300_000, help="test nodes evaluated (the first files)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data = subset(Path(args.data), out / "corpus", args.nodes, 100_000)
    corpus = CorpusVocabulary.load(data)
    test = Split(data / "test")
    rows = []
    for k in KS:
        for name, settings in VARIANTS:
            if k != KS[0] and settings.get("parent") == "type":
                continue  # the parent ablation at one vocabulary size
            tag = f"{settings['arch']}-{settings['parent']}-{k}"
            path = out / f"{tag}.pt"
            result_path = out / f"{tag}.json"
            if result_path.exists():
                rows.append(json.loads(result_path.read_text()))
                continue
            started = time.monotonic()
            meta, _ = train(data, path, args.lang, {**BASE, **settings, "vocab": k},
                            {"epochs": 1, "batch": 16, "lr": 0.003, "valid_elements": 100_000}, quiet=True)
            result = evaluate(checkpoint.load(path), test, corpus, max_elements=args.test_elements)
            row = {"model": name, "K": k, "nodes": meta["elements_trained"], "train_seconds": meta["seconds"],
                   "seconds": time.monotonic() - started, "result": result}
            result_path.write_text(json.dumps(row, indent=2))
            rows.append(row)
            print(f"{name} K={k}: type {result['type']['accuracy']:.2%} value {result['value']['accuracy']:.2%}", flush=True)
    table = markdown(args.lang, rows)
    (out / "table.md").write_text(table + "\n")
    print(table)


def markdown(lang: str, rows: list[dict]) -> str:
    lines = [f"| {lang} | K | OoV rate | localness | type acc | value acc | value MRR@10 | in-vocab acc | OoV acc | nodes/s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        r = row["result"]
        s = r["statistics"]
        local = f"{s['localness']:.1%}" if s["localness"] is not None else "-"
        lines.append(f"| {row['model']} | {row['K']:,} | {s['oov_rate']:.1%} | {local} | {r['type']['accuracy']:.2%} | "
                     f"{r['value']['accuracy']:.2%} | {r['value']['mrr10']:.3f} | {r['value (in vocabulary)']['accuracy']:.2%} | "
                     f"{r['value (OoV)']['accuracy']:.2%} | {row['nodes'] / max(row['train_seconds'], 1e-9):,.0f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
