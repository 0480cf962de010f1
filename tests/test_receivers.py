"""What the object before a dot is, from the buffer: what its imports bind, an instance of an
imported class, the class around the cursor."""

from __future__ import annotations

from treecomplete.context import context_at
from treecomplete.document import Document
from treecomplete.languages import JAVASCRIPT, PYTHON
from treecomplete.receivers import Target, bindings, builtin_instance, own_class, target_of

PY = (
    "import os\nimport typing as t\nimport xml.etree\nfrom pathlib import Path\nfrom os import path as p2\n"
    "from .local import thing\n"
)
JS = (
    "const fs = require('fs');\nconst { join, resolve: r } = require('path');\n"
    "import * as http from 'http';\nimport express from 'express';\nimport { Router as R } from 'express';\n"
)


def at_end(text: str, language):
    doc = Document("file:///w/x", text, 1, language)
    return context_at(doc, len(text.encode()))


def test_python_bindings():
    context = at_end(PY, PYTHON)
    assert bindings(context.tree, PYTHON, [(0, len(context.data))]) == {
        "os": Target("os"), "t": Target("typing"), "xml": Target("xml"), "Path": Target("pathlib", ("Path",)),
        "p2": Target("os", ("path",)), "thing": Target(".local", ("thing",)),  # relative: read from the project's files
    }


def test_javascript_bindings():
    context = at_end(JS, JAVASCRIPT)
    assert bindings(context.tree, JAVASCRIPT, [(0, len(context.data))]) == {
        "fs": Target("fs"), "join": Target("path", ("join",)), "r": Target("path", ("resolve",)),
        "http": Target("http"), "express": Target("express"), "R": Target("express", ("Router",)),
    }


def test_receivers_through_imports_and_assignments():
    cases = {
        PY + "os.path.": Target("os", ("path",)), PY + "t.": Target("typing"), PY + "p2.": Target("os", ("path",)),
        PY + "x = Path('a')\nx.": Target("pathlib", ("Path",)),
        PY + "y = os.getcwd()\ny.": Target("os", ("getcwd()",)),  # a call's result: what getcwd returns
        PY + "with open(p) as fh:\n    fh.": Target("builtins", ("open()", "__enter__()")),  # what its __enter__ gives
        PY + "def f(self, root: Path, n: int):\n    root.": Target("pathlib", ("Path",)),  # the type written
        PY + "class A:\n    def g(self):\n        self.base: Path = make()\n        self.base.": Target("pathlib", ("Path",)),
        PY + "unknown.": None, PY + "call().": None,
        JS + "fs.": Target("fs"), JS + "const a = new R();\na.": Target("express", ("Router",)),
    }
    for text, expected in cases.items():
        language = PYTHON if text.startswith("import os") else JAVASCRIPT
        context = at_end(text, language)
        bound = bindings(context.tree, language, [(0, len(context.data))])
        assert target_of(context, bound) == expected, text


def test_the_class_around_the_cursor_python():
    text = ("class Base:\n    pass\n\nclass Store(Base):\n    kind = 1\n    def load(self):\n        self.items = []\n"
            "        self._cache: dict = {}\n    @property\n    def size(self):\n        return 0\n    def save(self):\n        self.")
    found = own_class(at_end(text, PYTHON))
    assert found.name == "Store" and found.bases == ["Base"]
    assert {"kind", "load", "items", "_cache", "size", "save"} <= set(found.members)
    assert found.members["load"] == "method" and found.members["items"] == "attribute"
    assert found.members["size"] == "attribute"  # a property is read as an attribute is: no call follows it


def test_tuple_assignments_and_dynamic_classes():
    text = ("class Param:\n    def __init__(self):\n        self.name, self.opts = parse()\n"
            "        self.count: int = 0\n    def show(self):\n        return self.")
    found = own_class(at_end(text, PYTHON))
    assert {"name", "opts", "count", "show"} <= set(found.members) and not found.dynamic
    dynamic = own_class(at_end("class Proxy:\n    def __getattr__(self, name):\n        return self.", PYTHON))
    assert dynamic.dynamic and "__getattr__" not in dynamic.members


def test_methods_defined_after_the_cursor_count():
    text = "class Store:\n    def save(self):\n        self."
    after = "\n    def later(self):\n        self.count = 0\n"
    doc = Document("file:///w/x.py", text + after, 1, PYTHON)
    found = own_class(context_at(doc, len(text.encode())))
    assert {"save", "later", "count"} <= set(found.members)


def test_the_class_around_the_cursor_javascript_even_unclosed():
    text = "class Store extends Base {\n  count = 0;\n  constructor() { this.items = []; }\n  load() {}\n  save() {\n    this."
    found = own_class(at_end(text, JAVASCRIPT))
    assert found.name == "Store" and found.bases == ["Base"]
    assert {"count", "items", "load"} <= set(found.members) and "constructor" not in found.members
    assert own_class(at_end("function f() {\n  this.", JAVASCRIPT)) is None
    inner = "class A {\n  alpha() {}\n  m() {\n    class B { beta() {} }\n    this."
    assert set(own_class(at_end(inner, JAVASCRIPT)).members) == {"alpha", "m"}  # a class closed inside it: A's
    accessors = own_class(at_end("class A {\n  get size() { return 1 }\n  set size(v) {}\n  grow() {\n    this.", JAVASCRIPT))
    assert accessors.members == {"size": "attribute", "grow": "method"}


def test_a_builtin_class_s_instance_by_the_receiver_s_syntax():
    def instance(text, language):
        return builtin_instance(at_end(text, language))

    assert instance("x = str(v).", PYTHON) == Target("builtins", ("str",))
    assert instance("x = b'a'.", PYTHON) == Target("builtins", ("bytes",)) and instance("x = f'{a}'.", PYTHON) == Target("builtins", ("str",))
    assert instance("x = {1: 2}.", PYTHON) == Target("builtins", ("dict",)) and instance("x = [a for a in b].", PYTHON) == Target("builtins", ("list",))
    assert instance("x = g(v).", PYTHON) is None and instance("x = v.", PYTHON) is None
    assert instance("const a = 'x'.", JAVASCRIPT) == Target("", ("String", "prototype"))
    assert instance("const a = [1, 2].", JAVASCRIPT) == Target("", ("Array", "prototype"))
    assert instance("const a = new URL(s).", JAVASCRIPT) == Target("", ("URL", "prototype"))
    assert instance("const a = Object.keys(o).", JAVASCRIPT) == Target("", ("Array", "prototype"))
    assert instance("const a = line.split(',').", JAVASCRIPT) == Target("", ("Array", "prototype"))
    assert instance("const u = new URL(s)\nu.", JAVASCRIPT) == Target("", ("URL", "prototype"))
    assert instance("const a = g(s).", JAVASCRIPT) is None and instance("const a = line.", JAVASCRIPT) is None
