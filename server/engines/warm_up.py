"""A model's first answer, given once as it loads, in a small document of its language.

The first answer a process gives costs more than any later one (torch's first calls of each
operation and of the bfloat16 reads, the multi-token search's and the suffix pointer's first
runs, the auto-import tables read): given on the loading thread, in a document no client sees,
that cost is paid before the user's first list rather than by it.
"""

from __future__ import annotations

import logging
import time

from ..context import context_at
from ..document import Document
from ..erasure import MODELED_AS
from ..languages import by_name

log = logging.getLogger(__name__)

URI = "untitled:treecomplete-warm-up"
# what each model reads: imports, a function, a member chain; the answer is asked at the end,
# after a dot (a receiver's members, the multi-token search from it)
SAMPLES = {
    "python": "import os\n\n\ndef load(path, name):\n    folder = os.path.dirname(path)\n    return os.path.",
    "javascript": ("const path = require('path');\n\nfunction load(file, name) {\n"
                   "  const folder = path.dirname(file);\n  return path."),
    "go": 'package main\n\nimport "strings"\n\nfunc load(path string) string {\n\tname := strings.TrimSpace(path)\n\treturn strings.',
}


def warm_up(predictor, language: str) -> None:
    """One answer of ``predictor`` in ``language``'s sample (nothing where there is none), as
    the neural engine asks it (with the multi-token search), then what it kept of the sample
    forgotten. A failure is logged: it costs the warm-up only."""
    read_as = MODELED_AS.get(language, language)  # TypeScript's models read it as JavaScript
    sample = SAMPLES.get(read_as)
    spec = by_name(read_as)
    if sample is None or spec is None:
        return
    started = time.perf_counter()
    try:
        from ..sources.auto_import import NAMES
        from ..sources.library_names import library_names
        from .neural import CHAIN_BUDGET, CHAIN_STEPS

        if language in NAMES:
            library_names(language)
        doc = Document(URI, sample, 1, spec)
        context = context_at(doc, len(doc.data))
        if context is not None:
            predictor.answer(context, CHAIN_BUDGET, CHAIN_STEPS)
    except Exception as error:  # noqa: BLE001 - a warm-up must never cost the model
        log.warning("%s: warm-up failed: %s", language, error)
    finally:
        predictor.forget(URI)
        predictor.forget_answers()
    log.info("%s: warm-up answer in %.0f ms", language, (time.perf_counter() - started) * 1000)
