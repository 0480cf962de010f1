"""Incremental inference: after any sequence of edits, what a document's session answers equals
a from-scratch reading of the same context, for every architecture and both parent inputs; it
reads less; one request reads a bounded number of elements whatever the file size; state is
dropped on close and kept under a memory cap."""

from __future__ import annotations

import random

import pytest
import torch

from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.engines import incremental
from treecomplete.engines.incremental import Session, Sessions, Snapshot
from treecomplete.engines.predictor import Prediction, Predictor
from treecomplete.languages import PYTHON

from .toy import toy_source

URI = "file:///work/edit.py"
MODELS = ["toy_checkpoint", "toy_parent_type", "toy_transformer", "toy_subtrees"]


def _counting(predictor: Predictor) -> list[int]:
    """Elements the model reads, per call."""
    calls: list[int] = []
    forward = predictor.model.forward

    def counted(types, *args, **kwargs):
        calls.append(types.shape[0] * types.shape[1])
        return forward(types, *args, **kwargs)

    predictor.model.forward = counted
    return calls


def _fresh(predictor: Predictor, anchor=None) -> Predictor:
    """A predictor on the same model with no session and no remembered answers: it reads the
    context from an empty state (from ``anchor``, when given)."""
    other = Predictor.__new__(Predictor)
    other.__dict__.update(predictor.__dict__)
    other.sessions = Sessions()
    other._recent, other._texts = type(predictor._recent)(), type(predictor._texts)()
    if anchor is not None:
        other.sessions.put(URI, Session(anchor, snapshots={0: Snapshot(predictor.model.initial_state(1, predictor.device))}))
    return other


def _identifier_ends(text: str) -> list[int]:
    return [i + 1 for i in range(len(text) - 1) if (text[i].isalnum() or text[i] == "_") and not (text[i + 1].isalnum() or text[i + 1] == "_")]


def _same(a, b, tolerance: float = 1e-4) -> None:
    """The same probabilities rank by rank, and each value the same probability: values tied
    (copied from two places the pointer weighs alike) may come in either order."""
    a, b = [Prediction._make(p) for p in a], [Prediction._make(p) for p in b]
    for x, y in zip(a[:10], b[:10]):
        assert x.probability == pytest.approx(y.probability, abs=tolerance)
    probability = {p.value: p.probability for p in a}
    for y in b[:10]:
        assert probability.get(y.value) == pytest.approx(y.probability, abs=tolerance)


def _edit(rng: random.Random, text: str) -> str:
    at = rng.randrange(len(text) + 1)
    kind = rng.random()
    if kind < 0.4:  # typing at a point
        return text[:at] + rng.choice(["x", "ab", " + 1", "\n    y = 2", "(q)", "total_vhal"]) + text[at:]
    if kind < 0.7:  # deleting a span
        return text[:at] + text[at + rng.randrange(1, 12):]
    return text + rng.choice(["\n", "z", "def ", "    return "])  # typing at the end


@pytest.mark.parametrize("model", MODELS)
def test_answers_after_random_edits_equal_a_reading_from_scratch(model: str, request: pytest.FixtureRequest):
    _edits_read_as_from_scratch(Predictor.load(request.getfixturevalue(model), "cpu").float32(), 1e-4)


def test_with_bfloat16_reads_and_packed_states_answers_stay_within_their_rounding(
        toy_checkpoint, monkeypatch: pytest.MonkeyPatch):
    """Where reads run in bfloat16 (emulated where the CPU has none), a session that resumed
    from packed states answers as a reading from scratch to bfloat16's rounding."""
    monkeypatch.setattr("treecomplete.models.pointer_lstm.native_bfloat16", lambda: True)
    predictor = Predictor.load(toy_checkpoint, "cpu")
    assert predictor.packed
    _edits_read_as_from_scratch(predictor, 0.02)
    session = predictor.sessions.get(URI)
    assert all(s.state.memory.dtype == torch.bfloat16 for i, s in session.snapshots.items() if i > 0)


def _edits_read_as_from_scratch(predictor: Predictor, tolerance: float) -> None:
    rng = random.Random(7)
    text = toy_source(rng)
    doc = Document(URI, text, 1, PYTHON)
    read_incrementally = 0
    read_from_scratch = 0
    for step in range(40):
        new = _edit(rng, doc.text)
        doc.replace_all(new)
        ends = _identifier_ends(new)
        if not ends:
            continue
        offset = len(new[: rng.choice(ends)].encode())
        context = context_at(doc, offset)
        if context is None or context.target is None:
            continue
        calls = _counting(predictor)
        incremental_answer = predictor.answer(context)
        read_incrementally += sum(calls)
        fresh = _fresh(predictor)
        calls = _counting(fresh)
        scratch_answer = fresh.answer(context)
        read_from_scratch += sum(calls)
        predictor.model.forward = fresh.model.forward = type(predictor.model).forward.__get__(predictor.model)
        _same(incremental_answer.predictions, scratch_answer.predictions, tolerance)
        assert incremental_answer.statement.keys() == scratch_answer.statement.keys()
        for name, p in incremental_answer.statement.items():
            assert p == pytest.approx(scratch_answer.statement[name], abs=tolerance)
    assert 0 < read_incrementally < read_from_scratch  # edits and cursors anywhere: some reuse


@pytest.mark.parametrize("model", MODELS)
def test_a_long_file_reads_a_bounded_context_from_its_anchor(model: str, request: pytest.FixtureRequest):
    predictor = Predictor.load(request.getfixturevalue(model), "cpu")
    # the LSTM ranks after 100 elements as after more (engines/incremental.py); the transformer attends to all it reads
    assert predictor.bounds == (incremental.TRANSFORMER_BOUNDS if "transformer" in model else incremental.LSTM_BOUNDS)
    rng = random.Random(3)
    text = "".join(toy_source(rng) for _ in range(40))  # thousands of elements
    doc = Document(URI, text, 1, PYTHON)
    calls = _counting(predictor)
    ends = _identifier_ends(text)
    for step, end in enumerate(ends[len(ends) // 2 :: 97][:8]):
        del calls[:]
        context = context_at(doc, len(text[:end].encode()))
        answer = predictor.answer(context)
        assert sum(calls) <= predictor.bounds.limit
        session = predictor.sessions.get(URI)
        assert session.anchor is not None and predictor.bounds.context <= len(session.keys) <= predictor.bounds.limit
        fresh = _fresh(predictor, session.anchor)
        predictor.model.forward = type(predictor.model).forward.__get__(predictor.model)
        _same(answer.predictions, fresh.answer(context).predictions)
        calls = _counting(predictor)
    # typing on at the end moves the anchor only now and then: a keystroke reads what it typed since the last
    # snapshot (one every EVERY elements), under half of what a read from an empty state reads
    doc = Document(URI, text, 1, PYTHON)
    predictor.forget(URI)
    typed = text
    reads = []
    for piece in ["def tail_fn(a_x, b_y):\n", "    c_z = a_x", " + b_y\n", "    return c_z\n", "tail_fn(1, 2)\n"]:
        typed += piece
        doc.replace_all(typed)
        del calls[:]
        predictor.answer(context_at(doc, len(typed.encode())))
        reads.append(sum(calls))
    assert max(reads[1:]) < min(predictor.bounds.context / 2, incremental.EVERY)


def test_typing_an_identifier_reuses_the_answer_without_reading_the_tree(toy_checkpoint, monkeypatch):
    from treecomplete.engines import predictor as module

    predictor = Predictor.load(toy_checkpoint, "cpu")
    flattened = []
    flatten_before = module.flatten_before
    monkeypatch.setattr(module, "flatten_before", lambda *a: flattened.append(1) or flatten_before(*a))
    head = toy_source(random.Random(5)) + "result = "
    tail = "\nprint(result)\n"
    doc = Document(URI, head + "tot" + tail, 1, PYTHON)
    first = predictor.answer(context_at(doc, len((head + "tot").encode())))
    assert len(flattened) == 1
    doc.replace_all(head + "total" + tail)  # two more characters of the same identifier
    context = context_at(doc, len((head + "total").encode()))
    again = predictor.answer(context)
    assert again is first and len(flattened) == 1  # the text around the prefix is the same
    _same(again.predictions, _fresh(predictor).answer(context).predictions)  # and so is what the model says
    flattened.clear()
    doc.replace_all(head + "total" + tail.replace("result", "other"))  # code after the cursor changed
    predictor.answer(context_at(doc, len((head + "total").encode())))
    assert len(flattened) == 1
    doc.replace_all(head + "X" + tail)  # another first character: other candidates
    predictor.answer(context_at(doc, len((head + "X").encode())))
    assert len(flattened) == 2


def test_closing_a_document_drops_its_state(toy_checkpoint):
    from treecomplete.engines.registry import Registry
    from treecomplete.service import CompletionService

    service = CompletionService(models=Registry(), wait_for_models=True)
    service.models.configure(str(toy_checkpoint))
    text = toy_source(random.Random(1)) + "x"
    service.open(URI, "python", 1, text)
    lines = text.split("\n")
    assert service.complete(URI, len(lines) - 1, len(lines[-1]), 10) is not None
    predictor = service.models.get("python")
    assert URI in predictor.sessions and predictor._recent and len(predictor.flat_memo)
    service.close(URI)  # the last one open: what the model remembers of any document goes too
    assert URI not in predictor.sessions and not predictor._recent and not len(predictor.flat_memo)


def test_sessions_stay_under_their_memory_cap(toy_checkpoint):
    predictor = Predictor.load(toy_checkpoint, "cpu")
    rng = random.Random(5)
    texts = [toy_source(rng) for _ in range(6)]
    for i, text in enumerate(texts):
        doc = Document(f"file:///work/m{i}.py", text, 1, PYTHON)
        predictor.answer(context_at(doc, len(text.encode()) - 1))
    one = max(predictor.sessions.get(u).nbytes() for u in predictor.sessions.uris())
    capped = Predictor.load(toy_checkpoint, "cpu")
    capped.sessions = Sessions(cap=int(one * 2.5))
    for i, text in enumerate(texts):
        doc = Document(f"file:///work/m{i}.py", text, 1, PYTHON)
        capped.answer(context_at(doc, len(text.encode()) - 1))
        assert capped.sessions.total() <= capped.sessions.cap
    kept = list(capped.sessions.uris())
    assert 1 <= len(kept) < len(texts) and kept[-1] == "file:///work/m5.py"  # the most recent stays


@pytest.mark.parametrize("model", ["toy_checkpoint", "toy_transformer"])
def test_every_session_starts_from_one_empty_state_counted_nowhere_and_left_unchanged(model, request):
    predictor = Predictor.load(request.getfixturevalue(model), "cpu")
    rng = random.Random(9)
    for i in range(3):
        text = toy_source(rng)
        doc = Document(f"file:///work/e{i}.py", text, 1, PYTHON)
        for end in (len(text) // 2, len(text) - 1):
            predictor.answer(context_at(doc, len(text[:end].encode())))
    sessions = [predictor.sessions.get(u) for u in predictor.sessions.uris()]
    starts = {id(s.snapshots[0]) for s in sessions}
    assert len(sessions) == 3 and len(starts) == 1
    assert all(s.nbytes() == sum(n.nbytes() for i, n in s.snapshots.items() if i) for s in sessions)
    fresh = predictor.model.initial_state(1, "cpu")

    def tensors(state):
        for value in vars(state).values():
            if isinstance(value, torch.Tensor):
                yield value
            elif value is not None and hasattr(value, "__dataclass_fields__"):
                yield from tensors(value)

    assert all(torch.equal(a, b) for a, b in zip(tensors(sessions[0].snapshots[0].state), tensors(fresh)))

@pytest.mark.parametrize("model", ["toy_checkpoint", "toy_transformer"])
def test_a_snapshot_holds_no_more_memory_than_it_counts(model, request):
    """The attention memory after a read is a slice of a larger block: a snapshot copies its
    slice out, so the sessions' cap is on the memory they really hold."""
    predictor = Predictor.load(request.getfixturevalue(model), "cpu")
    text = toy_source(random.Random(3))
    doc = Document(URI, text, 1, PYTHON)
    predictor.answer(context_at(doc, len(text.encode()) - 1))

    def held(state) -> int:
        out = 0
        for value in vars(state).values():
            if isinstance(value, torch.Tensor):
                out += value.untyped_storage().nbytes()
            elif value is not None and hasattr(value, "__dataclass_fields__"):
                out += held(value)
        return out

    snapshots = list(predictor.sessions.get(URI).snapshots.values())
    assert len(snapshots) > 1
    assert all(held(s.state) == s.state.nbytes() for s in snapshots)
