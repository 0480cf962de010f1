"""Which position signal a tree-transformer should read: tree positions on the binarised tree
(left-child right-sibling, n = 2, k = 32), on the n-ary tree with clipped child indices (n = 8,
k = 16), sequential (sinusoidal) positions only, and tree + sequential. Each variant trains on
the same random files of the training split (``--nodes`` of them, one epoch; the subset of
benchmarks/ablation.py) and is scored on the first ``--test-elements`` nodes of the test split.

    python -m benchmarks.positions --lang javascript --data bench-out/corpus2/javascript \\
        --nodes 500000 --out bench-out/positions/javascript [--only tree-binary,sequential]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.ablation import subset
from treecomplete.models import checkpoint
from treecomplete.models.batches import CorpusVocabulary
from treecomplete.models.evaluate import evaluate
from treecomplete.models.store import Split
from treecomplete.models.train import read_config, train

CONFIG = Path(__file__).resolve().parent.parent / "models" / "configs" / "javascript-tree-transformer.json"
BINARY = {"kind": "binary", "degree": 2, "depth": 32}
NARY = {"kind": "nary", "degree": 8, "depth": 16}
VARIANTS = {
    "tree-binary": {"positions": "tree", "tree": BINARY},
    "tree-nary": {"positions": "tree", "tree": NARY},
    "sequential": {"positions": "sequential"},
    "tree-binary+sequential": {"positions": "both", "tree": BINARY},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", choices=["python", "javascript"], required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--nodes", type=int, default=500_000)
    parser.add_argument("--test-elements", type=int, default=200_000)
    parser.add_argument("--only", help="comma-separated variants (default: all)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data = subset(Path(args.data), out / "corpus", args.nodes, 100_000)
    corpus = CorpusVocabulary.load(data)
    model, training = read_config(CONFIG)
    chosen = args.only.split(",") if args.only else list(VARIANTS)
    rows = []
    for name in chosen:
        result_path = out / f"{name}.json"
        if not result_path.exists():
            started = time.monotonic()
            meta, _ = train(data, out / f"{name}.pt", args.lang, {**model, **VARIANTS[name]},
                            {**training, "epochs": 1, "minutes": None, "valid_elements": 50_000}, quiet=True)
            result = evaluate(checkpoint.load(out / f"{name}.pt"), Split(data / "test"), corpus,
                              max_elements=args.test_elements)
            result_path.write_text(json.dumps({"variant": name, "nodes": meta["elements_trained"],
                                               "train_seconds": meta["seconds"], "seconds": time.monotonic() - started,
                                               "result": result}, indent=2))
        rows.append(json.loads(result_path.read_text()))
    lines = [f"| {args.lang} positions | type acc | value acc | value MRR@10 | OoV acc | nodes/s |", "|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        r = row["result"]
        lines.append(f"| {row['variant']} | {r['type']['accuracy']:.2%} | {r['value']['accuracy']:.2%} | "
                     f"{r['value']['mrr10']:.3f} | {r['value (OoV)']['accuracy']:.2%} | "
                     f"{row['nodes'] / max(row['train_seconds'], 1e-9):,.0f} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
