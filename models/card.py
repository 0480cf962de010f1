"""Model cards: what a shipped checkpoint is, from its own meta and its evaluate output.

    python -m treecomplete.models.card CHECKPOINT --eval RESULT.json --manifest FILE --out CARD.md
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .checkpoint import load
from .evaluate import markdown


def card(checkpoint: Path, result: dict, manifest: str, command: str) -> str:
    loaded = load(checkpoint)
    meta, config = loaded.meta, loaded.model.config
    params = sum(p.numel() for p in loaded.model.parameters())
    train = meta.get("train", {})
    valid = meta.get("valid") or {}
    if config.arch == "tree-transformer":
        tree = config.tree_config
        about = [f"The {loaded.language} tree-transformer (tree positional encodings of Shiv & Quirk, NeurIPS 2019, with "
                 "a pointer) that treecomplete ships. Architecture and training code: models/tree_transformer.py, "
                 "models/tree_positions.py, models/train.py."]
        shape = [f"- {config.layers} pre-norm layers, d_model {config.d_model}, {config.heads} heads, feed-forward "
                 f"{config.ff}; KV cache of {config.memory} positions; pointer window L = {config.window}"
                 + ("; the predicted node's parent's type as an input" if config.parent else "")
                 + ("; heads on tanh(W [h; pointer context])" if config.combine else ""),
                 f"- positions: {config.positions}; tree {tree.kind} (n = {tree.degree}, k = {tree.depth}), "
                 f"{config.copies} copies with learned p"]
    else:
        about = [f"The {loaded.language} pointer-mixture LSTM (Li et al., IJCAI 2018) that treecomplete ships. "
                 "Architecture and training code: models/pointer_lstm.py, models/train.py."]
        shape = [f"- {config.arch}, parent input {config.parent}; embeddings type {config.type_dim} + value "
                 f"{config.value_dim}, LSTM {config.hidden} units, attention window L = {config.window}"]
        if config.subtrees:
            shape.append(f"- subtree summaries (Ahmed et al., ACL 2019; models/subtrees.py): width {config.subtree_dim}, "
                         f"{config.subtree_heads} heads, {config.subtree_steps} composition steps, frontier over the last "
                         f"{config.subtree_window} elements")
    lines = [
        f"# {checkpoint.stem}",
        "",
        *about,
        "",
        "## Model",
        "",
        *shape,
        f"- value vocabulary K = {config.vocab:,} (+ PAD/UNK/EOF), adaptive softmax cutoffs {list(config.cutoffs)}; "
        f"{len(loaded.types):,} node types (with the two bits)",
        f"- {params:,} parameters, stored in float16: {checkpoint.stat().st_size / 1e6:.1f} MB",
        "",
        "## Data",
        "",
        f"- corpus built by `treecomplete corpus build` from {manifest} (packages split 80/10/10 by name; "
        "statistics in docs/models.md)",
        f"- trained on {meta.get('elements_trained', 0):,} nodes ({meta.get('epochs_done', 0)} epochs of "
        f"{train.get('epoch_elements') or 'all'} nodes)",
        "",
        "## Training",
        "",
        f"- `{command}`",
        f"- Adam lr {train.get('lr')} x {train.get('decay')} per epoch"
        + (f" after {train['warmup']} warm-up steps" if train.get("warmup") else "")
        + f", gradient norm clip {train.get('clip')}, segments of {train.get('segment')}, {train.get('batch')} lanes, "
        f"seed {train.get('seed')}" + (", bfloat16 autocast" if train.get("precision") == "bf16" else ""),
        f"- {meta.get('seconds', 0) / 60:.0f} minutes on {meta.get('hardware')}, torch {meta.get('torch')}",
        f"- best validation (by value accuracy, on {valid.get('queries', 0):,} valid-split queries): type "
        f"{valid.get('type', 0):.2%}, value {valid.get('value', 0):.2%}",
        "",
        "## Test metrics (`treecomplete evaluate`, test split)",
        "",
        markdown(result, f"{checkpoint.stem} on the test split").split("\n", 2)[2],
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description="write a model card")
    parser.add_argument("checkpoint")
    parser.add_argument("--eval", required=True, help="the JSON that treecomplete evaluate --out wrote")
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--command", required=True, help="the training command, quoted in the card")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    result = json.loads(Path(args.eval).read_text(encoding="utf-8"))
    Path(args.out).write_text(card(Path(args.checkpoint), result, args.manifest, args.command), encoding="utf-8")


if __name__ == "__main__":
    main()
