"""Fine-tuning on a user's own code: `treecomplete train --init MODEL --from-dir DIR` writes a
user model into the user data dir, and the model setting finds it by name."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from treecomplete.models import checkpoint
from treecomplete.models.pointer_lstm import native_bfloat16

from .toy import toy_source


def test_finetune_from_a_directory_then_complete_with_it(toy_checkpoint: Path, tmp_path: Path):
    project = tmp_path / "myproject"
    rng = random.Random(7)
    for i in range(6):
        (project / f"part{i}").mkdir(parents=True)
        (project / f"part{i}" / "code.py").write_text(toy_source(rng), encoding="utf-8")
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    cli = [sys.executable, "-c", "from treecomplete.cli import main; main()"]
    run = subprocess.run([*cli, "train", "--init", str(toy_checkpoint), "--from-dir", str(project), "--minutes", "0.2",
                          "--precision", "bf16"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert '"treecomplete.model": "python-myproject"' in run.stdout
    saved = tmp_path / "data" / "treecomplete" / "models" / "python-myproject.pt"
    tuned = checkpoint.load(saved)
    assert tuned.meta["init"] == str(toy_checkpoint) and tuned.language == "python"
    # bfloat16 where the CPU multiplies it natively; elsewhere float32, said on stderr (models/train.py)
    assert tuned.meta["train"]["precision"] == ("bf16" if native_bfloat16() else "fp32")
    assert ("no native bfloat16" in run.stderr) != native_bfloat16()
    assert tuned.model.config == checkpoint.load(toy_checkpoint).model.config

    source = tmp_path / "use.py"
    source.write_text("def mix(quux_a, quux_b):\n    blorp_sum = quux_a * quux_b\n    return ", encoding="utf-8")
    run = subprocess.run([*cli, "complete", str(source), "--model", "python-myproject", "--json"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "blorp_sum" in [c["text"] for c in json.loads(run.stdout)]

    run = subprocess.run([*cli, "complete", str(source), "--model", "python-nonesuch"], capture_output=True, text=True,
                         env=env, timeout=120)
    assert "no model named 'python-nonesuch'" in run.stderr and "python-myproject" in run.stderr
