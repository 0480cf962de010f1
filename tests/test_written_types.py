"""A receiver's written type naming a global class: a TypeScript annotation (``s: string``,
``m: Map<K, V>``, ``xs: string[]``), a JSDoc ``@param`` or ``@type`` in JavaScript; seen only
where the declaration's function holds the cursor."""

from __future__ import annotations

import pytest

from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.languages import JAVASCRIPT, TYPESCRIPT
from treecomplete.sources.libraries.known import Libraries
from treecomplete.written_types import jsdoc_type


def members(text: str, language=TYPESCRIPT) -> set[str] | None:
    libraries = Libraries()
    context = context_at(Document("file:///w/a.ts", text, 1, language), len(text.encode()))
    found = libraries.members(context)
    libraries.loader.wait(5)
    found = libraries.members(context)
    return set(found.names) if found is not None and found.declared else None


@pytest.mark.parametrize("text, expected", [
    ("let m: Map<string, number>;\nm.", {"get", "set", "size"}),
    ("function f(s: string) {\n  s.", {"split", "trim"}),
    ("const xs: readonly string[] = [];\nxs.", {"map", "filter"}),
    ("class A {\n  m(u?: URL) { return u.", {"hostname", "searchParams"}),
])
def test_a_typescript_annotation_naming_a_global_class(text: str, expected: set[str]):
    assert expected <= members(text)


def test_another_function_s_parameter_is_not_this_one():
    assert members("function f(s: string) {}\nfunction g(s) {\n  s.") is None


@pytest.mark.parametrize("text, expected", [
    ("/** @param {Map<string, number>} m */\nfunction f(m) {\n  m.", {"get", "set"}),
    ("/** @type {string[]} */\nconst xs = [];\nxs.", {"map", "filter"}),
    ("/** @param {?string} [s] */\nexport function f(s) { return s.", {"split"}),
    ("/** @param {string} s */\nconst f = (s) => s.", {"split"}),
    ("class A {\n  /** @param {Date} d */\n  m(d) { if (x) { y(); } d.", {"getTime"}),  # the tree broken at the cursor
])
def test_a_jsdoc_type_naming_a_global_class(text: str, expected: set[str]):
    assert expected <= members(text, JAVASCRIPT)


def test_a_jsdoc_type_of_a_closed_function_is_not_seen():
    assert members("/** @param {string} s */\nfunction f(s) { if (x) { y(); } }\nfunction g(s) { s.", JAVASCRIPT) is None
    assert members("/** @param {string} s */\nfunction f(s) {}\ns.", JAVASCRIPT) is None


def test_jsdoc_types():
    assert [jsdoc_type(t) for t in ("?string", "Map<string, number>", "string[]", "Array<T>", "Foo | null", "string | number",
                                     "{a: 1}", "function(a)", "*")] == ["string", "Map", "Array", "Array", "Foo", None, None, None, None]


def members_in_files(folder, texts: dict[str, str]) -> dict[str, set[str] | None]:
    """The members listed at the end of each JavaScript file ``name.js`` holding ``text``, in
    ``folder``, once the libraries they need are read."""
    from treecomplete.service import CompletionService

    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    found = {}
    for name, text in texts.items():
        doc = service.open((folder / f"{name}.js").as_uri(), "javascript", 1, text)
        libraries.members(context_at(doc, len(doc.data)))
        libraries.loader.wait(5)
        got = libraries.members(context_at(doc, len(doc.data)))
        found[name] = set(got.names) if got is not None else None
    return found


def test_jsdoc_imports_of_a_project_class_and_a_declaration_file(tmp_path):
    (tmp_path / "batch.js").write_text("export class Batch {\n  flush() {}\n  run() {}\n}\n")
    (tmp_path / "types.d.ts").write_text("export interface Effect { deps: number; fn(): void }\n")
    found = members_in_files(tmp_path, {
        "a": "/** @import { Batch as B } from './batch.js' */\n/** @param {B} b */\nfunction f(b) {\n  b.",
        "b": "/** @param {import('./batch.js').Batch} b */\nfunction f(b) {\n  b.",
        "c": "/** @import { Effect } from './types' */\n/** @param {Effect} e */\nfunction f(e) {\n  e.",
    })
    assert found == {"a": {"flush", "run"}, "b": {"flush", "run"}, "c": {"deps", "fn"}}


def test_what_a_project_function_s_jsdoc_returns_after_its_call_and_before_an_annotation(tmp_path):
    (tmp_path / "batch.js").write_text(
        "export class Batch {\n  flush() {}\n}\n/** @returns {Batch} */\nexport function current() {}\n"
        "export function plain() {}\n")
    found = members_in_files(tmp_path, {
        "called": "import { current } from './batch.js';\ncurrent().",
        "assigned": "import { current } from './batch.js';\nconst b = current();\nb.",
        "annotated": "import { current } from './batch.js';\n/** @type {Map<string, number>} */\nconst m = current();\nm.",
    })
    assert found["called"] == found["assigned"] == {"flush"}
    assert {"get", "set"} <= found["annotated"] and "flush" not in found["annotated"]  # the JSDoc where it is bound first


@pytest.mark.parametrize("text, expected", [
    ("interface Box { label?: string; tags: string[] }\nfunction f(b: Box) {\n  b.label.", {"split", "trim"}),
    ("interface Box { label?: string; tags: string[] }\nfunction f(b: Box) {\n  b.tags.", {"map", "filter"}),
    ("class Item { when: Date }\nfunction f(i: Item) {\n  i.when.", {"getTime", "toISOString"}),
    ("type Pair = { left: URL }\nfunction f(p: Pair) {\n  p.left.", {"hostname"}),
])
def test_a_property_s_declared_type_in_the_file_gives_its_members(text: str, expected: set[str]):
    assert expected <= (members(text) or set())


def test_a_property_the_type_does_not_declare_gives_nothing():
    assert members("interface Box { label?: string }\nfunction f(b: Box) {\n  b.other.") is None
