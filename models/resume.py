"""What lets a long run stop anywhere and go on: a stop asked by SIGTERM / SIGINT, lane states
as plain tensors (``torch.load(weights_only=True)`` reads them back), and saves written aside
and renamed, never half. Used by training (models/train.py), evaluation (models/evaluate.py)
and checkpoints (models/checkpoint.py)."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import torch


class Interrupt:
    """SIGTERM and SIGINT, inside the ``with``, ask for a stop at the next step (with a save)
    instead of killing the process; a second signal acts as usual."""

    def __init__(self, active: bool = True) -> None:
        self.asked = False
        self.active = active  # inactive: the signals keep their handlers (a run inside a run)
        self._previous: dict[int, object] = {}

    def __enter__(self) -> Interrupt:  # noqa: PYI034 - used as a plain context manager
        if self.active and threading.current_thread() is threading.main_thread():
            for number in (signal.SIGTERM, signal.SIGINT):
                self._previous[number] = signal.signal(number, self._ask)
        return self

    def _ask(self, number: int, frame: object) -> None:
        self.asked = True
        signal.signal(number, self._previous.get(number, signal.SIG_DFL))

    def __exit__(self, *exc: object) -> None:
        for number, handler in self._previous.items():
            signal.signal(number, handler)


def lanes_to_tensors(state: object) -> dict:
    """A lane state (a dataclass of tensors, maybe nested) as plain dicts."""
    return {name: value if isinstance(value, torch.Tensor) or value is None else lanes_to_tensors(value)
            for name, value in vars(state).items()}


def lanes_from(template: object, saved: dict) -> object:
    """The lane state ``lanes_to_tensors`` gave, rebuilt on the classes of ``template``."""
    fields = {}
    for name, value in vars(template).items():
        kept = saved[name]
        fields[name] = kept.to(value.device) if isinstance(kept, torch.Tensor) else (
            None if kept is None else lanes_from(value, kept))
    return type(template)(**fields)


def atomic_save(payload: dict, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    torch.save(payload, tmp)
    tmp.replace(path)
