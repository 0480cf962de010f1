"""The predictor at a cursor: an unchanged context (typing within an identifier) is answered
from the recent answers without running the model; a changed one runs it again."""

from __future__ import annotations

import pytest

from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.engines.predictor import Predictor
from treecomplete.languages import PYTHON

SOURCE = "def blend_quorx(left_vhal, right_vhal):\n    zibble_total = left_vhal + right_vhal\n    return "


@pytest.mark.parametrize("model", ["toy_checkpoint", "toy_transformer"])
def test_an_unchanged_context_does_not_run_the_model_again(model: str, request: pytest.FixtureRequest,
                                                          monkeypatch: pytest.MonkeyPatch):
    predictor = Predictor.load(request.getfixturevalue(model), "cpu")
    calls = []
    forward = predictor.model.forward
    monkeypatch.setattr(predictor.model, "forward", lambda *a, **k: calls.append(1) or forward(*a, **k))

    def predict(text: str):
        doc = Document("file:///t.py", text, 1, PYTHON)
        return predictor.predict(context_at(doc, len(text.encode())))

    first = predict(SOURCE + "z")
    assert first and first[0].value == "zibble_total" and first[0].copied
    assert predict(SOURCE + "zi") == first and predict(SOURCE + "zib") == first  # the same context
    assert len(calls) == 1
    other = predict(SOURCE.replace("right_vhal)", "right_vhal, extra_qoz)") + "z")
    assert len(calls) == 2 and other != first


def test_parent_types_before_the_read_tail_are_those_training_sees(toy_checkpoint):
    """In a long file the tail read (LIMIT elements) starts inside bodies whose parents lie
    before it: their types come from the tree, as in the full file's sequence, not padding."""
    import random

    from treecomplete.engines.incremental import LIMIT
    from treecomplete.models.flatten import flatten, flatten_before
    from treecomplete.models.vocab import UNK_ID

    from .syntax import identifier_leaves
    from .toy import toy_source

    predictor = Predictor.load(toy_checkpoint, "cpu")
    rng = random.Random(5)
    text = "class Holder:\n" + "".join("    " + line + "\n" for s in (toy_source(rng) for _ in range(30)) for line in s.splitlines())
    tree = PYTHON.parser().parse(text.encode())
    full = flatten(tree)
    ids = [predictor.type_ids.get(t, UNK_ID) for t in full.annotated_types()]
    leaf = list(identifier_leaves(tree.root_node))[-5]
    k = full.starts.index(leaf.start_byte)
    assert k > 2 * LIMIT
    flat, target_parent = flatten_before(leaf, LIMIT)
    keys = predictor._keys(flat, 0, target_parent, leaf)
    first = k - len(flat)  # the tail's first element in the full sequence
    far = 0
    for i, key in enumerate(keys):
        j = first + i + 1  # the node input i predicts
        assert key[3] == ids[j - full.parents[j]], i
        far += j - full.parents[j] < first
    assert far >= 1  # the class body's statements: the class lies before the tail


def test_value_scores_sum_the_pointer_slots_and_weigh_the_vocabulary(toy_checkpoint):
    """By hand: the attention's slots hold the last inputs (the first slots are padding while the
    window is shorter); a value's pointer mass is the sum over its slots, times 1 - switch; its
    origin is the start of its slot of largest mass, the earlier one on a tie; the vocabulary's
    probabilities are weighed by the switch."""
    import torch

    predictor = Predictor.load(toy_checkpoint, "cpu")
    g = torch.zeros(predictor.model.config.hidden)
    alpha = torch.tensor([0.3, 0.1, 0.2, 0.2, 0.2])  # five slots, four inputs: slot 0 is padding
    window, starts = ["a", "b", "a", "c"], [10, 20, 30, 40]
    known = 5
    assert predictor.values[known] not in {"a", "b", "c", "d"}
    scores = predictor.value_scores(g, alpha, 0.5, window, starts, vocabulary=[(known, 0.4)])
    assert list(scores)[:3] == ["a", "b", "c"]  # first seen first: ties keep this order
    assert scores["a"][0] == pytest.approx(0.5 * (0.1 + 0.2)) and scores["a"][1:] == [True, 30]
    assert scores["b"][0] == pytest.approx(0.5 * 0.2) and scores["b"][1:] == [True, 20]
    assert scores["c"][0] == pytest.approx(0.5 * 0.2) and scores["c"][1:] == [True, 40]
    assert scores[predictor.values[known]] == [pytest.approx(0.2), False, None]
    # A window longer than the attention: only its last five inputs are pointed at.
    longer = predictor.value_scores(g, alpha, 0.0, ["z"] + window + ["d"], [0] + starts + [50], vocabulary=[])
    assert set(longer) == {"a", "b", "c", "d"} and longer["a"][0] == pytest.approx(0.3 + 0.2)
    assert longer["a"][2] == 10  # slot 0's mass 0.3 beats slot 2's 0.2
    assert longer["d"] == [pytest.approx(0.2), True, 50]
    # No starts: no origins; zero mass: not a candidate.
    bare = predictor.value_scores(g, torch.tensor([0.0, 1.0]), 0.0, ["q", "r"], vocabulary=[])
    assert bare == {"r": [1.0, True, None]}
    tie = predictor.value_scores(g, torch.tensor([0.5, 0.5]), 0.0, ["q", "q"], [1, 2], vocabulary=[])
    assert tie == {"q": [1.0, True, 1]}


def _keys_at(predictor: Predictor, text: str, offset: int):
    from treecomplete.engines.incremental import LIMIT
    from treecomplete.models.flatten import flatten_before

    context = context_at(Document("file:///t.py", text, 1, PYTHON), offset)
    flat, target_parent = flatten_before(context.target, LIMIT)
    return context, flat, predictor._keys(flat, 0, target_parent, context.target), predictor._cuts(context, flat, 0)


def test_at_a_member_the_call_not_typed_yet_is_read_as_if_typed(toy_members):
    """Training saw ``box.item.get`` under its call; at ``box.item.|`` the buffer has none. The
    inputs the predictor reads for the call are exactly those of the buffer with ``()`` typed,
    and its answer mixes the two readings (each value's probability between them)."""
    predictor = Predictor.load(toy_members, "cpu")
    text = "def run(box, count):\n    total = count + box.item."
    context, flat, keys, cuts = _keys_at(predictor, text, len(text))
    called = predictor._call(context, flat, 0, keys, cuts)
    typed, typed_flat, typed_keys, typed_cuts = _keys_at(predictor, text + "()", len(text))
    assert called is not None and called.keys == typed_keys != keys
    assert predictor._call(typed, typed_flat, 0, typed_keys, typed_cuts) is None  # the call is there already
    name, name_flat, name_keys, name_cuts = _keys_at(predictor, "total = ", len("total = "))
    assert predictor._call(name, name_flat, 0, name_keys, name_cuts) is None  # not at a name that is no member

    def answer(source: str) -> dict[str, float]:
        predictor.forget_answers()
        predictor.sessions.forget("file:///t.py")
        ctx = context_at(Document("file:///t.py", source, 1, PYTHON), len(text))
        return {value: p for value, p, _, _ in predictor.answer(ctx).predictions}

    mixed, with_call = answer(text), answer(text + "()")
    import treecomplete.engines.lookahead as module

    saved, module.MIN_CALL = module.MIN_CALL, 2.0  # no mixing
    try:
        as_typed = answer(text)
    finally:
        module.MIN_CALL = saved
    assert mixed != as_typed
    for value, p in mixed.items():
        low, high = sorted((as_typed.get(value, 0.0), with_call.get(value, 0.0)))
        assert low - 1e-9 <= p <= high + 1e-9, value


def test_an_answer_s_predictions_are_plain_tuples_the_collector_stops_tracking():
    """A cached answer's ~200 predictions cost no young collection after their first."""
    import gc

    from treecomplete.engines.predictor import Prediction, _predictions

    rows = _predictions({"total": [0.2, False, 5], "zibble": [0.7, True, 12]})
    gc.collect()
    assert rows == [("zibble", 0.7, True, 12), ("total", 0.2, False, None)]  # most probable first; an origin for a copy only
    assert not any(gc.is_tracked(row) for row in rows)
    assert Prediction._make(rows[0]).origin == 12
