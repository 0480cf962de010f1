"""Training on the toy corpus: the loss falls, checkpoints round-trip and load safely, --resume
goes on, and two DistributedDataParallel processes (gloo) compute what one process does, through
the library and through `treecomplete train` under torchrun."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.multiprocessing as mp

from treecomplete.cli import leave_process_group
from treecomplete.models import checkpoint
from treecomplete.models.batches import CorpusVocabulary, Targets, lanes, segments
from treecomplete.models.pointer_lstm import ModelConfig, PointerLSTM, native_bfloat16
from treecomplete.models.scoring import loss
from treecomplete.models.store import Split
from treecomplete.models.train import train

from .toy import MODEL, TRAIN, TRANSFORMER, toy_corpus


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return toy_corpus(tmp_path_factory.mktemp("corpus"))


def test_loss_falls_over_a_few_steps(corpus: Path):
    torch.manual_seed(0)
    vocab = CorpusVocabulary.load(corpus)
    config = ModelConfig(**MODEL)
    values = vocab.values[: 3 + config.vocab]
    model = PointerLSTM(config, len(vocab.types), len(values))
    targets = Targets(Split(corpus / "train"), len(values), config.window, True, vocab.mapping(vocab.types, values))
    batch = next(segments(lanes(targets, 4, 25), 25))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(30):  # one batch, over and over: the loss must fall
        parts = loss(model, model(batch.types, batch.values, batch.files, batch.parent_distance, batch.parent_type,
                                  model.initial_state(4)), batch)
        total = parts.type_sum / parts.type_count + parts.value_sum / parts.value_count
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
        losses.append(float(total.detach()))
    assert losses[-1] < 0.5 * losses[0]


def test_checkpoint_round_trip_and_resume(corpus: Path, tmp_path: Path):
    out = tmp_path / "m.pt"
    settings = {**TRAIN, "epochs": 1}
    meta, model = train(corpus, out, "python", MODEL, settings, quiet=True)
    assert meta["epochs_done"] == 1 and meta["valid"] is not None
    loaded = checkpoint.load(out)
    assert loaded.language == "python" and loaded.model.config == model.config
    for name, tensor in model.state_dict().items():  # float16 on disk
        torch.testing.assert_close(loaded.model.state_dict()[name], tensor.half().float() if tensor.is_floating_point() else tensor)
    # --resume continues from the saved epoch instead of starting over.
    meta2, _ = train(corpus, out, "python", MODEL, {**settings, "epochs": 2}, resume=True, quiet=True)
    assert meta2["epochs_done"] == 2 and meta2["elements_trained"] > meta["elements_trained"]


@pytest.mark.parametrize("model_settings", [MODEL, {**TRANSFORMER, "cutoffs": [10]},
                                            {**MODEL, "arch": "pointer-subtrees", "subtree_window": 20}],
                         ids=["pointer-lstm", "tree-transformer", "pointer-subtrees"])
def test_a_run_stopped_mid_epoch_and_resumed_ends_as_an_unbroken_one(corpus: Path, tmp_path: Path, model_settings: dict):
    settings = {**TRAIN, "epochs": 1, "epoch_elements": 4000, "valid_elements": 500}
    torch.manual_seed(0)
    _, unbroken = train(corpus, tmp_path / "a.pt", "python", model_settings, settings, quiet=True)
    torch.manual_seed(0)
    meta, _ = train(corpus, tmp_path / "b.pt", "python", model_settings, {**settings, "steps": 5}, quiet=True)
    assert meta["steps"] == 5 and meta["epochs_done"] == 0  # stopped inside the first epoch
    assert (tmp_path / "b.pt.state.rank0").exists()
    meta, resumed = train(corpus, tmp_path / "b.pt", "python", model_settings, settings, resume=True, quiet=True)
    assert meta["epochs_done"] == 1
    for name, tensor in unbroken.state_dict().items():
        torch.testing.assert_close(resumed.state_dict()[name], tensor, rtol=0, atol=0)


def test_the_resume_state_is_written_within_an_epoch(corpus: Path, tmp_path: Path):
    out = tmp_path / "m.pt"
    train(corpus, out, "python", MODEL, {**TRAIN, "epochs": 1, "save_minutes": 0.0, "steps": 3}, quiet=True)
    saved = torch.load(out.with_name("m.pt.state"), weights_only=True)
    assert (saved["epoch"], saved["step"]) == (0, 3)  # where the run stopped, not an epoch's end


# the tree-transformer with an adaptive-softmax head: its LayerNorm hands the head float32 rows
@pytest.mark.parametrize("model_settings", [MODEL, {**TRANSFORMER, "cutoffs": [10]}], ids=["pointer-lstm", "tree-transformer"])
def test_bf16_precision_autocasts_on_cpu_and_bad_precision_is_refused(corpus: Path, tmp_path: Path, model_settings: dict,
                                                                      capfd: pytest.CaptureFixture):
    settings = {**TRAIN, "epochs": 1}
    runs = {}
    for precision in ("fp32", "auto", "bf16"):  # "auto" is float32 on a CPU
        torch.manual_seed(0)
        meta, model = train(corpus, tmp_path / f"{precision}.pt", "python", model_settings,
                            {**settings, "precision": precision}, quiet=True)
        assert meta["epochs_done"] == 1 and meta["valid"]["value"] > 0
        runs[precision] = torch.cat([t.flatten() for t in model.state_dict().values() if t.is_floating_point()])
    torch.testing.assert_close(runs["auto"], runs["fp32"])
    said = capfd.readouterr().err
    if native_bfloat16():
        assert not torch.allclose(runs["bf16"], runs["fp32"])  # rounded to bfloat16 along the way
        assert meta["train"]["precision"] == "bf16" and "no native bfloat16" not in said
    else:  # oneDNN builds no bfloat16 LSTM without AVX-512 BF16 or AMX: float32, and the run says so
        torch.testing.assert_close(runs["bf16"], runs["fp32"])
        assert meta["train"]["precision"] == "fp32" and "no native bfloat16" in said
    with pytest.raises(ValueError, match="precision must be auto, bf16 or fp32, not 'fp16'"):
        train(corpus, tmp_path / "bad.pt", "python", model_settings, {**settings, "precision": "fp16"}, quiet=True)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_training_and_its_validation_run_on_cuda_with_an_adaptive_value_head(corpus: Path, tmp_path: Path):
    # on CUDA, autocast runs log_softmax in float32 and the validation reads the head on the GPU:
    # both failed on an H200 before models/heads.py and models/scoring.py followed the device
    for precision in ("auto", "fp32"):  # "auto" is bfloat16 autocast on CUDA
        meta, model = train(corpus, tmp_path / f"{precision}.pt", "python", {**MODEL, "cutoffs": [10]},
                            {**TRAIN, "epochs": 1, "precision": precision}, quiet=True)
        assert next(model.parameters()).is_cuda
        assert meta["epochs_done"] == 1 and meta["valid"]["value"] > 0


class _Payload:
    def __reduce__(self):
        return (os.system, ("echo owned > /dev/null",))


def test_unsafe_corrupt_and_mismatched_checkpoints_are_refused(tmp_path: Path):
    evil = tmp_path / "evil.pt"
    torch.save({"format": checkpoint.FORMAT, "state": _Payload()}, evil)
    with pytest.raises(checkpoint.CheckpointError, match="evil.pt: refused"):
        checkpoint.load(evil)
    model = PointerLSTM(ModelConfig(**MODEL), 10, 43)
    good = tmp_path / "good.pt"
    checkpoint.save(good, model, "python", [f"t{i}" for i in range(10)], [f"v{i}" for i in range(43)])
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(good.read_bytes()[:1000])
    with pytest.raises(checkpoint.CheckpointError, match="truncated.pt: not a usable checkpoint"):
        checkpoint.load(truncated)
    mismatched = tmp_path / "mismatched.pt"
    payload = torch.load(good, weights_only=True)
    payload["types"] = payload["types"][:5]  # the type embedding no longer fits
    torch.save(payload, mismatched)
    with pytest.raises(checkpoint.CheckpointError, match="mismatched.pt: checkpoint does not match"):
        checkpoint.load(mismatched)
    with pytest.raises(checkpoint.CheckpointError, match="missing.pt: no such checkpoint"):
        checkpoint.load(tmp_path / "missing.pt")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _replica(rank: int, port: int, corpus: Path, out: Path, model_settings: dict) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE="2", RANK=str(rank), LOCAL_RANK=str(rank))
    torch.set_num_threads(1)
    _, model = train(corpus, out / "ddp.pt", "python", model_settings, {**TRAIN, "epochs": 1, "batch": 4}, quiet=True)
    torch.save(model.state_dict(), out / f"rank{rank}.pt")
    leave_process_group(finished=True)  # what `treecomplete train` does under torchrun
    assert not torch.distributed.is_initialized()


@pytest.mark.parametrize("model_settings", [MODEL, TRANSFORMER], ids=["pointer-lstm", "tree-transformer"])
def test_two_gloo_processes_match_one(corpus: Path, tmp_path: Path, model_settings: dict):
    mp.spawn(_replica, args=(_free_port(), corpus, tmp_path, model_settings), nprocs=2, join=True)
    rank0 = torch.load(tmp_path / "rank0.pt", weights_only=True)
    rank1 = torch.load(tmp_path / "rank1.pt", weights_only=True)
    for name in rank0:
        assert torch.equal(rank0[name], rank1[name]), f"replicas differ in {name}"
    _, single = train(corpus, tmp_path / "single.pt", "python", model_settings, {**TRAIN, "epochs": 1, "batch": 8}, quiet=True)
    for name, tensor in single.state_dict().items():
        torch.testing.assert_close(rank0[name], tensor, atol=2e-4, rtol=1e-3)


def test_train_under_torchrun_reports_once_and_leaves_the_group(corpus: Path, tmp_path: Path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model": MODEL, "train": {**TRAIN, "epochs": 1, "batch": 4}}))
    out = tmp_path / "ddp.pt"
    run = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-port",
                          str(_free_port()), "-m", "treecomplete.cli", "train", "--lang", "python", "--data", str(corpus),
                          "--config", str(config), "--out", str(out)],
                         capture_output=True, text=True, timeout=180, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.count(f"{out}: 1 epochs") == 1  # the first replica reports, the other does not
    assert checkpoint.load(out).meta["epochs_done"] == 1
