"""Multi-token completions: rendering generated nodes back to source, and the beam search's
time bound."""

from __future__ import annotations

import time

import pytest

from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.sources import chains
from treecomplete.sources.chains import Node, render
from treecomplete.engines.predictor import Predictor
from treecomplete.engines.registry import resolve
from treecomplete.languages import CHAINS, PYTHON

PY = CHAINS["python"]
JS = CHAINS["javascript"]


def _tree(spec: list[tuple[str, str, int | None]]) -> list[Node]:
    """Nodes from (type, value, parent index) in pre-order."""
    nodes = []
    for i, (kind, value, parent) in enumerate(spec):
        nodes.append(Node(kind, value, False, False, parent, 0))
        if parent is not None:
            nodes[parent].children.append(i)
    return nodes


def test_render_an_attribute_chain_up_to_the_call():
    # os.path.join(...): call(attribute(attribute(os, path), join), argument_list)
    nodes = _tree([("call", "EMPTY", None), ("attribute", "EMPTY", 0), ("attribute", "EMPTY", 1),
                   ("identifier", "os", 2), ("identifier", "path", 2), ("identifier", "join", 1),
                   ("argument_list", "EMPTY", 0)])
    assert render(nodes, PY) == "os.path.join("
    unfinished = _tree([("call", "EMPTY", None), ("attribute", "EMPTY", 0), ("identifier", "os", 1),
                        ("identifier", "sep", 1)])
    assert render(unfinished, PY) is None  # a call without its arguments is no chain


def test_render_javascript_members_and_refuse_other_shapes():
    nodes = _tree([("call_expression", "EMPTY", None), ("member_expression", "EMPTY", 0),
                   ("identifier", "document", 1), ("property_identifier", "getElementById", 1),
                   ("arguments", "EMPTY", 0)])
    assert render(nodes, JS) == "document.getElementById("
    assert render(_tree([("member_expression", "EMPTY", None), ("identifier", "a", 0)]), JS) is None
    assert render(_tree([("binary_expression", "EMPTY", None), ("identifier", "a", 0)]), JS) is None


def test_beam_search_stops_at_its_time_bound(monkeypatch):
    # the shipped model (loaded, not trained: the toy corpus has no calls or attributes to search)
    predictor = Predictor.load(resolve("python-pointer-lstm"), "cpu")
    text = "import os\n\n\ndef make(base):\n    return os.pa"
    doc = Document("file:///t.py", text, 1, PYTHON)
    context = context_at(doc, len(text.encode()))
    predictor.answer(context)  # the context is read; what follows is the search alone
    steps = []
    run = predictor.run

    def slow(state, rows):
        if len(rows) > 1 or len(rows[0]) == 1:  # a beam step (batched single inputs)
            steps.append(time.perf_counter())
            time.sleep(0.02)
        return run(state, rows)

    searches = []
    search = chains.search

    def timed(*args):  # the budget runs from the search's start, not the request's
        searches.append(time.perf_counter())
        return search(*args)

    monkeypatch.setattr(chains, "search", timed)
    predictor.run = slow
    predictor.forget_answers()
    began = time.perf_counter()
    predictor.answer(context, chain_budget=0.05)
    elapsed = time.perf_counter() - began
    # 0.05 s of budget at 0.02 s a step: after the first step, none that would end past the
    # deadline is started (two steps fit; a third would end at 0.06 s)
    assert 1 <= len(steps) <= 2 and len(searches) == 1
    assert all(t + 0.02 - searches[0] <= 0.05 + 0.005 for t in steps)
    assert elapsed < 1.0
    steps.clear()
    predictor.forget_answers()
    predictor.run = run
    # given time (a bound, not a wait: the search ends with its beams), it finds continuations,
    # on a machine busy with other work too
    assert predictor.answer(context, chain_budget=10.0).chains
    predictor.run = slow
    steps.clear()
    predictor.forget_answers()
    predictor.answer(context, chain_budget=0.0)
    assert steps == []  # no budget: no search


def test_beam_search_stops_at_its_count_of_steps_whatever_the_time():
    predictor = Predictor.load(resolve("python-pointer-lstm"), "cpu")
    text = "import os\n\n\ndef make(base):\n    return os.pa"
    context = context_at(Document("file:///t.py", text, 1, PYTHON), len(text.encode()))
    predictor.answer(context)
    steps = []
    run = predictor.run

    def counted(state, rows):
        if len(rows) > 1 or len(rows[0]) == 1:  # a beam step
            steps.append(1)
        return run(state, rows)

    predictor.run = counted
    answers = []
    for _ in range(2):
        predictor.forget_answers()
        answers.append(predictor.answer(context, chain_budget=10.0, chain_steps=1))
    assert len(steps) == 2  # one step each, with all the time in the world
    assert answers[0].chains == answers[1].chains and answers[0].first == answers[1].first  # the same list each time
    steps.clear()
    predictor.forget_answers()
    predictor.answer(context, chain_budget=10.0, chain_steps=3)
    assert 1 <= len(steps) <= 3


def test_the_setting_turns_multi_token_items_off(toy_checkpoint):
    from treecomplete.engines.registry import Registry
    from treecomplete.service import CompletionService

    service = CompletionService(models=Registry(), wait_for_models=True)
    service.models.configure(str(toy_checkpoint))
    predictor = service.models.get("python", wait=True)
    fake = [chains.Chain("zibble_total.lower(", 0.9, "zibble_total")]
    answer = predictor.answer
    predictor.answer = lambda context, budget=0.0, steps=1: (lambda a: (setattr(a, "chains", fake), a)[1])(answer(context, budget, steps))
    text = "def blend_quorx(left_vhal, right_vhal):\n    zibble_total = left_vhal + right_vhal\n    return zib"
    service.open("file:///t.py", "python", 1, text)
    lines = text.split("\n")
    on = [c.text for c in service.complete("file:///t.py", 2, len(lines[2]), 20).candidates]
    assert "zibble_total.lower(" in on
    assert on.index("zibble_total.lower(") == on.index("zibble_total") + 1  # right after its first token
    service.neural.multi_token = False
    off = [c.text for c in service.complete("file:///t.py", 2, len(lines[2]), 20).candidates]
    assert "zibble_total.lower(" not in off and "zibble_total" in off


def test_the_search_reads_the_answers_vocabulary_row_and_finds_the_same_continuations(monkeypatch):
    predictor = Predictor.load(resolve("python-pointer-lstm"), "cpu")
    text = "import os\n\n\ndef make(base, name):\n    value = base + name\n    return va"
    context = context_at(Document("file:///t.py", text, 1, PYTHON), len(text.encode()))
    rows = []
    top = predictor.vocabulary_top

    def counted(g, k=200):
        rows.append(g.shape[0])
        return top(g, k)

    predictor.vocabulary_top = counted
    reused = predictor.answer(context, chain_budget=10.0, chain_steps=1)
    # the chain starts at the cursor: its first step takes the answer's row (one call for the
    # values at the cursor, one for the beams after the step), not a third call
    assert len(rows) == 2 and reused.first
    search = chains.search
    monkeypatch.setattr(chains, "search", lambda p, s, b, n, vocabulary=None: search(p, s, b, n))  # reads its own
    rows.clear()
    predictor.forget_answers()
    fresh = predictor.answer(context, chain_budget=10.0, chain_steps=1)
    assert len(rows) == 3
    assert fresh.chains == reused.chains and fresh.first == reused.first
