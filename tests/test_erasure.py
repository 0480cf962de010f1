"""TypeScript read by the JavaScript model (server/erasure.py): types blanked, offsets kept."""

from __future__ import annotations

import tree_sitter
from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.erasure import (
    ERASED,
    INSIDE_ERASED,
    MARKS,
    READ_AS,
    TAILS,
    TOKENS,
    TYPE_ONLY,
    as_javascript,
    erase,
    patterns,
)
from treecomplete.languages import JAVASCRIPT, TSX, TYPESCRIPT

SOURCE = """import type { Foo } from "./foo";
import { bar, type Baz } from "./bar";
export { type Baz as Qux, bar as rebar };
export interface User { name: string; age?: number }
type Id = string | number;
export type Alias = User;
abstract class Base<T> extends Parent<T> implements Foo {
  private readonly count: number = 1;
  declare label?: string;
  total!: number;
  constructor(public owner: string, private age?: number) { super(); }
  abstract run(): void;
  pick<K extends keyof T>(key: K): T[K] { return (this as any)[key]!; }
  shift(by: number): void;
  shift(by: any) { let moved!: number; moved = by; }
}
function bound(this: Base<any>, size: number) { return this.total + size; }
function over(a: string): void;
function over(a: any): any { return a satisfies any; }
const twice = <T,>(x: T): T => x;
let cache = new Map<string, number>();
enum Color { Red, Green }
export default function greet(user: User): string { return `${user.name} ${bar}`; }
"""


def _named_kinds(language: tree_sitter.Language) -> set[str]:
    return {language.node_kind_for_id(i) for i in range(language.node_kind_count)
            if language.node_kind_is_named(i) and language.node_kind_is_visible(i)}


def _errors(node: tree_sitter.Node) -> list[str]:
    found = [node.type] if node.is_error or node.is_missing else []
    for child in node.children:
        found += _errors(child)
    return found


def test_every_typescript_only_node_type_is_blanked_read_as_javascript_or_inside_what_is_blanked():
    javascript = _named_kinds(JAVASCRIPT.language)
    for language in (TYPESCRIPT, TSX):
        only = _named_kinds(language.language) - javascript
        only -= {kind for kind in only if kind.startswith("jsx_") or kind == "html_character_reference"}  # TSX's JSX
        unhandled = sorted(kind for kind in only if kind not in ERASED and kind not in READ_AS and kind not in INSIDE_ERASED)
        assert not unhandled, f"{language.name}: TypeScript-only node types with no rule: {unhandled}"
    assert len(patterns(TYPESCRIPT)) == len(ERASED) + len(TOKENS) + len(TAILS) + len(MARKS) + len(TYPE_ONLY) + 1  # every rule compiles


def test_blanked_typescript_parses_as_javascript_with_every_offset_and_line_in_place():
    for language in (TYPESCRIPT, TSX):
        data = SOURCE.encode()
        out = erase(language.parser().parse(data).root_node, data, language)
        assert len(out) == len(data) and out.count(b"\n") == data.count(b"\n")
        assert not _errors(JAVASCRIPT.parser().parse(out).root_node)
        text = out.decode()
        for gone in ("interface", "private", "readonly", "satisfies", "<T>", ": number", "implements", "enum", "import type",
                     "type Baz", "bound(this", "moved!", "shift(by: number)"):
            assert gone not in text
        for kept in ("class Base", "extends Parent", "constructor(       owner", "return `${user.name}", "new Map", "(x   )    => x",
                     "bound(                 size", "import { bar,      Baz }", "let moved"):
            assert kept in text
        for name in ("count", "label", "total", "pick", "over", "twice", "cache", "greet"):
            assert text.rindex(name) == SOURCE.rindex(name)  # where it was


def test_a_typescript_context_is_read_as_javascript_at_the_same_offsets():
    text = SOURCE + "const shown: string = greet(us);\n"
    doc = Document("file:///a.ts", text, 1, TYPESCRIPT)
    context = context_at(doc, len((SOURCE + "const shown: string = greet(us").encode()))
    read = as_javascript(context)
    assert read.language is JAVASCRIPT and read.target.type == "identifier"
    assert read.target.start_byte == context.prefix_start and read.prefix == "us"
    assert read.data[:len(SOURCE)].decode().count("interface") == 0 and len(read.data) == len(context.data)
    assert read.target.parent.type == "arguments"  # greet(| : a call's argument, as in JavaScript
    plain = context_at(Document("file:///a.js", "greet(us);", 1, JAVASCRIPT), 8)
    assert as_javascript(plain) is plain  # JavaScript is read as it is


def test_in_a_type_there_is_nothing_for_the_javascript_model_to_read():
    text = "interface User { name: string }\nfunction greet(user: Us) {}\n"
    doc = Document("file:///b.ts", text, 1, TYPESCRIPT)
    assert as_javascript(context_at(doc, text.index("Us)") + 2)) is None
    assert as_javascript(context_at(doc, text.index("user:") + 2)) is not None  # the parameter's name is JavaScript


def test_the_erasure_query_is_compiled_once_and_shared_by_every_thread():
    import threading

    from treecomplete import erasure

    erasure._QUERIES.clear()
    erasure.prepare("typescript")
    erasure.prepare("python")  # not TypeScript: nothing to compile
    assert list(erasure._QUERIES) == ["typescript"]
    seen = []
    thread = threading.Thread(target=lambda: seen.append(erasure._queries(TYPESCRIPT)))
    thread.start()
    thread.join()
    assert seen == [erasure._QUERIES["typescript"]]
