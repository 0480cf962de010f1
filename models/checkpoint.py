"""Checkpoints: a model's weights with everything needed to use it, loaded without executing code.

A checkpoint is one ``torch.save`` file holding only tensors, strings, numbers, lists and dicts,
so ``torch.load(weights_only=True)`` reads it: a model path may come from a workspace's settings,
and a pickle that carries code is refused. Weights are stored in float16 (half the size; the
models compute in float32). Fields: ``format``, ``config`` (the architecture's configuration), ``types`` and
``values`` (the symbols behind the ids, values cut to the K the model predicts), ``language``,
``state`` (the weights) and ``meta`` (training facts for the model card).
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import nn

from .architectures import FORMATS, config_from_dict, create, family
from .resume import atomic_save

FORMAT = FORMATS["pointer-lstm"]


class CheckpointError(Exception):
    """A checkpoint that cannot be used; the message names the file and why."""


@dataclass
class Loaded:
    model: nn.Module  # PointerLSTM or TreeTransformer
    language: str
    types: list[str]
    values: list[str]
    meta: dict = field(default_factory=dict)


def save(path: Path, model: nn.Module, language: str, types: list[str], values: list[str], meta: dict | None = None) -> None:
    state = {name: tensor.detach().to("cpu", torch.float16) if tensor.is_floating_point() else tensor.detach().cpu()
             for name, tensor in model.state_dict().items()}
    payload = {"format": FORMATS[family(model.config)], "config": model.config.to_dict(), "language": language, "types": list(types),
               "values": list(values[: model.n_values]), "state": state, "meta": meta or {}}
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_save(payload, path)  # never a half-written checkpoint under the real name


def load(path: Path, device: torch.device | str = "cpu") -> Loaded:
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise CheckpointError(f"{path}: no such checkpoint") from None
    except pickle.UnpicklingError:
        raise CheckpointError(f"{path}: refused: it holds objects other than weights (a pickle that could run code)") from None
    except Exception as error:  # truncated or foreign files
        raise CheckpointError(f"{path}: not a usable checkpoint ({type(error).__name__}: {str(error).splitlines()[0][:200]})") from None
    if not isinstance(payload, dict) or payload.get("format") not in FORMATS.values():
        raise CheckpointError(f"{path}: not a treecomplete checkpoint (format {payload.get('format') if isinstance(payload, dict) else type(payload).__name__!r})")
    try:
        config = config_from_dict(dict(payload["config"]))
        if FORMATS[family(config)] != payload["format"]:
            raise ValueError(f"format {payload['format']} with a {config.arch} configuration")
        types, values = list(payload["types"]), list(payload["values"])
        model = create(config, len(types), len(values))
        state = {name: tensor.float() if tensor.is_floating_point() else tensor for name, tensor in payload["state"].items()}
        model.load_state_dict(state)
    except (KeyError, TypeError, ValueError, RuntimeError) as error:
        raise CheckpointError(f"{path}: checkpoint does not match its model ({str(error).splitlines()[0][:200]})") from None
    model.to(device).eval()
    return Loaded(model, str(payload.get("language", "")), types, values, dict(payload.get("meta", {})))
