"""A toy corpus and a tiny model trained on it in seconds: for tests that need a real, trained
model without the shipped checkpoints.

Every file defines functions whose names and variables are random and unique to the file, so
they are out of any vocabulary: returning the variable assigned just before can only be learned
by the pointer."""

from __future__ import annotations

import random
from pathlib import Path

from treecomplete.models.corpus import build_corpus
from treecomplete.models.train import train

MODEL = {"type_dim": 16, "value_dim": 16, "hidden": 48, "window": 30, "vocab": 40, "cutoffs": []}
TRANSFORMER = {"arch": "tree-transformer", "d_model": 32, "layers": 2, "heads": 2, "ff": 64, "memory": 40, "window": 30,
               "vocab": 40, "cutoffs": []}
TRAIN = {"batch": 8, "segment": 25, "lr": 0.01, "decay": 0.9, "epochs": 4, "valid_elements": 5000}


def _name(rng: random.Random) -> str:
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(3)) + "_" + str(rng.randrange(10**6))


def toy_source(rng: random.Random, members: bool = False) -> str:
    """Functions of random names; with ``members``, their bodies also call and read members
    (``a.item.get(b)``, ``a.item.size``)."""
    out = []
    for _ in range(rng.randrange(3, 7)):
        fn, a, b, c = (_name(rng) for _ in range(4))
        op = rng.choice("+-*")
        body = f"{c} = {a} {op} {b}"
        if members:
            body += f"\n    {c} = {c} + {a}.item.{rng.choice(['get', 'put'])}({b})\n    {c} = {c} + {a}.item.{rng.choice(['size', 'mode'])}"
        out.append(f"def {fn}({a}, {b}):\n    {body}\n    return {c}\n\n")
    return "".join(out)


def toy_tree(root: Path, packages: int = 60, seed: int = 0, members: bool = False) -> Path:
    rng = random.Random(seed)
    for p in range(packages):
        for f in range(3):
            path = root / f"pkg{p}" / f"mod{f}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(toy_source(rng, members), encoding="utf-8")
    return root


def toy_corpus(directory: Path, members: bool = False) -> Path:
    build_corpus("python", directory / "corpus", from_dir=toy_tree(directory / "src", members=members))
    return directory / "corpus"


def toy_model(directory: Path, corpus: Path | None = None, **model: object) -> Path:
    """The toy pointer LSTM, or with ``arch="tree-transformer"`` (TRANSFORMER) a toy tree-transformer."""
    corpus = corpus or toy_corpus(directory)
    out = directory / "toy.pt"
    if model.get("arch") == "tree-transformer":
        train(corpus, out, "python", dict(model), {**TRAIN, "lr": 0.005, "warmup": 20}, quiet=True)
    else:
        train(corpus, out, "python", {**MODEL, **model}, TRAIN, quiet=True)
    return out
