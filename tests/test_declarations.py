"""Declaration positions (server/sources/declarations.py): where they are, what their block declares
already, and what the engines offer there."""

from __future__ import annotations

from pathlib import Path

import pytest

from treecomplete.sources import declarations, declaring
from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.engines.fallback import FallbackEngine
from treecomplete.engines.predictor import Answer, Prediction
from treecomplete.languages import JAVASCRIPT, PYTHON, TYPESCRIPT
from treecomplete.sources.project_index import ProjectIndex
from treecomplete.service import CompletionService

from .test_neural_ranking import StubPredictor, complete as neural_complete


def _context(language, source):
    doc = Document("file:///main", source, 1, language)
    return context_at(doc, len(doc.data))


@pytest.mark.parametrize(("language", "source", "expected"), [
    (PYTHON, "def ", True), (PYTHON, "    async def ru", True), (PYTHON, "class ", True), (PYTHON, "x = 1\nclass Fo", True),
    (PYTHON, "x = ", False), (PYTHON, "def f(", False), (PYTHON, "self.", False), (PYTHON, "# def ", False),
    (PYTHON, "return de", False),
    (JAVASCRIPT, "const ", True), (JAVASCRIPT, "  let x", True), (JAVASCRIPT, "var ", True), (JAVASCRIPT, "function ", True),
    (JAVASCRIPT, "function* ge", True), (JAVASCRIPT, "export default class ", True), (JAVASCRIPT, "export async function f", True),
    (JAVASCRIPT, "for (const ", False), (JAVASCRIPT, "x = ", False), (JAVASCRIPT, "a.", False), (JAVASCRIPT, "return co", False),
])
def test_a_declaration_is_the_name_a_statement_declares(language, source, expected):
    assert declarations.at_declaration(_context(language, source)) is expected


def test_python_names_the_block_defines_at_the_cursor_s_level_before_it():
    source = (
        "def top():\n    pass\n\n"
        "class A:\n"
        "    def first(self):\n"
        "        def inner():\n            pass\n"
        "\n    # a comment\n"
        "    async def second(self):\n        pass\n\n"
        "    def "
    )
    assert declaring.declared_before(_context(PYTHON, source)) == {"first", "second"}  # not inner, not top
    assert declaring.declared_before(_context(PYTHON, "def top():\n    pass\n\ndef to")) == {"top"}
    assert declaring.declared_before(_context(PYTHON, "def top():\n    pass\n\nx = to")) == {"x"}  # not top: no declaration
    setter = "class A:\n    @property\n    def x(self):\n        return 1\n\n    @x.setter\n    def "
    assert declaring.declared_before(_context(PYTHON, setter)) == set()  # a setter takes the property's name again
    decorated = "class A:\n    def x(self):\n        pass\n\n    @staticmethod\n    def "
    assert declaring.declared_before(_context(PYTHON, decorated)) == {"x"}


def test_javascript_names_the_innermost_open_block_declares_before_the_cursor():
    source = (
        "const NAME = 1\n"
        "function go(a) {\n"
        "  let b = '{'\n"  # a brace in a string is no block
        "  for (let i = 0; i < 3; i++) { const c = i }\n"
        "  if (a) {\n    var d = 2\n  }\n"
        "  const "
    )
    assert declaring.declared_before(_context(JAVASCRIPT, source)) == {"b"}  # not the loop's i, c; not d, NAME
    top = "const NAME = 1; let other = 2\nfunction go() {\n  const inner = 1\n}\nexport class Widget {}\nconst "
    assert declaring.declared_before(_context(JAVASCRIPT, top)) == {"NAME", "other", "go", "Widget"}
    assert declaring._javascript_declared(b"  const a = 1\n}\nconst b = 2\nlet ") == {b"b"}  # read from inside a block


def test_at_a_def_the_fallback_offers_what_the_class_calls_but_never_what_it_defines():
    source = "class A:\n    def __init__(self):\n        self.check_widget()\n\n    def helper(self):\n        pass\n\n    def "
    doc = Document("file:///main", source, 1, PYTHON)
    engine = FallbackEngine(lambda: [doc])
    context = context_at(doc, len(doc.data))
    names = [c.text for c in engine.complete(context, 100)]
    assert "helper" not in names and "__init__" not in names
    assert names[0] == "check_widget"  # called as self.check_widget(), defined nowhere: what `def` is about to define
    elsewhere = Document("file:///main", source[:-len("def ")] + "x = ", 1, PYTHON)
    assert [c.text for c in FallbackEngine(lambda: [elsewhere]).complete(context_at(elsewhere, len(elsewhere.data)), 100)][0] \
        != "check_widget"  # elsewhere a word only ever after a dot is no plain name
    assert not {"if", "return", "def"} & set(names)
    assert engine.declared_here(context) == {"__init__", "helper"}


def test_the_model_never_offers_again_a_name_the_block_declares():
    answer = Answer([Prediction("helper", 0.8, True), Prediction("other", 0.1, False)])
    source = "class A:\n    def helper(self):\n        pass\n\n    def "
    ranked = [c.text for c in neural_complete(answer, source)]
    assert "helper" not in ranked and "other" in ranked
    assert "helper" in [c.text for c in neural_complete(answer, "class A:\n    def helper(self):\n        pass\n\n    x = ")]


OVERLOADED = ("export function combine<A>(a: A): A;\n/** two at once */\nexport function combine<A, B>(a: A, b: B): [A, B];\n"
              "// the implementation\nexport function ")


@pytest.mark.parametrize(("source", "pending"), [
    (OVERLOADED, {"combine"}), (OVERLOADED + "co", {"combine"}),
    ("class K {\n  shift(by: number): void;\n  shift(by: any) {}\n  ", set()),  # implemented: nothing announced
    ("class K {\n  shift(by: number): void;\n  ", {"shift"}),
    ("interface I {\n  m(): void;\n  ", set()), ("abstract class K {\n  abstract run(): void;\n  ", set()),
    ("function g(a: string): void;\nconst x = 1;\nfunction ", set()),
])
def test_after_a_typescript_overload_signature_its_name_comes_again(source, pending):
    where = declaring.declaring(_context(TYPESCRIPT, source))
    assert set(where.pending) == pending and not pending & where.taken
    if pending:
        model = StubPredictor(Answer([Prediction("other", 0.9, True)]))
        for service in (CompletionService(models=model), CompletionService()):  # type: ignore[arg-type]
            service.open("file:///t.ts", "typescript", 1, source)
            lines = source.split("\n")
            found = service.complete("file:///t.ts", len(lines) - 1, len(lines[-1]), 50).candidates
            assert found[0].text in pending, (service.models, [c.text for c in found[:5]])


DOCUMENTED = ("/**\n * Emits after a delay.\n * @param {number} due The delay.\n * @param [scheduler=asyncScheduler] Where.\n"
              " * @param options.x a property of options\n * @param options\n */\nexport function delayed(due,\n  ")


def _first_in_both_engines(language, source: str, pending: set[str], other: str) -> None:
    """With the model (which prefers ``other``) and without it, completing at the end of
    ``source`` lists one of ``pending`` first."""
    model = StubPredictor(Answer([Prediction("other", 0.9, True), Prediction(other, 0.05, True)]))
    uri = f"file:///d.{'ts' if language is TYPESCRIPT else 'js'}"
    for service in (CompletionService(models=model), CompletionService()):  # type: ignore[arg-type]
        service.open(uri, language.name, 1, source)
        lines = source.split("\n")
        found = service.complete(uri, len(lines) - 1, len(lines[-1]), 50).candidates
        assert found[0].text in pending, (service.models, [c.text for c in found[:5]])


@pytest.mark.parametrize(("language", "source", "pending"), [
    (JAVASCRIPT, DOCUMENTED, {"scheduler"}), (TYPESCRIPT, DOCUMENTED.replace("due,", "due: number,") + "sc", {"scheduler"}),
    (JAVASCRIPT, DOCUMENTED + "scheduler, ", {"options"}),  # the next one; `options.x` is a property of it
    (JAVASCRIPT, DOCUMENTED + "scheduler, options, ", set()),  # all declared
    (JAVASCRIPT, "/** @param {string} path */\nconst load = function (", {"path"}),
    (JAVASCRIPT, "class A {\n  /** @param size */\n  grow(", {"size"}),
    (JAVASCRIPT, "/** @param a */\nfunction x() {}\n/* not a doc comment */\nfunction y(", set()),
    (JAVASCRIPT, "/** @param a */\nfunction x() {}\nfunction y(", set()),  # another function's
    (JAVASCRIPT, "/** @param a */\nfunction x(a) {\n  run(function (", set()),  # a callback inside it
    (PYTHON, "# @param path\ndef load(", set()),
])
def test_at_a_parameter_the_next_one_the_doc_comment_names_comes_first(language, source, pending):
    where = declaring.declaring(_context(language, source))
    assert where.parameter and set(where.pending) == pending
    if pending:
        _first_in_both_engines(language, source, pending, "sc")


@pytest.mark.parametrize(("language", "source", "pending"), [
    (JAVASCRIPT, "res.send = function ", {"send"}), (JAVASCRIPT, "exports.sendFile = async function* se", {"sendFile"}),
    (JAVASCRIPT, "const proto = {\n  handle: function ", {"handle"}), (TYPESCRIPT, "var onerror = function ", {"onerror"}),
    (JAVASCRIPT, "if (a === function ", set()), (JAVASCRIPT, "module.exports = function ", set()), (JAVASCRIPT, "run(function ", set()), (JAVASCRIPT, "res.send = function (", set()),
    (PYTHON, "send = lambda ", set()),
])
def test_a_function_expression_s_name_is_what_it_is_assigned_to_first(language, source, pending):
    where = declaring.declaring(_context(language, source))
    assert set(where.pending) == pending
    if pending:
        _first_in_both_engines(language, source, pending, "status")


def test_a_doc_comment_is_read_in_a_bounded_stretch_before_the_function():
    code = "const x = 1;\n" * 400_000  # 5 MB before it
    source = (code + "/** @param first */\nfunction f(").encode()
    assert declarations.documented_parameter(source, len(source) - 1, set()) == b"first"
    source = (code + "/** @param first\n" + " * more\n" * 2000 + " */\nfunction f(").encode()  # longer than DOC_READ
    assert declarations.documented_parameter(source, len(source) - 1, set()) is None
    source = (code + "/** @param first */\n/*" + " padding" * 2000 + " */\nfunction f(").encode()  # no doc comment right before
    assert declarations.documented_parameter(source, len(source) - 1, set()) is None


def test_at_a_top_level_declaration_the_project_s_definitions_are_offered(tmp_path: Path):
    plugin = "const NAME = 'tab';\nconst DATA_KEY = 'bs.tab';\nconst DefaultType = {};\nuse(DATA_KEY_MORE);\n"
    for name in ("tab.js", "modal.js"):
        (tmp_path / name).write_text(plugin)
    index = ProjectIndex()
    index.add_root(tmp_path)
    assert index.wait(30)
    service = CompletionService(project=index)
    uri = (tmp_path / "toast.js").as_uri()

    def offered(text):
        service.open(uri, "javascript", 1, text)
        line, col = text.count("\n"), len(text) - text.rfind("\n") - 1
        return [c.text for c in service.complete(uri, line, col, 50).candidates]

    found = offered("const NAME = 'toast';\nconst ")
    assert {"DATA_KEY", "DefaultType"} <= set(found[:3]) and "NAME" not in found
    assert found.index("DATA_KEY") < found.index("DATA_KEY_MORE")  # defined beats only used
    assert "DATA_KEY" not in offered("const NAME = 'toast';\nfoo(")[:3]  # elsewhere they are project words only


@pytest.mark.parametrize(("language", "source", "expected"), [
    ("python", "def f(", set()), ("python", "def f(self, ", {"self"}), ("python", "def f(self, a=1, *", {"self", "a"}),
    ("python", "    async def run(\n        self,\n        path: str,\n        ", {"self", "path"}),
    ("python", "def f(a: Dict[str, int], b=[1, 2], ", {"a", "b"}), ("python", "def f(self, a=g(1, ", None),
    ("python", "def f(self, x=2*", None), ("python", "print(a, ", None), ("python", "def f(a):\n    return g(a, ", None),
    ("javascript", "function f(a, ", {"a"}), ("javascript", "const g = function (a, {b}, ...", {"a"}),
    ("javascript", "async function* gen(", set()), ("javascript", "foo(a, ", None), ("javascript", "x.function(a, ", None),
    ("javascript", "class A {\n  foo(a, ", {"a"}), ("javascript", "class A extends B.C {\n  static async #bar(x, ", {"x"}),
    ("javascript", "class A {\n  foo(a) {}\n  constructor(a, b, ", {"a", "b"}),
    ("javascript", "class A {\n  foo(a) {\n    this.bar(a, ", None), ("javascript", "class A {\n  foo(a) {\n    bar(a, ", None),
    ("javascript", "const o = {\n  m(a, ", {"a"}), ("javascript", "f({ a: 1,\n  async m(x, ", {"x"}),
    ("javascript", "const o = { a: f(b, ", None), ("javascript", "const o = { a: 1 }\nfoo(a, ", None),
    ("javascript", "if (x) {\n  foo(a, ", None), ("javascript", "x.then(() => {\n  foo(a, ", None),
    ("javascript", "const o = {\n  a: 1\n  m(a, ", None),
    ("typescript", "export function f<T extends Base<U>, U>(a: T, ", {"a"}), ("typescript", "function* g<T>(", set()),
    ("javascript", "function f<T>(a, ", None), ("typescript", "x = a < b > (c, ", None),
    ("typescript", "class A {\n  constructor(private readonly a: T, protected ", {"a"}),
    ("typescript", "class A {\n  constructor(public ", set()), ("typescript", "x = f(a, private ", None),
    ("python", "def f(private, ", {"private"}),
    ("javascript", "items.forEach((", set()), ("typescript", "return operate<T>((source, ", {"source"}),
    ("javascript", "if ((a, ", None), ("javascript", "x = f(g(a), (", None), ("python", "f((", None),
])
def test_a_parameter_position_and_the_parameters_before_it(language, source, expected):
    found = declarations.parameters_before(language, source.encode(), len(source.encode()))
    assert (found if found is None else {n.decode() for n in found}) == expected


def test_at_a_parameter_neither_engine_offers_one_listed_before_nor_a_keyword_or_snippet():
    source = "import os\n\n\ndef join(self, path):\n    return os.path.join(self, path)\n\n\ndef split(self, "
    doc = Document("file:///main", source, 1, PYTHON)
    context = context_at(doc, len(doc.data))
    assert declarations.at_parameter(context)
    names = [c.text for c in FallbackEngine(lambda: [doc]).complete(context, 100)]
    assert "path" in names and "self" not in names and not {"if", "return", "lambda"} & set(names)
    answer = Answer([Prediction("self", 0.7, False), Prediction("path", 0.2, False)], expression={"lambda": 0.5})
    ranked = neural_complete(answer, source)
    assert ranked[0].text == "path" and "self" not in [c.text for c in ranked]
    assert not [c for c in ranked if c.snippet is not None]
    # in a call's arguments the same words are offered, and the expression's snippets
    call = neural_complete(answer, source[:-len("def split(self, ")] + "join(self, ")
    assert "self" in [c.text for c in call] and [c for c in call if c.snippet is not None]


@pytest.mark.parametrize(("language", "source"), [
    ("javascript", "class A {\n" + "  m() { return 1; }\n" * 150 + "  foo(a, "),  # the class's `{` 2.7 KB back
    ("typescript", "export class A<T> extends B<T> implements C {\n" + "  m(): number { return 1; }\n" * 150
     + "  protected async foo<U>(a: U, "),
])
def test_a_method_s_parameters_are_found_by_the_text_in_a_long_class(language, source):
    assert declarations.parameters_before(language, source.encode(), len(source.encode())) == {b"a"}
    statement = source.rsplit("\n", 1)[0] + "\n  m() {\n    foo(a, "  # a call in a method's body is no parameter list
    assert declarations.parameters_before(language, statement.encode(), len(statement.encode())) is None


@pytest.mark.parametrize(("before", "after", "expected"), [
    ("const f = (a, ", ") => a;\n", {"a"}),  # an arrow function's: the tree says, with the code after written
    ("items.reduce(sum, (item, ", ") => item);\n", {"item"}),
    ("class A {\n" + "  m() { return 1; }\n" * 2000 + "  foo(a, ", ") {}\n}\n", {"a"}),  # the class's `{` 40 KB back
    ("const f = (a, ", "\n", None),  # `=>` not written yet: a parenthesised expression or a call
    ("items.map(item, ", ");\n", None),
])
def test_the_tree_at_the_cursor_finds_parameter_lists_the_text_does_not(before, after, expected):
    doc = Document("file:///main.js", before + after, 1, JAVASCRIPT)
    context = context_at(doc, len(before.encode()))
    assert declarations.parameters_before("javascript", context.data, context.prefix_start) is None  # not by the text
    assert declarations.at_parameter(context) is (expected is not None)
    found = declarations.parameters_before("javascript", context.data, context.prefix_start, context.target)
    assert (found if found is None else {n.decode() for n in found}) == expected


@pytest.mark.parametrize(("language", "line", "excluded"), [
    ("javascript", "  const args = a", "args"), ("javascript", "let args = await a", "args"),
    ("javascript", "const args: string[] = a", "args"), ("javascript", "for (const a of x) { let args = a", "args"),
    ("javascript", "  var args = a", None),  # `var args = args || []` is an idiom
    ("javascript", "  var args = f(x, a", "args"), ("javascript", "  var args = x || a", "args"),  # past its value's start
    ("javascript", "  const args = f(x, a", "args"),  # anywhere in its value's line
    ("javascript", "  const args = () => a", None),  # a function may name it
    ("javascript", "  const args = g(function () { return a", None), ("javascript", "const args = { m() { a", None),
    ("javascript", "const args =\na", "args"), ("javascript", "const args =\n  a", "args"),  # its value begun below the `=`
    ("javascript", "const args = 2\na", None), ("javascript", "let args = [x]\n  a", None),  # the line after: a statement of its own
    ("javascript", "var args = f(x)\na", None),
    ("python", "args = a", None),  # `x = x + 1`: args is bound above
])
def test_a_const_s_name_is_not_offered_in_its_own_value(language, line, excluded):
    source = "function f(argv, args0) {\n  return [argv, args0];\n}\nconst args = 1;\n" if language == "javascript" else "argv = 1\nargs = 2\n"
    uri = "file:///t.js" if language == "javascript" else "file:///t.py"
    answer = Answer([Prediction("args", 0.6, False), Prediction("argv", 0.3, False)])
    for service in (CompletionService(), CompletionService(models=StubPredictor(answer))):
        service.open(uri, language, 1, source + line)
        result = service.complete(uri, (source + line).count("\n"), len(line.rsplit("\n", 1)[-1]), 50)
        names = [c.text for c in result.candidates]
        assert "argv" in names
        assert ("args" not in names) if excluded else ("args" in names), (result.engine, names[:5])


@pytest.mark.parametrize(("source", "taken"), [
    ("def f(items):\n    total_count = len(it", {"total_count"}),  # nothing binds it above: it cannot be read
    ("def f(items, total_count):\n    total_count = len(it", set()),  # rebinding a parameter
    ("total_count = 0\nfor x in y:\n    total_count = total_count + x", set()),
    ("def f():\n    list = list(", set()),  # a builtin
    ("handler = lambda: ha", set()), ("f(\n    a=1,\n    total_count=to", set()),  # a keyword argument
    ("def f():\n    self.total = 1\n    total = to", {"total"}),  # an attribute binds no name
])
def test_a_python_target_bound_nowhere_above_is_not_offered_in_its_value(source, taken):
    assert set(declaring.declaring(_context(PYTHON, source)).taken) == taken


@pytest.mark.parametrize(("source", "taken", "modifiers"), [
    ("class A {\n  constructor() { this.x = 1 }\n  foo(a, b = 2) { return {c: 3} }\n  static #n = 0;\n  get size() { return 1 }\n  ",
     {"constructor", "foo", "n", "size"}, set()),
    ("class A {\n  foo() {}\n  static ", {"foo"}, {"static"}),
    ("class A {\n  get size() { return 1 }\n  set ", set(), {"set"}),  # a getter's setter takes its name
    ("class A {\n  get size() { return 1 }\n  size() {}\n  set ", {"size"}, {"set"}),
    ("class A {\n  get size() { return 1 }\n  get ", {"size"}, {"get"}),
    ("const o = {\n  a: 1,\n  b: f(x, y = 2),\n  /** a { brace */\n  get c() { return '}' },\n  ", {"a", "b", "c"}, set()),
    ("function f() {\n  const x = 1;\n  ", None, None), ("if (x) {\n  ", None, None), ("foo({\n  a: 1\n}, ", None, None),
    ("class A {\n  m() {\n    if (a) {\n      ", None, None), ("class A {\n  m() {\n    ", None, None),
])
def test_a_javascript_member_s_name_and_what_its_body_defines_before_it(source, taken, modifiers):
    where = declaring.declaring(_context(JAVASCRIPT, source))
    if taken is None:
        assert where.member is None and not where.declaration
    else:
        assert where.declaration and where.taken == taken and where.member == modifiers
        assert declaring.declaring(_context(JAVASCRIPT, source + "s")).taken == taken - {"s"}


def test_a_class_body_further_back_than_the_text_read_is_found_in_the_tree():
    methods = "".join(f"  method{i}(a) {{\n    return this.other{i}(a)\n  }}\n" for i in range(800))
    source = "class Big {\n" + methods + "  "
    assert len(source) > 2 * declarations.READ
    where = declaring.declaring(_context(JAVASCRIPT, source))
    assert where.member == set() and {"method0", "method799"} <= where.taken
    assert "other0" in where.pending and "method0" not in where.pending


CLASS = ("class Widget extends Base {\n"
         "  constructor() {\n    super()\n    this.size = 0\n    this.render()\n    this.layout(this.size)\n  }\n"
         "  render() {\n    this.paint()\n    other.scroll()\n    return this.size\n  }\n"
         "  ")


def test_at_a_member_the_methods_the_class_calls_and_has_not_defined_come_first():
    doc = Document("file:///w.js", CLASS, 1, JAVASCRIPT)
    names = [c.text for c in FallbackEngine(lambda: [doc]).complete(context_at(doc, len(doc.data)), 100)]
    assert set(names[:2]) == {"layout", "paint"}  # called on this, defined nowhere yet
    assert not {"render", "constructor"} & set(names)  # defined already
    assert names.index("size") > 1  # a field the constructor assigns: no method pending
    assert "scroll" in names  # another receiver's member is a plausible name here, not lowered away
    assert {"static", "async", "get"} <= set(names) and not {"if", "return", "const"} & set(names)
    accessor = Document("file:///w.js", CLASS + "get ", 1, JAVASCRIPT)
    names = [c.text for c in FallbackEngine(lambda: [accessor]).complete(context_at(accessor, len(accessor.data)), 100)]
    assert not {"static", "get", "set"} & set(names)  # after `get` comes the name


def test_with_the_model_the_methods_pending_still_come_first_and_a_defined_one_never():
    answer = Answer([Prediction("render", 0.6, False), Prediction("update", 0.3, False), Prediction("paint", 0.01, False)])
    service = CompletionService(models=StubPredictor(answer))  # type: ignore[arg-type]
    service.open("file:///w.js", "javascript", 1, CLASS)
    lines = CLASS.split("\n")
    result = service.complete("file:///w.js", len(lines) - 1, len(lines[-1]), 50)
    assert result is not None and result.engine == "neural"
    ranked = [c.text for c in result.candidates]
    assert set(ranked[:2]) == {"layout", "paint"} and "update" in ranked and "render" not in ranked


def test_at_a_python_method_s_def_the_methods_self_calls_come_first_but_not_its_fields():
    answer = Answer([Prediction("update", 0.9, False)])
    source = ("class A:\n    def __init__(self):\n        self.width = 1\n        self.width()\n        self.draw()\n\n"
              "    def helper(self):\n        self.helper()\n\n    def ")
    ranked = [c.text for c in neural_complete(answer, source)]
    assert ranked[0] == "draw" and "update" in ranked and "helper" not in ranked  # not the field width first
    assert declaring.declaring(_context(PYTHON, source)).pending == {"draw"}
    top = source.replace("\n    def helper", "\ndef helper").rstrip() + "\ndef "
    assert declaring.declaring(_context(PYTHON, top)).pending == set()  # a function of the module: no class's methods


PY_AFTER = ("(self):\n        pass\n\n    def finish(self):\n        self.cleanup()\n        self.render()\n"
            "        self.size = 1\n        self.size()\n\n    def render(self):\n        pass\n\n"
            "class B:\n    def other(self):\n        self.elsewhere()\n")
JS_AFTER = ("() {}\n  render() { this.paint(); this.layout(); this.size = 1; this.size() }\n  layout() {}\n}\n"
            "other.x = function () { this.outside() }\n")


@pytest.mark.parametrize(("language", "before", "after", "below"), [
    (PYTHON, "class A:\n    def run(self):\n        self.prepare()\n\n    def ", PY_AFTER, "cleanup"),
    (JAVASCRIPT, "class A {\n  run() { this.prepare() }\n  ", JS_AFTER, "paint"),
])
def test_inside_a_class_what_the_code_after_the_cursor_calls_and_defines(language, before, after, below):
    doc = Document("file:///main", before + after, 1, language)
    context = context_at(doc, len(before.encode()))
    where = declaring.declaring(context)
    assert where.pending == {"prepare"}  # called above, defined nowhere
    assert where.pending_below == {below}  # called below only: not a field (size), not defined (render, layout)
    assert {"run", "render"} <= where.taken and not {"prepare", below} & where.taken  # defined above or below: not again
    names = [c.text for c in FallbackEngine(lambda: [doc]).complete(context, 100)]
    assert names[:2] == ["prepare", below] and "render" not in names  # called above on top, then below
    assert not {"elsewhere", "outside"} & set(names[:3])  # called past the class's end: not its methods
    answer = Answer([Prediction("update", 0.9, False), Prediction("render", 0.5, False), Prediction(below, 0.01, False)])
    service = CompletionService(models=StubPredictor(answer))  # type: ignore[arg-type]
    service.open("file:///main", language.name, 1, before + after)
    lines = before.split("\n")
    ranked = [c.text for c in service.complete("file:///main", len(lines) - 1, len(lines[-1]), 50).candidates]
    assert ranked[:2] == ["prepare", below] and "update" in ranked and "render" not in ranked


def test_a_python_name_defined_again_on_purpose_below_stays_offered():
    source = "class A:\n    @property\n    def "
    after = "(self):\n        return 1\n\n    @label.setter\n    def label(self, v):\n        pass\n\n    def other(self):\n        pass\n"
    taken = declaring.declaring(_context_at(PYTHON, source, after)).taken
    assert "label" not in taken and "other" in taken
    overload = "@overload\ndef "
    below = "(a: int) -> int: ...\n@overload\ndef parse(a: str) -> str: ...\ndef parse(a):\n    return a\n"
    assert "parse" not in declaring.declaring(_context_at(PYTHON, overload, below)).taken  # an overload repeats it


def test_a_method_of_a_class_longer_than_the_text_read_is_one():
    source = "class A:\n    def first(self):\n        self.helper()\n" + "    x = 1\n" * 3000 + "    def "
    assert len(source) > declarations.READ
    assert declaring.declaring(_context(PYTHON, source)).pending == {"helper"}


def _context_at(language, before, after):
    doc = Document("file:///main", before + after, 1, language)
    return context_at(doc, len(before.encode()))


@pytest.mark.parametrize(("before", "after", "pending"), [
    ("module.exports = {\n  get header() { return 1 },\n  set header(v) {},\n  get ", "() {},\n  set status(v) {},\n};\n", {"status"}),
    ("class A {\n  get size() { return 1 }\n  set ", "(v) {}\n}\n", {"size"}),
    ("class A {\n  get size() { return 1 }\n  set size(v) {}\n  get ", "() {}\n}\n", set()),  # each has its pair
])
def test_at_an_accessor_s_name_the_other_accessor_s_name_without_its_pair_comes_first(before, after, pending):
    assert set(declaring.declaring(_context_at(JAVASCRIPT, before, after)).pending) == pending


def test_a_regular_expression_literal_hides_no_member_after_it():
    before = "class A {\n  "
    after = "() {}\n  href() { if (/^https?:\\/\\//i.test(this.url)) return this.url }\n  origin() { return /[{(]/.source }\n  host() {}\n}\n"
    taken = declaring.declaring(_context_at(JAVASCRIPT, before, after)).taken
    assert {"href", "origin", "host"} <= taken  # defined below: not offered again, past the regexes' `//` and `{(`
