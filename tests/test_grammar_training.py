"""A model for a language served from its grammar alone (Go here): `treecomplete corpus build
--from-dir`, a short `treecomplete train --lang go`, then completion with that model."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from treecomplete.models import checkpoint

from .toy import MODEL, TRAIN, _name


def _go_tree(root: Path, packages: int = 30) -> Path:
    rng = random.Random(0)
    for p in range(packages):
        for f in range(2):
            functions = []
            for _ in range(rng.randrange(3, 7)):
                fn, a, b, c = (_name(rng) for _ in range(4))
                functions.append(f"func {fn}({a} int, {b} int) int {{\n\t{c} := {a} {rng.choice('+-*')} {b}\n"
                                 f"\treturn {c}\n}}\n\n")
            path = root / f"pkg{p}" / f"f{f}.go"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"package pkg{p}\n\n" + "".join(functions), encoding="utf-8")
    (root / "pkg0" / "notes.txt").write_text("not Go", encoding="utf-8")
    return root


def _cli(*args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", "from treecomplete.cli import main; main()", *args]
    return subprocess.run(command, check=False, capture_output=True, text=True, timeout=300)


def test_corpus_train_and_complete_for_go(tmp_path: Path):
    corpus = tmp_path / "corpus"
    run = _cli("corpus", "build", "--lang", "go", "--from-dir", str(_go_tree(tmp_path / "src")), "--out", str(corpus))
    assert run.returncode == 0, run.stderr
    built = json.loads((corpus / "build.json").read_text())
    assert built["language"] == "go" and sum(built["kept"].values()) == 60
    assert built["skipped"] == {"other language": 1}
    types = json.loads((corpus / "types.json").read_text())
    assert "function_declaration" in json.dumps(types)  # the Go grammar's own node types

    config = tmp_path / "tiny.json"
    config.write_text(json.dumps({"model": {"arch": "pointer", **MODEL}, "train": TRAIN}), encoding="utf-8")
    model = tmp_path / "go-toy.pt"
    run = _cli("train", "--lang", "go", "--data", str(corpus), "--config", str(config), "--out", str(model), "--minutes", "0.2")
    assert run.returncode == 0, run.stderr
    assert checkpoint.load(model).language == "go"

    source = tmp_path / "use.go"
    source.write_text("package main\n\nfunc mix(quux_a int, quux_b int) int {\n\tblorp_sum := quux_a * quux_b\n\treturn ",
                      encoding="utf-8")
    run = _cli("complete", str(source), "--model", str(model), "--json")
    assert run.returncode == 0, run.stderr
    items = json.loads(run.stdout)
    assert {"quux_a", "quux_b", "blorp_sum"} <= {c["text"] for c in items[:5]}
    assert "fallback" not in items[0]["detail"]  # the model's answer (it copied a name from the buffer)
