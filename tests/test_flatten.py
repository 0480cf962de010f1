"""Flattening trees into Li et al.'s node sequences: hand-checked programs in both languages,
the element rules, and the cut at a cursor."""

from __future__ import annotations

import pytest

from treecomplete.languages import JAVASCRIPT, PYTHON
from treecomplete.models.flatten import DOC, EMPTY, LONG_STRING, flatten

# Checked by hand against the source: (type|has-child has-sibling, value, parent offset).
MY_SALARY_SOURCE = 'my_salary = 0\nfor i in range(12):\n    my_salary += 1000\nprint(my_salary)\n'
MY_SALARY = [
    ('module|10', 'EMPTY', 0),
    ('expression_statement|11', 'EMPTY', 1),
    ('assignment|10', 'EMPTY', 1),
    ('identifier|01', 'my_salary', 1),
    ('integer|00', '0', 2),
    ('for_statement|11', 'EMPTY', 5),
    ('identifier|01', 'i', 1),
    ('call|11', 'EMPTY', 2),
    ('identifier|01', 'range', 1),
    ('argument_list|10', 'EMPTY', 2),
    ('integer|00', '12', 1),
    ('block|10', 'EMPTY', 6),
    ('expression_statement|10', 'EMPTY', 1),
    ('augmented_assignment|10', 'EMPTY', 1),
    ('identifier|01', 'my_salary', 1),
    ('operator|01', '+=', 2),
    ('integer|00', '1000', 3),
    ('expression_statement|10', 'EMPTY', 17),
    ('call|10', 'EMPTY', 1),
    ('identifier|01', 'print', 1),
    ('argument_list|10', 'EMPTY', 2),
    ('identifier|00', 'my_salary', 1),
]
ADD_SOURCE = 'function add(a, b) { return a + b * 2; }\nadd(1, "x");\n'
ADD = [
    ('program|10', 'EMPTY', 0),
    ('function_declaration|11', 'EMPTY', 1),
    ('identifier|01', 'add', 1),
    ('formal_parameters|11', 'EMPTY', 2),
    ('identifier|01', 'a', 1),
    ('identifier|00', 'b', 2),
    ('statement_block|10', 'EMPTY', 5),
    ('return_statement|10', 'EMPTY', 1),
    ('binary_expression|10', 'EMPTY', 1),
    ('identifier|01', 'a', 1),
    ('operator|01', '+', 2),
    ('binary_expression|10', 'EMPTY', 3),
    ('identifier|01', 'b', 1),
    ('operator|01', '*', 2),
    ('number|00', '2', 3),
    ('expression_statement|10', 'EMPTY', 15),
    ('call_expression|10', 'EMPTY', 1),
    ('identifier|01', 'add', 1),
    ('arguments|10', 'EMPTY', 2),
    ('number|01', '1', 1),
    ('string|00', '"x"', 2),
]


def _flat(language, source: str, stop: int | None = None):
    return flatten(language.parser().parse(source.encode()), stop)


@pytest.mark.parametrize(("language", "source", "expected"), [(PYTHON, MY_SALARY_SOURCE, MY_SALARY), (JAVASCRIPT, ADD_SOURCE, ADD)])
def test_hand_checked_programs(language, source, expected):
    flat = _flat(language, source)
    assert list(zip(flat.annotated_types(), flat.values, flat.parents)) == expected


def test_strings_docstrings_comments_and_interpolations():
    source = 'def f():\n    """Docs."""\n    # a comment\n    return f"a{x}b" + "' + "y" * 120 + '"\n'
    flat = _flat(PYTHON, source)
    pairs = list(zip(flat.types, flat.values))
    assert ("string", DOC) in pairs
    assert ("string", LONG_STRING) in pairs
    assert "comment" not in flat.types
    i = flat.types.index("interpolation")
    assert flat.types[i - 1] == "string" and flat.values[i - 1] == EMPTY  # f-string: internal
    assert (flat.types[i + 1], flat.values[i + 1]) == ("identifier", "x")
    assert not {"string_start", "string_content", "string_end"} & set(flat.types)


def test_only_operator_fields_keep_anonymous_tokens():
    flat = _flat(JAVASCRIPT, "if (a !== b) { x += -y; }")
    assert [v for t, v in zip(flat.types, flat.values) if t == "operator"] == ["!==", "+=", "-"]
    assert not {"if", "(", "{", ";"} & set(flat.types)


def test_stop_ends_before_the_predicted_leaf_and_keeps_its_containers():
    source = "total = price * count\n"
    flat = _flat(PYTHON, source, stop=source.index("count"))
    assert flat.values[-2:] == ["price", "*"]
    assert flat.types[:3] == ["module", "expression_statement", "assignment"]
    # Nodes that start exactly at the cursor and contain the predicted leaf stay.
    at_start = _flat(PYTHON, source, stop=0)
    assert at_start.types == ["module", "expression_statement", "assignment"]


def test_error_nodes_are_elements():
    flat = _flat(PYTHON, "x = = 1\nprint(x\n")
    assert flat.types == ["module", "expression_statement", "assignment", "identifier", "ERROR", "integer", "ERROR", "identifier"]
    assert flat.values[-1] == "x"


def test_deep_nesting_needs_no_recursion():
    flat = _flat(PYTHON, "x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert flat.types.count("list") == 5000
    assert max(flat.parents) == 1 or flat.parents.count(1) >= 5000


def test_parent_offsets_point_at_elements_that_have_children():
    flat = _flat(PYTHON, open(__file__).read())
    for i, offset in enumerate(flat.parents):
        if offset:
            assert flat.has_child[i - offset]
    assert sum(1 for o in flat.parents if o == 0) == 1
