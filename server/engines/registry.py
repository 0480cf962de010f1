"""Which model serves which language, found by name and loaded off the request path.

A model is named by a setting (``treecomplete.model``) or defaults to the shipped one for the
document's language (``python-pointer-lstm``, ``javascript-pointer-lstm``). A name is looked up
in the user's models (platformdirs' user data dir, where ``treecomplete train --init`` writes),
then in the package's shipped checkpoints; a path to a ``.pt`` file is used as it is. ``fallback``
turns neural completion off.

Loading imports torch and reads the checkpoint, which takes seconds: it runs on its own thread,
and until it is done (or if it fails) ``get`` returns None and the fallback engine answers.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

import platformdirs

from .. import models as shipped_models
from ..erasure import MODELED_AS

log = logging.getLogger(__name__)

DEFAULTS = {"python": "python-pointer-lstm", "javascript": "javascript-pointer-lstm", "go": "go-pointer-lstm",
            "typescript": "typescript-pointer-lstm"}
SHIPPED = Path(shipped_models.__file__).resolve().parent / "checkpoints"
OFF = "fallback"
# torch threads for a model on the CPU. A keystroke's tensors are small: a second thread saves
# nothing on an idle CPU and, while another process holds a core, makes every parallel op wait
# for it (a 64-element read: 41 ms with two threads beside a busy process, 7.8 ms with one).
INFERENCE_THREADS = 1


def user_models() -> Path:
    return Path(platformdirs.user_data_dir("treecomplete")) / "models"


def resolve(name: str) -> Path:
    """The checkpoint file a model name or path stands for."""
    if name.endswith(".pt") or "/" in name or "\\" in name:
        return Path(name).expanduser()
    for directory in (user_models(), SHIPPED):
        candidate = directory / f"{name}.pt"
        if candidate.exists():
            return candidate
    known = sorted({p.stem for d in (user_models(), SHIPPED) if d.is_dir() for p in d.glob("*.pt")})
    raise FileNotFoundError(f"no model named {name!r} (known: {', '.join(known) or 'none'})")


class Registry:
    """Loaded models by language; loads in the background on request."""

    def __init__(self, on_error: Callable[[str], None] | None = None, device: str | None = None,
                 on_status: Callable[[dict], None] | None = None):
        self.on_error = on_error or (lambda message: None)
        self.on_status = on_status or (lambda status: None)  # {"language", "state", "model", ...}
        self.device = device
        self.setting = ""
        self._models: dict[str, object] = {}  # language -> Predictor
        self._loading: dict[str, threading.Thread] = {}
        self._failed: dict[str, str] = {}
        self._reported: set[str] = set()  # the rankings' problems said already
        self._lock = threading.Lock()

    def configure(self, setting: str, device: str | None = None) -> None:
        """A new ``treecomplete.model`` (or device) value: forget what was loaded for it to take
        effect. ``device``: "cpu", "cuda", or None for CUDA when present."""
        if setting == self.setting and device == self.device:
            return
        with self._lock:
            self.setting = setting
            self.device = device
            self._models.clear()
            self._failed.clear()
        if setting == OFF:
            self.on_status({"language": "*", "state": "off", "model": OFF})

    def name_for(self, language: str) -> str | None:
        """The model serving ``language`` (as erasure.served_as names it): the setting where it
        names one of that language (TypeScript's documents: of TypeScript or JavaScript) or a
        path, else the default."""
        if self.setting == OFF:
            return None
        reads = MODELED_AS.get(language)
        if self.setting and (self.setting.startswith(f"{language}-") or self.setting.endswith(".pt")
                             or (reads and self.setting.startswith(f"{reads}-"))):
            return self.setting
        return DEFAULTS.get(language)

    def status(self, language: str) -> str:
        if language in self._models:
            return "ready"
        if language in self._failed:
            return f"failed: {self._failed[language]}"
        return "loading" if language in self._loading else "not loaded"

    def get(self, language: str, wait: bool = False) -> object | None:
        """The predictor for ``language`` if loaded; starts loading it if not (``wait``: load
        now, on this thread)."""
        model = self._models.get(language)
        if model is not None or language in self._failed:
            return model
        name = self.name_for(language)
        if name is None:
            return None
        with self._lock:
            loading = self._loading.get(language)
            if loading is None:
                loading = self._loading[language] = threading.Thread(
                    target=self._load, args=(language, name), name=f"load-{language}", daemon=True)
                loading.start()
                self.on_status({"language": language, "state": "loading", "model": name})
        if wait:
            loading.join()
            return self._models.get(language)
        return None

    def finish_loading(self, timeout: float) -> None:
        """Wait, up to ``timeout`` seconds in all, for the models still loading. The process
        must not exit while a loader thread is inside torch's C++ code: it then aborts
        ("terminate called without an active exception"), which a client sees as a crash."""
        deadline = time.monotonic() + timeout
        with self._lock:
            loading = list(self._loading.values())
        for thread in loading:
            thread.join(max(0.0, deadline - time.monotonic()))

    def forget(self, uri: str) -> None:
        """A document closed: every loaded model drops its state for it."""
        for predictor in list(self._models.values()):
            predictor.forget(uri)

    def forget_all(self, keep: str | None = None) -> None:
        """Memory: every loaded model drops its state of every document but ``keep``, and the
        answers it remembers."""
        for predictor in list(self._models.values()):
            for uri in predictor.sessions.uris():
                if uri != keep:
                    predictor.forget(uri)
            predictor.forget_answers()

    def _load_ranking(self, language: str) -> None:
        """Load the learned ranking the language's lists are ranked with (ranking/ranker.py), so
        that a broken one is reported now: the linear scorer ranks instead."""
        from ..erasure import served_as
        from ..ranking import ranker

        ranking = ranker.for_language(served_as(language))
        if ranking.problem and ranking.problem not in self._reported:
            self._reported.add(ranking.problem)
            self.on_error(ranking.problem)
        elif ranking.trees is not None:
            log.info("%s: ranked by the learned ranking (%d trees)", language, ranking.trees.count)

    def _load(self, language: str, name: str) -> None:
        try:
            from .predictor import Predictor  # imports torch: seconds, so only here
            from .warm_up import warm_up

            path = resolve(name)
            with self._lock:  # TypeScript's documents served by the JavaScript model: loaded once
                predictor = next((p for other, p in self._models.items() if self.name_for(other) == name), None)
            if predictor is None:
                predictor = Predictor.load(path, self.device, threads=INFERENCE_THREADS)
                predictor.infill = _infiller(language, predictor.device)
            if predictor.language and predictor.language not in (language, MODELED_AS.get(language)):
                raise ValueError(f"{path} is a {predictor.language} model, not {language}")
            _compile_queries(language)
            if predictor not in self._models.values():  # TypeScript's documents on the JavaScript model: warm already
                warm_up(predictor, language)
            # torch's modules and the model make hundreds of thousands of long-lived objects:
            # out of the collector's sight, a full collection no longer walks them on some
            # keystroke (56 ms each, four times in the latency trace, before this)
            gc.collect()
            gc.freeze()
            with self._lock:
                if self.name_for(language) == name:
                    self._models[language] = predictor
            log.info("%s: model %s loaded from %s on %s", language, name, path, predictor.device)
            self._load_ranking(language)
            self.on_status({"language": language, "state": "ready", "model": name, "device": str(predictor.device),
                            "path": str(path)})
        except Exception as error:  # a missing, corrupt or mismatched model must not stop the server
            message = f"treecomplete: {language} model {name!r} not loaded: {error}. Using the fallback engine."
            log.error("%s", message)
            with self._lock:
                self._failed[language] = str(error)
            self.on_error(message)
            self.on_status({"language": language, "state": "failed", "model": name, "detail": str(error)})
        finally:
            with self._lock:
                self._loading.pop(language, None)


def _infiller(language: str, device) -> object | None:
    """The language's insertion decoder (``LANGUAGE-insertion``: the user's, else a shipped one;
    sources/infill.py), or None. One that fails to load costs its items, not the model."""
    try:
        path = resolve(f"{MODELED_AS.get(language, language)}-insertion")
    except FileNotFoundError:
        return None
    try:
        from ..sources.infill import Infiller

        infiller = Infiller.load(path, device)
        log.info("%s: insertion decoder loaded from %s", language, path)
        return infiller
    except Exception as error:
        log.error("%s: insertion decoder %s not loaded: %s", language, path, error)
        return None


QUERIES = ("scan", "imports", "exports", "taken", "taken_from")  # LanguageSpec's tree-sitter queries


def _compile_queries(language: str) -> None:
    """The language's tree-sitter queries (and a TypeScript grammar's erasure query) compiled
    while its model loads, not at the first completion in one of its files: each takes a few
    ms, TypeScript's erasure ~0.1 s."""
    from ..erasure import prepare
    from ..languages import by_name

    spec = by_name(language)
    for name in QUERIES if spec is not None else ():
        try:
            getattr(spec, name)
        except Exception as error:  # noqa: BLE001 - reported where the query is used
            log.debug("%s: query %s not compiled: %s", language, name, error)
    prepare(language)
