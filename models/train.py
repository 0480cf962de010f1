"""Training (thesis §3.4's recipe): Adam, learning rate decayed per epoch, gradient norm
clipping, truncated BPTT over segments with the LSTM state carried along each lane, fixed seeds.

One code path for one CPU process, one GPU (mixed precision), and several processes under
``torchrun`` (DistributedDataParallel; gloo on CPUs, NCCL on GPUs). Each process takes its own
lanes of the same layout; losses are normalised by the global number of scored targets, so N
processes of B lanes compute the same update as one process of N*B lanes.

Validation runs on the valid split after every epoch (the test split is never read here); the
checkpoint at ``out`` is the best so far by validation value accuracy, and ``out`` + ``.state``
holds what ``--resume`` needs: weights, optimizer, epoch, step, and each process' lane states
(``.state.rankN``). It is written after every epoch, every ``save_minutes`` within one, and when
the run stops on its time or step budget or on SIGTERM / SIGINT; a resumed run continues from
the step it was saved at, with the same lanes, so stopping and resuming changes nothing: the
weights come out as an unbroken run's (tests/test_training.py).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import torch
from torch import distributed as dist
from torch import nn

from . import checkpoint
from .architectures import config_from_dict, create, tree_positions
from .batches import NONE, Batch, CorpusVocabulary, Targets, lanes, segments
from .evaluate import evaluate
from .pointer_lstm import native_bfloat16
from .resume import Interrupt, atomic_save, lanes_from, lanes_to_tensors
from .scoring import loss
from .settings import from_dict
from .store import Split


@dataclass
class TrainConfig:
    batch: int = 64  # lanes per process
    segment: int = 50  # T: BPTT length
    lr: float = 2e-3
    decay: float = 0.7  # learning rate factor per epoch
    clip: float = 5.0
    warmup: int = 0  # steps of linear learning-rate warm-up at the start (transformers want some)
    epochs: int = 8
    epoch_elements: int | None = None  # an epoch of this many elements (a random subset of files); None: all
    valid_elements: int | None = 300_000
    minutes: float | None = None  # stop (and save) after this long
    steps: int | None = None  # stop (and save) after this many steps in all
    save_minutes: float = 5.0  # the resume state is written this often within an epoch
    # "auto": bfloat16 autocast on CUDA, float32 on CPU; "bf16" also autocasts on a CPU that has
    # AMX or AVX-512 BF16 (elsewhere float32: _precision); "fp32" never autocasts
    precision: str = "auto"
    seed: int = 0

    def __post_init__(self) -> None:  # before the corpus loads, not after
        if self.precision not in ("auto", "bf16", "fp32"):
            raise ValueError(f"training settings: precision must be auto, bf16 or fp32, not {self.precision!r}")

    @classmethod
    def from_dict(cls, data: dict) -> TrainConfig:
        return from_dict(cls, data, "training settings")


def read_config(path: Path | None) -> tuple[dict, dict]:
    """``{"model": {...}, "train": {...}}`` from a JSON file (either part optional)."""
    if path is None:
        return {}, {}
    data = json.loads(path.read_text(encoding="utf-8"))
    unknown = set(data) - {"model", "train"}
    if unknown:
        raise ValueError(f"{path}: unknown sections {', '.join(sorted(unknown))} (expected model, train)")
    return dict(data.get("model", {})), dict(data.get("train", {}))


class Step(nn.Module):
    """Forward and loss in one module, so DistributedDataParallel sees every parameter used."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, b: Batch, state, type_total: float, value_total: float) -> tuple[torch.Tensor, object, float, float]:
        out = self.model(**b.inputs(), state=state)
        parts = loss(self.model, out, b)
        scale = dist.get_world_size() if dist.is_initialized() else 1
        total = parts.type_sum * scale / max(type_total, 1) + parts.value_sum * scale / max(value_total, 1)
        return (total, out.state, parts.type_sum.item() / max(parts.type_count, 1),
                parts.value_sum.item() / max(parts.value_count, 1))


def _distributed() -> tuple[int, int, torch.device]:
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1 and not dist.is_initialized():
        dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
    rank = dist.get_rank() if dist.is_initialized() else 0
    if torch.cuda.is_available():
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)
        return rank, world, torch.device("cuda", local)
    return rank, world, torch.device("cpu")


def _all_sum(values: list[float], device: torch.device) -> list[float]:
    if not dist.is_initialized():
        return values
    t = torch.tensor(values, dtype=torch.float64, device=device)
    dist.all_reduce(t)
    return t.tolist()


def _precision(asked: str, device: torch.device) -> str:
    """The precision a run trains in: as asked, but "bf16" on a CPU without native bfloat16 (AVX-512
    BF16 or AMX) is "fp32": oneDNN has no bfloat16 LSTM there (it fails to build one), and emulated
    bfloat16 matrix products are two orders of magnitude slower than float32's (docs/models.md)."""
    if asked == "bf16" and device.type == "cpu" and not native_bfloat16():
        return "fp32"
    return asked


def _as_trained(tcfg: TrainConfig, device: torch.device, say: bool = True) -> TrainConfig:
    """The settings with the precision the run trains in (``_precision``), which the checkpoint
    records; where that is not the one asked for, said on stderr (``say``: by this process)."""
    precision = _precision(tcfg.precision, device)
    if precision == tcfg.precision:
        return tcfg
    if say:
        print(f"precision {tcfg.precision}: this CPU has no native bfloat16 (AVX-512 BF16 or AMX); training in float32",
              file=sys.stderr, flush=True)
    return replace(tcfg, precision=precision)


def _autocast(precision: str, device: torch.device) -> torch.autocast:
    enabled = precision == "bf16" or (precision == "auto" and device.type == "cuda")
    return torch.autocast(device.type, dtype=torch.bfloat16, enabled=enabled)


def _progress(text: str) -> None:
    print("\r" + text.ljust(100), end="", file=sys.stderr, flush=True)


def train(data: Path, out: Path, language: str, model_settings: dict | None = None, train_settings: dict | None = None,
          init: Path | None = None, resume: bool = False, quiet: bool = False) -> tuple[dict, nn.Module]:
    """Train on the corpus at ``data`` (models/corpus.py); returns the checkpoint's meta and
    this process' model as it ended (not necessarily the best one, which is at ``out``)."""
    rank, world, device = _distributed()
    tcfg = TrainConfig.from_dict(train_settings or {})
    tcfg = _as_trained(tcfg, device, rank == 0)
    corpus = CorpusVocabulary.load(data)
    torch.manual_seed(tcfg.seed)
    if init is not None:
        loaded = checkpoint.load(init)
        model, types, values = loaded.model, loaded.types, loaded.values
        if model_settings:
            raise ValueError("a fine-tuned model keeps its starting checkpoint's architecture; drop the model settings")
    else:
        mcfg = config_from_dict(model_settings or {})
        types, values = corpus.types, corpus.values[: corpus.value_bound(mcfg.vocab)]
        model = create(mcfg, len(types), len(values))
    model.to(device).train()
    config = model.config
    mapping = corpus.mapping(types, values)
    targets = Targets(Split(data / "train"), len(values), config.window, config.points, mapping, tree_positions(config))
    valid_split = Split(data / "valid") if (data / "valid" / "files.json").exists() else None
    step_module: nn.Module = Step(model)
    if dist.is_initialized():
        step_module = nn.parallel.DistributedDataParallel(step_module, device_ids=[device.index] if device.type == "cuda" else None)
    optimizer = torch.optim.Adam(model.parameters(), lr=tcfg.lr)
    state_path = out.with_name(out.name + ".state")
    meta: dict = {"language": language, "model": config.to_dict(), "train": asdict(tcfg), "data": str(data),
                  "init": str(init) if init else None, "epochs_done": 0, "elements_trained": 0, "steps": 0, "seconds": 0.0,
                  "hardware": f"{world} x {torch.cuda.get_device_name(device) if device.type == 'cuda' else platform.processor() or 'CPU'}"
                              f" ({torch.get_num_threads()} threads)", "torch": str(torch.__version__), "valid": None}
    first_epoch, skip_steps, lanes_saved = 0, 0, None
    lanes_path = state_path.with_name(f"{state_path.name}.rank{rank}")
    if resume and state_path.exists():
        saved = torch.load(state_path, map_location="cpu", weights_only=True)
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        meta = {"steps": 0, **saved["meta"]}
        first_epoch, skip_steps = saved["epoch"], saved["step"]
        if skip_steps and lanes_path.exists():
            lanes_saved = torch.load(lanes_path, map_location="cpu", weights_only=True)
            if lanes_saved.get("step") != skip_steps or lanes_saved.get("epoch") != first_epoch:
                lanes_saved = None
    amp = _autocast(tcfg.precision, device)
    started = time.monotonic() - meta["seconds"]
    budget = tcfg.minutes * 60 if tcfg.minutes else None
    rows = slice(rank * tcfg.batch, (rank + 1) * tcfg.batch)
    stop = False
    with Interrupt() as interrupt:
        for epoch in range(first_epoch, tcfg.epochs):
            for group in optimizer.param_groups:
                group["lr"] = tcfg.lr * tcfg.decay ** epoch
            generator = torch.Generator().manual_seed(tcfg.seed * 1000 + epoch)
            order = torch.randperm(targets.lengths.numel(), generator=generator)
            laid = lanes(targets, tcfg.batch * world, tcfg.segment, order, tcfg.epoch_elements)
            total_steps = laid["types"].shape[1] // tcfg.segment
            state = model.initial_state(tcfg.batch, device)
            if lanes_saved is not None:
                state = lanes_from(state, lanes_saved["lanes"])
                lanes_saved = None
            window_start, window_elements = time.monotonic(), 0
            last_print = last_save = time.monotonic()
            type_loss = value_loss = 0.0
            for step, b in enumerate(segments(laid, tcfg.segment, rows)):
                if step < skip_steps:
                    continue
                b = b.to(device)
                # one all-reduce a step: the global target counts, whether any process is out of
                # time or asked to stop, and whether a save is due
                now = time.monotonic()
                over = (budget is not None and now - started > budget) or interrupt.asked or (
                    tcfg.steps is not None and meta["steps"] >= tcfg.steps)
                due = now - last_save > tcfg.save_minutes * 60
                type_total, value_total, anyone_over, anyone_due = _all_sum(
                    [float(b.scored.sum()), float((b.target_value != NONE).sum() + (b.target_pointer != NONE).sum()),
                     float(over), float(due)], device)
                if anyone_over:
                    stop = True
                    skip_steps = step
                    break
                if anyone_due:
                    meta["seconds"] = now - started
                    _save_lanes(lanes_path, epoch, step, state)
                    if rank == 0:
                        _save_weights(state_path, model, optimizer, meta, epoch, step)
                    last_save = now
                if meta["steps"] < tcfg.warmup:
                    for group in optimizer.param_groups:
                        group["lr"] = tcfg.lr * tcfg.decay ** epoch * (meta["steps"] + 1) / tcfg.warmup
                meta["steps"] += 1
                with amp:
                    total, state, type_loss, value_loss = step_module(b, state, type_total, value_total)
                optimizer.zero_grad(set_to_none=True)
                total.backward()
                nn.utils.clip_grad_norm_(model.parameters(), tcfg.clip)
                optimizer.step()
                state = state.detach()
                elements = int(type_total)
                meta["elements_trained"] += elements
                window_elements += elements
                now = time.monotonic()
                if rank == 0 and not quiet and now - last_print > 2:
                    rate = window_elements / max(now - window_start, 1e-9)
                    left = (total_steps - step - 1) * tcfg.segment * tcfg.batch * world / max(rate, 1e-9)
                    _progress(f"epoch {epoch + 1}/{tcfg.epochs} step {step + 1}/{total_steps} loss type {type_loss:.3f} "
                              f"value {value_loss:.3f}  {rate:,.0f} nodes/s  ETA {left / 60:.0f} min")
                    last_print = now
            else:
                skip_steps = 0
            meta["seconds"] = time.monotonic() - started
            if not stop:
                meta["epochs_done"] = epoch + 1
            if stop:  # the lanes as they are, for a resume at this very step (the weights: _finish_epoch)
                _save_lanes(lanes_path, epoch, skip_steps, state)
            if rank == 0:
                if not quiet:
                    print(file=sys.stderr)
                _finish_epoch(model, out, state_path, optimizer, meta, epoch + (0 if stop else 1), skip_steps if stop else 0,
                              language, types, values, corpus, valid_split, tcfg, quiet)
            if dist.is_initialized():
                dist.barrier()
            if stop:
                break
    return meta, model


def _save_lanes(lanes_path: Path, epoch: int, step: int, lanes_state: object) -> None:
    """This process' lanes, for ``--resume`` at ``step`` of ``epoch``."""
    atomic_save({"epoch": epoch, "step": step, "lanes": lanes_to_tensors(lanes_state)}, lanes_path)


def _save_weights(state_path: Path, model: nn.Module, optimizer: torch.optim.Optimizer, meta: dict,
                  epoch: int, step: int) -> None:
    """The weights, optimizer and progress ``--resume`` goes on from (the first process)."""
    atomic_save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "meta": meta,
                 "epoch": epoch, "step": step}, state_path)


def _finish_epoch(model: nn.Module, out: Path, state_path: Path, optimizer: torch.optim.Optimizer, meta: dict,
                  epoch: int, step: int, language: str, types: list[str], values: list[str], corpus: CorpusVocabulary,
                  valid_split: Split | None, tcfg: TrainConfig, quiet: bool) -> None:
    """Validate, keep the checkpoint if it is the best so far, save the resume state."""
    improved = True
    if valid_split is not None and len(valid_split):
        result = evaluate(checkpoint.Loaded(model, language, types, values), valid_split, corpus,
                          max_elements=tcfg.valid_elements)
        model.train()
        score = {"type": result["type"]["accuracy"], "value": result["value"]["accuracy"],
                 "value_mrr10": result["value"]["mrr10"], "queries": result["value"]["queries"]}
        if not quiet:
            print(f"valid: type {score['type']:.2%} value {score['value']:.2%} MRR@10 {score['value_mrr10']:.3f}"
                  f" ({score['queries']:,} queries)", file=sys.stderr)
        best = meta.get("valid")
        improved = best is None or score["value"] > best["value"]
        if improved:
            meta["valid"] = score
    if improved or not out.exists():
        checkpoint.save(out, model, language, types, values, meta)
    _save_weights(state_path, model, optimizer, meta, epoch, step)

