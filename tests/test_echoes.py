"""What a position repeats (server/sources/echoes.py): a keyword argument's name as its value, a member's
name as the value assigned to it, first in both engines once a matching character is typed."""

from __future__ import annotations

import pytest

from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.sources.echoes import echoed
from treecomplete.engines.predictor import Answer, Prediction
from treecomplete.languages import JAVASCRIPT, PYTHON, TYPESCRIPT
from treecomplete.service import CompletionService

from .test_neural_ranking import StubPredictor

PARAMETERS = "def send(content, cookies, timeout):\n"


@pytest.mark.parametrize(("language", "source", "expected"), [
    (PYTHON, PARAMETERS + "    request(content, cookies=c", "cookies"),
    (PYTHON, PARAMETERS + "    request(\n        content,\n        cookies=c", "cookies"),  # a line of its own
    (PYTHON, PARAMETERS + "    x = 1\n    cookies=c", None),  # a statement
    (PYTHON, PARAMETERS + "    self.timeout = t", "timeout"),
    (PYTHON, PARAMETERS + "    self.options.timeout = other.t", "timeout"),
    (JAVASCRIPT, "function f(timeout) {\n  this._timeout = source._t", "_timeout"),
    (TYPESCRIPT, "function f(timeout: number) {\n  this.timeout = options.t", "timeout"),
    (TYPESCRIPT, "function f(timeout: number) {\n  this.timeout = t", None),  # JavaScript: a member's value only
    (PYTHON, PARAMETERS + "    request(cookies=", None),  # nothing typed yet
    (PYTHON, PARAMETERS + "    request(cookies=x", None),  # typed, another name
    (PYTHON, PARAMETERS + "    request(cookies=C", None),  # in another case
    (PYTHON, PARAMETERS + "    if self.cookies == c", None),  # a comparison
    (PYTHON, PARAMETERS + "    cookies = c", None),  # a plain name's assignment
    (PYTHON, PARAMETERS + "    self.cookies += c", None),
    (PYTHON, PARAMETERS + "    self._timeout = self._t", None), (JAVASCRIPT, "this.a.b = this.a.b", None),  # itself
    (JAVASCRIPT, "if (this.cookies === c", None), (JAVASCRIPT, "request({ cookies: c", None),
    (PYTHON, "def send(limit: int = L):\n    pass\n", "LIMIT"), (PYTHON, "def send(limit=LI):\n    pass\n", "LIMIT"),
    (PYTHON, "def send(limit: int = l):\n    pass\n", None),  # a default is no parameter of its own function
    (PYTHON, "def send(limit: int = X):\n    pass\n", None),
])
def test_the_name_a_position_repeats(language, source, expected):
    cursor = source.index("):\n") if source.startswith("def send(limit") else len(source)  # a default: inside a file
    assert echoed(context_at(Document("file:///t", source, 1, language), len(source[:cursor].encode()))) == expected


@pytest.mark.parametrize(("language", "before", "after", "expected"), [
    (PYTHON, "    self.", " = timeout\n", "timeout"), (PYTHON, "    self.t", " = timeout\n", "timeout"),
    (PYTHON, "    request(content, ", "=cookies)\n", "cookies"), (PYTHON, "    request(\n        ", "=cookies,\n    )\n", "cookies"),
    (PYTHON, "    self.", " = None\n", None), (PYTHON, "    self.", " = timeout + 1\n", None),  # a literal; no plain name
    (PYTHON, "    self.x", " = timeout\n", None), (PYTHON, "    ", " = timeout\n", None),  # another name typed; a statement
    (PYTHON, "    self.", " == timeout\n", None),
    (JAVASCRIPT, "  this.t", " = timeout;\n", "timeout"), (JAVASCRIPT, "  exports.R", " = Router\n", "Router"),
    (JAVASCRIPT, "  this.", " = timeout;\n", None),  # JavaScript: once a character typed matches
    (JAVASCRIPT, "  res.", " = function sendStatus(code) {\n}\n", "sendStatus"),  # a named function expression's name
    (JAVASCRIPT, "  const o = { ", "match: async function match(p) {} }\n", "match"),
    (JAVASCRIPT, "  res.", " = function (code) {\n}\n", None), (JAVASCRIPT, "  res.s", " = function json(o) {}\n", None),
])
def test_inside_a_file_the_plain_name_assigned_after_the_cursor(language, before, after, expected):
    source = PARAMETERS + before if language is PYTHON else "function f(timeout) {\n" + before
    document = Document("file:///t", source + after, 1, language)
    assert echoed(context_at(document, len(source.encode()))) == expected


def test_inside_a_call_the_tree_finds_a_keyword_argument_on_a_line_of_its_own():
    source = PARAMETERS + "    request(\n        content,  # a comment\n        cookies=c,\n    )\n"
    cursor = source.index("cookies=c") + len("cookies=c")
    assert echoed(context_at(Document("file:///t", source, 1, PYTHON), cursor)) == "cookies"


def test_both_engines_offer_it_first():
    answer = Answer([Prediction("content", 0.8, True), Prediction("cookies", 0.1, True)])
    for source, after in ((PARAMETERS + "    content = 1\n    request(content, cookies=c", ")\n"),
                          (PARAMETERS + "    self.content = content\n    self.cookies = c", "\n")):
        _first_in_both_engines(answer, "python", source, after, "cookies")


def test_a_long_line_is_read_in_a_bounded_stretch():
    source = "x = [" + "a, " * 500_000 + "f(cookies=c"  # 1.5 MB on one line
    context = context_at(Document("file:///t.py", source, 1, PYTHON), len(source))
    assert echoed(context) == "cookies"
    assert echoed(context_at(Document("file:///t.py", "self.cookies = " + " " * 300 + "c", 1, PYTHON), 316)) is None


@pytest.mark.parametrize(("source", "expected"), [
    ("def f(self, env: E", "env"), ("def f(ctx: t.C", "ctx"), ("    self.commands: t.C", "commands"), ("    self.commands: t.M", None),
    ("def f(_headers: H", "headers"), ("def f(env: X", None), ("def f(env: ", None),  # nothing typed matches
    ("x = {env: E", None), ("def f(e: E", None),  # a dictionary's key; a one-letter name says nothing
])
def test_an_annotation_is_named_after_what_it_annotates(source, expected):
    from treecomplete.sources.echoes import annotated

    assert annotated(context_at(Document("file:///t", source, 1, PYTHON), len(source.encode()))) == expected


def test_both_engines_offer_the_type_named_after_the_parameter_first():
    from treecomplete.sources.echoes import named_after

    assert named_after("Context", "ctx") and named_after("HeaderTypes", "headers") and not named_after("Exception", "env")
    head = "class EscapeFormatter: pass\nclass Environment: pass\nclass Exception2: pass\n\n"
    answer = Answer([Prediction("EscapeFormatter", 0.8, True), Prediction("Environment", 0.1, True)])
    _first_in_both_engines(answer, "python", head + "def load(self, env: E", "):\n    pass\n", "Environment")


@pytest.mark.parametrize(("before", "after", "expected"), [
    ("var ", " = require('./route');\n", {"route"}), ("const ", " = require('array-flatten')\n", {"arrayflatten", "flatten"}),
    ("const ", " = require('node:child_process');\n", {"childprocess", "child_process"}), ("import ", " from 'on-finished';\n", {"onfinished", "finished"}),
    ("const ", " = require('./route').Route;\n", set()), ("const ", " = other('./route');\n", set()),  # a member of it; no require
])
def test_a_required_module_s_name_is_what_it_binds(before, after, expected):
    from treecomplete.sources.echoes import required_after

    document = Document("file:///t.js", before + after, 1, JAVASCRIPT)
    assert required_after(context_at(document, len(before))) == expected


def test_both_engines_offer_the_name_of_the_module_required_after_the_cursor_first():
    head = "const Router = 1, Roman = 2, router = 3;\n"
    answer = Answer([Prediction("router", 0.8, True), Prediction("Roman", 0.1, True), Prediction("Route", 0.01, False)])
    _first_in_both_engines(answer, "javascript", head + "function f() { return Route }\nvar R", " = require('./route');\n",
                           "Route")


def _first_in_both_engines(answer: Answer, language: str, source: str, after: str, expected: str) -> None:
    """Complete at the end of ``source`` (``after`` follows it) with a stub model's ``answer`` and
    without a model: ``expected`` first in both."""
    uri = "file:///t.py" if language == "python" else "file:///t.js"
    for service in (CompletionService(models=StubPredictor(answer)), CompletionService()):  # type: ignore[arg-type]
        service.open(uri, language, 1, source + after)
        lines = source.split("\n")
        found = [c.text for c in service.complete(uri, len(lines) - 1, len(lines[-1]), 50).candidates]
        assert found[0] == expected, (service.models, found[:5])
