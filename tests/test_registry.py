"""Which model serves which language: names, paths, user models, and failures that leave the
fallback engine answering."""

from __future__ import annotations

from pathlib import Path

import pytest

from treecomplete.engines import registry
from treecomplete.engines.registry import DEFAULTS, Registry, resolve
from treecomplete import erasure
from treecomplete.erasure import served_as
from treecomplete.languages import TYPESCRIPT
from treecomplete.models import checkpoint


def test_the_setting_routes_models_by_language():
    r = Registry()
    assert r.name_for("python") == "python-pointer-lstm" and r.name_for("javascript") == "javascript-pointer-lstm"
    assert r.name_for("go") == "go-pointer-lstm" and r.name_for("rust") is None  # a grammar served alone, with or without a model
    r.configure("python-myproject")
    assert r.name_for("python") == "python-myproject" and r.name_for("javascript") == "javascript-pointer-lstm"
    r.configure("/models/mine.pt")
    assert r.name_for("python") == "/models/mine.pt" == r.name_for("javascript")  # the checkpoint says its language
    r.configure("fallback")
    assert r.name_for("python") is None and r.name_for("typescript") is None


def test_user_models_come_before_shipped_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    user, shipped = tmp_path / "user", tmp_path / "shipped"
    user.mkdir()
    shipped.mkdir()
    monkeypatch.setattr(registry, "user_models", lambda: user)
    monkeypatch.setattr(registry, "SHIPPED", shipped)
    (shipped / "python-pointer-lstm.pt").write_bytes(b"x")
    assert resolve("python-pointer-lstm") == shipped / "python-pointer-lstm.pt"
    (user / "python-pointer-lstm.pt").write_bytes(b"x")
    assert resolve("python-pointer-lstm") == user / "python-pointer-lstm.pt"
    assert resolve("~/x.pt") == Path("~/x.pt").expanduser()
    with pytest.raises(FileNotFoundError, match="no model named 'python-nope' \\(known: python-pointer-lstm\\)"):
        resolve("python-nope")


def test_a_failed_load_is_reported_once_and_leaves_no_model(tmp_path: Path):
    messages: list[str] = []
    r = Registry(on_error=messages.append)
    broken = tmp_path / "broken.pt"
    broken.write_bytes(b"\x00" * 10)
    r.configure(str(broken))
    assert r.get("python", wait=True) is None
    assert r.get("python", wait=True) is None  # not retried on every request
    assert len(messages) == 1 and str(broken) in messages[0] and "fallback" in messages[0]
    assert r.status("python").startswith("failed")


def test_a_model_of_another_language_is_refused(toy_checkpoint: Path):
    messages: list[str] = []
    r = Registry(on_error=messages.append)
    r.configure(str(toy_checkpoint))  # a Python model
    assert r.get("javascript", wait=True) is None
    assert "is a python model, not javascript" in messages[0]
    assert r.get("python", wait=True) is not None and r.status("python") == "ready"


def test_typescript_documents_take_a_typescript_or_a_javascript_model(tmp_path: Path, toy_checkpoint: Path):
    assert served_as("typescript") == served_as("typescriptreact") == "typescript" and served_as("python") == "python"
    loaded = checkpoint.load(toy_checkpoint)
    for language in ("typescript", "javascript"):  # the toy model's weights, saved as each language's
        checkpoint.save(tmp_path / f"{language}-toy.pt", loaded.model, language, loaded.types, loaded.values)
    messages: list[str] = []
    r = Registry(on_error=messages.append)
    assert r.name_for("typescript") == DEFAULTS["typescript"]
    r.configure("javascript-mine")  # a JavaScript model serves TypeScript's documents too
    assert r.name_for("typescript") == "javascript-mine" == r.name_for("javascript")
    r.configure("typescript-mine")  # a TypeScript model serves them alone
    assert r.name_for("typescript") == "typescript-mine" and r.name_for("javascript") == DEFAULTS["javascript"]
    r.configure(str(tmp_path / "javascript-toy.pt"))
    erasure._QUERIES.clear()
    for name in registry.QUERIES:
        vars(TYPESCRIPT).pop(name, None)  # compiled again below
    assert r.get("typescript", wait=True) is not None and not messages
    assert "typescript" in erasure._QUERIES  # its queries compiled as it loaded, not at a first completion
    assert all(name in vars(TYPESCRIPT) for name in registry.QUERIES)
    assert r.get("javascript", wait=True) is r.get("typescript")  # one model, loaded once for both
    r.configure(str(tmp_path / "typescript-toy.pt"))
    assert r.get("typescript", wait=True) is not None and r.get("javascript", wait=True) is None
    assert "is a typescript model, not javascript" in messages[-1]


@pytest.mark.parametrize("name", ["python-pointer-lstm", "javascript-pointer-lstm", "python-tree-transformer",
                                  "javascript-tree-transformer", "go-pointer-lstm", "typescript-pointer-lstm"])
def test_the_shipped_models_load_by_name_and_stay_small(name: str):
    from treecomplete.models import checkpoint

    path = resolve(name)
    assert path.parent == registry.SHIPPED and path.stat().st_size <= 20_000_000
    loaded = checkpoint.load(path)
    assert loaded.language == name.split("-")[0]
    assert loaded.model.config.arch == ("tree-transformer" if name.endswith("tree-transformer") else "pointer")


def test_a_model_on_the_cpu_runs_on_one_thread(toy_checkpoint: Path):
    import threading

    import torch

    from treecomplete.context import context_at
    from treecomplete.document import Document
    from treecomplete.languages import PYTHON

    models = Registry()
    models.configure(str(toy_checkpoint), "cpu")
    predictor = models.get("python", wait=True)
    seen = []

    def worker():  # as the server's worker thread: torch's thread count is per thread
        torch.set_num_threads(2)
        doc = Document("file:///t.py", "value = 1\nresult = va", 1, PYTHON)
        predictor.answer(context_at(doc, len(doc.data)))
        seen.append(torch.get_num_threads())

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [registry.INFERENCE_THREADS] == [1]


def test_finish_loading_waits_for_a_model_still_loading(monkeypatch: pytest.MonkeyPatch, toy_checkpoint: Path):
    """The server waits for loader threads before it exits: one inside torch at exit aborts."""
    import threading

    from treecomplete.engines import predictor

    release = threading.Event()
    load = predictor.Predictor.load

    def slow_load(*args, **kwargs):
        release.wait(5)
        return load(*args, **kwargs)

    monkeypatch.setattr(predictor.Predictor, "load", staticmethod(slow_load))
    r = Registry()
    r.configure(str(toy_checkpoint))
    assert r.get("python") is None and r.status("python") == "loading"
    r.finish_loading(timeout=0.05)  # bounded: returns while the load still waits
    assert r.status("python") == "loading"
    release.set()
    r.finish_loading(timeout=30)
    assert r.status("python") == "ready"


def test_a_loaded_model_has_answered_once_and_kept_nothing_of_it(monkeypatch: pytest.MonkeyPatch, toy_checkpoint: Path):
    """The warm-up answer runs before the model is served; its document leaves no state behind."""
    from treecomplete.engines import predictor as predictor_module
    from treecomplete.engines import warm_up

    answered = []
    answer = predictor_module.Predictor.answer

    def counted(self, context, *args, **kwargs):
        answered.append(context.uri)
        return answer(self, context, *args, **kwargs)

    monkeypatch.setattr(predictor_module.Predictor, "answer", counted)
    r = Registry()
    r.configure(str(toy_checkpoint))
    predictor = r.get("python", wait=True)
    assert answered == [warm_up.URI]
    assert warm_up.URI not in list(predictor.sessions.uris()) and not predictor._texts and not predictor._recent


def test_a_failed_warm_up_still_serves_the_model(monkeypatch: pytest.MonkeyPatch, toy_checkpoint: Path, caplog):
    from treecomplete.engines import predictor as predictor_module

    def broken(self, context, *args, **kwargs):
        raise RuntimeError("broken answer")

    monkeypatch.setattr(predictor_module.Predictor, "answer", broken)
    r = Registry()
    r.configure(str(toy_checkpoint))
    with caplog.at_level("WARNING"):
        assert r.get("python", wait=True) is not None
    assert "warm-up failed" in caplog.text and r.status("python") == "ready"
