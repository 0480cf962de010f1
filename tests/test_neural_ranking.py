"""How the neural engine ranks the model's candidates together with the fallback engine's,
with a stub predictor whose answer is fixed, so each case checks the blend and nothing else."""

from __future__ import annotations

from treecomplete.engines.predictor import Answer, Prediction
from treecomplete.ranking import features
from treecomplete.service import CompletionService


class StubPredictor:
    """Stands in for the registry and for every language's predictor: a fixed answer."""

    def __init__(self, answer: Answer):
        self.fixed = answer

    def get(self, language: str, wait: bool = False) -> StubPredictor:
        return self

    def forget(self, uri: str) -> None:
        pass

    def answer(self, context, budget: float, steps: int = 1) -> Answer:
        return self.fixed


def complete(answer: Answer, text: str) -> list:
    service = CompletionService(models=StubPredictor(answer))  # type: ignore[arg-type]
    service.open("file:///t.py", "python", 1, text)
    lines = text.split("\n")
    result = service.complete("file:///t.py", len(lines) - 1, len(lines[-1]), 50)
    assert result is not None and result.engine == "neural"
    return result.candidates


# `far` at the top, 30 other words, `near` on the line before the cursor.
FILLER = "\n".join(f"w{i} = {i}" for i in range(30))
TEXT = f"far = 1\n{FILLER}\nnear = 2\n"


def test_equal_model_probabilities_leave_the_buffer_to_decide():
    ranked = [c.text for c in complete(Answer([Prediction("near", 0.3, False), Prediction("far", 0.3, False)]), TEXT)]
    assert ranked.index("near") < ranked.index("far")


def test_the_model_lifts_a_word_the_buffer_ranks_low():
    words = [c.text for c in complete(Answer([]), TEXT)]
    low = words[8]  # a word the fallback engine alone ranks ninth
    ranked = [c.text for c in complete(Answer([Prediction(low, 0.9, False)]), TEXT)]
    assert ranked.index(low) < 8


def test_how_far_the_fallback_engine_scores_apart_matters_not_only_its_order():
    """The model prefers beta 19:1; the buffer ranks alpha above it. When the fallback engine
    scores the two alike (both in code, one line apart) the model decides; when it scores them
    far apart (alpha in code, beta only inside a string) beta loses ground to alpha, though the
    same order. (Which wins then is the fitted weights' call: a word that comments or docs name
    and the model is sure of is often right.) At a statement's start the predictor's chain
    search gives the first leaf's distribution too."""
    answer = Answer([Prediction("beta", 0.95, False), Prediction("alpha", 0.05, False)], first={"beta": 0.95, "alpha": 0.05})

    def lead(text):  # alpha's score minus beta's
        scores = {c.text: c.score for c in complete(answer, text)}
        return scores["alpha"] - scores["beta"]

    alike = [c.text for c in complete(answer, "beta = 2\nalpha = 1\n")]
    assert alike.index("beta") < alike.index("alpha")
    assert lead("x = 'beta'\nalpha = 1\n") > lead("beta = 2\nalpha = 1\n") + 0.2


def test_a_structure_the_model_expects_stays_in_a_list_full_of_buffer_words():
    """A snippet takes the best fallback score, so the model's probability places it among the
    identifiers rather than behind every word of the buffer."""
    answer = Answer([Prediction(f"w{i}", 0.01, False) for i in range(30)], statement={"for_statement": 0.6})
    text = f"{FILLER}\ndef f(items):\n    "
    ranked = complete(answer, text)
    snippets = [c for c in ranked if c.snippet is not None]
    assert snippets and snippets[0].text == "for"
    assert ranked.index(snippets[0]) < 5


def test_what_followed_the_same_tokens_before_decides_between_words_otherwise_alike():
    """The model gives alpha and beta the same probability and the fallback engine ranks the
    more recent beta first; but the buffer's own `f(` was followed by alpha (engines/ngram.py)."""
    answer = Answer([Prediction("beta", 0.3, False), Prediction("alpha", 0.3, False)])
    ranked = [c.text for c in complete(answer, "def f(x):\n    pass\nf(alpha)\nbeta = 2\nf(")]
    assert ranked.index("alpha") < ranked.index("beta")
    plain = [c.text for c in complete(answer, "def f(x):\n    pass\nalpha = 1\nbeta = 2\nf(")]
    assert plain.index("beta") < plain.index("alpha")


def test_an_unlikely_structure_never_outranks_a_likely_word_of_the_buffer():
    """Snippets are in no list the ranking was fitted on: one is placed by how its features differ
    from the best identifier's, under the linear weights, so a 0.2% `assert` stays below the
    `alpha` the model copies at 60%, as a 0.2% word would."""
    answer = Answer([Prediction("alpha", 0.6, True), Prediction("abs", 0.01, False)],
                    statement={"assert_statement": 0.002, "expression_statement": 0.9}, first={"alpha": 0.6})
    ranked = [c.text for c in complete(answer, "alpha = 1\na")]
    assert ranked.index("alpha") < ranked.index("assert")
    likely = Answer(answer.predictions, statement={"assert_statement": 0.9}, first={"alpha": 0.6})
    ranked = [c.text for c in complete(likely, "alpha = 1\na")]
    assert ranked.index("assert") < 3  # a likely one still comes near the top


def test_the_model_never_offers_again_a_name_the_import_already_takes():
    answer = Answer([Prediction("Config", 0.9, True), Prediction("Connection", 0.05, False)])
    assert [c.text for c in complete(answer, "from core import Config, Co")][:1] == ["Connection"]
    assert "Config" in [c.text for c in complete(answer, "from core import Config\nx = Co")]


def test_where_an_import_names_a_module_the_model_s_builtins_come_last():
    answer = Answer([Prediction("len", 0.5, False), Prediction("value", 0.3, False), Prediction("json", 0.1, False)])
    ranked = [c.text for c in complete(answer, "value = 1\nimport ")]
    assert ranked.index("value") < ranked.index("json") and "len" not in ranked[:10]
    elsewhere = [c.text for c in complete(answer, "value = 1\nprint(")]
    assert elsewhere.index("len") < elsewhere.index("json")  # the model's order where no module is named


def test_no_keyword_after_a_dot_unless_the_code_writes_it_as_a_member():
    """In JavaScript any word may name a member (``promise.catch``); a reserved word the model
    predicts after a dot is offered only where the fallback engine finds it a member: written
    after a dot in the code, or one of the language's common members."""
    service = CompletionService(models=StubPredictor(Answer([Prediction("return", 0.5, False), Prediction("function", 0.3, False),
                                                            Prediction("catch", 0.1, False), Prediction("name", 0.1, False)])))  # type: ignore[arg-type]
    text = "function greet(user) {\n  return user."
    service.open("file:///t.js", "javascript", 1, text)
    found = [c.text for c in service.complete("file:///t.js", 1, 14, 50).candidates]
    assert "name" in found and "catch" in found  # a common member (promises)
    assert "return" not in found and "function" not in found
    text = "x.return = 1;\nfunction greet(user) {\n  return user."
    service.open("file:///u.js", "javascript", 1, text)
    assert "return" in [c.text for c in service.complete("file:///u.js", 2, 14, 50).candidates]  # written as a member


def test_no_multi_token_item_where_the_code_after_the_cursor_goes_on_with_the_expression():
    from treecomplete.sources.chains import Chain

    answer = Answer([Prediction("items", 0.6, False)], chains=[Chain("items.count(", 0.5, "items")])
    service = CompletionService(models=StubPredictor(answer))  # type: ignore[arg-type]
    head = "items = []\nn = it"
    for rest, offered in (("\n", True), (".count(1)\n", False), ("(0)\n", False), ("[0]\n", False), (" + 1\n", True)):
        service.open("file:///t.py", "python", 1, head + rest)
        texts = [c.text for c in service.complete("file:///t.py", 1, 6, 20).candidates]
        assert texts[0] == "items" and ("items.count(" in texts) is offered, rest  # `it|.count(1)`: written already


def test_before_a_call_s_parenthesis_python_s_self_goes_last():
    from treecomplete.context import context_at
    from treecomplete.document import Document
    from treecomplete.engines.fallback import FallbackEngine

    answer = Answer([Prediction("self", 0.6, False), Prediction("str", 0.3, False)])
    service = CompletionService(models=StubPredictor(answer))  # type: ignore[arg-type]
    head = "class A:\n    def f(self, value):\n        obj = s"
    for rest, first in (("(value)\n", "str"), (".x\n", "self"), ("\n", "self")):
        service.open("file:///t.py", "python", 1, head + rest)
        texts = [c.text for c in service.complete("file:///t.py", 2, len("        obj = s"), 20).candidates]
        assert texts[0] == first, (rest, texts[:4])  # an instance is seldom called
    doc = Document("file:///t.py", head + "(value)\n", 1, service.get("file:///t.py").language)
    fallback = [c.text for c in FallbackEngine(lambda: [doc]).complete(context_at(doc, len(head)), 20)]
    assert fallback and fallback[0] != "self"  # the fallback engine lowers it too


def test_a_name_an_import_would_bring_carries_where_it_comes_from_in_its_features():
    # real code imports OrderedDict from collections; `near` is the buffer's, no import's
    found = {c.text: c.features for c in complete(Answer([Prediction("OrderedDict", 0.2, False)]), TEXT + "x = ")}
    imports = slice(features.IMPORTS, features.IMPORTS + len(features.IMPORT_NAMES))
    assert found["OrderedDict"][imports][2] > 0 and found["OrderedDict"][imports][:2] == (0.0, 0.0)
    assert found["near"][imports] == (0.0,) * len(features.IMPORT_NAMES)
