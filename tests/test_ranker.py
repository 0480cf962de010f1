"""The neural engine's ranker: the features a candidate brings, the default weights, and the
listwise fit of benchmarks/ranking.py on lists where one feature decides."""

from __future__ import annotations

import math
import random

import pytest
import torch

from benchmarks.ranking import NOT_HIDDEN, fit, fit_hidden, score
from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.engines import neural
from treecomplete.ranking import features, linear_weights, ranker
from treecomplete.sources import buffer
from treecomplete.engines.base import Candidate, Kind
from treecomplete.engines.fallback import FallbackEngine
from treecomplete.languages import JAVASCRIPT, PYTHON


def _fallback(language, source):
    doc = Document("file:///main", source, 1, language)
    return {c.text: c for c in FallbackEngine(lambda: [doc]).complete(context_at(doc, len(doc.data)), 50)}


def test_the_fallback_engine_says_where_it_found_each_word():
    found = _fallback(PYTHON, "import os\nalpha = 1\nx = 'beta'\nos.getcwd()\nos.")
    tier, recency, count, same, member, only_member, case, *project, known, uses = found["getcwd"].features[:-6]
    assert (tier, same, member, project) == (buffer.CODE, 1, 0, [0, 0, 0, 0, 0, 0])  # no project index
    assert (known, uses) == (0, 0)  # nor libraries
    assert found["getcwd"].features[-6:] == (0, 0, 0, 0, 0, 0)  # nor code after the cursor, nor imports elsewhere
    assert found["beta"].features[0] == buffer.QUOTED
    # seven words before the cursor (keywords count), alpha the third: d = 7 - 2
    assert found["alpha"].features[:5] == (buffer.CODE, math.log1p(5), math.log1p(1), 0, 0)
    # after a dot the standard types' members stand in for the builtins
    assert found["append"].features[0] == buffer.BUILTIN and "len" not in found
    assert _fallback(PYTHON, "alpha = 1\nle")["len"].features[0] == buffer.BUILTIN
    names = _fallback(PYTHON, "os.getcwd()\nalpha = 1\nGe")
    assert names["getcwd"].features[5] == 1 and names["getcwd"].features[6] == 0  # only after dots; case differs


def test_without_fitted_weights_the_score_is_the_hand_set_one():
    blend = ranker.Ranker("no such language")
    listed = Candidate("alpha", Kind.FUNCTION, 7.5, features=(buffer.CODE, 1.0, 2.0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0))
    x = features.of(0.2, False, 3, listed, -1.5)
    assert x[features.KINDS[Kind.FUNCTION]] == 1.0 and x[4 + buffer.CODE] == 1.0
    expected = 0.5 * math.log(0.2) - 0.5 * math.log(4) + 7.5 + 1.25 * -1.5
    for block in range(len(features.CASES)):
        assert blend.score(x, block) == pytest.approx(expected)
    unlisted = features.of(0.0, False, features.ABSENT, None, -3.0)
    assert blend.score(unlisted, 0) == pytest.approx(0.5 * math.log(features.FLOOR) - 0.5 * math.log(101) - 3.75)


def test_a_language_borrows_weights_or_a_hidden_layer_it_has_none_of(monkeypatch):
    monkeypatch.setitem(linear_weights.WEIGHTS, "mine", tuple(range(features.SIZE * len(features.CASES))))
    monkeypatch.setitem(linear_weights.HIDDEN, "mine", "javascript")  # fitted on top of JavaScript's layer
    weights, layer = ranker.weights_of("mine")
    assert weights[3] == 3 and layer is linear_weights.HIDDEN["javascript"]
    monkeypatch.setitem(ranker.BORROWED, "other", "mine")
    assert ranker.weights_of("other") == (weights, layer)  # no weights of its own: another language's
    assert ranker.weights_of("no such language") == (ranker.DEFAULT, None)


def test_weights_of_the_wrong_size_are_refused(monkeypatch):
    monkeypatch.setitem(linear_weights.WEIGHTS, "python", (1.0, 2.0))
    with pytest.raises(ValueError, match="python"):
        ranker.Ranker("python")


def test_the_cases_split_after_a_dot_and_a_typed_prefix():
    assert [features.case(c, p) for c in ("attribute", "name") for p in ("", "a")] == [0, 1, 2, 3]


@pytest.mark.parametrize("language, source, parameters, bound", [
    (PYTHON, "def f(alpha, beta: int = 3, *gamma, **delta):\n    x = 1\n    y: int = 2\n    for item in x:\n"
             "        with open(a) as fh:\n            if x == 2:\n                ",
     {"alpha", "beta", "gamma", "delta"}, {"x", "y", "item", "fh"}),
    (JAVASCRIPT, "function f(a, {b}, c = 2, ...d) {\n  const e = 1;\n  let g;\n  h = 2;\n  return ",
     {"a", "b", "c", "d"}, {"e", "g", "h"}),
    (JAVASCRIPT, "const g = item => ", {"item"}, set()),
    (PYTHON, "x = 1\n", set(), set()),
])
def test_names_of_the_function_around_the_cursor(language, source, parameters, bound):
    doc = Document("file:///main", source, 1, language)
    engine = neural.NeuralEngine(FallbackEngine(), lambda language: None)
    assert engine._locals(context_at(doc, len(doc.data))) == (parameters, bound)


def _lists(n: int, decisive: int, seed: int):
    """Lists of 6 candidates with random features where feature ``decisive`` is highest at the truth."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        x = torch.tensor([[rng.gauss(0, 1) for _ in range(features.SIZE)] for _ in range(6)], dtype=torch.float64)
        truth = int(x[:, decisive].argmax())
        rows.append((i % 2, 1, 3, x, truth, "prefix"))
    return rows


def test_the_fit_learns_the_feature_that_decides():
    decisive = features.NAMES.index("ln(1+d)")
    train, check = _lists(400, decisive, 0), _lists(200, decisive, 1)
    before = score(check, list(ranker.DEFAULT)).summary()["k=1 all"]["top1"]
    weights = fit(train, l2=0.001)
    w = weights[3 * features.SIZE:4 * features.SIZE]
    assert max(range(features.SIZE), key=lambda i: abs(w[i])) == decisive and w[decisive] > 0
    assert weights[:3 * features.SIZE] == pytest.approx(list(ranker.DEFAULT[:3 * features.SIZE]))  # no data: unchanged
    after = score(check, weights).summary()["k=1 all"]["top1"]
    assert after > 0.9 > before


def test_a_hidden_layer_adds_to_the_linear_score(monkeypatch):
    size, cases = features.SIZE, len(features.CASES)
    rng = random.Random(3)
    layer = {"w": [[rng.uniform(-0.3, 0.3) for _ in range(size + cases)] for _ in range(4)],
             "b": [0.1, -0.2, 0.3, 0.0], "v": [1.0, -0.5, 0.25, 2.0]}
    monkeypatch.setitem(linear_weights.HIDDEN, "no such language", layer)
    blend = ranker.Ranker("no such language")
    xs = [[rng.gauss(0, 1) for _ in range(size)] for _ in range(3)]
    for block in range(cases):
        linear = [sum(w * f for w, f in zip(ranker.DEFAULT[block * size:(block + 1) * size], x)) for x in xs]
        hidden = [sum(v * math.tanh(sum(w * f for w, f in zip(row, x + [float(c == block) for c in range(cases)])) + b)
                      for row, b, v in zip(layer["w"], layer["b"], layer["v"])) for x in xs]
        assert blend.scores(xs, block) == pytest.approx([a + b for a, b in zip(linear, hidden)])
        assert blend.score(xs[0], block) == pytest.approx(linear[0] + hidden[0])
    monkeypatch.setitem(linear_weights.HIDDEN, "no such language", {**layer, "w": [row[:-1] for row in layer["w"]]})
    with pytest.raises(ValueError, match="hidden layer"):
        ranker.Ranker("no such language")


def test_the_hidden_layer_learns_what_no_linear_score_can():
    # the truth is the candidate whose feature is nearest zero: no weight on it ranks that first
    decisive = features.NAMES.index("ln(1+c)")

    def lists(n, seed):
        rows = _lists(n, decisive, seed)
        return [(fold, k, block, x, int(x[:, decisive].abs().argmin()), mode) for fold, k, block, x, _, mode in rows]

    train, check = lists(600, 0), lists(200, 1)
    linear = fit(train, l2=0.001)
    weights, layer = fit_hidden(train, linear, hidden=8, epochs=150)
    plain = score(check, linear).summary()["k=1 all"]["top1"]
    assert score(check, weights, layer).summary()["k=1 all"]["top1"] > plain + 0.3
    # the recency signals reach the linear weights only: between words alike but for them, those decide
    unseen = [features.NAMES.index(name) for name in NOT_HIDDEN]
    assert unseen and all(row[i] == 0 for row in layer["w"] for i in unseen)


def test_a_word_of_another_open_document_counts_as_one_of_another_project_file():
    # the fitted lists had one buffer open at a time: the other-document tier was never seen
    signals = (0.0, 9.5, 0, 0, 0, 1, math.log1p(3), 0, 0, 0, 0, 0)
    other = Candidate("alpha", Kind.VARIABLE, 4.0, features=(buffer.OTHER,) + signals)
    project = Candidate("alpha", Kind.VARIABLE, 4.0, features=(buffer.PROJECT, 0.0, 0.0) + signals[2:])
    assert features.of(0.1, False, 3, other, -2.0) == features.of(0.1, False, 3, project, -2.0)
    assert features.of(0.1, False, 3, other, -2.0)[25] == 1.0  # "project file"


def test_code_after_the_cursor_has_cases_of_its_own():
    """Completing inside a file and at its end are told apart by what follows the cursor: white
    space alone (a buffer ending there) keeps the first four cases' weights."""
    data = b"total = 1\nprint(to"
    assert not features.code_after(data + b"  \n\t\n", len(data))
    assert features.code_after(data + b")\n", len(data))
    assert features.case("name", "", False) == 2 and features.case("name", "", True) == 6
    assert features.case("attribute", "x", True) == 5 and features.CASES[5] == "after a dot, k>0, code after"
