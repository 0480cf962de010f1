"""The members of an instance the code constructs: of a class the file defines, of the class a
project file or a package exports as its default (``const Foo = require('./foo')`` … ``new
Foo()``), a constructor function's ``this.`` and prototype included."""

from __future__ import annotations

from pathlib import Path

from treecomplete.context import context_at
from treecomplete.service import CompletionService
from treecomplete.sources.libraries.known import Libraries

FOO = ("class Foo {\n  constructor() { this.count = 0; }\n  start() {}\n  stop() {}\n"
       "  static create() { return new Foo(); }\n}\nmodule.exports = Foo;\n")
BAR = ("function Bar(opts) { this.opts = opts; }\nBar.prototype.run = function () {};\n"
       "Bar.prototype = Object.assign(Bar.prototype, {});\nBar.prototype.halt = function () {};\n"
       "Bar.make = function () {};\nmodule.exports = Bar;\n")


def members(tmp_path: Path, name: str, text: str, language: str = "javascript"):
    """The receiver's known members at the end of ``text``, opened as ``name`` in ``tmp_path``."""
    libraries = Libraries()
    service = CompletionService(libraries=libraries)
    uri = (tmp_path / name).as_uri()
    doc = service.open(uri, language, 1, text)
    libraries.members(context_at(doc, len(doc.data)))
    libraries.loader.wait(10)
    return libraries.members(context_at(doc, len(doc.data))), service, uri


def test_the_class_a_project_file_exports_constructed(tmp_path: Path):
    (tmp_path / "foo.js").write_text(FOO)
    found, service, uri = members(tmp_path, "a.js", "const Foo = require('./foo');\nconst f = new Foo();\nf.")
    assert {"count", "start", "stop"} == set(found.names)  # the instance's, not the static `create`
    text = "const Foo = require('./foo');\nconst f = new Foo();\nf.st"
    service.open(uri, "javascript", 2, text)
    assert [c.text for c in service.complete_read(uri, 2, 4, 50).candidates][:2] == ["start", "stop"]
    esm, _, _ = members(tmp_path, "b.mjs", "import Foo from './foo.js';\nconst f = new Foo();\nf.")
    assert {"start", "stop"} <= set(esm.names)


def test_an_instance_made_in_another_function_is_not_this_name_s(tmp_path: Path):
    (tmp_path / "foo.js").write_text(FOO)
    text = "const Foo = require('./foo');\nfunction a() {\n  const f = new Foo();\n}\nfunction b(f) {\n  f."
    found, _, _ = members(tmp_path, "a.js", text)
    assert found is None or "start" not in found.names
    same, _, _ = members(tmp_path, "b.js", "const Foo = require('./foo');\nfunction a() {\n  const f = new Foo();\n  if (x) {\n    f.")
    assert "start" in same.names  # a block inside the one it was made in sees it
    tried = "const Foo = require('./foo');\nfunction a() {\n  let f;\n  try {\n    f = new Foo();\n  } catch (e) {}\n  f."
    assert "start" in members(tmp_path, "c.js", tried)[0].names  # a block closed since: the same function's
    own = "const Foo = require('./foo');\nclass A {\n  constructor() {\n    this.f = new Foo();\n  }\n  go() {\n    this.f."
    assert "start" in members(tmp_path, "d.js", own)[0].names  # an attribute is the object's, not the function's
    node = "const Emitter = require('events');\nclass A {\n  constructor() {\n    this.bus = new Emitter();\n  }\n  go() {\n    this.bus."
    assert {"on", "emit"} <= set(members(tmp_path, "e.js", node)[0].names)  # Node's default export's instance


def test_a_constructor_function_s_this_and_prototype(tmp_path: Path):
    (tmp_path / "bar.js").write_text(BAR)
    found, _, _ = members(tmp_path, "a.js", "const Bar = require('./bar');\nconst b = new Bar({});\nb.")
    assert {"opts", "run", "halt"} <= set(found.names) and "make" not in found.names
    assert not found.complete  # a prototype may take more as the program runs
    (tmp_path / "factory.js").write_text("function make() { return {}; }\nmodule.exports = make;\n")
    plain, _, _ = members(tmp_path, "c.js", "const make = require('./factory');\nconst m = make();\nm.")
    assert plain is None  # a plain function's result: nothing known, the other words not lowered


def test_a_package_s_default_class_constructed(tmp_path: Path):
    package = tmp_path / "node_modules" / "appkit"
    (package / "lib").mkdir(parents=True)
    (package / "package.json").write_text('{"name": "appkit", "main": "lib/application.js"}')
    (package / "lib" / "application.js").write_text(
        "const Emitter = require('events');\nmodule.exports = class Application extends Emitter {\n"
        "  constructor() { super(); this.middleware = []; }\n  use(fn) { this.middleware.push(fn); return this; }\n"
        "  listen(...args) {}\n};\n")
    found, _, _ = members(tmp_path, "a.js", "const App = require('appkit');\nconst app = new App();\napp.")
    assert {"use", "listen", "middleware"} <= set(found.names) and not found.complete  # it extends Emitter
    held = "const App = require('appkit');\nclass Server {\n  constructor() {\n    this.app = new App();\n  }\n  start() {\n    this.app."
    assert {"use", "listen"} <= set(members(tmp_path, "b.js", held)[0].names)  # held by an attribute


def test_a_class_the_file_defines_constructed(tmp_path: Path):
    js, _, _ = members(tmp_path, "a.js", "class Cache {\n  constructor() { this.size = 0; }\n  grow() {}\n}\nconst c = new Cache();\nc.")
    assert set(js.names) == {"size", "grow"}
    py, _, _ = members(tmp_path, "a.py", "class Cache:\n    def __init__(self):\n        self.size = 0\n"
                       "    def grow(self):\n        pass\n\nc = Cache()\nc.", "python")
    assert {"size", "grow"} <= set(py.names)
    imported, _, _ = members(tmp_path, "b.js", "const { Cache } = require('./other');\nclass Cache {}\nconst c = new Cache();\nc.")
    assert imported is None or "size" not in imported.names  # an import's name is the import's


def test_an_attribute_of_self_or_this_given_a_class_the_file_defines(tmp_path: Path):
    cache = "class Cache:\n    def grow(self):\n        pass\n\n"
    for text in (cache + "class Shop:\n    def __init__(self):\n        self.cache = Cache()\n    def f(self):\n        self.cache.",
                 cache + "class Shop:\n    cache: Cache\n    def f(self):\n        self.cache."):  # a class body's annotation
        py, _, _ = members(tmp_path, "a.py", text, "python")
        assert py is not None and "grow" in py.names, text
    js, _, _ = members(tmp_path, "a.js", "class Cache {\n  grow() {}\n}\nclass Shop {\n  constructor() {\n"
                       "    this.cache = new Cache()\n  }\n  f() {\n    this.cache.")
    assert js is not None and "grow" in js.names


def test_a_value_a_project_file_exports_by_its_initialiser(tmp_path: Path):
    (tmp_path / "state.js").write_text("export const cache = new Map();\n"
                                       "export const raf = { tasks: new Set(), tick() {} };\nexport let count = 0;\n")
    (tmp_path / "methods.js").write_text("module.exports = ['get', 'post'];\n")
    cache, _, _ = members(tmp_path, "a.js", "import { cache } from './state';\ncache.")
    assert {"get", "set", "has"} <= set(cache.names) and cache.complete  # a Map's
    raf, _, _ = members(tmp_path, "b.js", "import { raf } from './state';\nraf.")
    assert set(raf.names) == {"tasks", "tick"} and not raf.complete  # an object takes keys as the program runs
    tasks, _, _ = members(tmp_path, "c.js", "import { raf } from './state';\nraf.tasks.")
    assert {"add", "size"} <= set(tasks.names)  # a Set's
    listed, _, _ = members(tmp_path, "d.js", "const methods = require('./methods');\nmethods.")
    assert {"forEach", "map"} <= set(listed.names)  # an array's
    count, _, _ = members(tmp_path, "e.js", "import { count } from './state';\ncount.")
    assert count is None  # a number: nothing known


BATCH = ("export class Batch {\n  static ensure() { return new Batch(); }\n  static current = null;\n"
         "  flush() {}\n  run(x) {}\n}\n"
         "class HttpError extends Error {\n  toJSON() {}\n}\nHttpError.NOT_FOUND = 404;\n"
         "HttpError.from = function (e) {};\nexport default HttpError;\n")


def test_a_project_class_itself_lists_its_statics_and_its_instance_the_rest(tmp_path: Path):
    """``Batch.`` after ``import { Batch }``: its ``static`` members, fields too, and its
    ``prototype``; an instance's members leave them out; ``export default HttpError`` then
    ``HttpError.NOT_FOUND = 404``: what the file assigns to the class the module's default
    import lists; a module exporting a function: its ``prototype``."""
    (tmp_path / "batch.js").write_text(BATCH)
    itself, _, _ = members(tmp_path, "a.js", "import { Batch } from './batch.js';\nBatch.")
    assert set(itself.names) == {"ensure", "current", "prototype"}
    instance, _, _ = members(tmp_path, "b.js", "import { Batch } from './batch.js';\nconst b = new Batch();\nb.")
    assert set(instance.names) == {"flush", "run"}
    default, _, _ = members(tmp_path, "c.js", "import HttpError from './batch.js';\nHttpError.")
    assert {"NOT_FOUND", "from", "prototype"} <= set(default.names) and "toJSON" not in default.names
    (tmp_path / "destroy.js").write_text("module.exports = destroy;\nfunction destroy(stream) {}\n")
    (tmp_path / "table.js").write_text("module.exports = { rows: [] };\n")
    function, _, _ = members(tmp_path, "f.js", "const destroy = require('./destroy');\ndestroy.")
    assert "prototype" in function.names
    value, _, _ = members(tmp_path, "g.js", "const table = require('./table');\ntable.")
    assert set(value.names) == {"rows"}  # an object has no prototype of its own
    (tmp_path / "retry.ts").write_text("export class Retry {\n  static limit: number = 3;\n  private count = 0;\n  next(): void {}\n}\n")
    typed, _, _ = members(tmp_path, "d.ts", "import { Retry } from './retry';\nRetry.", "typescript")
    assert set(typed.names) == {"limit"}
    typed, _, _ = members(tmp_path, "e.ts", "import { Retry } from './retry';\nlet r: Retry;\nr.", "typescript")
    assert set(typed.names) == {"count", "next"}


def test_a_name_both_static_and_an_instance_member_is_listed_on_both(tmp_path: Path):
    (tmp_path / "client.js").write_text("class Client {\n  static connect(url) { return new Client(); }\n"
                                        "  connect() {}\n  static parse() {}\n  close() {}\n}\nmodule.exports = Client;\n")
    made, _, _ = members(tmp_path, "a.js", "const Client = require('./client');\nconst c = new Client();\nc.")
    assert {"connect", "close"} == set(made.names)
    itself, _, _ = members(tmp_path, "b.js", "const Client = require('./client');\nClient.")
    assert {"connect", "parse"} <= set(itself.names) and "close" not in itself.names
