"""Languages served from their grammar wheel alone (server/grammars.py): what is read from the
wheel, and the fallback engine's completions on a small document of each."""

from __future__ import annotations

from pathlib import Path

import pytest
import tree_sitter
from treecomplete import grammars
from treecomplete.context import ATTRIBUTE, COMMENT, NAME, STRING, context_at
from treecomplete.document import Document
from treecomplete.engines.base import Kind
from treecomplete.engines.fallback import FallbackEngine
from treecomplete.languages import by_name, language_for

from .grammar_samples import SAMPLES

LANGUAGES = sorted(grammars.WHEELS)


def _complete(name: str, text: str, limit: int = 30):
    language = by_name(name)
    doc = Document("file:///work/sample" + SAMPLES[name].extension, text, 1, language)
    context = context_at(doc, len(doc.data))
    return context, FallbackEngine(lambda: [doc]).complete(context, limit)


def test_every_wheel_in_the_table_is_installed_and_chosen_by_id_and_extension():
    assert set(SAMPLES) == set(grammars.WHEELS)
    for name, wheel in grammars.WHEELS.items():
        language = by_name(name)
        assert language is not None and language.grammar_only and language.name == name
        for language_id in wheel.ids:
            assert language_for(language_id, "file:///x") is language
        for extension in wheel.extensions:
            assert language_for(None, "file:///work/x" + extension.upper()) is language
    assert language_for("plaintext", "file:///x.txt") is None


@pytest.mark.parametrize("name", LANGUAGES)
def test_what_the_wheel_says_compiles_and_is_the_grammars_own(name):
    read = grammars.read(name)
    language = grammars.grammar(name)
    anonymous = {language.node_kind_for_id(i) for i in range(language.node_kind_count) if not language.node_kind_is_named(i)}
    assert read.keywords and set(read.keywords) <= anonymous  # the grammar's own word tokens
    assert read.skip_types and any("comment" in t for t in read.skip_types)
    assert any("string" in t for t in read.skip_types)
    query = by_name(name).scan  # comments, strings and tags.scm's definitions in one query
    assert isinstance(query, tree_sitter.Query)
    if grammars.queries(grammars.WHEELS[name], "tags.scm"):
        assert "@definition." in read.definitions and "@reference." not in read.definitions


@pytest.mark.parametrize("name", LANGUAGES)
def test_buffer_identifiers_and_definitions_kinds(name):
    sample = SAMPLES[name]
    context, candidates = _complete(name, sample.body + sample.function[:4])
    assert context.category == NAME
    assert candidates[0].text == sample.function
    if "definition.function" in grammars.read(name).definitions or "definition.method" in grammars.read(name).definitions:
        assert candidates[0].kind == Kind.FUNCTION
    if sample.type is not None:
        kinds = {c.text: c.kind for c in _complete(name, sample.body + sample.type[:3])[1]}
        assert kinds[sample.type] == Kind.CLASS


@pytest.mark.parametrize("name", [n for n in LANGUAGES if SAMPLES[n].member_line])
def test_members_after_the_operator_and_no_keyword_there(name):
    sample = SAMPLES[name]
    context, candidates = _complete(name, sample.body + sample.member_line)
    assert context.category == ATTRIBUTE and context.receiver is not None
    assert context.receiver.endswith("invoice")
    names = [c.text for c in candidates]
    assert set(names[:2]) == set(sample.members)
    language = by_name(name)
    assert not set(names) & set(language.keywords)
    assert all(c.kind != Kind.KEYWORD for c in candidates)


@pytest.mark.parametrize("name", LANGUAGES)
def test_keywords_where_a_statement_starts_never_as_identifiers(name):
    sample = SAMPLES[name]
    _, candidates = _complete(name, sample.body + sample.keyword[:3])
    offered = {c.text: c.kind for c in candidates}
    assert offered.get(sample.keyword) == Kind.KEYWORD
    # in the buffer the keyword is written many times; it is still offered once, as a keyword
    assert [c.text for c in candidates].count(sample.keyword) == 1


@pytest.mark.parametrize("name", LANGUAGES)
def test_no_completion_in_a_comment_or_an_open_string(name):
    sample, wheel = SAMPLES[name], grammars.WHEELS[name]
    context, candidates = _complete(name, sample.body + wheel.comments[0] + " see comp")
    assert context.category == COMMENT and candidates == []
    context, _ = _complete(name, sample.body + 'x = "the comp')
    assert context.category == STRING


def test_interpolation_in_a_string_is_code():
    context, candidates = _complete("ruby", SAMPLES["ruby"].body + '  puts "total: #{tot')
    assert context.category == NAME and candidates[0].text == "total"
    context, _ = _complete("bash", SAMPLES["bash"].body + '  echo "${#')
    assert context.category != COMMENT


def test_a_missing_wheel_leaves_its_language_unsupported(monkeypatch):
    grammars.grammar.cache_clear()
    monkeypatch.setitem(grammars.WHEELS, "go", grammars.Wheel("tree_sitter_no_such_grammar", ("go",), (".go",)))
    try:
        assert not grammars.available("go")
    finally:
        grammars.grammar.cache_clear()


def test_member_words_follow_the_languages_operators():
    from treecomplete.words import member_pairs, member_words
    assert member_words(b"p->next->value; a.b; std::vector", by_name("cpp")) == [b"next", b"value", b"b", b"vector"]
    assert member_pairs(b"$this->items", by_name("php")) == [(b"this", b"items")]
    assert member_words(b"echo a.b; x=1", by_name("bash")) == []  # no member operator at all


def test_no_grammar_hangs_on_its_text_cut_anywhere():
    """Every prefix of each sample (and of one ending in an annotation, on which tree-sitter-kotlin
    loops forever without its padding), parsed and read at its end as a keystroke would: in a
    child process, so that a grammar that hangs fails the test instead of stopping the suite."""
    import subprocess
    import sys

    code = """
from tests.grammar_samples import SAMPLES
from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.languages import by_name
for name, sample in SAMPLES.items():
    text = sample.body + sample.member_line + "x\\n}\\n\\nval limit = 1\\n@Ann"
    for i in range(len(text) + 1):
        doc = Document("file:///s", text[:i], 1, by_name(name))
        assert doc.tree is not None
        context_at(doc, len(doc.data))
print("ok")
"""
    run = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parent.parent)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]


def test_a_variable_inside_a_double_quoted_string_is_code():
    context, candidates = _complete("bash", SAMPLES["bash"].body + '  echo "$tot')
    assert context.category == NAME and candidates[0].text == "total"
    context, _ = _complete("bash", SAMPLES["bash"].body + "  echo '$tot")
    assert context.category == STRING  # single quotes expand nothing


def test_a_line_that_starts_inside_a_string_is_read_from_the_tree():
    # the line's quote closes a string opened on the line before: what follows is code
    text = SAMPLES["bash"].body + "  words='a\n  b' -- \"$tot"
    context, candidates = _complete("bash", text)
    assert context.category == NAME and candidates[0].text == "total"


def test_a_contextual_keyword_written_as_a_name_is_offered_as_one():
    body = SAMPLES["kotlin"].body
    assert "value" in by_name("kotlin").reserved_set  # Kotlin's wheel ships no highlights: every word token
    _, candidates = _complete("kotlin", body + "    val value = total\n    println(valu")
    assert [(c.text, c.kind) for c in candidates[:1]] == [("value", Kind.VARIABLE)]
    _, candidates = _complete("kotlin", body + "    println(valu")  # never a name here: not offered as one
    assert "value" not in [c.text for c in candidates if c.kind != Kind.KEYWORD]
