"""Training the suffix pointer (models/suffix.py) on a frozen pointer-mixture LSTM.

The model reads each segment as in training (models/batches.py lays files end to end in lanes);
the segment's lookahead, the S elements after each predicted node, comes from the same lane.
Only the suffix pointer learns, by the likelihood of the mixture at leaf targets (those with a
value: what completion asks for):

    P(target) = (1 - r) (s w[target] + (1 - s) sum of alpha over the window slots holding it)
                + r sum of beta over the suffix slots holding it

A target found nowhere (an OoV value in neither the window nor the suffix) is not scored.
Validation compares the leaf values' ranks with and without the suffix on the valid split.
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, replace
from pathlib import Path

import torch
from torch import nn

from . import checkpoint
from .architectures import family
from .batches import PADDING, Batch, CorpusVocabulary, Targets, lanes, segments
from .evaluate import Tally
from .flatten import EMPTY
from .pointer_lstm import Output, PointerLSTM
from .scoring import EPS, mixture, ranks, window_values
from .store import Split
from .suffix import pair_features
from .train import TrainConfig, _as_trained, _autocast, _progress
from .vocab import EOF_ID, PAD_ID

AHEAD = ("types", "values", "raw_values", "file_ids", "first", "previous")


def with_suffix(loaded: checkpoint.Loaded, size: int) -> PointerLSTM:
    """``loaded``'s model with a suffix pointer reading ``size`` elements, the rest frozen: the
    pointer it has where it has one of that size (training goes on from it, as after the model
    below was trained further), else a new one."""
    base = loaded.model
    if family(base.config) != "pointer-lstm" or not base.config.points:
        raise ValueError("a suffix pointer is trained on a pointer-mixture LSTM (arch pointer)")
    model = PointerLSTM(replace(base.config, suffix=size), base.n_types, base.n_values)
    keep = base.config.suffix == size
    own = {k: v for k, v in base.state_dict().items() if keep or not k.startswith("suffix.")}
    missing, unexpected = model.load_state_dict(own, strict=False)
    assert not unexpected and all(k.startswith("suffix.") for k in missing) and not (keep and missing)
    for name, parameter in model.named_parameters():
        parameter.requires_grad = name.startswith("suffix.")
    return model


def segments_ahead(laid: dict[str, torch.Tensor], segment: int, size: int) -> Iterator[tuple[Batch, dict]]:
    """``segments`` with, for each, the lane's next ``segment + size`` elements after its first:
    element k of the lookahead is lane position start + 1 + k."""
    length = laid["types"].shape[1]
    for start, batch in zip(range(0, length, segment), segments(laid, segment)):
        ahead = {}
        for name in AHEAD:
            cut = laid[name][:, start + 1:start + 1 + segment + size].long()
            pad = segment + size - cut.shape[1]
            if pad:
                cut = torch.cat([cut, torch.full((cut.shape[0], pad), PADDING[name], dtype=torch.long)], dim=1)
            ahead[name] = cut
        ahead["index"] = laid["index"][:, start:start + segment].long()
        yield batch, ahead


def suffix_output(model: PointerLSTM, out: Output, b: Batch, ahead: dict, empty: int) -> tuple[torch.Tensor, ...]:
    """beta in slot order (B, T, S), the gate r (B, T), the raw values of the slots (B, T, S)
    (PAD where a slot may not be pointed at)."""
    size = model.config.suffix
    allowed, seen, same, buckets = pair_features(b.raw_values, ahead["index"], b.files, ahead["raw_values"],
                                                 ahead["first"], ahead["previous"], ahead["file_ids"],
                                                 1, size, empty, PAD_ID)
    embedded = model.embed(ahead["types"], ahead["values"])
    beta, gate = model.suffix(out.g, embedded, allowed, seen, same, buckets)
    T = b.types.shape[1]
    index = (torch.arange(T, device=beta.device).unsqueeze(1) + 1 + torch.arange(size, device=beta.device)).unsqueeze(0)
    index = index.expand(beta.shape[0], T, size)
    slot_allowed = allowed.gather(2, index)
    slot_values = torch.where(slot_allowed, ahead["raw_values"].unsqueeze(1).expand(-1, T, -1).gather(2, index), PAD_ID)
    return beta.gather(2, index), gate, slot_values


def model_probability(model: PointerLSTM, g: torch.Tensor, switch: torch.Tensor, alpha: torch.Tensor,
                      window: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """P_model(target) per row (N,), as the server reads the mixture: vocabulary share plus the
    mass of the window slots holding the target."""
    V = model.n_values
    p = torch.zeros_like(switch)
    in_vocab = target < V
    if in_vocab.any():
        p[in_vocab] = model.value_target_log_prob(g[in_vocab], target[in_vocab]).float().exp() * switch[in_vocab]
    return p + (1 - switch) * (alpha * (window == target.unsqueeze(1))).sum(1)


def train_suffix(init: Path, data: Path, out: Path, size: int = 200, settings: dict | None = None,
                 quiet: bool = False) -> dict:
    """Train a suffix pointer of ``size`` elements onto the model at ``init`` with the corpus at
    ``data``; the checkpoint at ``out`` is the best by validation leaf top-1 with the suffix."""
    tcfg = TrainConfig.from_dict({"lr": 1e-3, "decay": 0.7, "epochs": 1, **(settings or {})})
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tcfg = _as_trained(tcfg, device)
    torch.manual_seed(tcfg.seed)
    loaded = checkpoint.load(init)
    model = with_suffix(loaded, size).to(device)
    model.eval()  # no dropout anywhere; the LSTM is only read
    corpus = CorpusVocabulary.load(data)
    mapping = corpus.mapping(loaded.types, loaded.values)
    config = model.config
    targets = Targets(Split(data / "train"), model.n_values, config.window, True, mapping, suffix=True)
    valid = Split(data / "valid") if (data / "valid" / "files.json").exists() else None
    empty = loaded.values.index(EMPTY)
    optimizer = torch.optim.Adam(model.suffix.parameters(), lr=tcfg.lr)
    amp = _autocast(tcfg.precision, device)
    meta = {**loaded.meta, "suffix": {"size": size, "init": str(init), "data": str(data), "train": asdict(tcfg),
                                      "elements": 0, "steps": 0, "seconds": 0.0, "valid": None,
                                      "hardware": torch.cuda.get_device_name(device) if device.type == "cuda"
                                      else platform.processor() or "CPU", "torch": str(torch.__version__)}}
    record = meta["suffix"]
    started = time.monotonic()
    budget = tcfg.minutes * 60 if tcfg.minutes else None
    best = None
    for epoch in range(tcfg.epochs):
        for group in optimizer.param_groups:
            group["lr"] = tcfg.lr * tcfg.decay ** epoch
        order = torch.randperm(targets.lengths.numel(), generator=torch.Generator().manual_seed(tcfg.seed * 1000 + epoch))
        laid = lanes(targets, tcfg.batch, tcfg.segment, order, tcfg.epoch_elements)
        total_steps = laid["types"].shape[1] // tcfg.segment
        state = model.initial_state(tcfg.batch, device)
        memory_raw = torch.full((tcfg.batch, config.window), PAD_ID, dtype=torch.long)
        last_print = 0.0
        for step, (b, ahead) in enumerate(segments_ahead(laid, tcfg.segment, size)):
            if budget is not None and time.monotonic() - started > budget:
                break
            window = window_values(memory_raw, b.raw_values, config.window).to(device)
            memory_raw = torch.cat([memory_raw, b.raw_values], dim=1)[:, -config.window:]
            b = b.to(device)
            ahead = {k: v.to(device) for k, v in ahead.items()}
            with torch.no_grad(), amp:
                output = model(**b.inputs(), state=state)
            state = output.state
            rows = b.scored & (b.target_raw != empty) & (b.target_raw > EOF_ID)
            if not rows.any():
                continue
            target = b.target_raw[rows]
            with torch.no_grad():
                base = model_probability(model, output.g[rows].float(), output.switch[rows].float(), output.alpha[rows].float(),
                                         window[rows], target)
            with amp:
                beta, gate, slot_values = suffix_output(model, output, b, ahead, empty)
            beta, gate, slot_values = beta[rows].float(), gate[rows].float(), slot_values[rows]
            copied = (beta * (slot_values == target.unsqueeze(1))).sum(1)
            found = (base > 0) | (slot_values == target.unsqueeze(1)).any(1)
            p = (1 - gate) * base + gate * copied
            loss = -torch.log(p[found] + EPS).mean()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.suffix.parameters(), tcfg.clip)
            optimizer.step()
            record["steps"] += 1
            record["elements"] += int(b.scored.sum())
            now = time.monotonic()
            if not quiet and now - last_print > 2:
                _progress(f"suffix epoch {epoch + 1}/{tcfg.epochs} step {step + 1}/{total_steps} loss {loss.item():.3f} "
                          f"gate {gate.mean().item():.2f}  {record['elements'] / (now - started):,.0f} nodes/s")
                last_print = now
        record["seconds"] = time.monotonic() - started
        if not quiet:
            print(file=sys.stderr)
        if valid is not None and len(valid):
            result = validate(model, valid, corpus, loaded.types, loaded.values, max_elements=tcfg.valid_elements)
            if not quiet:
                print(f"valid: {describe(result)}", file=sys.stderr)
            if best is None or result["with suffix"]["accuracy"] > best:
                best = result["with suffix"]["accuracy"]
                record["valid"] = result
                checkpoint.save(out, model, loaded.language, loaded.types, loaded.values, meta)
        else:
            checkpoint.save(out, model, loaded.language, loaded.types, loaded.values, meta)
        if budget is not None and time.monotonic() - started > budget:
            break
    return meta


@torch.no_grad()
def validate(model: PointerLSTM, split: Split, corpus: CorpusVocabulary, types: list[str], values: list[str],
             batch: int = 32, segment: int = 50, max_elements: int | None = None) -> dict:
    """Leaf-value top-1 / top-5 / MRR@10 on ``split``, by the model alone and with the suffix
    pointer, over leaf targets with at least one suffix slot (inside a file)."""
    device = next(model.parameters()).device
    config = model.config
    targets = Targets(split, model.n_values, config.window, True, corpus.mapping(types, values), suffix=True)
    laid = lanes(targets, batch, segment, max_elements=max_elements)
    empty = values.index(EMPTY)
    tallies = {"model alone": Tally(), "with suffix": Tally()}
    state = model.initial_state(batch, device)
    memory_raw = torch.full((batch, config.window), PAD_ID, dtype=torch.long)
    gates = 0.0
    for b, ahead in segments_ahead(laid, segment, config.suffix):
        window = window_values(memory_raw, b.raw_values, config.window).to(device)
        memory_raw = torch.cat([memory_raw, b.raw_values], dim=1)[:, -config.window:]
        b = b.to(device)
        ahead = {k: v.to(device) for k, v in ahead.items()}
        out = model(**b.inputs(), state=state)
        state = out.state
        beta, gate, slot_values = suffix_output(model, out, b, ahead, empty)
        rows = b.scored & (b.target_raw != empty) & (b.target_raw > EOF_ID) & (slot_values != PAD_ID).any(-1)
        for chunk in torch.split(rows.nonzero(), 256):
            i, t = chunk[:, 0], chunk[:, 1]
            g, switch, alpha = out.g[i, t].float(), out.switch[i, t].float(), out.alpha[i, t].float()
            slots = torch.where(alpha > 0, window[i, t], PAD_ID)
            vocab = model.value_log_probs(g).exp() * switch.unsqueeze(1)
            target = b.target_raw[i, t]
            alone = mixture(vocab, alpha * (1 - switch).unsqueeze(1), slots)
            tallies["model alone"].add(ranks(*alone, slots, target).cpu())
            r = gate[i, t].float().unsqueeze(1)
            both_slots = torch.cat([slots, slot_values[i, t]], dim=1)
            mass = torch.cat([alpha * (1 - switch).unsqueeze(1) * (1 - r), beta[i, t].float() * r], dim=1)
            combined = mixture(vocab * (1 - r), mass, both_slots)
            tallies["with suffix"].add(ranks(*combined, both_slots, target).cpu())
            gates += float(r.sum())
    result = {name: tally.as_dict() for name, tally in tallies.items()}
    result["mean gate"] = gates / max(tallies["with suffix"].n, 1)
    return result


def describe(result: dict) -> str:
    a, w = result["model alone"], result["with suffix"]
    return (f"{w['queries']:,} leaf queries inside files: top-1 {a['accuracy']:.2%} -> {w['accuracy']:.2%}, "
            f"top-5 {a['top5']:.2%} -> {w['top5']:.2%}, MRR@10 {a['mrr10']:.3f} -> {w['mrr10']:.3f} "
            f"(mean gate {result['mean gate']:.3f})")
