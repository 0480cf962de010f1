"""The function around the cursor (server/scope.py), in whole buffers and in buffers cut at the
cursor, where error recovery leaves the function's parts loose in an ERROR node."""

from __future__ import annotations

import pytest

from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.languages import JAVASCRIPT, PYTHON
from treecomplete.scope import function_around, parameters_of


def _around(language, source):
    doc = Document("file:///main", source, 1, language)
    context = context_at(doc, len(doc.data))
    found = function_around(language.name, context.target)
    return None if found is None else (set(found.parameters), source.encode()[found.start:].split(b"\n")[0].decode())


@pytest.mark.parametrize(("source", "parameters", "first_line"), [
    # a method whose body is still open, after a closed one
    ("class A {\n  foo(b) { return b; }\n  allow(allowExcess = true) {\n    this._allow = !!a",
     {"allowExcess"}, "(allowExcess = true) {"),
    # blocks of an if and a loop inside the function are not functions
    ("function outer(p, q) {\n  if (p) {\n    while (q) {\n      x = q", {"p", "q"}, "(p, q) {"),
    # a callback's block, inside a call's arguments
    ("function outer(p) {\n  args.map((arg) => {\n    if (!a", {"arg"}, "(arg) => {"),
    # an arrow's expression body, and a lone parameter
    ("const f = (name) => new Command(n", {"name"}, "(name) => new Command(n"),
    ("const g = h(item => ite", {"item"}, "item => ite"),
    # a closed function before the cursor is not the one around it
    ("function outer(p, q) {\n  function inner(z) { if (z) { return 1; } }\n  return p + q",
     {"p", "q"}, "function outer(p, q) {"),
    ("obj.m = function named(req, res) {\n  r", {"req", "res"}, "function named(req, res) {"),
    ("function f(a, {b, c: d}, [e], ...rest) {\n  x = [r", {"a", "b", "d", "e", "rest"}, "(a, {b, c: d}, [e], ...rest) {"),
])
def test_javascript_the_function_whose_body_is_open_at_the_cursor(source, parameters, first_line):
    assert _around(JAVASCRIPT, source) == (parameters, first_line)


@pytest.mark.parametrize("source", ["const a = 1;\nif (a) {\n  b = a", "for (const x of y) {\n  z(x", "x = {\n  a: b"])
def test_javascript_blocks_that_are_no_function(source):
    assert _around(JAVASCRIPT, source) is None


@pytest.mark.parametrize(("source", "parameters", "first_line"), [
    ("def f(a, b) -> int:\n    return g(a, b", {"a", "b"}, "def f(a, b) -> int:"),
    # an f-string's unclosed `{` leaves the method's parts in an ERROR
    ("class A:\n    def f(self, a):\n        return f\"{s", {"self", "a"}, "(self, a):"),
    ("def f(a):\n    return lambda q: q + a", {"q"}, "lambda q: q + a"),
])
def test_python_the_function_around_the_cursor(source, parameters, first_line):
    assert _around(PYTHON, source) == (parameters, first_line)


def test_python_none_at_the_top_level():
    assert _around(PYTHON, "x = 1\ny = foo(x") is None


def test_parameter_names_of_every_form():
    tree = PYTHON.parser().parse(b"def f(self, a: int, b=1, *args, c: str = '', d, **kw): pass\n")
    assert parameters_of(tree.root_node.children[0]) == {"self", "a", "b", "args", "c", "d", "kw"}
    tree = JAVASCRIPT.parser().parse(b"function f(a, {b, c: d, e = 1}, [g, ...h], i = 2, ...j) {}")
    assert parameters_of(tree.root_node.children[0]) == {"a", "b", "d", "e", "g", "h", "i", "j"}
