"""A toy corpus of token streams and a tiny insertion decoder trained on it in seconds
(models/insertion.py), for the tests of the decoder, its server source and the server."""

from __future__ import annotations

from pathlib import Path

from treecomplete.models.corpus import SourceFile
from treecomplete.models.infill_data import build
from treecomplete.models.infill_train import train
from treecomplete.models.insertion import InsertionConfig

TINY = InsertionConfig(vocab=200, d=32, heads=2, enc_layers=1, dec_layers=1, ff=64, dropout=0.0)


def toy_text(name: str) -> bytes:
    """A file whose lines repeat a few patterns, so a tiny model learns them in seconds."""
    lines = ["import os", ""]
    for k in range(6):
        lines += [f"{name}_{k} = compute(alpha, beta)", f"print({name}_{k}, total)", f"total = total + {name}_{k}"]
    return ("\n".join(lines) + "\n").encode()


def toy_files(n: int = 40) -> list[SourceFile]:
    return [SourceFile(f"package{i}", f"m{i}.py", toy_text(f"value_{i}")) for i in range(n)]


def toy_streams(directory: Path) -> Path:
    build(toy_files(), "python", directory, {"train": 10**6, "valid": 10**6, "test": 10**6})
    return directory


def toy_decoder(directory: Path) -> tuple[Path, dict, dict]:
    """Left to right for 40 steps, then resumed with searched orders after 250: bounded in
    steps, not minutes, so that a loaded machine trains the same model. The checkpoint and the
    validation after each run."""
    data = toy_streams(directory / "streams")
    out = directory / "python-insertion.pt"
    config = InsertionConfig(**{**TINY.to_dict(), "d": 48, "ff": 96})
    first = train(data, out, 10, order="l2r", config=config, batch_size=32, lr=3e-3, warmup=10,
                  save_minutes=100, valid_examples=60, max_steps=40, log=lambda *_: None)
    last = train(data, out, 10, order="sao", bootstrap_steps=250, config=config, batch_size=32, lr=3e-3,
                 warmup=10, save_minutes=100, valid_examples=60, max_steps=400, resume=True, log=lambda *_: None)
    return out, first, last
