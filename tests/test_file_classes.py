"""What the attributes of a class the file defines hold, followed along a receiver
(server/file_classes.py): ``c.owner.`` of ``c = Item()`` where Item's body annotates ``owner:
Owner`` or a method assigns ``self.maker = Owner()``."""

from __future__ import annotations

from pathlib import Path

from .test_constructed import FOO, members

PY = ("from pathlib import Path\n\nclass Owner:\n    def greet(self):\n        pass\n    age = 0\n\n"
      "class Item:\n    owner: Owner\n    def __init__(self):\n        self.maker = Owner()\n        self.path = Path('x')\n\n"
      "class Other:\n    other: Owner\n\n")
JS = ("const Foo = require('./foo');\nclass Owner {\n  greet() {}\n}\nclass Item {\n  constructor() {\n"
      "    this.owner = new Owner();\n    this.foo = new Foo();\n    this.tags = [];\n  }\n}\n")


def names(tmp_path: Path, name: str, text: str, language: str) -> set[str] | None:
    found, _, _ = members(tmp_path, name, text, language)
    return set(found.names) if found is not None else None


def test_a_python_attribute_of_a_class_the_file_defines(tmp_path: Path):
    assert names(tmp_path, "a.py", PY + "def f(c: Item):\n    c.owner.", "python") == {"age", "greet"}  # its annotation
    assert names(tmp_path, "b.py", PY + "c = Item()\nc.maker.", "python") == {"age", "greet"}  # a method's assignment
    assert {"exists", "parent"} <= names(tmp_path, "c.py", PY + "c = Item()\nc.path.", "python")  # an imported class
    shop = "class Shop:\n    def __init__(self):\n        self.item = Item()\n    def f(self):\n        self.item.owner."
    assert names(tmp_path, "d.py", PY + shop, "python") == {"age", "greet"}  # from self, two attributes


def test_a_python_class_s_last_line_a_quoted_optional_and_a_method_s_result(tmp_path: Path):
    point = "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int\n    name: str\n"
    assert {"upper", "strip"} <= names(tmp_path, "a.py", point + "p = P(1, 'a')\np.name.", "python")
    tree = "class Node:\n    parent: Optional['Node']\n    def up(self):\n        pass\n"
    assert names(tmp_path, "b.py", tree + "n = Node()\nn.parent.", "python") == {"parent", "up"}
    copy = "class B:\n    def copy(self) -> 'B':\n        return self\n    def go(self):\n        pass\nb = B()\n"
    assert names(tmp_path, "c.py", copy + "b.copy().", "python") == {"copy", "go"}
    assert names(tmp_path, "d.py", copy + "c = b.copy()\nc.", "python") == {"copy", "go"}
    shop = "class Shop:\n    def make(self) -> B:\n        return B()\n    def f(self):\n        x = self.make()\n        x."
    assert names(tmp_path, "e.py", copy + shop, "python") == {"copy", "go"}  # a method of the class around


def test_an_attribute_another_class_declares_is_not_this_one_s(tmp_path: Path):
    assert names(tmp_path, "a.py", PY + "c = Item()\nc.other.", "python") is None
    assert names(tmp_path, "b.py", PY + "def f(c):\n    c.owner.", "python") is None  # nothing says c is an Item


def test_a_javascript_attribute_of_a_class_the_file_defines(tmp_path: Path):
    (tmp_path / "foo.js").write_text(FOO)
    assert names(tmp_path, "a.js", JS + "const c = new Item();\nc.owner.", "javascript") == {"greet"}
    assert {"start", "stop"} <= names(tmp_path, "b.js", JS + "const c = new Item();\nc.foo.", "javascript")
    assert {"map", "filter"} <= names(tmp_path, "c.js", JS + "const c = new Item();\nc.tags.", "javascript")
    made = "class B {\n  /** @returns {Item} */\n  make() { return new Item(); }\n}\nconst b = new B();\n"
    assert names(tmp_path, "d.js", JS + made + "b.make().owner.", "javascript") == {"greet"}  # a method's JSDoc
    assert names(tmp_path, "e.js", JS + made + "const i = b.make();\ni.owner.", "javascript") == {"greet"}
    shop = "class Shop {\n  constructor() { this.item = new Item(); }\n  f() {\n    if (x) { y(); }\n    this.item.owner."
    assert names(tmp_path, "f.js", JS + shop, "javascript") == {"greet"}  # the class being written: no class node


def test_a_class_the_file_defines_itself_and_an_enum_s_member(tmp_path: Path):
    color = ("import enum\nfrom enum import Enum\n\nclass Color(Enum):\n    RED = 1\n    GREEN = 2\n\n"
             "    def describe(self):\n        return self.name\n\nclass Shade(Color):\n    DARK = 3\n\n"
             "class Plain:\n    LIMIT = 3\n\n    def f(self):\n        pass\n\n")
    assert {"RED", "GREEN", "describe"} == names(tmp_path, "a.py", color + "Color.", "python")  # not Enum's `name`
    assert {"LIMIT", "f"} == names(tmp_path, "b.py", color + "Plain.", "python")
    member = names(tmp_path, "c.py", color + "Color.RED.", "python")  # an enum's member: an instance of it
    assert {"describe", "name", "value"} <= member and not {"RED", "GREEN"} & member  # not the other members
    assert {"describe", "name", "value"} <= names(tmp_path, "d.py", color + "Shade.DARK.", "python")  # through a base
    assert names(tmp_path, "e.py", color + "Plain.LIMIT.", "python") is None  # a plain class's attribute: unknown
    assert names(tmp_path, "f.py", color + "def g(Plain):\n    Plain.", "python") is None  # a parameter of that name
    assert {"describe", "name"} <= names(tmp_path, "h.py", color + "c = Color.RED\nc.", "python")  # given a member
    looped = names(tmp_path, "h2.py", color + "for c in Color:\n    c.", "python")  # each member in turn
    assert {"describe", "name"} <= looped and not {"RED", "GREEN"} & looped
    assert names(tmp_path, "h3.py", color + "for p in Plain:\n    p.", "python") is None  # no enum
    assert names(tmp_path, "i.py", color + "p = Plain.LIMIT\np.", "python") is None
    for n, made in enumerate(("Color(1).", "c = Color(1)\nc.", "def g(c: Color):\n    c.")):  # an instance, however made
        found = names(tmp_path, f"k{n}.py", color + made, "python")
        assert "describe" in found and not {"RED", "GREEN"} & found
    made = "class A:\n    def __init__(self):\n        self.n = 1\n\n    def f(self):\n        pass\n\n"
    assert names(tmp_path, "j.py", made + "A().", "python") == {"n", "f"}  # the instance a call makes
    flag = "import enum\n\nclass Mode(enum.IntFlag):\n    READ = 1\n\n"
    assert {"name", "value"} <= names(tmp_path, "g.py", flag + "Mode.READ.", "python")


def test_a_javascript_class_the_file_defines_itself_lists_its_statics(tmp_path: Path):
    foo = "class Foo {\n  static make() { return new Foo(); }\n  static LIMIT = 3;\n  bar() {}\n}\nFoo.extra = 1;\n"
    assert names(tmp_path, "a.js", foo + "Foo.", "javascript") == {"make", "LIMIT", "extra", "prototype"}
    assert names(tmp_path, "b.ts", foo + "Foo.", "typescript") == {"make", "LIMIT", "extra", "prototype"}
    assert names(tmp_path, "c.js", foo + "new Foo().", "javascript") == {"bar"}  # the instance: not the statics
    assert names(tmp_path, "d.js", foo + "const f = new Foo();\nf.", "javascript") == {"bar"}


def test_what_a_class_s_own_method_returns(tmp_path: Path):
    made = ("from typing import Self\n\nclass Q:\n    @classmethod\n    def make(cls) -> 'Q':\n        return cls()\n\n"
            "    @staticmethod\n    def empty() -> 'Item':\n        return Item()\n\n"
            "    def where(self) -> Self:\n        return self\n\n    def run(self):\n        pass\n\n")
    assert names(tmp_path, "a.py", PY + made + "Q.make().", "python") == {"make", "empty", "where", "run"}
    assert names(tmp_path, "b.py", PY + made + "q = Q.make()\nq.", "python") == {"make", "empty", "where", "run"}
    assert names(tmp_path, "c.py", PY + made + "Q.empty().owner.", "python") == {"age", "greet"}
    assert names(tmp_path, "d.py", PY + made + "q = Q()\nq.where().", "python") == {"make", "empty", "where", "run"}
    assert names(tmp_path, "e.py", PY + made + "Q.make().where().", "python") == {"make", "empty", "where", "run"}
    assert names(tmp_path, "f.py", PY + made + "def g(Q):\n    Q.make().", "python") is None  # a parameter of that name
    assert names(tmp_path, "g.py", PY + made + "Q.run().", "python") is None  # nothing declared


def test_what_a_javascript_class_s_static_method_returns(tmp_path: Path):
    made = "class Q {\n  /** @returns {Item} */\n  static create() { return new Item(); }\n  run() {}\n}\n"
    assert names(tmp_path, "a.js", JS + made + "Q.create().owner.", "javascript") == {"greet"}
    assert names(tmp_path, "b.js", JS + made + "const i = Q.create();\ni.owner.", "javascript") == {"greet"}
    fluent = "class Q {\n  where(): this { return this; }\n  static make(): Q { return new Q(); }\n  run(): void {}\n}\n"
    assert names(tmp_path, "c.ts", fluent + "const q = new Q();\nq.where().", "typescript") == {"where", "run"}
    assert names(tmp_path, "d.ts", fluent + "Q.make().where().", "typescript") == {"where", "run"}
    jsdoc = "class Q {\n  /** @returns {this} */\n  where() { return this; }\n  run() {}\n}\n"
    assert names(tmp_path, "e.js", jsdoc + "const q = new Q();\nq.where().", "javascript") == {"where", "run"}
    own = "class Q {\n  /** @returns {Q} */\n  static make() { return new Q(); }\n  run() {}\n}\n"
    assert names(tmp_path, "f.js", own + "Q.make().", "javascript") == {"run"}  # an instance: not the statics


def test_a_javascript_class_inherits_its_bases_statics(tmp_path: Path):
    (tmp_path / "foo.js").write_text(FOO)
    base = "class A {\n  static make() {}\n  run() {}\n}\nclass B extends A {\n  static LIMIT = 3;\n  go() {}\n}\n"
    assert names(tmp_path, "a.js", base + "B.", "javascript") == {"LIMIT", "make", "prototype"}
    imported = "const Foo = require('./foo');\nclass C extends Foo {\n  static more() {}\n}\n"
    assert {"more", "create", "prototype"} <= names(tmp_path, "b.js", imported + "C.", "javascript")  # a project file's
    assert not {"start", "stop"} & names(tmp_path, "c.js", imported + "C.", "javascript")  # not its instance's


def test_what_a_method_no_annotation_declares_returns(tmp_path: Path):
    made = ("class Q:\n    @classmethod\n    def load(cls, d):\n        if d:\n            return cls(d)\n        return cls(None)\n\n"
            "    def again(self):\n        def inner():\n            return 1\n        return self\n\n"
            "    def owner(self):\n        return Owner()\n\n    def mixed(self, x):\n        if x:\n            return self\n        return None\n\n"
            "    def many(self):\n        yield self\n\n    async def later(self):\n        return self\n\n")
    every = {"load", "again", "owner", "mixed", "many", "later"}
    assert names(tmp_path, "a.py", PY + made + "Q.load({}).", "python") == every
    assert names(tmp_path, "b.py", PY + made + "q = Q.load({})\nq.again().", "python") == every
    assert names(tmp_path, "c.py", PY + made + "q = Q.load({})\nq.owner().", "python") == {"age", "greet"}
    assert names(tmp_path, "d.py", PY + made + "q = Q.load({})\nq.mixed(1).", "python") is None  # also None
    assert names(tmp_path, "e.py", PY + made + "q = Q.load({})\nq.many().", "python") is None  # a generator
    assert names(tmp_path, "f.py", PY + made + "q = Q.load({})\nq.later().", "python") is None  # a coroutine
    js = "class Q {\n  static make() { return new Q(); }\n  again() { return this; }\n  run() {}\n}\n"
    assert names(tmp_path, "g.js", JS + js + "Q.make().again().", "javascript") == {"again", "run"}
    top = "function build() {\n  return new Item();\n}\n"
    assert names(tmp_path, "h.js", JS + top + "const i = build();\ni.owner.", "javascript") == {"greet"}
    assert names(tmp_path, "i.py", PY + "def build():\n    return Item()\n\ni = build()\ni.owner.", "python") == {"age", "greet"}


def test_a_method_returning_a_new_instance_of_its_own_class_or_a_module_s(tmp_path: Path):
    made = ("class Q:\n    def copy(self):\n        return type(self)(1)\n\n    def clone(self):\n        return self.__class__()\n\n"
            "    def owner(self):\n        return models.Owner()\n\n    def odd(self, x):\n        return type(x)()\n\n")
    every = {"copy", "clone", "owner", "odd"}
    assert names(tmp_path, "a.py", PY + made + "q = Q()\nq.copy().", "python") == every
    assert names(tmp_path, "b.py", PY + made + "q = Q()\nq.clone().", "python") == every
    assert names(tmp_path, "c.py", PY + made + "q = Q()\nq.odd(1).", "python") is None
    js = "class Q {\n  copy() { return new this.constructor(); }\n  run() {}\n}\n"
    assert names(tmp_path, "d.js", JS + js + "const q = new Q();\nq.copy().", "javascript") == {"copy", "run"}
