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
