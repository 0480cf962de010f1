"""What one neural completion costs inside the model, on one thread: reading a context of
``--context`` elements from an empty state (and, for the LSTM on a CPU with bfloat16, with the
server's bfloat16 reads), against one new element read with the state (LSTM state, transformer
KV cache) of the elements before it.

    python -m benchmarks.model_step models/checkpoints/python-pointer-lstm.pt models/checkpoints/python-tree-transformer.pt
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from treecomplete.models import checkpoint
from treecomplete.models.tree_positions import ROOT

from .machine import describe


def _inputs(n: int, n_types: int, n_values: int) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    ones = torch.ones(1, n, dtype=torch.long)
    return {"types": torch.randint(3, n_types, (1, n), generator=g), "values": torch.randint(3, n_values, (1, n), generator=g),
            "files": torch.zeros(1, n, dtype=torch.long), "parent_distance": ones, "parent_type": ones.clone(),
            "positions": ones * ROOT, "next_positions": ones * ROOT}


def _read_seconds(model, x: dict[str, torch.Tensor], repeats: int) -> float:
    for _ in range(2):
        model(**x, state=model.initial_state(1))
    started = time.perf_counter()
    for _ in range(repeats):
        model(**x, state=model.initial_state(1))
    return (time.perf_counter() - started) / repeats


@torch.no_grad()
def measure(path: Path, context: int, repeats: int) -> tuple[float, float, float | None]:
    """Seconds: the context read from empty, one cached step, and the read with the server's
    bfloat16 reads (None where the model or the CPU has none: models/pointer_lstm.fast_reads)."""
    model = checkpoint.load(path).model
    x = _inputs(context, model.n_types, model.n_values)
    whole = _read_seconds(model, x, repeats)
    fast = None
    if hasattr(model, "fast_reads") and model.fast_reads():
        fast = _read_seconds(model, x, repeats)
        model.fast_reads(False)
    state = model(**{k: v[:, :-1] for k, v in x.items()}, state=model.initial_state(1)).state
    last = {k: v[:, -1:] for k, v in x.items()}
    started = time.perf_counter()
    for _ in range(repeats):
        model(**last, state=state)
    return whole, (time.perf_counter() - started) / repeats, fast


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoints", nargs="+")
    parser.add_argument("--context", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(describe())
    print(f"{'model':<40}{'context from empty ms':>24}{'in bfloat16 ms':>16}{'one cached step ms':>20}")
    for name in args.checkpoints:
        whole, step, fast = measure(Path(name), args.context, args.repeats)
        shown = f"{fast * 1000:.1f}" if fast is not None else "-"
        print(f"{Path(name).stem:<40}{whole * 1000:>24.1f}{shown:>16}{step * 1000:>20.2f}")


if __name__ == "__main__":
    main()
