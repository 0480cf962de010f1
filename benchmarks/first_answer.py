"""The first completion in a file just opened, in process, two ways alternated file by file so
that the machine's drift falls on both alike: the service as the server builds it (both models,
the libraries and the project index parsed in child processes), ``benchmarks.latency``'s files
beside ``--file`` each opened holding its first half, ``--typed`` typed at its end, a completion
and its LSP items asked.

    python -m benchmarks.first_answer --compare read-ahead|no-grad [--files N] [--rounds N]

``read-ahead``: in one arm the Python model answers at the end as opened first (what reading a
document's model state ahead at its open would leave); ``no-grad``: in one arm the model's
answers run under ``torch.no_grad`` instead of the predictor's ``torch.inference_mode``.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import statistics
import time
from pathlib import Path

import torch

from treecomplete.context import context_at
from treecomplete.engines.neural import CHAIN_BUDGET, CHAIN_STEPS
from treecomplete.engines.predictor import Predictor
from treecomplete.engines.registry import Registry
from treecomplete.items import completion_list
from treecomplete.service import CompletionService
from treecomplete.sources.libraries.known import Libraries
from treecomplete.sources.project_index import ProjectIndex

from .latency import opened_files, percentile
from .machine import describe


@contextlib.contextmanager
def no_grad_answers():
    """The predictor's answers under ``torch.no_grad`` rather than its own inference mode."""
    wrapped = Predictor.answer
    Predictor.answer = lambda self, *args, **kwargs: torch.no_grad()(wrapped.__wrapped__)(self, *args, **kwargs)
    try:
        yield
    finally:
        Predictor.answer = wrapped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", choices=("read-ahead", "no-grad"), required=True)
    parser.add_argument("--file", default=inspect.__file__, help="the files beside it are opened")
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--typed", default="    s", help="typed at the end of each file before the completion")
    args = parser.parse_args()
    print(describe())
    models = Registry()
    libraries = Libraries(separate=True)
    service = CompletionService(models=models, project=ProjectIndex(separate=True), libraries=libraries, wait_for_models=True)
    predictor = models.get("python", wait=True)
    models.get("javascript", wait=True)
    service.open("untitled:keep.py", "python", 1, "x = 1\n")  # the last close would drop what was read
    files = opened_files(Path(args.file).resolve(), args.files)
    times: dict[bool, list[float]] = {False: [], True: []}
    for round_ in range(args.rounds + 1):  # the first round reads the libraries: not counted
        for i, path in enumerate(files):
            other = (i + round_) % 2 == 0
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
            uri = path.as_uri()
            doc = service.open(uri, "python", 1, "".join(lines[: len(lines) // 2]))
            libraries.loader.wait(5)
            if other and args.compare == "read-ahead":
                if (context := context_at(doc, len(doc.data))) is not None:
                    predictor.answer(context, CHAIN_BUDGET, CHAIN_STEPS)
            end = doc.position_at(len(doc.data))
            doc.apply_change(end, end, args.typed)
            doc.version += 1
            line, column = doc.position_at(len(doc.data))
            with no_grad_answers() if other and args.compare == "no-grad" else contextlib.nullcontext():
                started = time.perf_counter()
                completion_list(doc, service.complete(uri, line, column, 50), 50)
                took = (time.perf_counter() - started) * 1000
            if round_:
                times[other].append(took)
            service.close(uri)
            predictor.forget_answers()
    names = {"read-ahead": ("as served", "read ahead at the end"), "no-grad": ("inference_mode", "no_grad")}[args.compare]
    for other, found in times.items():
        print(f"{names[other]:<24}{len(found):>5} requests  mean {statistics.mean(found):.2f} ms  "
              f"p50 {statistics.median(found):.2f}  p95 {percentile(found, 95):.2f}")


if __name__ == "__main__":
    main()
