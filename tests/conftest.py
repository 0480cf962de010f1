"""Shared test helpers. Tests that need the real server process live in tests/e2e/."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

SERVER = [sys.executable, "-m", "treecomplete", "--stdio", "--log-level", "INFO"]


@pytest.fixture(autouse=True)
def linear_scorer(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """In-process tests rank with the linear scorer, whose weights for the rules they check (a
    rule's names first, what cannot be right last). A shipped learned ranking decides how much
    each rule is worth by itself: tests/test_learned_ranking.py tests it, and the end-to-end
    tests run the server with it. ``@pytest.mark.learned_rankings``: the rankings in
    ranker.RANKINGS, as the server reads them."""
    from treecomplete.ranking import ranker

    if request.node.get_closest_marker("learned_rankings") is None:
        monkeypatch.setattr(ranker, "ranking_path", lambda language: None)
    ranker.for_language.cache_clear()
    yield
    ranker.for_language.cache_clear()


@pytest.fixture(autouse=True)
def no_memory_limit(monkeypatch: pytest.MonkeyPatch):
    """An in-process CompletionService holds itself to no memoryLimit unless its test sets one: the
    test process holds every earlier test's models and caches (over 1 GB by the suite's end), and
    the limit would drop caches a test looks at (tests/test_service_documents.py tests the limit)."""
    from treecomplete import service

    monkeypatch.setattr(service, "MEMORY_LIMIT", 1 << 30)


@pytest.fixture(autouse=True)
def no_active_environment(monkeypatch: pytest.MonkeyPatch):
    """No ``VIRTUAL_ENV`` or ``CONDA_PREFIX`` from the shell that runs the tests (an activated
    venv): the Python environment a test's files import from is the one the test makes."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)


@pytest.fixture(scope="session")
def toy_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny pointer-mixture LSTM trained in seconds on the toy corpus (tests/toy.py)."""
    from .toy import toy_model

    return toy_model(tmp_path_factory.mktemp("toy"))


@pytest.fixture(scope="session")
def toy_decoder(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, dict]:
    """A tiny insertion decoder (tests/toy_infill.py): its checkpoint and its validation after
    its left-to-right run and after its searched-order run."""
    from .toy_infill import toy_decoder

    return toy_decoder(tmp_path_factory.mktemp("toy-decoder"))


@pytest.fixture(scope="session")
def toy_members(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The toy pointer LSTM trained on code that also calls and reads members."""
    from .toy import toy_corpus, toy_model

    directory = tmp_path_factory.mktemp("toy-members")
    return toy_model(directory, corpus=toy_corpus(directory, members=True))


@pytest.fixture(scope="session")
def toy_parent_type(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The toy pointer LSTM whose parent input is the parent's type embedding (the shipped
    models' setting) rather than its hidden state."""
    from .toy import toy_model

    return toy_model(tmp_path_factory.mktemp("toy-parent-type"), parent="type")


@pytest.fixture(scope="session")
def toy_subtrees(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The toy pointer LSTM with Ahmed et al.'s subtree summaries (models/subtrees.py)."""
    from .toy import toy_model

    return toy_model(tmp_path_factory.mktemp("toy-subtrees"), parent="type", arch="pointer-subtrees",
                     subtree_window=20, subtree_dim=16, subtree_heads=2)


@pytest.fixture(scope="session")
def toy_transformer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny tree-transformer trained in seconds on the toy corpus."""
    from .toy import TRANSFORMER, toy_model

    return toy_model(tmp_path_factory.mktemp("toy-transformer"), **TRANSFORMER)


@pytest.fixture(scope="session")
def toy_suffix(toy_checkpoint: Path) -> Path:
    """The toy pointer LSTM with a suffix pointer trained onto it (models/suffix_train.py)."""
    from treecomplete.models.suffix_train import train_suffix

    out = toy_checkpoint.with_name("toy-suffix.pt")
    train_suffix(toy_checkpoint, toy_checkpoint.parent / "corpus", out, 64,
                 {"epochs": 2, "batch": 4, "segment": 20, "lr": 0.003, "valid_elements": 3000}, quiet=True)
    return out
