"""Structure templates: the buffer's indentation, and plain text for clients without snippets."""

from __future__ import annotations

from treecomplete.sources import snippets


def test_indentation_follows_the_buffer():
    spaces = b"def f():\n  if x:\n    y = 1\n  "
    assert snippets.indentation(spaces, len(spaces)) == ("  ", "  ")
    tabs = b"def f():\n\tif x:\n\t\ty\n\t\t"
    assert snippets.indentation(tabs, len(tabs)) == ("\t\t", "\t")
    assert snippets.indentation(b"x", 1) == ("", "    ")  # nothing indented yet: four spaces


def test_expand_indents_nested_lines():
    body = "for ${1:item} in ${2:items}:\n\t${0:pass}"
    assert snippets.expand(body, "    ", "  ", absolute=True) == "for ${1:item} in ${2:items}:\n      ${0:pass}"
    assert snippets.expand(body, "    ", "  ", absolute=False) == "for ${1:item} in ${2:items}:\n  ${0:pass}"


def test_plain_text_keeps_the_placeholders_default_text():
    assert snippets.plain("for ${1:item} in ${2:items}:\n    ${0:pass}") == "for item in items:\n    pass"
    assert snippets.plain("return ${0};") == "return ;"
    assert snippets.plain("function ${1:name}(${2}) {\n\t$0\n}") == "function name() {\n\t\n}"


def test_every_template_is_a_valid_snippet():
    import re

    for templates in snippets.TEMPLATES.values():
        for template in templates:
            rest = snippets.PLACEHOLDER.sub("", template.body)
            assert "$" not in rest and re.search(r"\$\{?0", template.body), template
