"""The completion context at the end of partial code: prefix, category, receiver, the node path
near the cursor and the last node before it. Each row was checked by hand against the tree."""

from __future__ import annotations

import pytest

from treecomplete.context import context_at
from treecomplete.models.flatten import EMPTY
from treecomplete.document import Document
from treecomplete.languages import JAVASCRIPT, PYTHON

# (source ending at the cursor, prefix, category, receiver, last two types of the path,
#  last (type, value) before the predicted node)
PYTHON_CASES = [
    ('import os\nos.', '', 'attribute', 'os', ('attribute', 'identifier'), ('identifier', 'os')),
    ('import os\nos.pa', 'pa', 'attribute', 'os', ('attribute', 'identifier'), ('identifier', 'os')),
    ('import os.pa', 'pa', 'attribute', None, ('dotted_name', 'identifier'), ('identifier', 'os')),
    ('from collections import Ord', 'Ord', 'name', None, ('dotted_name', 'identifier'), ('dotted_name', 'EMPTY')),
    ('def ', '', 'name', None, ('ERROR', 'identifier'), ('ERROR', 'EMPTY')),
    ('def lo', 'lo', 'name', None, ('ERROR', 'identifier'), ('ERROR', 'EMPTY')),
    ('def load(pa', 'pa', 'name', None, ('ERROR', 'identifier'), ('identifier', 'load')),
    ('def load(path):\n    return pa', 'pa', 'name', None, ('return_statement', 'identifier'), ('return_statement', 'EMPTY')),
    ('print(foo(1, [2, ba', 'ba', 'name', None, ('ERROR', 'identifier'), ('integer', '2')),
    ("x = {'a': va", 'va', 'name', None, ('ERROR', 'identifier'), ('string', "'a'")),
    ('class Foo(Ba', 'Ba', 'name', None, ('ERROR', 'identifier'), ('identifier', 'Foo')),
    ('class Foo:\n    def __init__(self):\n        self.', '', 'attribute', 'self', ('attribute', 'identifier'), ('identifier', 'self')),
    ('for item in ite', 'ite', 'name', None, ('ERROR', 'identifier'), ('identifier', 'item')),
    ('with open(p) as fh:\n    fh.', '', 'attribute', 'fh', ('attribute', 'identifier'), ('identifier', 'fh')),
    ('x = [i for i in ra', 'ra', 'name', None, ('ERROR', 'identifier'), ('identifier', 'i')),
    ('# a comment wor', 'wor', 'comment', None, ('module', 'comment'), ('module', 'EMPTY')),
    ("s = 'a string wo", 'wo', 'string', None, ('assignment', 'identifier'), ('identifier', 'string')),
    ('if x and not y', 'y', 'name', None, ('ERROR', 'identifier'), ('identifier', 'x')),
    ('obj.attr.', '', 'attribute', 'obj.attr', ('attribute', 'identifier'), ('identifier', 'attr')),
    ('lambda k: k.', '', 'attribute', 'k', ('attribute', 'identifier'), ('identifier', 'k')),
    ('@decor', 'decor', 'name', None, ('decorator', 'identifier'), ('decorator', 'EMPTY')),
    ('try:\n    pass\nexcept Val', 'Val', 'name', None, ('ERROR', 'identifier'), ('ERROR', 'EMPTY')),
    ('x = 3.', '', 'number', None, ('assignment', 'identifier'), ('float', '3.')),
    ('a = b\n\n', '', 'name', None, ('expression_statement', 'identifier'), ('expression_statement', 'EMPTY')),
    ('x = f"{obj.at', 'at', 'attribute', 'obj', ('attribute', 'identifier'), ('identifier', 'obj')),
    ('x = f"abc {y} de', 'de', 'string', None, ('assignment', 'identifier'), ('identifier', 'y')),
    ('x = "a#b" + fo', 'fo', 'name', None, ('binary_operator', 'identifier'), ('operator', '+')),
]
JAVASCRIPT_CASES = [
    ("const fs = require('fs');\nfs.", '', 'attribute', 'fs', ('member_expression', 'property_identifier'), ('identifier', 'fs')),
    ('fs.readF', 'readF', 'attribute', 'fs', ('member_expression', 'property_identifier'), ('identifier', 'fs')),
    ('import { use', 'use', 'name', None, ('import_specifier', 'identifier'), ('import_specifier', 'EMPTY')),
    ('function ', '', 'name', None, ('ERROR', 'identifier'), ('ERROR', 'EMPTY')),
    ('function lo', 'lo', 'name', None, ('ERROR', 'identifier'), ('ERROR', 'EMPTY')),
    ('function load(pa', 'pa', 'name', None, ('ERROR', 'identifier'), ('identifier', 'load')),
    ('function load(path) {\n  return pa', 'pa', 'name', None, ('return_statement', 'identifier'), ('return_statement', 'EMPTY')),
    ('foo(1, [2, ba', 'ba', 'name', None, ('ERROR', 'identifier'), ('number', '2')),
    ('const o = { key: va', 'va', 'name', None, ('pair', 'identifier'), ('property_identifier', 'key')),
    ('class Foo extends Ba', 'Ba', 'name', None, ('class_heritage', 'identifier'), ('class_heritage', 'EMPTY')),
    ('class Foo {\n  constructor() {\n    this.', '', 'attribute', 'this', ('member_expression', 'property_identifier'), ('this', 'this')),
    ('for (const item of ite', 'ite', 'name', None, ('ERROR', 'identifier'), ('identifier', 'item')),
    ('const f = (x) => x.', '', 'attribute', 'x', ('member_expression', 'property_identifier'), ('identifier', 'x')),
    ('// a comment wor', 'wor', 'comment', None, ('program', 'comment'), ('program', 'EMPTY')),
    ("const s = 'a string wo", 'wo', 'string', None, ('ERROR', 'string_fragment'), ('identifier', 's')),
    ('if (x && !y', 'y', 'name', None, ('unary_expression', 'identifier'), ('operator', '!')),
    ('obj.attr.', '', 'attribute', 'obj.attr', ('member_expression', 'property_identifier'), ('property_identifier', 'attr')),
    ('const { a, b } = ob', 'ob', 'name', None, ('variable_declarator', 'identifier'), ('shorthand_property_identifier_pattern', 'b')),
    ('export default fu', 'fu', 'name', None, ('export_statement', 'identifier'), ('export_statement', 'EMPTY')),
    ('try {} catch (e) { e.', '', 'attribute', 'e', ('member_expression', 'property_identifier'), ('identifier', 'e')),
    ('const t = `hi ${na', 'na', 'name', None, ('ERROR', 'identifier'), ('string_fragment', 'hi ')),
    ('promise.then((res) => res.', '', 'attribute', 'res', ('member_expression', 'property_identifier'), ('identifier', 'res')),
    ('x = ...ar', 'ar', 'name', None, ('assignment_expression', 'identifier'), ('ERROR', 'EMPTY')),
    ('<div>{ite', 'ite', 'name', None, ('ERROR', 'identifier'), ('identifier', 'div')),
    ("const s = 'it\\'s' + fo", 'fo', 'name', None, ('binary_expression', 'identifier'), ('operator', '+')),
]


def _context(language, source, offset=None):
    doc = Document("file:///t", source, 1, language)
    return context_at(doc, len(doc.data) if offset is None else offset)


@pytest.mark.parametrize(("language", "case"), [(PYTHON, c) for c in PYTHON_CASES] + [(JAVASCRIPT, c) for c in JAVASCRIPT_CASES])
def test_context_at_end_of_partial_code(language, case):
    source, prefix, category, receiver, path_tail, last = case
    context = _context(language, source)
    assert context.prefix == prefix
    assert context.category == category
    assert context.receiver == receiver
    assert context.path[-2:] == path_tail
    nodes = context.preceding_nodes(1)
    assert (nodes[-1] if nodes else None) == last


def test_enough_cases_per_language():
    assert len(PYTHON_CASES) >= 20 and len(JAVASCRIPT_CASES) >= 20


def test_cursor_in_the_middle_keeps_the_code_after_it():
    source = "import os\nos.pa\nprint(1)\n"
    context = _context(PYTHON, source, source.index("\nprint"))
    assert (context.prefix, context.category, context.receiver) == ("pa", "attribute", "os")
    assert context.path[-3:] == ("expression_statement", "attribute", "identifier")


def test_multibyte_prefix_and_offsets():
    source = "größe = 1\nprint(grö"
    context = _context(PYTHON, source)
    assert context.prefix == "grö"
    assert context.cursor - context.prefix_start == len("grö".encode())


def test_preceding_nodes_are_pre_order_and_bounded():
    context = _context(PYTHON, "a = b + c\nd")
    assert context.preceding_nodes() == [
        ("module", EMPTY),
        ("expression_statement", EMPTY),
        ("assignment", EMPTY),
        ("identifier", "a"),
        ("binary_operator", EMPTY),
        ("identifier", "b"),
        ("operator", "+"),
        ("identifier", "c"),
        ("expression_statement", EMPTY),
    ]
    assert context.preceding_nodes(3) == context.preceding_nodes()[-3:]
    big = _context(PYTHON, "x = 1\n" * 5000 + "y")
    assert len(big.preceding_nodes(1000)) == 1000


def test_no_tree_no_context():
    doc = Document("file:///t.txt", "hello", 1, None)
    assert context_at(doc, 3) is None


@pytest.mark.parametrize(("source", "category"), [
    ("throw new Error(`'${fi", "name"),  # a quote inside a template's text opens nothing
    ("const s = `it's ${this.na", "attribute"),
    ("const s = `it's`; fo", "name"),
    ("const s = `a ${b} c", "string"),
    ("const s = `a ${f({ x: 1 })} c", "string"),
    ("const s = `a ${f({ x: y", "name"),
    ("const s = 'a ${b", "string"),  # not a template
    ("const s = `a {b", "string"),  # a brace without `$`
])
def test_template_strings_substitutions_are_code(source, category):
    assert _context(JAVASCRIPT, source).category == category


@pytest.mark.parametrize(("source", "category"), [
    ("if (/^https?:\\/\\//i.test(this.or", "attribute"),  # `//` in a regular expression is no comment
    ("if (!/^(W\\/)?\"/.te", "attribute"),  # nor is its quote a string
    ("const r = /[/'\"]/g; fo", "name"),
    ("return /a'/.te", "attribute"),
    ("const half = a / 2; // a commen", "comment"),  # a division, then a comment
    ("const x = a / b + 'str", "string"),
])
def test_regular_expression_literals_open_nothing(source, category):
    assert _context(JAVASCRIPT, source).category == category


@pytest.mark.parametrize(("source", "category"), [
    ("const html = `\n  <p>${name}</p>\n`).trim().le", "attribute"),  # a template that an earlier line opened closes here
    ("const html = `\n  <p>it's ${na", "name"),
    ("const html = `\n  <p>${name}</p> wor", "string"),
    ("const html = `${\n  items.ma", "attribute"),  # in a substitution an earlier line opened
])
def test_a_template_string_opened_on_an_earlier_line(source, category):
    assert _context(JAVASCRIPT, source).category == category
